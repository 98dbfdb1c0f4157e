"""``parse(..., any_tool=True)``: a call to any name is a call (vLLM's and SGLang's reading, which the vLLM
plugin uses), in every format, whole and streamed alike; by default toolgram's commit rule holds (a known
tool's name, SPEC section 4)."""

from __future__ import annotations

import json
import pathlib

import pytest

import toolgram
from toolgram.errors import OptionError

EXAMPLES = pathlib.Path(__file__).resolve().parent.parent / "grammars" / "examples"
TOOLS = json.loads((EXAMPLES / "tools.json").read_text())


def _one_call(fid: str) -> str:
    return (EXAMPLES / "outputs" / f"{fid}_one_call.txt").read_text()


def _streamed(fid: str, text: str, **options: object) -> dict:
    parser = toolgram.StreamParser(fid, None, **options)
    for ch in text:
        parser.feed(ch)
    parser.finish()
    return parser.message


@pytest.mark.parametrize("fid", list(toolgram.FORMATS))
def test_any_name_is_read_as_the_tool_would_be(fid: str) -> None:
    text = _one_call(fid)
    [call] = toolgram.parse(fid, text, TOOLS)["tool_calls"]
    name = call["function"]["name"]
    renamed = text.replace(name, "look_up_" + name)
    # untyped: read as a declared tool without parameters would be
    untyped = toolgram.parse(fid, renamed, [{"type": "function", "function": {"name": "look_up_" + name}}])
    assert [c["function"]["name"] for c in untyped["tool_calls"]] == ["look_up_" + name]
    got = toolgram.parse(fid, renamed, None, any_tool=True)
    assert got["tool_calls"] == untyped["tool_calls"] and got["content"] == untyped["content"]
    assert _streamed(fid, renamed, any_tool=True) == got
    # declared tools keep their schemas
    assert toolgram.parse(fid, text, TOOLS, any_tool=True)["tool_calls"] == [call]
    # the default: an unknown name stays content (with a diagnostic where the name is no longer than a
    # known one: the reader looks no further ahead for a name)
    assert toolgram.parse(fid, renamed, TOOLS)["tool_calls"] == []
    default = toolgram.parse(fid, text.replace(name, name[::-1]), TOOLS)
    assert default["tool_calls"] == [] and "unknown_tool" in {d["code"] for d in default["diagnostics"]}
    assert toolgram.parse(fid, renamed, None, any_tool=True, tool_choice="none")["tool_calls"] == []


def test_a_name_must_be_made_of_name_characters() -> None:
    text = '<tool_call>\n{"name": "look up", "arguments": {}}\n</tool_call>'
    assert toolgram.parse("hermes", text, None, any_tool=True)["tool_calls"] == []
    long = '<tool_call>\n{"name": "%s", "arguments": {}}\n</tool_call>' % ("n" * 129)
    assert toolgram.parse("hermes", long, None, any_tool=True)["tool_calls"] == []
    ok = long.replace("n" * 129, "n" * 128)
    assert [c["function"]["name"] for c in toolgram.parse("hermes", ok, None, any_tool=True)["tool_calls"]] == [
        "n" * 128]


def test_strict_parsing_has_no_any_tool() -> None:
    with pytest.raises(OptionError, match="any_tool"):
        toolgram.parse("hermes", "hi", TOOLS, mode="strict", any_tool=True)
