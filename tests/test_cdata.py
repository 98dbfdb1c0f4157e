"""MiniCPM5's CDATA strings (``XmlCall.cdata``): the writer wraps a string holding ``<``, ``&`` or a
newline in ``<![CDATA[...]]>``; every engine's grammar takes what it writes, and the strict, lenient
and streamed parsers give the string back unwrapped, also for bounded, pattern and enum strings."""

from __future__ import annotations

import json

import pytest
from strategies import engine_results
from toolgram.compiler.dialects import NAMES as DIALECTS
from toolgram.grammars import FORMATS
from toolgram.grammars.render import render_calls

import toolgram

FMT = "minicpm5"
TOOLS = [{"type": "function", "function": {"name": "f", "parameters": {"type": "object", "properties": {
    "s": {"type": "string"},
    "b": {"type": "string", "maxLength": 12},
    "p": {"type": "string", "pattern": "^[a-z&<\n]+$"},
    "e": {"enum": ["a&b", "x<y", "plain"]},
    "n": {"type": "integer"},
}, "required": ["s"]}}}]

CASES = [
    {"s": "plain"},
    {"s": "a < b && c"},
    {"s": "line 1\nline 2\n"},
    {"s": "<![CDATA[already wrapped]]>"},  # a string that looks wrapped is wrapped again
    {"s": "ends ]]> inside"},  # ']]>' has no '<', '&' or newline: written raw
    {"s": "<b>]]> then more"},  # the closing tag does not follow the first ']]>': read by the plain rule
    {"s": "x</param><param name=\"n\">1"},  # in CDATA, the closing tag and the next parameter's opening are text
    {"s": "x", "b": "a&b\nc", "p": "a<b&c", "e": "x<y", "n": 3},
    {"s": "x", "b": "plain", "p": "abc", "e": "a&b"},
]


def _args(msg: dict) -> list[dict]:
    return [json.loads(c["function"]["arguments"]) for c in msg.get("tool_calls") or []]


def test_only_minicpm5_writes_cdata() -> None:
    assert [f for f, s in FORMATS.items() if getattr(s.call, "cdata", False)] == [FMT]


@pytest.mark.parametrize("args", CASES, ids=range(len(CASES)))
def test_written_value_reads_back(args: dict) -> None:
    text = render_calls(FMT, [("f", args)])
    if any(c in args["s"] for c in "<&\n"):
        assert "<![CDATA[" + args["s"] + "]]>" in text
    for mode in ("strict", "lenient"):
        msg = toolgram.parse(FMT, text, TOOLS, mode=mode)
        assert _args(msg) == [args], (mode, msg)
    sp = toolgram.StreamParser(FMT, TOOLS)
    for ch in text:
        sp.feed(ch)
    sp.finish()
    assert _args(sp.message) == [args]


@pytest.mark.parametrize("args", CASES, ids=range(len(CASES)))
def test_every_engine_accepts_the_written_value(args: dict) -> None:
    text = render_calls(FMT, [("f", args)])
    for dialect in DIALECTS:
        bundle = toolgram.compile(FMT, TOOLS, dialect=dialect, tool_choice="required")
        results = engine_results(bundle, text)
        assert all(ok for ok, _ in results.values()), (dialect, results)


@pytest.mark.parametrize("value", ["<![CDATA[a]]b]]>", "<![CDATA[" + "x" * 13 + "]]>"])
def test_bounded_cdata_keeps_its_bounds(value: str) -> None:
    # inside CDATA a bounded string may not hold ']' and keeps maxLength (12) on the unwrapped text
    text = f'<function name="f"><param name="s">x</param><param name="b">{value}</param></function>'
    msg = toolgram.parse(FMT, text, TOOLS, mode="strict")
    assert not msg.get("tool_calls") and msg["diagnostics"][0]["code"] == "strict_rejected"


def test_truncated_cdata_string_is_kept_as_received() -> None:
    text = '<function name="f"><param name="s"><![CDATA[a < b'
    msg = toolgram.parse(FMT, text, TOOLS)
    assert [c["function"]["arguments"] for c in msg["tool_calls"]] == ['{"s": "a < b']
