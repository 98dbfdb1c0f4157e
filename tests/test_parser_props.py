"""Property tests of the parser: grammar/parser agreement, chunk invariance, fuzzing (issue 3)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from strategies import calls_for, per_format, raw_values_round_trip, slow_per_format, tool, tool_lists
from toolgram.grammars import FORMATS, get_format
from toolgram.grammars.render import render_calls

import toolgram

FORMAT_IDS = list(FORMATS)


def _delta_message(deltas: list[dict[str, Any]]) -> dict[str, Any]:
    """Rebuild content, reasoning and calls from concatenated deltas."""
    content, reasoning = "", ""
    calls: dict[int, dict[str, Any]] = {}
    for d in deltas:
        assert len(d) == 1, d
        if "content" in d:
            content += d["content"]
        elif "reasoning_content" in d:
            reasoning += d["reasoning_content"]
        else:
            (tc,) = d["tool_calls"]
            i = tc["index"]
            if i not in calls:
                assert set(tc) == {"index", "id", "type", "function"}, tc
                assert i == len(calls)
                calls[i] = {"id": tc["id"], "type": tc["type"],
                            "function": {"name": tc["function"]["name"], "arguments": ""}}
            else:
                assert set(tc) == {"index", "function"} and set(tc["function"]) == {"arguments"}, tc
            calls[i]["function"]["arguments"] += tc["function"]["arguments"]
    return {"content": content or None, "reasoning_content": reasoning or None,
            "tool_calls": [calls[i] for i in sorted(calls)]}


def _stream(fmt: str, tools: Any, chunks: list[str | bytes], **kw: Any) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    sp = toolgram.StreamParser(fmt, tools, **kw)
    deltas: list[dict[str, Any]] = []
    for c in chunks:
        deltas += sp.feed(c)
    deltas += sp.finish()
    return sp.message, deltas


def _check_arguments(msg: dict[str, Any]) -> None:
    """Arguments are valid JSON, except those of a call cut off or ended by invalid text: they are kept
    as received (SPEC section 4: never completed into valid JSON), with their diagnostic."""
    codes = {d["code"] for d in msg["diagnostics"]}
    for c in msg["tool_calls"]:
        try:
            json.loads(c["function"]["arguments"])
        except ValueError:
            assert codes & {"truncated_call", "invalid_call"}, msg


def _check_invariance(fmt: str, tools: Any, text: str, cuts: list[int], **kw: Any) -> dict[str, Any]:
    whole = toolgram.parse(fmt, text, tools, **kw)
    _check_arguments(whole)
    bounds = sorted({0, len(text), *[c % (len(text) + 1) for c in cuts]})
    chunkings = [
        [text[a:b] for a, b in zip(bounds, bounds[1:], strict=False)],
        [text[i:i + 1] for i in range(len(text))],
        [text[i:i + 3] for i in range(0, len(text), 3)],
    ]
    for chunks in chunkings:
        msg, deltas = _stream(fmt, tools, chunks, **kw)
        assert msg == whole
        rebuilt = _delta_message(deltas)
        assert rebuilt == {k: msg[k] for k in ("content", "reasoning_content", "tool_calls")}
    # bytes split anywhere, including inside a multi-byte character
    raw = text.encode("utf-8")
    bcuts = sorted({0, len(raw), *[c % (len(raw) + 1) for c in cuts]})
    msg, _ = _stream(fmt, tools, [raw[a:b] for a, b in zip(bcuts, bcuts[1:], strict=False)], **kw)
    assert msg == whole
    return whole


# --------------------------------------------------------------------------------------------
# (a) grammar/parser agreement


@pytest.mark.parametrize("fmt", FORMAT_IDS)
@settings(max_examples=per_format(200), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_strict_and_lenient_return_the_rendered_calls(fmt: str, data: st.DataObject) -> None:
    _strict_and_lenient(fmt, data)


@pytest.mark.slow
@pytest.mark.parametrize("fmt", FORMAT_IDS)
@settings(max_examples=slow_per_format(200), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_strict_and_lenient_return_the_rendered_calls_full(fmt: str, data: st.DataObject) -> None:
    _strict_and_lenient(fmt, data)


def _strict_and_lenient(fmt: str, data: st.DataObject) -> None:
    tools = data.draw(tool_lists())
    calls = data.draw(calls_for(tools))
    if get_format(fmt).values in ("xml", "elements"):
        assume(raw_values_round_trip(tools, calls, get_format(fmt).call))
    text = render_calls(fmt, calls, wrapper=data.draw(st.booleans()))
    expected = [(n, json.dumps(a, ensure_ascii=False)) for n, a in calls]
    strict = toolgram.parse(fmt, text, tools, mode="strict", parallel_tool_calls=True)
    if strict["diagnostics"] and strict["diagnostics"][0]["code"] == "strict_rejected":
        # A grammar that rejects a canonical rendering is a compiler bug (reported), not a parser
        # one: the strict parser must then agree with Lark itself and return no call.
        from toolgram.engines.lark_engine import accepts_lark

        bundle = toolgram.compile(fmt, tools, dialect="lark", parallel_tool_calls=True)
        assert not accepts_lark(bundle.grammar, text, bundle.lark_parser)[0]
        assert strict["tool_calls"] == [] and strict["content"] == text.strip()
        assume(False)
    assert strict["diagnostics"] == []
    assert [(c["function"]["name"], c["function"]["arguments"]) for c in strict["tool_calls"]] == expected
    assert strict["content"] is None and strict["finish_reason"] == "tool_calls"
    lenient = toolgram.parse(fmt, text, tools, parallel_tool_calls=True)
    assert lenient == strict


# --------------------------------------------------------------------------------------------
# (b) chunk invariance

NASTY = st.text(alphabet="ab é😀\"'\\\n\t<>{}[]()=,;:/_x", max_size=12)
STREAM_TOOLS = [
    tool("get_weather", {"type": "object", "properties": {
        "location": {"type": "string"}, "days": {"type": "integer"}, "opts": {"type": "object"},
        "tags": {"type": "array", "items": {"type": "string"}}}, "required": ["location"]}),
    tool("noop", {"type": "object", "properties": {}}),
]


@st.composite
def stream_outputs(draw: st.DrawFn, fmt: str) -> str:
    spec = get_format(fmt)
    calls = []
    for _ in range(draw(st.integers(0, 3))):
        name = draw(st.sampled_from(["get_weather", "noop"]))
        args: dict[str, Any] = {}
        if name == "get_weather":
            args["location"] = draw(NASTY)
            if draw(st.booleans()):
                args["days"] = draw(st.integers(-10**20, 10**20))
            if draw(st.booleans()):
                args["opts"] = draw(st.dictionaries(NASTY, st.none() | st.booleans() | NASTY, max_size=2))
            if draw(st.booleans()):
                args["tags"] = draw(st.lists(NASTY, max_size=2))
        calls.append((name, args))
    text = render_calls(fmt, calls, wrapper=draw(st.booleans())) if calls else ""
    if spec.scope.per_call:
        join = draw(st.sampled_from(["", "\n", "\n\n", " ", "\t"]))
        text = text.replace(spec.scope.close + spec.scope.canonical_join + spec.scope.open,
                            spec.scope.close + join + spec.scope.open)
    before = draw(st.sampled_from(["", "Sure! ", "  \n", "Text with <tool and [brackets] {x}.\n"]))
    after = draw(st.sampled_from(["", "\n", " done.", "\n\nTrailing 😀"]))
    text = before + text + after
    if spec.reasoning is not None and draw(st.booleans()):
        text = spec.reasoning.open + draw(NASTY) + spec.reasoning.close + text
    if draw(st.booleans()):
        text = text[: draw(st.integers(0, len(text)))]  # truncated output
    return text


@pytest.mark.parametrize("fmt", FORMAT_IDS)
@settings(max_examples=per_format(120), deadline=None)
@given(data=st.data())
def test_chunk_invariance(fmt: str, data: st.DataObject) -> None:
    _chunk_invariance(fmt, data)


@pytest.mark.slow
@pytest.mark.parametrize("fmt", FORMAT_IDS)
@settings(max_examples=slow_per_format(120), deadline=None)
@given(data=st.data())
def test_chunk_invariance_full(fmt: str, data: st.DataObject) -> None:
    _chunk_invariance(fmt, data)


def _chunk_invariance(fmt: str, data: st.DataObject) -> None:
    text = data.draw(stream_outputs(fmt))
    cuts = data.draw(st.lists(st.integers(0, 10**6), max_size=6))
    _check_invariance(fmt, STREAM_TOOLS, text, cuts, parallel_tool_calls=True)


@pytest.mark.parametrize("fmt", FORMAT_IDS)
def test_chunks_split_tags_and_characters(fmt: str) -> None:
    spec = get_format(fmt)
    text = render_calls(fmt, [("get_weather", {"location": "Zürich é😀 \"q\" \\ <x>", "days": 2}),
                              ("noop", {})], wrapper=True)
    if spec.reasoning is not None:
        text = spec.reasoning.open + "thinking 😀" + spec.reasoning.close + "\n" + text
    msg = _check_invariance(fmt, STREAM_TOOLS, text, list(range(0, len(text), 2)), parallel_tool_calls=True)
    assert [c["function"]["name"] for c in msg["tool_calls"]] == ["get_weather", "noop"]
    args = json.loads(msg["tool_calls"][0]["function"]["arguments"])
    assert args == {"location": "Zürich é😀 \"q\" \\ <x>", "days": 2}
    # every cut of the whole text parses; a cut-off call keeps its arguments as received
    for cut in range(len(text)):
        part = toolgram.parse(fmt, text[:cut], STREAM_TOOLS, parallel_tool_calls=True)
        _check_arguments(part)


def test_string_arguments_stream_before_the_value_ends() -> None:
    sp = toolgram.StreamParser("qwen3_coder", STREAM_TOOLS)
    sp.feed("<tool_call>\n<function=get_weather>\n<parameter=location>\nPar")
    deltas = sp.feed("is is lovely and long")
    args = "".join(d["tool_calls"][0]["function"]["arguments"] for d in deltas if "tool_calls" in d)
    assert "is is lov" in args  # the held-back tail may still be the closing tag
    deltas = sp.feed("\n</parameter>\n<parameter=days>\n1")
    assert all("days" not in json.dumps(d) for d in deltas)  # an integer waits until complete
    # an end tag ends the value only once a next parameter or </function> follows (issue 12)
    assert sp.feed("2\n</parameter>\n") == []
    deltas = sp.feed("</function>")
    assert '"days": 12' in json.dumps(deltas[0], ensure_ascii=False).replace('\\"', '"')


def test_nothing_is_a_call_before_the_commit_point() -> None:
    sp = toolgram.StreamParser("hermes", STREAM_TOOLS)
    assert sp.feed("Hi <tool_call>\n{\"name\": \"get_wea") == [{"content": "Hi"}]
    deltas = sp.feed("ther\", ")
    assert deltas[0]["tool_calls"][0]["function"]["name"] == "get_weather"


# --------------------------------------------------------------------------------------------
# (d) fuzzing

PIECES = ["<tool_call>", "</tool_call>", "<function=get_weather>", "<parameter=location>", "</parameter>",
          "</function>", "<think>", "</think>", "<seed:tool_call>", "<seed:think>", "{", "}", "[", "]", "(",
          ")", '"', "'", "\\", "\n", " ", ",", ";", ":", "=", '"name"', '"arguments"', '"parameters"',
          "get_weather", "noop", "location", "<|python_tag|>", "<|python_start|>", "<|python_end|>", "é", "😀",
          "1e400", "True", "None", "\\u00e9", "\\ud83d", "x"]


@pytest.mark.parametrize("fmt", FORMAT_IDS)
@settings(max_examples=per_format(200), deadline=None)
@given(data=st.data())
def test_fuzz_never_raises(fmt: str, data: st.DataObject) -> None:
    _fuzz(fmt, data)


@pytest.mark.slow
@pytest.mark.parametrize("fmt", FORMAT_IDS)
@settings(max_examples=slow_per_format(200), deadline=None)
@given(data=st.data())
def test_fuzz_never_raises_full(fmt: str, data: st.DataObject) -> None:
    _fuzz(fmt, data)


def _fuzz(fmt: str, data: st.DataObject) -> None:
    kind = data.draw(st.sampled_from(["pieces", "text", "mutation"]))
    if kind == "pieces":
        text = "".join(data.draw(st.lists(st.sampled_from(PIECES), max_size=30)))
    elif kind == "text":
        text = data.draw(st.binary(max_size=60)).decode("utf-8", errors="replace") + data.draw(st.text(max_size=20))
    else:
        text = data.draw(stream_outputs(fmt))
        for _ in range(data.draw(st.integers(1, 4))):
            if not text:
                break
            i = data.draw(st.integers(0, len(text) - 1))
            j = data.draw(st.integers(i, min(len(text), i + 8)))
            op = data.draw(st.sampled_from(["delete", "dup", "insert"]))
            if op == "delete":
                text = text[:i] + text[j:]
            elif op == "dup":
                text = text[:j] + text[i:j] + text[j:]
            else:
                text = text[:i] + data.draw(st.sampled_from(PIECES)) + text[i:]
    for kw in ({}, {"parallel_tool_calls": False}, {"tool_choice": "required"}):
        _check_invariance(fmt, STREAM_TOOLS, text, [3, 7, 11], **kw)
    toolgram.parse(fmt, text, STREAM_TOOLS, mode="strict")


@pytest.mark.parametrize("fmt", FORMAT_IDS)
def test_long_output_compacts_the_buffer(fmt: str) -> None:
    """Long outputs (the buffer drops consumed text): same message, diagnostics offsets included."""
    spec = get_format(fmt)
    text = ("Some prose é. " * 800) + render_calls(
        fmt, [("get_weather", {"location": "x😀\\\"" * 3000, "days": 1, "opts": {"k": "v" * 5000}})]
    ) + "\ntrailing"
    if spec.reasoning is not None:
        text = spec.reasoning.open + "r" * 6000 + spec.reasoning.close + text
    whole = toolgram.parse(fmt, text, STREAM_TOOLS)
    assert len(whole["tool_calls"]) == 1
    codes = [d["code"] for d in whole["diagnostics"]]
    assert "trailing_text" in codes
    off = next(d["offset"] for d in whole["diagnostics"] if d["code"] == "trailing_text")
    assert text[off:].startswith("trailing")
    for n in (1, 7):
        msg, _ = _stream(fmt, STREAM_TOOLS, [text[i:i + n] for i in range(0, len(text), n)])
        assert msg == whole
