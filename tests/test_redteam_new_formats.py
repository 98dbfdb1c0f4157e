"""Issue 28: the red-team findings on the formats added after the first six, one regression test each.

Every example is written here (none is read from outside the repository); each test fails on the code
before the fix. The scaling findings (1, 8) are checked by counting work, not by timing:
:mod:`benchmarks.bench_hostile` prints their growth ratios.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from strategies import engine_results, tool
from toolgram.compiler.bundle import compile
from toolgram.compiler.dialects import NAMES as DIALECTS
from toolgram.grammars import get_format
from toolgram.grammars.render import render_calls
from toolgram.parsing.scanner import Scanner

import toolgram
from toolgram.errors import SchemaError

XML_TRIMMED = ["glm4", "glm4_7", "ling3", "hy3", "seed_oss", "qwen3_coder"]  # unquoted argument names
XML_ALL = [*XML_TRIMMED, "minimax_m2", "deepseek_dsml", "minicpm5"]
PYTHONIC = ["pythonic", "llama4_pythonic", "lfm2"]


def params(props: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"type": "object", "properties": props, **extra}


def calls(msg: dict[str, Any]) -> list[tuple[str, Any]]:
    return [(c["function"]["name"], json.loads(c["function"]["arguments"])) for c in msg["tool_calls"]]


def codes(msg: dict[str, Any]) -> list[str]:
    return [d["code"] for d in msg["diagnostics"]]


def streamed(fmt: str, tools: Any, text: str, **opts: Any) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The stream parser fed one character at a time: its final message and the deltas before finish()."""
    sp = toolgram.StreamParser(fmt, tools, **opts)
    deltas: list[dict[str, Any]] = []
    for ch in text:
        deltas += sp.feed(ch)
    sp.finish()
    return sp.message, deltas


def both(fmt: str, tools: Any, text: str, **opts: Any) -> dict[str, Any]:
    """The lenient message, after checking that streaming one character at a time gives the same."""
    whole = toolgram.parse(fmt, text, tools, **opts)
    assert streamed(fmt, tools, text, **opts)[0] == whole
    return whole


# -- 1. an unterminated \N escape streams, and costs no rescan per feed ---------------------------------

@pytest.mark.parametrize("fmt", PYTHONIC)
def test_unterminated_N_escape_streams_on(fmt: str) -> None:
    """A Windows path (``'C:\\Notes ...``, a ``\\N`` that never becomes ``\\N{NAME}``) no longer holds back
    the rest of the string until it closes: the text after it streams, so nothing is rescanned per feed."""
    tools = [tool("f", params({"s": {"type": "string"}}))]
    head = render_calls(fmt, [("f", {"s": "MARK"})]).split("MARK")[0]
    text = head + "C:\\Notes " + "x" * 2000
    msg, deltas = streamed(fmt, tools, text)
    sent = "".join(tc["function"].get("arguments", "") for d in deltas for tc in d.get("tool_calls", []))
    assert sent.count("x") >= 2000 - 200, sent[:80]  # at most the bound of a \N{NAME} escape waits
    assert msg == toolgram.parse(fmt, text, tools)
    assert json.loads(msg["tool_calls"][0]["function"]["arguments"] + '"}')["s"].startswith("C:\\Notes x")


@pytest.mark.parametrize("text", ["'C:\\N{DIGIT ONE}x'", "'\\N{LATIN SMALL LETTER A}'", "'a\\N{bad\\n}'",
                                  "'\\N{" + "A" * 150 + "}'", "'\\N'"])
def test_N_escapes_read_the_same_in_every_chunking(text: str) -> None:
    tools = [tool("f", params({"s": {"type": "string"}}))]
    out = "[f(s=" + text + ")]"
    whole = toolgram.parse("pythonic", out, tools)
    for size in (1, 3, 7):
        sp = toolgram.StreamParser("pythonic", tools)
        for i in range(0, len(out), size):
            sp.feed(out[i:i + size])
        sp.finish()
        assert sp.message == whole, size
    assert whole["tool_calls"], whole


# -- 2. gpt_oss: a name matches only where the header says the name ends -----------------------------------

