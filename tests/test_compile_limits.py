"""Compile-side limits (issue 12 sections 2 and 3, issue 13 findings 7-9): ``max_tool_calls`` in every
dialect; huge enums and tool lists compile in bounded time; depth and bounds past toolgram's limits
are a one-line ToolgramError naming the JSON path and the limit."""

from __future__ import annotations

import time

import pytest
from strategies import TIME, WEATHER, engine_results
from toolgram.compiler.bundle import compile
from toolgram.grammars import FORMATS
from toolgram.runtime.render import render_calls

DIALECTS = ["gbnf", "ebnf", "lark", "structural-tag"]
CALLS = [("get_weather", {"location": "Paris"}), ("get_time", {"timezone": "UTC"}),
         ("get_weather", {"location": "Rome"}), ("get_time", {"timezone": "CET"})]


@pytest.mark.parametrize("choice", ["auto", "required"])
@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("fmt", list(FORMATS))
def test_max_tool_calls(fmt: str, dialect: str, choice: str) -> None:
    """At most N calls: N are accepted, N + 1 rejected (GBNF auto is the lazy grammar)."""
    bundle = compile(fmt, [WEATHER, TIME], dialect=dialect, tool_choice=choice, parallel_tool_calls=True,
                     max_tool_calls=2)
    for n, want in ((1, True), (2, True), (3, False)):
        text = render_calls(fmt, CALLS[:n])
        for engine, (ok, pos) in engine_results(bundle, text).items():
            assert ok == want, f"{engine}: {n} call(s) {'rejected at ' + str(pos) if want else 'accepted'}: {text!r}"


@pytest.mark.parametrize("dialect", DIALECTS)
def test_max_tool_calls_one_is_parallel_off(dialect: str) -> None:
    one = compile("hermes", [WEATHER, TIME], dialect=dialect, tool_choice="required", max_tool_calls=1)
    off = compile("hermes", [WEATHER, TIME], dialect=dialect, tool_choice="required", parallel_tool_calls=False)
    assert one.grammar == off.grammar


def test_max_tool_calls_large_is_cheap() -> None:
    t = time.perf_counter()
    for dialect in DIALECTS:
        compile("hermes", [WEATHER, TIME], dialect=dialect, tool_choice="required", max_tool_calls=200)
    assert time.perf_counter() - t < 20
