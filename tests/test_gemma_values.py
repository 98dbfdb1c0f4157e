"""Gemma 4's value syntax (grammars/syntax/gemma_text.py): writer and reader agree, and the
grammars, the strict parser and the streaming scanner read what the writer writes."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from toolgram.grammars.syntax import gemma_text
from toolgram.parsing.values import convert_gemma_value

import toolgram
from toolgram.errors import SchemaError

QUOTE = gemma_text.QUOTE
# text without the delimiter token (a string cannot hold it)
TEXT = st.text(alphabet='ab é😀"\'\\\n\t<>|{}[],:x', max_size=12).filter(lambda s: QUOTE not in s)
SCALARS = st.none() | st.booleans() | st.integers(-10**30, 10**30) | TEXT | st.floats(
    allow_nan=False, allow_infinity=False)
VALUES = st.recursive(SCALARS, lambda kids: st.lists(kids, max_size=3) | st.dictionaries(TEXT, kids, max_size=3),
                      max_leaves=12)
TOOLS = [{"type": "function", "function": {"name": "f", "parameters": {"type": "object", "properties": {
    "s": {"type": "string"}, "n": {"type": "integer"}, "o": {"type": "object"}, "a": {"type": "array"},
    "b": {"type": "boolean"}, "z": {"type": "null"}}}}}]


@settings(max_examples=300, deadline=None)
@given(VALUES)
def test_writer_reader_round_trip(value: Any) -> None:
    text = gemma_text.literal(value)
    assert gemma_text.read(text) == value
    assert convert_gemma_value(text, lenient=False) == (value, [])


@settings(max_examples=100, deadline=None)
@given(st.dictionaries(TEXT, VALUES, max_size=4))
def test_members_round_trip(args: dict[str, Any]) -> None:
    assert gemma_text.read_members(gemma_text.members(args)) == args


def test_the_templates_spelling() -> None:
    assert gemma_text.members({"city": "Paris", "days": 2}) == f"city:{QUOTE}Paris{QUOTE},days:2"
    assert gemma_text.literal({"a": [1, 2.5, True, None, {"b": "x"}]}) == "{a:[1,2.5,true,null,{b:" + QUOTE + \
        "x" + QUOTE + "}]}"
    # strings are raw: no escapes at all
    assert gemma_text.literal('a"b\\n\n') == QUOTE + 'a"b\\n\n' + QUOTE


def test_keys_that_cannot_stand_bare_are_quoted() -> None:
    assert gemma_text.key("ok_key.1") == "ok_key.1"
    for bad in ("", "a b", "a:b", "x,y", "{", "<", "'", '"', "\n"):
        assert gemma_text.key(bad) == QUOTE + bad + QUOTE
        assert gemma_text.read("{" + gemma_text.key(bad) + ":1}") == {bad: 1}


def test_a_string_cannot_hold_the_delimiter() -> None:
    with pytest.raises(ValueError):
        gemma_text.literal("a" + QUOTE + "b")


def test_reader_spellings() -> None:
    assert gemma_text.read("None", lenient=True) is None
    assert gemma_text.read("True", lenient=True) is True
    with pytest.raises(gemma_text.GemmaSyntaxError):
        gemma_text.read("None")
    assert gemma_text.read(' { a : [ 1 , 2 ] , b : "x" } ', lenient=True) == {"a": [1, 2], "b": "x"}
    assert gemma_text.read("{a:1,a:2}") == {"a": 2}  # SPEC: first position, last value
    for bad in ("{a:1", "[1,", QUOTE + "x", "{:1}", "01x", "{a 1}"):
        with pytest.raises(gemma_text.GemmaSyntaxError):
            gemma_text.read(bad)


def test_numbers_follow_the_json_rules() -> None:
    assert convert_gemma_value("3.0") == (3.0, [])
    big = "9" * 5000
    assert convert_gemma_value(big) == (int(big), [])
    value, diags = convert_gemma_value("{x:1e400}")
    assert value == {"x": "1e400"} and diags[0].code == "non_finite_number"


def test_deep_nesting_is_an_error_not_a_crash() -> None:
    value, diags = convert_gemma_value("[" * 5000)
    assert diags and diags[0].code == "invalid_literal"


def _call(args: dict[str, Any]) -> str:
    return "<|tool_call>call:f{" + gemma_text.members(args) + "}<tool_call|>"


@settings(max_examples=60, deadline=None)
@given(st.fixed_dictionaries({}, optional={"s": TEXT, "n": st.integers(-10**20, 10**20), "b": st.booleans(),
                                           "z": st.none(), "a": st.lists(VALUES, max_size=3),
                                           "o": st.dictionaries(TEXT, VALUES, max_size=3)}),
       st.integers(1, 7))
def test_strict_lenient_and_stream_agree(args: dict[str, Any], chunk: int) -> None:
    order = list(TOOLS[0]["function"]["parameters"]["properties"])  # the grammar's member order
    args = {k: args[k] for k in order if k in args}
    text = _call(args)
    want = json.dumps(args, ensure_ascii=False)
    for mode in ("strict", "lenient"):
        msg = toolgram.parse("gemma4", text, TOOLS, mode=mode)
        assert msg["diagnostics"] == [], (mode, msg)
        assert [c["function"]["arguments"] for c in msg["tool_calls"]] == [want]
    from toolgram.parsing.parser import StreamParser

    sp = StreamParser("gemma4", TOOLS)
    for i in range(0, len(text), chunk):
        sp.feed(text[i:i + chunk])
    sp.finish()
    assert sp.message == toolgram.parse("gemma4", text, TOOLS)


def test_delimiter_split_across_chunks() -> None:
    from toolgram.parsing.parser import StreamParser

    text = _call({"s": "a<|b<|\"c<|\"|d", "o": {"k": "v<"}})
    for cut in range(len(text)):
        sp = StreamParser("gemma4", TOOLS)
        sp.feed(text[:cut])
        sp.feed(text[cut:])
        sp.finish()
        assert json.loads(sp.message["tool_calls"][0]["function"]["arguments"]) == {
            "s": "a<|b<|\"c<|\"|d", "o": {"k": "v<"}}


def test_truncated_call_invents_nothing() -> None:
    msg = toolgram.parse("gemma4", "<|tool_call>call:f{s:" + QUOTE + "Par", TOOLS)
    assert msg["finish_reason"] == "length"
    assert msg["tool_calls"][0]["function"]["arguments"] == '{"s": "Par'


def test_property_names_must_stand_bare() -> None:
    for props, where in (({"a b": {"type": "string"}}, "$[0].function.parameters.properties"),
                         ({"o": {"type": "object", "properties": {"x:y": {}}}},
                          "$[0].function.parameters.properties.o.properties")):
        tools = [{"type": "function", "function": {"name": "g", "parameters": {"type": "object",
                                                                              "properties": props}}}]
        with pytest.raises(SchemaError) as err:
            toolgram.compile("gemma4", tools)
        assert err.value.path == where


def test_a_const_holding_the_delimiter_is_a_schema_error() -> None:
    tools = [{"type": "function", "function": {"name": "g", "parameters": {"type": "object", "properties": {
        "s": {"const": "a" + QUOTE}}}}}]
    with pytest.raises(SchemaError) as err:
        toolgram.compile("gemma4", tools)
    assert err.value.path.endswith(".const")
