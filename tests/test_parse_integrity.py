"""Nothing lost, nothing invented (issue 12, SPEC section 4) and explicit API input types (issue 13 #14).

- Raw XML values come back byte-exact: only the padding the format's own description writes is
  stripped, and a value ends at an end tag followed by a next parameter, ``</function>`` or the end.
- A call cut off or ended by invalid text keeps its arguments as received: never completed into
  valid JSON, never ``{}``.
- ``max_tool_calls``, the accepted input types, integers past the documented digit bound, strict
  mode's nesting bound.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from strategies import calls_for, per_format, raw_values_round_trip, tool, tool_lists
from toolgram.grammars import FORMATS, get_format
from toolgram.grammars.render import render_calls
from toolgram.parsing.pyliteral import MAX_INT_DIGITS
from toolgram.parsing.strict import MAX_STRICT_DEPTH

import toolgram

XML_FORMATS = [f for f in FORMATS if get_format(f).values == "xml"]
CODE = tool("write", {"type": "object", "properties": {"path": {"type": "string"}, "code": {"type": "string"},
                                                         "n": {"type": "integer"}}, "required": ["code"]})


def _calls(msg: dict[str, Any]) -> list[tuple[str, str]]:
    return [(c["function"]["name"], c["function"]["arguments"]) for c in msg["tool_calls"]]


def _stream(fmt: str, tools: Any, text: str, size: int = 1, **kw: Any) -> tuple[dict[str, Any], list[Any]]:
    sp = toolgram.StreamParser(fmt, tools, **kw)
    deltas: list[Any] = []
    for i in range(0, len(text), size):
        deltas += sp.feed(text[i:i + size])
    deltas += sp.finish()
    return sp.message, deltas


def _streamed_arguments(deltas: list[Any]) -> dict[int, str]:
    out: dict[int, str] = {}
    for d in deltas:
        if "tool_calls" in d:
            tc = d["tool_calls"][0]
            out[tc["index"]] = out.get(tc["index"], "") + tc["function"]["arguments"]
    return out


def _lark_accepts(fmt: str, tools: Any, text: str) -> bool:
    from toolgram.engines.lark_engine import accepts_lark

    bundle = toolgram.compile(fmt, tools, dialect="lark", parallel_tool_calls=True)
    return bool(accepts_lark(bundle.grammar, text, bundle.lark_parser)[0])


# --------------------------------------------------------------------------------------------
# 1. raw XML values


def test_seed_oss_keeps_the_trailing_newline() -> None:
    """Seed-OSS writes values unpadded: the newline belongs to the value (issue 12: 50 of 955 misses)."""
    code = "def f(x):\n    return x << 1\n"
    text = render_calls("seed_oss", [("write", {"code": code})])
    assert text.count(code + "</parameter>") == 1
    for mode in ("lenient", "strict"):
        msg = toolgram.parse("seed_oss", text, [CODE], mode=mode)
        assert json.loads(msg["tool_calls"][0]["function"]["arguments"]) == {"code": code}, mode
    assert _stream("seed_oss", [CODE], text)[0] == toolgram.parse("seed_oss", text, [CODE])


def test_padding_comes_from_the_format_description() -> None:
    # qwen3_coder pads one newline each side (strip it when present); seed_oss pads nothing
    q = "<tool_call>\n<function=write>\n<parameter=code>\n\nx\n\n</parameter>\n</function>\n</tool_call>"
    assert _calls(toolgram.parse("qwen3_coder", q, [CODE])) == [("write", '{"code": "\\nx\\n"}')]
    q = "<tool_call>\n<function=write>\n<parameter=code>x</parameter>\n</function>\n</tool_call>"
    assert _calls(toolgram.parse("qwen3_coder", q, [CODE])) == [("write", '{"code": "x"}')]
    s = "<seed:tool_call>\n<function=write>\n<parameter=code>\nx\n</parameter>\n</function>\n</seed:tool_call>"
    assert _calls(toolgram.parse("seed_oss", s, [CODE])) == [("write", '{"code": "\\nx\\n"}')]


@pytest.mark.parametrize("fmt", XML_FORMATS)
def test_values_may_contain_the_format_tags(fmt: str) -> None:
    """vLLM's rule: only an end tag followed by <parameter=, </function> or the end closes a value."""
    spec = get_format(fmt)
    tags = f"a </parameter> b <parameter=x> c {spec.scope.open} d </function>e\n</parameter>\nf"
    calls = [("write", {"code": tags, "path": "</parameter>", "n": 3}), ("write", {"code": spec.scope.close})]
    text = render_calls(fmt, calls)
    expected = [(n, json.dumps(a, ensure_ascii=False)) for n, a in calls]
    lenient = toolgram.parse(fmt, text, [CODE])
    assert _calls(lenient) == expected and lenient["diagnostics"] == []
    for size in (1, 5):
        msg, deltas = _stream(fmt, [CODE], text, size)
        assert msg == lenient
        assert _streamed_arguments(deltas) == {i: a for i, (_, a) in enumerate(expected)}
    if _lark_accepts(fmt, [CODE], text):  # the grammar's own termination rule (compiler side)
        assert _calls(toolgram.parse(fmt, text, [CODE], mode="strict")) == expected


