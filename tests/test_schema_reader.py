"""One reading of a tool's arguments (issue 8): compile and parse agree on wrapped parameters.

A tool's ``parameters`` may name its argument object through a top-level ``$ref`` or an ``allOf``
of object schemas. The compiler writes its members from :func:`arguments_object`; the parsers
type values from the same reading (:meth:`Tool.reading_schema`). Regression: the parsers read
``parameters.properties`` only, so a string argument ``123`` that the grammar holds as a string
came back as the integer 123 when the object stood behind a ``$ref``.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from strategies import engine_results
from toolgram.compiler.dialects import NAMES as DIALECTS
from toolgram.grammars import FORMATS
from toolgram.grammars.render import render_calls

import toolgram

OBJECT = {"type": "object", "properties": {"code": {"type": "string"}, "n": {"type": "integer"}},
          "required": ["code"]}
WRAPPED = {
    "plain": OBJECT,
    "ref": {"$ref": "#/$defs/Args", "$defs": {"Args": OBJECT}},
    "ref_chain": {"$ref": "#/$defs/A", "$defs": {"A": {"$ref": "#/$defs/B"}, "B": OBJECT}},
    "all_of": {"allOf": [{"type": "object", "properties": {"code": {"type": "string"}}, "required": ["code"]},
                         {"type": "object", "properties": {"n": {"type": "integer"}}}]},
}
ARGS = {"code": "123", "n": 7}


def _tools(params: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"type": "function", "function": {"name": "f", "parameters": params}}]


@pytest.mark.parametrize("fmt", list(FORMATS))
@pytest.mark.parametrize("wrap", [w for w in WRAPPED if w != "plain"])
def test_wrapped_parameters_compile_and_parse_like_the_plain_object(fmt: str, wrap: str) -> None:
    tools = _tools(WRAPPED[wrap])
    text = render_calls(fmt, [("f", ARGS)])
    # n must be an integer: a word there is rejected in every format (JSON, Python, Gemma and raw XML)
    bad = render_calls(fmt, [("f", {"code": "123", "n": "seven"})])
    for dialect in DIALECTS:
        bundle = toolgram.compile(fmt, tools, dialect=dialect, tool_choice="required")
        for engine, (ok, pos) in engine_results(bundle, text).items():
            assert ok, f"{engine} ({dialect}) rejects {text!r} at {pos}"
        for engine, (ok, _) in engine_results(bundle, bad).items():
            assert not ok, f"{engine} ({dialect}) accepts {bad!r}: the wrapped object's members are not enforced"
    for mode in ("strict", "lenient"):
        msg = toolgram.parse(fmt, text, tools, mode=mode, tool_choice="required")
        assert [json.loads(c["function"]["arguments"]) for c in msg["tool_calls"]] == [ARGS], (mode, msg)


def test_an_unknown_type_name_points_to_the_one_meant() -> None:
    with pytest.raises(toolgram.ToolgramError, match=r"unrecognized type 'int' \(did you mean 'integer'\?\)"):
        toolgram.compile("hermes", _tools({"type": "object", "properties": {"n": {"type": "int"}}}))