@pytest.mark.parametrize("text", [
    ' to=functions.search_web<|channel|>commentary json<|message|>{"q": "x"}',
    '<|channel|>commentary to=functions.search_and_delete_all <|constrain|>json<|message|>{"q": "x"}',
    ' to=functions.searchjsonx<|message|>{"q": "x"}',
])
def test_gpt_oss_unknown_tool_named_after_a_known_one_is_not_called(text: str) -> None:
    tools = [tool("search", params({"q": {"type": "string"}}))]
    msg = both("gpt_oss", tools, text)
    assert msg["tool_calls"] == [] and "unknown_tool" in codes(msg), msg


@pytest.mark.parametrize("text", [
    ' to=functions.search<|channel|>commentary json<|message|>{"q": "x"}',
    '<|channel|>commentary to=functions.search <|constrain|>json<|message|>{"q": "x"}',
    ' to=functions.searchjson<|message|>{"q": "x"}',  # the content type glued to the name
])
def test_gpt_oss_known_tool_in_each_header_spelling(text: str) -> None:
    tools = [tool("search", params({"q": {"type": "string"}})), tool("search_web", params({}))]
    assert calls(both("gpt_oss", tools, text)) == [("search", {"q": "x"})]


# -- 3 and 8. functionary_v3_2: a call line starts at a whole word; the cost is independent of the tools ------

def test_functionary_call_does_not_start_inside_a_word() -> None:
    tools = [tool("search", params({"q": {"type": "string"}}))]
    text = 'all\nUse research\n{"q": "x"} to see'
    msg = both("functionary_v3_2", tools, text)
    assert msg["tool_calls"] == [] and msg["content"] == 'Use research\n{"q": "x"} to see', msg


def test_functionary_name_line_after_text_is_still_a_call() -> None:
    tools = [tool("search", params({"q": {"type": "string"}}))]
    msg = both("functionary_v3_2", tools, 'all\nUse search\n{"q": "x"}')
    assert calls(msg) == [("search", {"q": "x"})] and "calls_after_text" in codes(msg)


def _peeks(tools: list[dict[str, Any]], text: str, monkeypatch: pytest.MonkeyPatch) -> int:
    count = 0
    real = Scanner.peek

    def counting(self: Scanner, lit: str, at: int | None = None) -> bool | str:
        nonlocal count
        count += 1
        return real(self, lit, at)

    monkeypatch.setattr(Scanner, "peek", counting)
    toolgram.parse("functionary_v3_2", text, tools)
    monkeypatch.setattr(Scanner, "peek", real)
    return count


def test_functionary_recipient_scan_is_independent_of_the_tools(monkeypatch: pytest.MonkeyPatch) -> None:
    """The work per position of free text does not grow with the number of tools (counted: the literal
    look-ups the scanner makes), whatever the tools' names share with the prose."""
    prose = "all\n" + "the quick brown fox talks about tools and tool_1 things\n" * 200
    few = [tool("tool_1", params({}))]
    many = [tool(f"tool_{i}", params({})) for i in range(128)] + [tool(w, params({})) for w in ("the", "fox")]
    assert _peeks(many, prose, monkeypatch) <= _peeks(few, prose, monkeypatch) + 2


# -- 4. XML argument names with whitespace at either end --------------------------------------------------

@pytest.mark.parametrize("fmt", XML_TRIMMED)
@pytest.mark.parametrize("key", [" s", "s ", "\u00a0s", "s\u3000"])
def test_xml_argument_names_with_whitespace_at_an_end_are_refused(fmt: str, key: str) -> None:
    with pytest.raises(SchemaError) as info:
        compile(fmt, [tool("f", params({"s": {"type": "string"}, key: {"type": "string"}}))], dialect="gbnf")
    assert "$[0].function.parameters.properties" in str(info.value)


@pytest.mark.parametrize("fmt", XML_TRIMMED)
def test_xml_argument_name_with_inner_space_round_trips(fmt: str) -> None:
    tools = [tool("f", params({"a b": {"type": "string"}}))]
    text = render_calls(fmt, [("f", {"a b": "v"})])
    for mode in ("lenient", "strict"):
        assert calls(toolgram.parse(fmt, text, tools, mode=mode)) == [("f", {"a b": "v"})], mode


# -- 5. undeclared XML arguments are typed by additionalProperties -------------------------------------------