def test_end_tag_without_a_follower_waits_then_belongs_to_the_value() -> None:
    sp = toolgram.StreamParser("qwen3_coder", [CODE])
    sp.feed("<tool_call>\n<function=write>\n<parameter=code>\nab")
    held = sp.feed("\n</parameter>\n  ")
    assert all("</parameter>" not in json.dumps(d) for d in held)  # held back: it may close the value
    more = sp.feed("not a parameter\n</parameter>\n</function>\n</tool_call>")
    sp.finish()
    args = json.loads(sp.message["tool_calls"][0]["function"]["arguments"])
    assert args == {"code": "ab\n</parameter>\n  not a parameter"}
    assert "".join(_streamed_arguments(held + more).values()).endswith('not a parameter"}')


@pytest.mark.parametrize("fmt", XML_FORMATS)
@settings(max_examples=60, deadline=None)
@given(value=st.lists(st.sampled_from(["a", " ", "\n", "\t", "<", ">", "/", "=", "é", "</parameter>",
                                        "<parameter=", "</function>", "<tool_call>", "</tool_call>",
                                        "<seed:tool_call>", "\n</parameter>\n"]), max_size=12).map("".join))
def test_raw_values_round_trip_byte_exact(fmt: str, value: str) -> None:
    """Any string value (tags, leading/trailing whitespace and newlines) round-trips, unless it contains
    the one thing that ends a value: an end tag, whitespace, then <parameter= or </function>."""
    import re

    end = re.escape(get_format(fmt).call.param_end.strip())
    if re.search(end + r"[ \t\n\r]*(?:<parameter=|</function>|$)", value):
        return
    text = render_calls(fmt, [("write", {"code": value, "n": 1})])
    expected = [("write", json.dumps({"code": value, "n": 1}, ensure_ascii=False))]
    msg = toolgram.parse(fmt, text, [CODE])
    assert _calls(msg) == expected, text
    assert _stream(fmt, [CODE], text, 3)[0] == msg
    if _lark_accepts(fmt, [CODE], text):
        assert _calls(toolgram.parse(fmt, text, [CODE], mode="strict")) == expected


