"""SPEC sections 1-2: the ``whitespace`` and ``xml_values`` options, and at most one newline after the
last call (issue 24, items 1-3).

Each option's language is checked in every dialect's real engine (llama.cpp for GBNF, xgrammar for
EBNF and structural tags, Lark), in strict parsing (which follows the grammar) and lenient parsing
(which reads every spelling), through ``toolgram.compile``, ``toolgram.parse`` and the CLI. The old
languages (``flexible``, ``lookahead``) stay tested here and in test_xml_values_grammar.py.
"""

from __future__ import annotations

import io
import json
import sys
from functools import cache
from pathlib import Path

import pytest
from strategies import engine_results
from toolgram.compiler.bundle import Bundle, compile
from toolgram.compiler.dialects import NAMES as DIALECTS
from toolgram.grammars import FORMATS
from toolgram.grammars.render import render_calls
from weather import TOOLS

import toolgram
from toolgram.cli import main
from toolgram.errors import OptionError

CALL = [("get_weather", {"location": "Paris", "unit": "celsius"})]
#: the same hermes call in other JSON whitespace: what llama.cpp's bounded whitespace admits
HERMES_PRETTY = ('<tool_call>\n{\n  "name": "get_weather",\n  "arguments": {\n    "location": "Paris"\n  }\n}'
                 '\n</tool_call>')
HERMES_COMPACT = '<tool_call>\n{"name":"get_weather","arguments":{"location":"Paris"}}\n</tool_call>'
PYTHONIC_SPACED = "[get_weather( location='Paris',unit='celsius' )]"
#: a raw value holding its closing tag (not followed by the next parameter or the call's end)
XML_TOOLS = [{"type": "function", "function": {"name": "write", "parameters": {
    "type": "object", "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
    "required": ["path", "content"]}}}]
TAGGED = {"seed_oss": "a</parameter>b", "qwen3_coder": "a</parameter>b", "minicpm5": "a</param>b"}


@cache
def bundle(fmt: str, dialect: str, tools_key: str = "weather", **opts: str) -> Bundle:
    tools = TOOLS if tools_key == "weather" else XML_TOOLS
    return compile(fmt, tools, dialect=dialect, tool_choice="required", **opts)


def verdicts(b: Bundle, text: str) -> set[bool]:
    return {ok for ok, _ in engine_results(b, text).values()}


def test_defaults_and_bad_values() -> None:
    opts = compile("hermes", TOOLS).options
    assert (opts.whitespace, opts.xml_values) == ("canonical", "first_close")
    for key in ("whitespace", "xml_values"):
        with pytest.raises(OptionError) as e:
            compile("hermes", TOOLS, **{key: "loose"})
        assert e.value.path == key
        with pytest.raises(OptionError):
            toolgram.parse("hermes", "", TOOLS, **{key: "loose"})


@pytest.mark.parametrize("dialect", DIALECTS)
def test_whitespace_canonical_and_flexible(dialect: str) -> None:
    canonical = render_calls("hermes", CALL)
    for text, flexible_only in ((canonical, False), (HERMES_PRETTY, True), (HERMES_COMPACT, True)):
        assert verdicts(bundle("hermes", dialect), text) == {not flexible_only}, text
        assert verdicts(bundle("hermes", dialect, whitespace="flexible"), text) == {True}, text
    py = render_calls("pythonic", CALL)
    assert verdicts(bundle("pythonic", dialect), py) == {True}
    assert verdicts(bundle("pythonic", dialect), PYTHONIC_SPACED) == {False}
    assert verdicts(bundle("pythonic", dialect, whitespace="flexible"), PYTHONIC_SPACED) == {True}


@pytest.mark.parametrize("dialect", DIALECTS)
def test_one_newline_after_the_last_call(dialect: str) -> None:
    for fmt in ("hermes", "pythonic"):
        text = render_calls(fmt, CALL)
        for opts in ({}, {"whitespace": "flexible", "xml_values": "lookahead"}):
            b = bundle(fmt, dialect, **opts)
            assert verdicts(b, text + "\n") == {True}
            for tail in ("\n\n", " ", "\n ", "\t"):
                assert verdicts(b, text + tail) == {False}, (fmt, opts, tail)


def test_one_newline_after_the_last_call_in_auto() -> None:
    """The lazy GBNF and the auto EBNF / structural tag: text, the call, one newline, nothing more."""
    text = "Let me check.\n" + render_calls("hermes", CALL)
    for dialect in DIALECTS:
        b = compile("hermes", TOOLS, dialect=dialect)
        assert verdicts(b, text + "\n") == {True}, dialect
        assert verdicts(b, text + "\n\n") == {False}, dialect