@pytest.mark.parametrize("fmt", XML_ALL)
def test_xml_extra_arguments_typed_by_additional_properties(fmt: str) -> None:
    args = {"zip": "02139", "flag": "true", "n": "5", "z": "null"}
    tools = [tool("f", params({}, additionalProperties={"type": "string"}))]
    text = render_calls(fmt, [("f", args)])
    for mode in ("lenient", "strict"):
        assert calls(toolgram.parse(fmt, text, tools, mode=mode)) == [("f", args)], mode
    numbers = [tool("f", params({"s": {"type": "string"}}, additionalProperties={"type": "integer"}))]
    text = render_calls(fmt, [("f", {"s": "5", "n": 5})])
    for mode in ("lenient", "strict"):
        assert calls(toolgram.parse(fmt, text, numbers, mode=mode)) == [("f", {"s": "5", "n": 5})], mode


# -- 6. kimi_k2: tool names holding ':' -------------------------------------------------------------------

@pytest.mark.parametrize("name", ["ns:search", ":ab", "a:1", "a:", "::"])
def test_kimi_tool_names_with_colons(name: str) -> None:
    tools = [tool(name, params({"q": {"type": "string"}}))]
    text = render_calls("kimi_k2", [(name, {"q": "x"}), (name, {"q": "y"})])
    for mode in ("lenient", "strict"):
        msg = toolgram.parse("kimi_k2", text, tools, mode=mode)
        assert calls(msg) == [(name, {"q": "x"}), (name, {"q": "y"})] and codes(msg) == [], (mode, msg)
    assert calls(both("kimi_k2", tools, text)) == [(name, {"q": "x"}), (name, {"q": "y"})]


def test_kimi_call_without_its_counter_is_still_reported() -> None:
    tools = [tool("a", params({}))]
    text = "<|tool_calls_section_begin|><|tool_call_begin|>functions.a:<|tool_call_argument_begin|>{}" \
           "<|tool_call_end|><|tool_calls_section_end|>"
    assert "invalid_call" in codes(both("kimi_k2", tools, text))


# -- 7. tool names with Unicode whitespace: refused for every format, so every name that compiles round-trips ---

@pytest.mark.parametrize("fmt", ["glm4", "glm4_7", "ling3", "hy3", "seed_oss", "hermes", "gpt_oss"])
@pytest.mark.parametrize("name", ["get\u00a0weather", "f\u2028g", "weather\u3000", "\u00a0ab", "a\u2009b", "a\u1680"])
def test_tool_names_with_unicode_whitespace_are_refused(fmt: str, name: str) -> None:
    tools = [tool(name, params({"q": {"type": "string"}}))]
    with pytest.raises(SchemaError) as info:
        compile(fmt, tools, dialect="gbnf")
    assert "$[0].function.name" in str(info.value)
    with pytest.raises(SchemaError):  # the parsers take the same tools: the same rule
        toolgram.parse(fmt, "x", tools)


# -- 9. gemma4 lenient: JSON-quoted strings and keys at the top level of a call ------------------------------

@pytest.mark.parametrize(("body", "want"), [
    ('s:"a,b"', {"s": "a,b"}),
    ('"s":<|"|>v<|"|>', {"s": "v"}),
    ('s:"a\\"}b",o:{k:"x,y"}', {"s": 'a"}b', "o": {"k": "x,y"}}),
    ('"s\\u0041":1,s:"<x>"', {"sA": 1, "s": "<x>"}),
])
def test_gemma_json_quoted_top_level_string_and_key(body: str, want: dict[str, Any]) -> None:
    tools = [tool("f", params({"s": {"type": "string"}, "o": {"type": "object"}}, additionalProperties=True))]
    msg = both("gemma4", tools, "<|tool_call>call:f{" + body + "}<tool_call|>")
    assert calls(msg) == [("f", want)] and codes(msg) == [], msg


# -- 10. tool_choice none: both parsers split the reasoning ---------------------------------------------------

@pytest.mark.parametrize("fmt", ["glm4", "qwen3_coder", "hermes"])
def test_tool_choice_none_splits_reasoning_in_both_modes(fmt: str) -> None:
    r = get_format(fmt).reasoning
    assert r is not None
    text = f"{r.open}plan{r.close}answer"
    tools = [tool("f", params({}))]
    for mode in ("lenient", "strict"):
        msg = toolgram.parse(fmt, text, tools, mode=mode, tool_choice="none")
        assert (msg["reasoning_content"], msg["content"], msg["tool_calls"]) == ("plan", "answer", []), mode


# -- 11. the renderer writes only what the parsers read back ----------------------------------------------

@pytest.mark.parametrize("fmt", PYTHONIC)
@pytest.mark.parametrize("key", ["a-b", "0", "a b", "é"])
def test_pythonic_renderer_refuses_argument_names_that_are_not_identifiers(fmt: str, key: str) -> None:
    with pytest.raises(ValueError, match="identifier"):
        render_calls(fmt, [("f", {key: 1})])


