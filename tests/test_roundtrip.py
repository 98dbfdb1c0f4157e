"""Round trip (hypothesis): random schema -> random valid arguments -> ``render_calls`` -> accepted
by xgrammar (EBNF), llama.cpp (GBNF) and Lark alike.

Grammars are compiled with ``tool_choice="required"`` and parallel calls on (non-lazy GBNF, one
to three calls), and cached per (format, tools). Strings are restricted as documented in
``strategies.py``. Generated arguments are first validated with ``jsonschema`` (strict tools), so
a failure here is a grammar/renderer disagreement, not a bad example. The default run takes 200
examples per format; ``-m slow`` takes 1000.
"""

from __future__ import annotations

import json
from functools import cache

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import calls_for, engine_results, tool, tool_lists
from toolgram.compiler.bundle import Bundle, compile
from toolgram.grammars import FORMATS
from toolgram.runtime.render import render_calls

DIALECTS = ("ebnf", "gbnf", "lark")

#: Compiler bug (see test_xml_bounded_string_*): a string with ``maxLength`` in the XML formats
#: breaks EBNF (xgrammar rejects ``[^<]{1,N}?``) and qwen3_coder's Lark grammar. Until it is
#: fixed the round trip draws unbounded strings for these formats only; the strict xfails below
#: start failing when the fix lands, and then this set must be emptied.
BOUNDED_STRING_BUG = {"seed_oss", "qwen3_coder"}
#: Compiler bug (see test_loose_arguments_lark): hermes/llama3_json Lark grammars reject a
#: ``strict: false`` tool's arguments with 2+ keys; those formats draw at most one key until fixed.
LOOSE_KEYS_BUG = {"hermes", "llama3_json"}


@cache
def _bundles(fmt: str, tools_json: str) -> tuple[Bundle, ...]:
    tools = json.loads(tools_json)
    return tuple(compile(fmt, tools, dialect=d, tool_choice="required", parallel_tool_calls=True)
                 for d in DIALECTS)


@st.composite
def examples(draw: st.DrawFn, fmt: str) -> tuple[list, list]:
    tools = draw(tool_lists(bounded_strings=fmt not in BOUNDED_STRING_BUG))
    return tools, draw(calls_for(tools, max_loose_keys=1 if fmt in LOOSE_KEYS_BUG else 3))


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
@settings(max_examples=200)
@given(data=st.data())
def test_round_trip(fmt: str, data: st.DataObject) -> None:
    check_round_trip(fmt, *data.draw(examples(fmt)))


@pytest.mark.slow
@pytest.mark.parametrize("fmt", list(FORMATS))
@settings(max_examples=1000)
@given(data=st.data())
def test_round_trip_long(fmt: str, data: st.DataObject) -> None:
    check_round_trip(fmt, *data.draw(examples(fmt)))


BOUNDED = [tool("t0", {"type": "object", "properties": {"a": {"type": "string", "maxLength": 3}}})]


@pytest.mark.parametrize("fmt", sorted(BOUNDED_STRING_BUG))
@pytest.mark.xfail(strict=True, reason="compiler bug: EBNF emits `[^<]{1,3}?` for an optional bounded raw "
                   "string; xgrammar: 'Expect element, but got ?'")
def test_xml_bounded_string_ebnf(fmt: str) -> None:
    check_round_trip(fmt, BOUNDED, [("t0", {"a": "ab"})])


@pytest.mark.xfail(strict=True, reason="compiler bug: qwen3_coder Lark terminal /[^<]{1,3}/ eats the newline "
                   "before '\\n</parameter>', so 'ab' (shorter than maxLength) is rejected")
def test_xml_bounded_string_lark_qwen3_coder() -> None:
    bundle = compile("qwen3_coder", BOUNDED, dialect="lark", tool_choice="required")
    text = render_calls("qwen3_coder", [("t0", {"a": "ab"})])
    assert engine_results(bundle, text)["lark"][0]


@pytest.mark.parametrize("fmt", sorted(LOOSE_KEYS_BUG))
@pytest.mark.xfail(strict=True, reason="compiler bug: Lark rejects a strict:false tool's arguments with 2+ keys "
                   "at the second key")
def test_loose_arguments_lark(fmt: str) -> None:
    tools = [tool("free", {"type": "object", "properties": {}}, strict=False)]
    bundle = compile(fmt, tools, dialect="lark", tool_choice="required")
    assert engine_results(bundle, render_calls(fmt, [("free", {"a": 1, "b": 2})]))["lark"][0]