#: a wrapper word and the calls it opens, and the same with whitespace after the word (what SmolLM2 wrote
#: under functionary_v3_2 before: ``>>>`` then two newlines and twenty tabs before the name)
WRAPPED = {
    "functionary_v3_2": (">>>", "\n\n\t\t"),
    "llama3_json": ("<|python_tag|>", "\n"),
    "llama4_pythonic": ("<|python_start|>", " "),
}
CLOSES = {"llama4_pythonic": "<|python_end|>"}


@pytest.mark.parametrize("fmt", sorted(WRAPPED))
@pytest.mark.parametrize("dialect", DIALECTS)
def test_wrapper_word_then_the_calls_directly(fmt: str, dialect: str) -> None:
    """Canonical whitespace: the calls follow a wrapper word directly, as the templates write them (a gap there
    cost up to 26 tokens a call); ``flexible`` admits JSON whitespace after it. Strict parsing agrees."""
    word, gap = WRAPPED[fmt]
    text = render_calls(fmt, CALL)
    text = text if text.startswith(word) else word + text + CLOSES.get(fmt, "")
    gapped = text.replace(word, word + gap, 1)
    assert verdicts(bundle(fmt, dialect), text) == {True}
    assert verdicts(bundle(fmt, dialect), gapped) == {False}
    assert verdicts(bundle(fmt, dialect, whitespace="flexible"), gapped) == {True}
    if dialect == "lark":
        strict = toolgram.parse(fmt, gapped, TOOLS, mode="strict", tool_choice="required")
        assert not strict["tool_calls"] and strict["diagnostics"]
        flexible = toolgram.parse(fmt, gapped, TOOLS, mode="strict", tool_choice="required", whitespace="flexible")
        assert [c["function"]["name"] for c in flexible["tool_calls"]] == ["get_weather"]
        assert toolgram.parse(fmt, gapped, TOOLS)["tool_calls"]  # lenient reads both


def test_llama3_json_envelope_keeps_the_triggers_whitespace() -> None:
    """SPEC's trigger/grammar consistency: in ``auto`` the pattern ``\\{\\s*"name"\\s*:`` hands ``{ "name" :``
    to the grammar, so the canonical envelope still admits whitespace there; the arguments are canonical."""
    spaced = '{ "name" : "get_weather", "parameters": {"location": "Paris"}}'
    for dialect in DIALECTS:
        b = compile("llama3_json", TOOLS, dialect=dialect)
        assert verdicts(b, spaced) == {True}, dialect
        assert verdicts(b, spaced.replace('"location": ', '"location":')) == {False}, dialect
        # no trigger under ``required``: the envelope is the template's ``{"name": ``
        assert verdicts(bundle("llama3_json", dialect), spaced) == {False}, dialect
        assert verdicts(bundle("llama3_json", dialect), spaced.replace('{ "name" : ', '{"name": ')) == {True}


@pytest.mark.parametrize("fmt", sorted(TAGGED))
@pytest.mark.parametrize("dialect", DIALECTS)
def test_xml_values_first_close_and_lookahead(fmt: str, dialect: str) -> None:
    value = TAGGED[fmt]
    spec_cdata = fmt == "minicpm5"
    text = render_calls(fmt, [("write", {"path": value, "content": "x"})])
    if spec_cdata:  # MiniCPM5 writes such a value in CDATA, where its closing tag is text
        assert "<![CDATA[" in text
        assert verdicts(bundle(fmt, dialect, "xml"), text) == {True}
        text = text.replace("<![CDATA[", "").replace("]]>", "")
    assert verdicts(bundle(fmt, dialect, "xml"), text) == {False}
    assert verdicts(bundle(fmt, dialect, "xml", xml_values="lookahead"), text) == {True}
    plain = render_calls(fmt, [("write", {"path": "a/b <c>", "content": "x"})])
    assert verdicts(bundle(fmt, dialect, "xml"), plain) == {True}


