"""The call syntaxes of the last three templates (issue 23 section 3), one feature at a time.

* Kimi-K3 (``kimi_k3``): typed argument attributes (``type="string|number|boolean|null|object|array"``,
  the grammar admits the words of the schema's types) and a call index (``index="1"``);
* MiniMax-M3 (``minimax_m3``): arguments expanded into nested elements named by their keys
  (objects, arrays as ``<item>`` elements, raw strings holding markup characters);
* muse-glimmer (``muse_glimmer``): the harmony-like recipient header `` to=N<|message|>`` and the
  invoke block naming the tool again; calls as separate messages.

Each output is parsed whole (strict and lenient) and streamed in chunks of 1, 3 and random sizes, and
checked in every dialect's engine (llama.cpp GBNF, xgrammar EBNF and structural tag, Lark). The texts
are written here by hand from the templates' spelling.
"""

from __future__ import annotations

import functools
import json
import random
from typing import Any

import pytest
from strategies import engine_results
from toolgram.compiler.dialects import NAMES as DIALECTS
from toolgram.grammars.render import render_calls

import toolgram
from toolgram.errors import ToolgramError

NS = "]<]minimax[>["

TYPED = [{"type": "function", "function": {"name": "set", "parameters": {
    "type": "object",
    "properties": {"s": {"type": "string"}, "i": {"type": "integer"}, "f": {"type": "number"},
                   "b": {"type": "boolean"}, "n": {"type": "null"}, "o": {"type": "object"},
                   "a": {"type": "array", "items": {"type": "integer"}}, "u": {"type": ["string", "integer"]}},
    "required": ["s"]}}}]

NESTED = [{"type": "function", "function": {"name": "plan", "parameters": {
    "type": "object",
    "properties": {
        "title": {"type": "string"},
        "stops": {"type": "array", "items": {"type": "object", "properties": {
            "city": {"type": "string"}, "nights": {"type": "integer"}}, "required": ["city"]}},
        "tags": {"type": "array", "items": {"type": "string"}},
        "meta": {"type": "object", "properties": {
            "meta": {"type": "object", "properties": {"ok": {"type": "boolean"}}},
            "item": {"type": "string"}}},
        "ratio": {"type": "number"}},
    "required": ["title"]}}}]

WEATHER = [
    {"type": "function", "function": {"name": "get_weather", "parameters": {
        "type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
        "required": ["city"]}}},
    {"type": "function", "function": {"name": "get_time", "parameters": {
        "type": "object", "properties": {"timezone": {"type": "string"}}}}},
]


def _chunkings(text: str) -> list[list[str]]:
    rng = random.Random(text)
    out = [list(text), [text[i:i + 3] for i in range(0, len(text), 3)]]
    for _ in range(2):
        cuts = sorted({0, len(text), *(rng.randrange(len(text) + 1) for _ in range(rng.randint(1, 9)))})
        out.append([text[a:b] for a, b in zip(cuts, cuts[1:], strict=False)])
    return out


def _calls(msg: Any) -> list[tuple[str, Any]]:
    return [(c["function"]["name"], json.loads(c["function"]["arguments"])) for c in msg["tool_calls"]]


def _read_everywhere(fmt: str, text: str, tools: list[dict[str, Any]], **kw: Any) -> dict[str, Any]:
    """The lenient message, checked equal to the strict one and to every streamed chunking."""
    whole = toolgram.parse(fmt, text, tools, **kw)
    strict = toolgram.parse(fmt, text, tools, mode="strict", **kw)
    assert _calls(strict) == _calls(whole) and strict["content"] == whole["content"], (strict, whole)
    for chunks in _chunkings(text):
        sp = toolgram.StreamParser(fmt, tools, **kw)
        for c in chunks:
            sp.feed(c)
        sp.finish()
        assert sp.message == whole, chunks
    return whole


@functools.cache
def _bundle(fmt: str, tools_json: str, dialect: str, choice: str) -> Any:
    return toolgram.compile(fmt, json.loads(tools_json), dialect=dialect, tool_choice=choice, reasoning="none",
                            parallel_tool_calls=True)


def _verdicts(fmt: str, tools: list[dict[str, Any]], text: str, choice: str = "required") -> dict[str, bool]:
    """Per dialect: does every engine of it accept ``text`` as a complete match?"""
    return {d: all(ok for ok, _ in engine_results(_bundle(fmt, json.dumps(tools), d, choice), text).values())
            for d in DIALECTS}


# ------------------------------------------------------------------------------------------------ Kimi-K3

K3_OPEN = "<|close|>response<|sep|><|open|>tools<|sep|>"
K3_CLOSE = "<|close|>tools<|sep|><|close|>message<|sep|>"