def test_loose_tool_value_of_another_type_regression() -> None:
    """The hypothesis failure of issue 12 (reproduce_failure('6.170.17',
    b'AEEDQQAAQQAAQQQBgWEAQQBBAAAAQQFBAgGBYUEBAAAA')): a ``strict: false`` tool's schema types a value
    but does not reject it, as its grammar takes any value: ``[]`` for ``a: integer`` is ``[]``."""
    tools = [tool("f", {"type": "object", "properties": {"a": {"type": "integer"}}}, strict=False)]
    for fmt in XML_FORMATS:
        text = render_calls(fmt, [("f", {"a": []})])
        for mode in ("lenient", "strict"):
            msg = toolgram.parse(fmt, text, tools, mode=mode)
            assert _calls(msg) == [("f", '{"a": []}')] and msg["diagnostics"] == [], (fmt, mode)
        assert _calls(toolgram.parse(fmt, text.replace("[]", "12"), tools)) == [("f", '{"a": 12}')]
        assert _calls(toolgram.parse(fmt, text.replace("[]", "x y"), tools)) == [("f", '{"a": "x y"}')]
    strict_tools = [tool("f", {"type": "object", "properties": {"a": {"type": "integer"}}})]
    msg = toolgram.parse("qwen3_coder", render_calls("qwen3_coder", [("f", {"a": []})]), strict_tools)
    assert [d["code"] for d in msg["diagnostics"]] == ["value_type_mismatch"]  # a strict tool still checks


# --------------------------------------------------------------------------------------------
# 2. nothing invented


WEATHER = tool("get_weather", {"type": "object", "properties": {"location": {"type": "string"}},
                               "required": ["location"]})
SEARCH = tool("search", {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]})


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_truncated_call_keeps_its_arguments_as_received(fmt: str) -> None:
    text = render_calls(fmt, [("search", {"query": "celsius"})])
    cut = text[:text.index("cel") + 3]
    msg = toolgram.parse(fmt, cut, [WEATHER, SEARCH])
    assert _calls(msg) == [("search", '{"query": "cel')]
    assert msg["finish_reason"] == "length"
    assert [d["code"] for d in msg["diagnostics"]] == ["truncated_call"]
    smsg, deltas = _stream(fmt, [WEATHER, SEARCH], cut)
    assert smsg == msg and _streamed_arguments(deltas) == {0: '{"query": "cel'}
    # an empty body is not {}
    head = toolgram.parse(fmt, cut[:cut.index("query") - 1], [WEATHER, SEARCH])
    for c in head["tool_calls"]:
        with pytest.raises(ValueError):
            json.loads(c["function"]["arguments"])


def test_invalid_json_arguments_are_never_an_empty_object() -> None:
    # an unknown tool is content (vLLM); a known tool stays a call with its arguments as received
    text = '{"name": "invalidTool", "parameters": {invalid json}'
    msg = toolgram.parse("llama3_json", text, [WEATHER])
    assert msg["tool_calls"] == [] and msg["content"] == text
    text = '<tool_call>\n{"name": "search", "arguments": {invalid json}}\n</tool_call>'
    msg = toolgram.parse("hermes", text, [SEARCH])
    assert _calls(msg) == [("search", "{")]
    assert "invalid_call" in [d["code"] for d in msg["diagnostics"]]
    assert _stream("hermes", [SEARCH], text)[0] == msg
    strict = toolgram.parse("hermes", text, [SEARCH], mode="strict")
    assert strict["tool_calls"] == [] and strict["diagnostics"][0]["code"] == "strict_rejected"


def test_strict_arguments_the_grammar_takes_but_json_cannot_read_are_kept_as_written() -> None:
    """``_read_call`` used to return ``{}``: arguments Lark accepts that the converter cannot read
    (here: nested deeper than the recursion limit) keep their text, with ``invalid_arguments``."""
    loose = [tool("f", {"type": "object", "properties": {}}, strict=False)]
    args = '{"x": ' + "[" * 400 + "]" * 400 + "}"
    text = '<tool_call>\n{"name": "f", "arguments": ' + args + "}\n</tool_call>"
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(350)
    try:
        msg = toolgram.parse("hermes", text, loose, mode="strict")
    finally:
        sys.setrecursionlimit(limit)
    assert _calls(msg) == [("f", args)]
    assert [d["code"] for d in msg["diagnostics"]] == ["invalid_arguments"]