@pytest.mark.parametrize("fmt", XML_ALL)
def test_xml_renderer_refuses_a_value_that_would_end_early(fmt: str) -> None:
    c = get_format(fmt).call
    sc = get_format(fmt).scope
    end = c.param_end.strip()
    follower = (c.function_end.strip() or sc.close.strip())
    tools = [tool("f", params({"s": {"type": "string"}, "t": {"type": "string"}}))]
    for value in (end + c.param_open + "x", end + "\n" + follower, "a]]>" + end + " " + c.param_open):
        try:
            text = render_calls(fmt, [("f", {"s": value, "t": "z"})])
        except ValueError:
            continue
        for mode in ("lenient", "strict"):  # written: then it reads back (strict: with the look-ahead rule, SPEC 1)
            got = toolgram.parse(fmt, text, tools, mode=mode, xml_values="lookahead")
            assert calls(got) == [("f", {"s": value, "t": "z"})], (mode, text)
    for value in (end, end + "x" + c.param_open, "<" + c.param_open):  # no stop: written as it is
        text = render_calls(fmt, [("f", {"s": value, "t": "z"})])
        for mode in ("lenient", "strict"):
            got = toolgram.parse(fmt, text, tools, mode=mode, xml_values="lookahead")
            assert calls(got) == [("f", {"s": value, "t": "z"})], (mode, text)


def test_xml_renderer_refuses_closing_tag_then_opening() -> None:
    with pytest.raises(ValueError, match="closing tag"):
        render_calls("qwen3_coder", [("f", {"s": "a</parameter>\n<parameter=b"})])
    with pytest.raises(ValueError, match="closing tag"):
        render_calls("glm4", [("f", {"s": "a</arg_value><arg_key>"})])


# -- 12. (kept, documented) deepseek_dsml types values by the schema, not by string="true" -------------------

def test_dsml_types_by_the_schema_not_the_string_attribute() -> None:
    tools = [tool("f", params({"u": {"type": ["integer", "string"]}}))]
    text = render_calls("deepseek_dsml", [("f", {"u": "5"})])
    assert 'string="true"' in text
    for mode in ("lenient", "strict"):
        assert calls(toolgram.parse("deepseek_dsml", text, tools, mode=mode)) == [("f", {"u": 5})], mode


# -- issue 25: pythonic formats read dotted tool names, as Python does (math.factorial(number=5)) ---------------

@pytest.mark.parametrize("fmt", PYTHONIC)
def test_pythonic_dotted_tool_names_in_every_dialect_and_both_parsers(fmt: str) -> None:
    tools = [tool("math.factorial", params({"number": {"type": "integer"}}, required=["number"])),
             tool("math.floor", params({"x": {"type": "number"}}))]
    want = [("math.factorial", {"number": 5}), ("math.floor", {"x": 2.5})]
    text = render_calls(fmt, want)
    assert "math.factorial(number=5)" in text
    for dialect in DIALECTS:
        bundle = compile(fmt, tools, dialect=dialect, tool_choice="required")
        for engine, (ok, pos) in engine_results(bundle, text).items():
            assert ok, (dialect, engine, pos, text)
    for mode in ("lenient", "strict"):
        assert calls(toolgram.parse(fmt, text, tools, mode=mode, tool_choice="required")) == want, mode
    assert calls(both(fmt, tools, text)) == want


@pytest.mark.parametrize("fmt", XML_TRIMMED)
def test_xml_lenient_reads_a_declared_name_exactly(fmt: str) -> None:
    """Compile refuses ``" s"``; the lenient parser, given such tools anyway, neither merges ``" s"`` into
    ``s`` nor renames it: a name declared as written is read as written, any other one trimmed."""
    tools = [tool("f", params({"s": {"type": "string"}, " s": {"type": "string"}}))]
    text = render_calls(fmt, [("f", {"s": "a", " s": "b"})])
    msg = both(fmt, tools, text)
    assert calls(msg) == [("f", {"s": "a", " s": "b"})] and codes(msg) == [], msg
    loose = [tool("f", params({"s": {"type": "string"}}, additionalProperties={"type": "string"}))]
    assert calls(both(fmt, loose, render_calls(fmt, [("f", {" s ": "a"})]))) == [("f", {"s": "a"})]