def _k3(*calls: str) -> str:
    return K3_OPEN + "".join(calls) + K3_CLOSE


def _k3_call(name: str, index: int, *args: tuple[str, str, str]) -> str:
    body = "".join(f'<|open|>argument key="{k}" type="{t}"<|sep|>{v}<|close|>argument<|sep|>' for k, t, v in args)
    return f'<|open|>call tool="{name}" index="{index}"<|sep|>{body}<|close|>call<|sep|>'


def test_kimi_k3_renders_a_type_word_per_json_type_and_numbers_calls_from_one() -> None:
    args = {"s": "x <y> & z", "i": 3, "f": 2.5, "b": False, "n": None, "o": {"k": [1]}, "a": [1, 2]}
    text = render_calls("kimi_k3", [("set", args), ("set", {"s": ""})])
    assert _k3_call("set", 1, ("s", "string", "x <y> & z"), ("i", "number", "3"), ("f", "number", "2.5"),
                    ("b", "boolean", "false"), ("n", "null", "null"), ("o", "object", '{"k": [1]}'),
                    ("a", "array", "[1, 2]")) in text
    assert _k3_call("set", 2, ("s", "string", "")) in text
    msg = _read_everywhere("kimi_k3", text, TYPED)
    assert _calls(msg) == [("set", args), ("set", {"s": ""})]


def test_kimi_k3_reads_any_call_index() -> None:
    text = _k3(_k3_call("get_weather", 7, ("city", "string", "Paris")), _k3_call("get_time", 0))
    msg = _read_everywhere("kimi_k3", text, WEATHER)
    assert _calls(msg) == [("get_weather", {"city": "Paris"}), ("get_time", {})]
    assert all(_verdicts("kimi_k3", WEATHER, text).values())


@pytest.mark.parametrize(("key", "word", "value", "ok"), [
    ("i", "number", "3", True),
    ("i", "string", "3", False),     # an integer is written type="number"
    ("i", "integer", "3", False),    # not an XTML type word
    ("s", "number", "3", False),     # a string schema is written type="string"
    ("b", "boolean", "true", True),
    ("n", "null", "null", True),
    ("a", "array", "[1, 2]", True),
    ("a", "object", "[1, 2]", False),
    ("u", "string", "abc", True),    # a union with string: either word
    ("u", "number", "4", True),
])
def test_kimi_k3_grammar_admits_the_type_words_of_the_schema(key: str, word: str, value: str, ok: bool) -> None:
    text = _k3(_k3_call("set", 1, ("s", "string", "x"), (key, word, value)) if key != "s" else
               _k3_call("set", 1, (key, word, value)))
    assert _verdicts("kimi_k3", TYPED, text) == {d: ok for d in DIALECTS}


def test_kimi_k3_value_typed_by_the_schema_whatever_the_word() -> None:
    """The lenient parser reads any type word and types the value by the schema (SPEC section 1)."""
    text = _k3(_k3_call("set", 1, ("s", "number", "42"), ("i", "number", "5")))
    msg = toolgram.parse("kimi_k3", text, TYPED)
    assert _calls(msg) == [("set", {"s": "42", "i": 5})]


# ------------------------------------------------------------------------------------------------ MiniMax-M3


def _m3(*calls: str) -> str:
    return f"{NS}<tool_call>\n" + "".join(calls) + f"{NS}</tool_call>"


def _m3_call(name: str, body: str) -> str:
    return f'{NS}<invoke name="{name}">{body}{NS}</invoke>\n'


def _el(key: str, value: str) -> str:
    return f"{NS}<{key}>{value}{NS}</{key}>"


NESTED_ARGS = {
    "title": 'Trip <a href="x">&amp; more</a>\n  indented ] [ ]<] not the token',
    "stops": [{"city": "Paris", "nights": 2}, {"city": "Rome"}],
    "tags": ["", "b"],
    "meta": {"meta": {"ok": True}, "item": "not an array"},
    "ratio": 0.5,
}
NESTED_TEXT = _m3(_m3_call("plan", "".join((
    _el("title", NESTED_ARGS["title"]),
    _el("stops", _el("item", _el("city", "Paris") + _el("nights", "2")) + _el("item", _el("city", "Rome"))),
    _el("tags", _el("item", "") + _el("item", "b")),
    _el("meta", _el("meta", _el("ok", "true")) + _el("item", "not an array")),
    _el("ratio", "0.5"),
))))


def test_minimax_m3_renders_nested_elements_as_the_template_does() -> None:
    assert render_calls("minimax_m3", [("plan", NESTED_ARGS)]) == NESTED_TEXT