def test_strict_parse_follows_the_grammar_and_lenient_reads_both() -> None:
    def calls(msg: dict) -> list:
        return [(c["function"]["name"], json.loads(c["function"]["arguments"])) for c in msg["tool_calls"]]

    want = [("get_weather", {"location": "Paris"})]
    strict = toolgram.parse("hermes", HERMES_PRETTY, TOOLS, mode="strict", tool_choice="required")
    assert strict["tool_calls"] == [] and strict["diagnostics"][0]["code"] == "strict_rejected"
    assert calls(toolgram.parse("hermes", HERMES_PRETTY, TOOLS, mode="strict", tool_choice="required",
                                whitespace="flexible")) == want
    assert calls(toolgram.parse("hermes", HERMES_PRETTY, TOOLS)) == want
    text = render_calls("hermes", CALL)
    assert not toolgram.parse("hermes", text + "\n", TOOLS, mode="strict")["diagnostics"]
    assert toolgram.parse("hermes", text + "\n\n", TOOLS, mode="strict")["diagnostics"]
    assert toolgram.parse("hermes", text + "\n\n\n", TOOLS)["tool_calls"]  # lenient: any whitespace
    seed = render_calls("seed_oss", [("write", {"path": "a</parameter>b", "content": "x"})])
    assert toolgram.parse("seed_oss", seed, XML_TOOLS, mode="strict")["tool_calls"] == []
    for kwargs in ({"mode": "strict", "xml_values": "lookahead"}, {}):
        got = toolgram.parse("seed_oss", seed, XML_TOOLS, **kwargs)
        assert calls(got) == [("write", {"path": "a</parameter>b", "content": "x"})], kwargs


def test_openvino_compiles_both_languages() -> None:
    from toolgram.engines import openvino_engine

    for opts in ({}, {"whitespace": "flexible", "xml_values": "lookahead"}):
        openvino_engine.check_ebnf(compile("hermes", TOOLS, dialect="ebnf", **opts).grammar)
        openvino_engine.check_structural_tag(compile("seed_oss", XML_TOOLS, dialect="structural-tag",
                                                     **opts).grammar)


@pytest.fixture
def tools_file(tmp_path: Path) -> Path:
    p = tmp_path / "tools.json"
    p.write_text(json.dumps(TOOLS), encoding="utf-8")
    return p


def _compile_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:
    assert main(["compile", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_cli_flags(capsys: pytest.CaptureFixture[str], tools_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    base = ["hermes", "--tools", str(tools_file), "--dialect", "ebnf", "--tool-choice", "required"]
    default = _compile_cli(capsys, *base)["grammar"]
    assert default == compile("hermes", TOOLS, dialect="ebnf", tool_choice="required").grammar
    flexible = _compile_cli(capsys, *base, "--whitespace", "flexible")["grammar"]
    assert flexible == compile("hermes", TOOLS, dialect="ebnf", tool_choice="required", whitespace="flexible").grammar
    assert flexible != default
    assert _compile_cli(capsys, *base, "--whitespace", "canonical", "--xml-values", "first_close")["grammar"] == default
    with pytest.raises(SystemExit) as e:
        main(["compile", *base, "--xml-values", "first"])
    assert e.value.code == 2
    capsys.readouterr()
    for flags, n_calls in (([], 0), (["--whitespace", "flexible"], 1)):
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(HERMES_PRETTY.encode())))
        assert main(["parse", "hermes", "--tools", str(tools_file), "--mode", "strict", *flags]) == 0
        assert len(json.loads(capsys.readouterr().out)["tool_calls"]) == n_calls, flags


def test_strict_parse_reads_the_permissive_grammar(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """``parse --mode strict --permissive`` reads with the relaxed grammar ``compile --permissive`` writes (the
    flag was accepted and dropped); without it, the schema a grammar cannot enforce is an error naming the path."""
    params = {"type": "object", "properties": {"v": {"type": "string", "pattern": "^(a)\\1", "maxLength": 3}}}
    tools_file = tmp_path / "tools.json"
    tools_file.write_text(json.dumps([{"type": "function", "function": {"name": "f", "parameters": params}}]))
    text = '<tool_call>\n{"name": "f", "arguments": {"v": "xyz"}}\n</tool_call>'
    base = ["parse", "hermes", "--tools", str(tools_file), "--mode", "strict"]
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(text.encode())))
    assert main(base) != 0
    assert "properties.v.pattern" in capsys.readouterr().err
    for value, n_calls in (("xyz", 1), ("wxyz", 0)):
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(text.replace("xyz", value).encode())))
        assert main([*base, "--permissive"]) == 0
        assert len(json.loads(capsys.readouterr().out)["tool_calls"]) == n_calls, value


#: every format whose calls stand in one bracketed list (``Scope.open``), with its list brackets
LISTS = {f: s.scope for f, s in FORMATS.items() if not s.scope.per_call and s.scope.open}


def _gapped(fmt: str, text: str, after_open: str, before_close: str) -> str:
    """``text`` (one rendered call list) with whitespace just inside its brackets."""
    sc = LISTS[fmt]
    section = sc.section.open if sc.section else ""
    assert text.startswith(section)
    start = text.index(sc.open, len(section)) + len(sc.open)
    end = text.rindex(sc.close)
    return text[:start] + after_open + text[start:end] + before_close + text[end:]


