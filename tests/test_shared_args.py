"""Tools share argument rules (``Grammar.tagged``): the same language, the same strict parse.

Each argument had a rule per tool (``arg-<tool>-<key>``, tagged for the strict parser), so tools with
the same parameters were spelled out once per tool in every dialect, and so were the rules above
them (Lark took ~15 ms per such tool to load; the XML formats printed ~1 KB per tool).  Now tools
whose argument has the same key and value share its rule, and then the member chains above it.
Here every grammar built that way is compared with the one built with a rule per tool (as before):
renderings of random calls to tools and to copies of them (the same parameters under another name),
and mutations of those, must be accepted and rejected alike by Lark and xgrammar, Lark must choose
the same parser (LALR or Earley), and the strict parser must read the same message.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import calls_for, mutations, per_format, slow_per_format, tool, tool_lists
from toolgram.compiler.bundle import compile
from toolgram.compiler.ir import Grammar
from toolgram.grammars import FORMATS
from toolgram.grammars.render import render_calls
from toolgram.parsing import strict

from toolgram.engines import lark_engine
from toolgram.engines import xgrammar_engine as xe

#: formats of each call syntax family the default run checks (the slow run takes them all)
DEFAULT_FORMATS = ("hermes", "pythonic", "qwen3_coder", "minimax_m2", "glm4", "gemma4", "deepseek_dsml", "kimi_k2")


@contextlib.contextmanager
def per_tool_rules() -> Iterator[None]:
    """Compile as before sharing: every tagged rule is a rule of its own."""
    saved = Grammar.tagged
    Grammar.tagged = lambda self, name, expr, meta, share: self.add(name, expr, meta)  # type: ignore[method-assign]
    strict._bundle.cache_clear()
    try:
        yield
    finally:
        Grammar.tagged = saved  # type: ignore[method-assign]
        strict._bundle.cache_clear()


def twinned(tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``tools`` and a copy of each under another name (``t0`` -> ``u0``)."""
    copies = [{**t, "function": {**t["function"], "name": "u" + t["function"]["name"][1:]}} for t in tools]
    return [*tools, *copies]


def check_same(fmt: str, tools: list[dict[str, Any]], calls: list[tuple[str, dict[str, Any]]]) -> None:
    options: dict[str, Any] = {"tool_choice": "required", "parallel_tool_calls": True}
    shared = {d: compile(fmt, tools, dialect=d, **options) for d in ("lark", "ebnf")}
    with per_tool_rules():
        own = {d: compile(fmt, tools, dialect=d, **options) for d in ("lark", "ebnf")}
    assert shared["lark"].grammar.count("\n") <= own["lark"].grammar.count("\n")
    assert shared["lark"].lark_parser == own["lark"].lark_parser
    xa, xb = xe.compile_ebnf(shared["ebnf"].grammar), xe.compile_ebnf(own["ebnf"].grammar)
    names = [t["function"]["name"] for t in tools]
    text = render_calls(fmt, calls)
    assert lark_engine.accepts_lark(shared["lark"].grammar, text, shared["lark"].lark_parser)[0], text
    for s in mutations(text, names):
        a = lark_engine.accepts_lark(shared["lark"].grammar, s, shared["lark"].lark_parser)
        b = lark_engine.accepts_lark(own["lark"].grammar, s, own["lark"].lark_parser)
        assert a == b, f"shared {a} vs per tool {b} on {s!r}"
        assert xe.accepts_compiled(xa, s)[0] == xe.accepts_compiled(xb, s)[0] == a[0], s
    for s in mutations(text, names)[:6]:
        read = strict.parse_strict(fmt, s, tools, **options)
        with per_tool_rules():
            assert strict.parse_strict(fmt, s, tools, **options) == read, s


@st.composite
def examples(draw: st.DrawFn) -> tuple[list, list]:
    tools = twinned(draw(tool_lists()))
    return tools, draw(calls_for(tools))


@pytest.mark.parametrize("fmt", DEFAULT_FORMATS)
@settings(max_examples=per_format(40, minimum=12), deadline=None)
@given(data=st.data())
def test_shared_arguments_same_language(fmt: str, data: st.DataObject) -> None:
    check_same(fmt, *data.draw(examples()))


@pytest.mark.slow
@pytest.mark.parametrize("fmt", list(FORMATS))
@settings(max_examples=slow_per_format(40, minimum=8), deadline=None)  # ~10 s per format at 50 examples
@given(data=st.data())
def test_shared_arguments_same_language_long(fmt: str, data: st.DataObject) -> None:
    check_same(fmt, *data.draw(examples()))


SAME = {"type": "object", "properties": {
    "location": {"type": "string"}, "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
    "days": {"type": "integer", "minimum": 1, "maximum": 14}, "tags": {"type": "array", "items": {"type": "string"}}},
    "required": ["location"]}


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_same_parameters_cost_one_line_per_tool(fmt: str) -> None:
    """Tools with the same parameters add one call rule each (and a name in the choice of calls), in
    every dialect; calls to any of them read the same either way."""
    for dialect in ("gbnf", "ebnf", "lark"):
        lines = {n: compile(fmt, [tool(f"tool_{i}", SAME) for i in range(n)], dialect=dialect).grammar.count("\n")
                 for n in (10, 20)}
        assert lines[20] - lines[10] <= 2 * 10, (dialect, lines)


@pytest.mark.parametrize("fmt", ["pythonic", "qwen3_coder", "minimax_m2", "hermes"])
def test_many_copies_read_the_same(fmt: str) -> None:
    tools = [tool(f"tool_{i}", SAME) for i in range(12)]
    calls = [("tool_7", {"location": "Paris", "days": 3}), ("tool_11", {"location": "x", "tags": ["a"]})]
    check_same(fmt, tools, calls)


def test_recursive_rules() -> None:
    """Recursive ``$ref`` schemas (rules on a cycle) under tools with the same parameters."""
    node = {"type": "object", "properties": {"name": {"type": "string"}, "kids": {
        "type": "array", "items": {"$ref": "#"}}}, "required": ["name"]}
    tools = [tool("t0", node), tool("u0", node)]
    check_same("hermes", tools, [("u0", {"name": "a", "kids": [{"name": "b", "kids": []}]})])
    check_same("qwen3_coder", tools, [("t0", {"name": "a", "kids": [{"name": "b"}]})])


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_same_value_under_another_key_is_not_shared(fmt: str) -> None:
    """An argument rule is shared only under the same key: the strict parser reads the key from it."""
    tools = [tool("t0", {"type": "object", "properties": {"a": {"type": "string"}, "n": {"type": "integer"}}}),
             tool("t1", {"type": "object", "properties": {"b": {"type": "string"}, "m": {"type": "integer"}}})]
    calls = [("t1", {"b": "x", "m": 2}), ("t0", {"a": "y", "n": 3})]
    check_same(fmt, tools, calls)
    msg = strict.parse_strict(fmt, render_calls(fmt, calls), tools, tool_choice="required", parallel_tool_calls=True)
    assert [(c["function"]["name"], c["function"]["arguments"]) for c in msg["tool_calls"]] == [
        ("t1", '{"b": "x", "m": 2}'), ("t0", '{"a": "y", "n": 3}')], msg
