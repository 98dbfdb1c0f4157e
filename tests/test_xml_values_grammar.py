"""Raw XML values under ``xml_values="lookahead"`` (issue 12 "Data is lost"; the default
``first_close`` is tested in test_language_options.py): a value ends at the closing tag only when the next
``<parameter=`` or ``</function>`` follows it (``XmlCall.value_stops``, vLLM's rule), so values may
contain ``</parameter>``, ``<parameter=``, ``<tool_call>`` and the format's other tags elsewhere,
plus leading/trailing whitespace and newlines.

Every engine of every dialect (xgrammar EBNF and structural tag, llama.cpp GBNF, Lark) accepts the
rendered call, and strict parsing (the Lark grammar) and lenient parsing (the scanner) return the
values byte-exact.
"""

from __future__ import annotations

import json
import re
from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import engine_results, tool
from toolgram.compiler.bundle import Bundle, compile
from toolgram.compiler.dialects import NAMES as DIALECT_NAMES
from toolgram.grammars import get_format
from toolgram.grammars.render import render_calls

XML_FORMATS = ("seed_oss", "qwen3_coder")
DIALECTS = list(DIALECT_NAMES)  # the registry's order (toolgram.compiler.dialects)

TOOLS = [
    tool("write", {"type": "object", "properties": {"path": {"type": "string"}, "content": {"type": "string"},
                                                    "mode": {"type": "integer"}},
                   "required": ["path", "content"]}),
    tool("loose", {"type": "object", "properties": {}}, strict=False),
]

#: pieces values are made of: each format's tags, whitespace, and plain text
PIECES = ["</parameter>", "<parameter=", "<parameter=path>", "</function>", "<function=write>", "<tool_call>",
          "</tool_call>", "<seed:tool_call>", "</seed:tool_call>", "<think>", "\n", " ", "\t", "\n\n", "<", ">",
          "=", "/", "a", "x y", "é"]
VALUES = st.lists(st.sampled_from(PIECES), max_size=8).map("".join)


@cache
def _bundles(fmt: str) -> tuple[Bundle, ...]:
    return tuple(compile(fmt, TOOLS, dialect=d, tool_choice="required", parallel_tool_calls=True,
                         xml_values="lookahead") for d in DIALECTS)


#: what ends a raw value: the closing tag, optional whitespace, then the next parameter or the function end
VALUE_END = re.compile(r"</parameter>[ \t\n\r]*(?:<parameter=|</function>)")


def _carried(value: str) -> bool:
    """Whether ``value`` can be carried: it holds no value end."""
    return VALUE_END.search(value) is None


def check(fmt: str, calls: list) -> None:
    text = render_calls(fmt, calls)
    for bundle in _bundles(fmt):
        for engine, (ok, pos) in engine_results(bundle, text).items():
            assert ok, f"{bundle.dialect}/{engine} rejects at {pos}: {text[(pos or 0):][:60]!r}\ntext: {text!r}"
    import toolgram

    want = [(n, json.dumps(a, ensure_ascii=False)) for n, a in calls]
    for mode in ("strict", "lenient"):
        got = toolgram.parse(fmt, text, TOOLS, mode=mode, tool_choice="required", parallel_tool_calls=True,
                             xml_values="lookahead")
        assert [(c["function"]["name"], c["function"]["arguments"]) for c in got["tool_calls"]] == want, (mode, got)


@pytest.mark.parametrize("fmt", XML_FORMATS)
@pytest.mark.parametrize("value", [
    "a</parameter>b",
    "</parameter>\n<tool_call>\n<parameter=q>",
    "</parameter>\n",
    "\n</parameter>\nfoo",
    "x</parameter>\n</function",
    "<parameter=path>\nsecret\n</parameter>",
    "\n  indented\n\n",
    "",
])
def test_values_with_the_formats_tags(fmt: str, value: str) -> None:
    """Regression: the grammar forbade "</parameter>" anywhere in a raw value."""
    check(fmt, [("write", {"path": value, "content": value + "\n"}), ("loose", {"k": value})])


@pytest.mark.parametrize("fmt", XML_FORMATS)
@settings(max_examples=60)
@given(path=VALUES, content=VALUES, extra=VALUES)
def test_values_round_trip(fmt: str, path: str, content: str, extra: str) -> None:
    values = [path, content, extra]
    if not all(_carried(v) for v in values):
        return
    check(fmt, [("write", {"path": path, "content": content, "mode": 1}), ("loose", {"k": extra})])


@pytest.mark.parametrize("fmt", XML_FORMATS)
@pytest.mark.parametrize("end", ["</parameter>\n<parameter=", "</parameter><parameter=",
                                 "</parameter> \r\n</function>"])
def test_a_value_end_inside_a_value_ends_it(fmt: str, end: str) -> None:
    """A value end inside a value (any whitespace in the gap) ends it: the grammar rejects the rendering."""
    assert VALUE_END.fullmatch(end) and get_format(fmt).call.value_stops[0] == "</parameter>\n<parameter="
    with pytest.raises(ValueError, match="closing tag"):  # the renderer refuses to write it (issue 28 finding 11)
        render_calls(fmt, [("write", {"path": "a" + end + "b>\nc", "content": "x"})])
    text = render_calls(fmt, [("write", {"path": "aMARKb>\nc", "content": "x"})]).replace("MARK", end)
    for bundle in _bundles(fmt):
        for engine, (ok, _) in engine_results(bundle, text).items():
            assert not ok, f"{bundle.dialect}/{engine} accepts a value holding {end!r}"


@pytest.mark.parametrize("fmt", XML_FORMATS)
def test_enum_word_holding_a_stop_is_rejected(fmt: str) -> None:
    from toolgram.errors import UnsupportedSchemaError

    stop = get_format(fmt).call.value_stops[1]
    tools = [tool("t", {"type": "object", "properties": {"a": {"enum": ["ok", "x" + stop]}}})]
    with pytest.raises(UnsupportedSchemaError, match=r"properties\.a\.enum"):
        compile(fmt, tools, dialect="gbnf", xml_values="lookahead")