def test_list_formats_are_listed() -> None:
    assert {"pythonic", "mistral", "command_r7b", "lfm2", "llama4_pythonic"} <= set(LISTS)


@pytest.mark.parametrize("fmt", sorted(LISTS))
@pytest.mark.parametrize("dialect", DIALECTS)
def test_list_brackets_hold_the_calls_directly(fmt: str, dialect: str) -> None:
    """Canonical whitespace: a call list's brackets hold the calls as the template writes them (SmolLM2
    wrote ``[\\n\\nget_weather(...)]``: 1.5x the canonical tokens); ``flexible`` admits JSON whitespace
    inside them. Whitespace before the list (before the first call) and around the separator (between
    calls) stays free under both (SPEC section 1). Strict parsing agrees; lenient parsing reads all."""
    text = render_calls(fmt, CALL)
    two = render_calls(fmt, CALL * 2)
    sc = LISTS[fmt]
    at = text.rindex(sc.close)  # the first call ends here in both renderings
    assert two[at:].startswith(sc.canonical_join)
    spaced_sep = two[:at] + "\n" + sc.separator + "\n  " + two[at + len(sc.canonical_join):]
    for gapped in (_gapped(fmt, text, "\n\n", ""), _gapped(fmt, text, "", "\n"), _gapped(fmt, text, " ", " ")):
        assert verdicts(bundle(fmt, dialect), text) == {True}
        assert verdicts(bundle(fmt, dialect), gapped) == {False}, gapped
        assert verdicts(bundle(fmt, dialect, whitespace="flexible"), gapped) == {True}, gapped
    assert verdicts(bundle(fmt, dialect), spaced_sep) == {True}, spaced_sep
    if dialect == "lark":
        gapped = _gapped(fmt, text, "\n\n", "\n")
        strict = toolgram.parse(fmt, gapped, TOOLS, mode="strict", tool_choice="required")
        assert not strict["tool_calls"] and strict["diagnostics"]
        flexible = toolgram.parse(fmt, gapped, TOOLS, mode="strict", tool_choice="required", whitespace="flexible")
        assert [c["function"]["name"] for c in flexible["tool_calls"]] == ["get_weather"]
        assert [c["function"]["name"] for c in toolgram.parse(fmt, gapped, TOOLS)["tool_calls"]] == ["get_weather"]


SECTIONED = sorted(f for f, sc in LISTS.items() if sc.section)


@pytest.mark.parametrize("fmt", SECTIONED)
@pytest.mark.parametrize("dialect", DIALECTS)
def test_a_section_word_then_its_list(fmt: str, dialect: str) -> None:
    """Between a section's opening word and its list: at most one space under ``canonical`` (Mistral v3 writes
    ``[TOOL_CALLS] [``, Nemo ``[TOOL_CALLS][``; SmolLM2 wrote ``<|tools_prefix|>\\n\\n[`` when this was JSON
    whitespace); ``flexible`` admits JSON whitespace. Whitespace before the section stays free."""
    word = LISTS[fmt].section.open
    text = render_calls(fmt, CALL)
    assert text.startswith(word + LISTS[fmt].open)
    assert verdicts(bundle(fmt, dialect), " \n" + text.replace(word, word + " ", 1)) == {True}
    gapped = text.replace(word, word + "\n\n", 1)
    assert verdicts(bundle(fmt, dialect), gapped) == {False}
    assert verdicts(bundle(fmt, dialect, whitespace="flexible"), gapped) == {True}


@pytest.mark.parametrize("fmt", ["pythonic", "llama4_pythonic"])
def test_a_pattern_triggers_capture_keeps_its_whitespace(fmt: str) -> None:
    """SPEC's trigger/grammar consistency: in ``auto`` the lazy pattern ``^\\s*(\\[[\\s\\S]*)`` hands llama.cpp's
    grammar the rest of the token that holds ``[`` (``[\\n``), so there the list admits whitespace after its
    opening bracket, in every dialect (one language per option set); ``required`` has no trigger."""
    gapped = _gapped(fmt, render_calls(fmt, CALL), "\n", "")
    for dialect in DIALECTS:
        assert verdicts(compile(fmt, TOOLS, dialect=dialect), gapped) == {True}, dialect
        assert verdicts(bundle(fmt, dialect), gapped) == {False}, dialect
    assert toolgram.parse(fmt, gapped, TOOLS, mode="strict")["tool_calls"]
    assert not toolgram.parse(fmt, gapped, TOOLS, mode="strict", tool_choice="required")["tool_calls"]
