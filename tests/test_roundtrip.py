"""Round trip (hypothesis): random schema -> random valid arguments -> ``render_calls`` -> accepted
by xgrammar (EBNF), llama.cpp (GBNF) and Lark alike.

Grammars are compiled with ``tool_choice="required"`` and parallel calls on (non-lazy GBNF, one
to three calls), and cached per (format, tools). Strings are restricted as documented in
``strategies.py``. Generated arguments are first validated with ``jsonschema`` (strict tools), so
a failure here is a grammar/renderer disagreement, not a bad example. The default run shares 3 x 200
examples among the formats (``per_format``); ``-m slow`` shares 3 x 1000 (``slow_per_format``).
"""

from __future__ import annotations

import json
from functools import cache

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import calls_for, engine_results, per_format, slow_per_format, tool, tool_lists
from toolgram.compiler.bundle import Bundle, compile
from toolgram.grammars import FORMATS
from toolgram.grammars.render import render_calls

DIALECTS = ("ebnf", "gbnf", "lark")

#: Formats whose raw XML strings carry ``maxLength`` (regression cases below).
XML_FORMATS = ("seed_oss", "qwen3_coder")


@cache
def _bundles(fmt: str, tools_json: str) -> tuple[Bundle, ...]:
    tools = json.loads(tools_json)
    return tuple(compile(fmt, tools, dialect=d, tool_choice="required", parallel_tool_calls=True)
                 for d in DIALECTS)


@st.composite
def examples(draw: st.DrawFn, fmt: str) -> tuple[list, list]:
    tools = draw(tool_lists())
    return tools, draw(calls_for(tools))


def check_round_trip(fmt: str, tools: list, calls: list) -> None:
    by_name = {t["function"]["name"]: t["function"] for t in tools}
    for name, args in calls:
        fn = by_name[name]
        if fn.get("strict") is not False:
            jsonschema.validate(args, fn.get("parameters") or {"type": "object", "properties": {}})
    text = render_calls(fmt, calls)
    results = {}
    for bundle in _bundles(fmt, json.dumps(tools, sort_keys=False)):
        results.update({f"{bundle.dialect}/{k}": v for k, v in engine_results(bundle, text).items()})
    rejected = {k: text[(pos or 0):][:50] for k, (ok, pos) in results.items() if not ok}
    assert not rejected, f"rejected by {rejected}\ntext: {text!r}\ntools: {json.dumps(tools)}"


@pytest.mark.parametrize("fmt", list(FORMATS))
@settings(max_examples=per_format(200))  # the slow twin: test_round_trip_long
@given(data=st.data())
def test_round_trip(fmt: str, data: st.DataObject) -> None:
    check_round_trip(fmt, *data.draw(examples(fmt)))


@pytest.mark.slow
@pytest.mark.parametrize("fmt", list(FORMATS))
@settings(max_examples=slow_per_format(1000))
@given(data=st.data())
def test_round_trip_long(fmt: str, data: st.DataObject) -> None:
    check_round_trip(fmt, *data.draw(examples(fmt)))


BOUNDED = [tool("t0", {"type": "object", "properties": {"a": {"type": "string", "maxLength": 3}}})]


@pytest.mark.parametrize("fmt", XML_FORMATS)
def test_xml_bounded_string(fmt: str) -> None:
    """Regression: EBNF once emitted ``[^<]{1,3}?`` (xgrammar: 'Expect element, but got ?')."""
    check_round_trip(fmt, BOUNDED, [("t0", {"a": "ab"})])
    check_round_trip(fmt, BOUNDED, [("t0", {"a": "abc"}), ("t0", {})])


def test_xml_bounded_string_lark_qwen3_coder() -> None:
    """Regression: the Lark terminal /[^<]{1,3}/ ate the newline before ``\\n</parameter>``."""
    bundle = compile("qwen3_coder", BOUNDED, dialect="lark", tool_choice="required")
    text = render_calls("qwen3_coder", [("t0", {"a": "ab"})])
    assert engine_results(bundle, text)["lark"][0]


@pytest.mark.parametrize("fmt", ["hermes", "llama3_json"])
def test_loose_arguments_lark(fmt: str) -> None:
    """Regression: Lark rejected a ``strict: false`` tool's arguments at the second key."""
    tools = [tool("free", {"type": "object", "properties": {}}, strict=False)]
    bundle = compile(fmt, tools, dialect="lark", tool_choice="required")
    assert engine_results(bundle, render_calls(fmt, [("free", {"a": 1, "b": 2})]))["lark"][0]


INNER = {"type": "object", "properties": {"b": {"type": "integer"}}, "required": ["b"]}
SHARED_CASES = [
    ([tool("t0", {"type": "object", "properties": {}}),
      tool("t1", {"type": "object", "properties": {"a": {"type": "object", "properties": {}}}})],
     [("t1", {"a": {}}), ("t0", {})]),
    ([tool("t0", INNER), tool("t1", {"type": "object", "properties": {"a": INNER}, "required": ["a"]})],
     [("t1", {"a": {"b": 1}})]),
]


@pytest.mark.parametrize("fmt", ["hermes", "llama3_json"])
@pytest.mark.parametrize("case", range(len(SHARED_CASES)))
def test_shared_object_rule(fmt: str, case: int) -> None:
    """Regression (found by the round trip): a nested object schema equal to another tool's
    parameters once shared one Lark rule, and the second '}' was lexed as the call's end."""
    tools, calls = SHARED_CASES[case]
    check_round_trip(fmt, tools, calls)