@pytest.mark.parametrize("fmt", list(FORMATS))
@settings(max_examples=per_format(6, minimum=2), deadline=None)
@given(data=st.data())
def test_every_prefix_parses_and_invents_nothing(fmt: str, data: st.DataObject) -> None:
    _every_prefix(fmt, data)


@pytest.mark.slow
@pytest.mark.parametrize("fmt", list(FORMATS))
@settings(max_examples=6, deadline=None)
@given(data=st.data())
def test_every_prefix_parses_and_invents_nothing_full(fmt: str, data: st.DataObject) -> None:
    _every_prefix(fmt, data)


def _every_prefix(fmt: str, data: st.DataObject) -> None:
    """Every prefix of a valid multi-call output parses (lenient, stream, strict) without raising, and a
    call whose arguments are valid JSON has exactly the arguments the model wrote complete."""
    tools = data.draw(tool_lists())
    calls = data.draw(calls_for(tools))
    if get_format(fmt).values in ("xml", "elements"):
        assume(raw_values_round_trip(tools, calls, get_format(fmt).call))
    text = render_calls(fmt, calls, wrapper=data.draw(st.booleans()))
    full = [json.dumps(a, ensure_ascii=False) for _, a in calls]
    step = max(1, len(text) // 60)
    for cut in range(len(text) + 1):
        part = text[:cut]
        msg = toolgram.parse(fmt, part, tools, parallel_tool_calls=True)
        for i, c in enumerate(msg["tool_calls"]):
            try:
                json.loads(c["function"]["arguments"])
            except ValueError:
                assert msg["finish_reason"] == "length" and i == len(msg["tool_calls"]) - 1, (part, msg)
            else:
                assert c["function"]["arguments"] == full[i], (part, msg)
        if cut % step == 0 or cut == len(text):
            smsg, deltas = _stream(fmt, tools, part, 7, parallel_tool_calls=True)
            assert smsg == msg
            assert _streamed_arguments(deltas) == {i: c["function"]["arguments"]
                                                   for i, c in enumerate(msg["tool_calls"])}
            strict = toolgram.parse(fmt, part, tools, mode="strict", parallel_tool_calls=True)
            for c in strict["tool_calls"]:
                json.loads(c["function"]["arguments"])


# --------------------------------------------------------------------------------------------
# 3. max_tool_calls


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_max_tool_calls_reads_every_call_with_a_diagnostic(fmt: str) -> None:
    calls = [("get_weather", {"location": c}) for c in ("a", "b", "c")]
    text = render_calls(fmt, calls)
    msg = toolgram.parse(fmt, text, [WEATHER], parallel_tool_calls=True, max_tool_calls=2)
    assert len(msg["tool_calls"]) == 3
    assert [d["code"] for d in msg["diagnostics"]] == ["too_many_calls"]
    assert _stream(fmt, [WEATHER], text, 4, parallel_tool_calls=True, max_tool_calls=2)[0] == msg
    ok = toolgram.parse(fmt, text, [WEATHER], parallel_tool_calls=True, max_tool_calls=3)
    assert ok["diagnostics"] == []
    strict = toolgram.parse(fmt, text, [WEATHER], mode="strict", parallel_tool_calls=True, max_tool_calls=3)
    assert len(strict["tool_calls"]) == 3
    with pytest.raises(toolgram.ToolgramError, match="max_tool_calls"):
        toolgram.parse(fmt, text, [WEATHER], max_tool_calls=0)
    with pytest.raises(toolgram.ToolgramError, match="max_tool_calls"):
        toolgram.parse(fmt, text, [WEATHER], mode="strict", max_tool_calls="2")
    with pytest.raises(toolgram.ToolgramError, match="max_tool_calls"):
        toolgram.StreamParser(fmt, [WEATHER], max_tool_calls=-1)


# --------------------------------------------------------------------------------------------
# 5. input types (issue 13 finding 14)


@pytest.mark.parametrize("mode", ["lenient", "strict"])
@pytest.mark.parametrize("bad", [None, 123, 1.5, ["x"]])
def test_text_of_another_type_is_a_one_line_user_error(mode: str, bad: Any) -> None:
    with pytest.raises(toolgram.ToolgramError) as exc:
        toolgram.parse("hermes", bad, [WEATHER], mode=mode)
    assert "text" in str(exc.value) and "\n" not in str(exc.value)


@pytest.mark.parametrize("mode", ["lenient", "strict"])
def test_bytes_and_no_tools_in_both_modes(mode: str) -> None:
    text = render_calls("hermes", [("get_weather", {"location": "Zürich"})])
    msg = toolgram.parse("hermes", text.encode("utf-8"), [WEATHER], mode=mode)
    assert msg == toolgram.parse("hermes", text, [WEATHER], mode=mode)
    assert _calls(msg) == [("get_weather", '{"location": "Zürich"}')]
    bad = toolgram.parse("hermes", b"caf\xc3 ok", [WEATHER], mode=mode)
    assert bad["content"] == "caf\ufffd ok"
    none = toolgram.parse("hermes", text, None, mode=mode)
    assert none["tool_calls"] == [] and none["content"] == text


def test_stream_mixing_bytes_and_str_keeps_the_order() -> None:
    sp = toolgram.StreamParser("hermes", [WEATHER])
    deltas = sp.feed(b"\xc3") + sp.feed("abc") + sp.feed(b"\xa9") + sp.finish()
    assert "".join(d["content"] for d in deltas) == "\ufffdabc\ufffd" == sp.message["content"]
    sp = toolgram.StreamParser("hermes", [WEATHER])
    deltas = sp.feed(b"caf\xc3") + sp.feed(b"\xa9 ") + sp.feed("!") + sp.finish()
    assert "".join(d["content"] for d in deltas) == "café !" == sp.message["content"]
    with pytest.raises(toolgram.ToolgramError, match="chunk"):
        toolgram.StreamParser("hermes", [WEATHER]).feed(None)  # type: ignore[arg-type]


# --------------------------------------------------------------------------------------------
# 4. documented bounds


def test_integers_past_the_digit_bound_are_kept_as_text() -> None:
    ok, big = "9" * MAX_INT_DIGITS, "9" * (MAX_INT_DIGITS + 1)
    tools = [tool("f", {"type": "object", "properties": {"n": {"type": "integer"}}})]
    for fmt in FORMATS:
        for digits, exact in ((ok, True), (big, False)):
            text = render_calls(fmt, [("f", {"n": 7})]).replace("7", digits)
            msg = toolgram.parse(fmt, text, tools)
            value = json.loads(msg["tool_calls"][0]["function"]["arguments"])["n"]
            codes = [d["code"] for d in msg["diagnostics"]]
            if exact:
                assert value == int(digits) and codes == [], fmt
            else:
                assert value == digits and codes == ["integer_too_long"], fmt


@pytest.mark.parametrize("fmt", ["hermes", "pythonic"])
def test_strict_refuses_nesting_past_the_bound(fmt: str) -> None:
    loose = [tool("f", {"type": "object", "properties": {}}, strict=False)]
    deep = "[" * (MAX_STRICT_DEPTH + 1) + "]" * (MAX_STRICT_DEPTH + 1)
    text = render_calls(fmt, [("f", {"x": 1})]).replace("1", deep)
    msg = toolgram.parse(fmt, text, loose, mode="strict")
    assert msg["tool_calls"] == [] and msg["content"] == text.strip()
    assert msg["diagnostics"][0]["code"] == "strict_rejected" and "nest" in msg["diagnostics"][0]["message"]
    assert len(toolgram.parse(fmt, text, loose)["tool_calls"]) == 1  # lenient reads it