def test_minimax_m3_reads_objects_arrays_and_raw_strings_back() -> None:
    msg = _read_everywhere("minimax_m3", NESTED_TEXT, NESTED)
    assert _calls(msg) == [("plan", NESTED_ARGS)]
    assert msg["diagnostics"] == []


def test_minimax_m3_grammars_accept_nested_elements() -> None:
    assert all(_verdicts("minimax_m3", NESTED, NESTED_TEXT).values())


@pytest.mark.parametrize("body", [
    _el("title", "t") + _el("tags", '["a"]'),                      # an array written as JSON
    _el("title", "t") + _el("stops", _el("item", _el("nights", "2"))),  # an item without its required city
    _el("title", "t") + _el("stops", _el("city", "Paris")),        # an array item not in <item>
    _el("title", "t") + _el("ratio", "half"),                      # not a number
    _el("title", f"a{NS}b"),                                        # a string cannot hold the namespace token
])
def test_minimax_m3_grammars_reject(body: str) -> None:
    text = _m3(_m3_call("plan", body))
    assert not any(_verdicts("minimax_m3", NESTED, text).values())


def test_minimax_m3_empty_object_and_array_are_no_text() -> None:
    text = _m3(_m3_call("plan", _el("title", "t") + _el("stops", "") + _el("meta", "")))
    msg = _read_everywhere("minimax_m3", text, NESTED)
    assert _calls(msg) == [("plan", {"title": "t", "stops": [], "meta": {}})]


def test_minimax_m3_truncated_value_kept_as_received() -> None:
    text = _m3(_m3_call("plan", _el("title", "t")))
    cut = text[: text.index(f"{NS}</invoke>")] + f"{NS}<stops>{NS}<item>{NS}<city>Par"
    msg = toolgram.parse("minimax_m3", cut, NESTED)
    for chunks in _chunkings(cut):
        sp = toolgram.StreamParser("minimax_m3", NESTED)
        for c in chunks:
            sp.feed(c)
        sp.finish()
        assert sp.message == msg, chunks
    assert msg["finish_reason"] == "length"
    assert [d["code"] for d in msg["diagnostics"]] == ["truncated_call"]
    assert msg["tool_calls"][0]["function"]["arguments"] == '{"title": "t", "stops": ' + cut[cut.index(
        f"{NS}<item>"):]


def test_minimax_m3_a_union_of_object_and_scalar_is_refused() -> None:
    tools = [{"type": "function", "function": {"name": "f", "parameters": {"type": "object", "properties": {
        "x": {"anyOf": [{"type": "object"}, {"type": "integer"}]}}}}}]
    with pytest.raises(ToolgramError, match="union"):
        toolgram.compile("minimax_m3", tools)


# ------------------------------------------------------------------------------------------------ muse-glimmer


def _muse(name: str, params: str, invoke_name: str | None = None) -> str:
    return (f' to={name}<|message|><atem:function_calls>\n<atem:invoke name="{invoke_name or name}">\n'
            f"{params}</atem:invoke>\n</atem:function_calls>")


def test_muse_glimmer_recipient_header_and_one_message_per_call() -> None:
    one = _muse("get_weather", '<atem:parameter name="city">Paris</atem:parameter>\n'
                               '<atem:parameter name="days">2</atem:parameter>\n')
    text = one + "<|eom|><|start|>assistant" + _muse("get_time", "")
    assert render_calls("muse_glimmer", [("get_weather", {"city": "Paris", "days": 2}), ("get_time", {})]) == text
    msg = _read_everywhere("muse_glimmer", text, WEATHER)
    assert _calls(msg) == [("get_weather", {"city": "Paris", "days": 2}), ("get_time", {})]
    assert msg["content"] is None
    assert all(_verdicts("muse_glimmer", WEATHER, text).values())


def test_muse_glimmer_invoke_must_name_the_recipient() -> None:
    text = _muse("get_weather", '<atem:parameter name="city">Paris</atem:parameter>\n', invoke_name="get_time")
    assert not any(_verdicts("muse_glimmer", WEATHER, text).values())
    msg = toolgram.parse("muse_glimmer", text, WEATHER)
    assert [d["code"] for d in msg["diagnostics"]][:1] == ["invalid_call"]
    assert json.loads(msg["tool_calls"][0]["function"]["arguments"] + "}") == {}


def test_muse_glimmer_unknown_recipient_stays_content() -> None:
    text = _muse("delete_all", "")
    msg = _read_everywhere("muse_glimmer", text, WEATHER)
    assert msg["tool_calls"] == [] and msg["content"] == text.strip()
