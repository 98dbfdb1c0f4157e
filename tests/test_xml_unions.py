"""Unions of raw strings in the formats that write strings raw (XML parameters, MiniMax-M3 elements).

pydantic writes ``Optional[Literal["a", "b"]]`` as ``anyOf: [{enum: [...]}, {type: null}]`` and
``Optional[constr(max_length=2)]`` as ``anyOf: [{type: string, maxLength: 2}, {type: null}]``.  These formats
wrote any text for such a union (a string branch made the whole value raw), so an invalid enum value or an
over-long string passed.  Now the value is the texts of the string branches, or ``null``; a constrained string
beside numbers, booleans or containers, which raw text cannot keep apart, is refused with its path.

Each valid instance (``jsonschema``: the oracle) rendered as a call is accepted by xgrammar and Lark and read back
equal by the strict parser; each invalid one is rejected by both engines and is no call for the strict parser.
"""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest
from strategies import engine_results
from toolgram.compiler.bundle import compile
from toolgram.grammars.render import render_calls
from toolgram.parsing.strict import parse_strict

from toolgram.errors import UnsupportedSchemaError

#: argument -> (schema, valid values, invalid values)
CASES: dict[str, tuple[dict[str, Any], list[Any], list[Any]]] = {
    "opt_enum": ({"anyOf": [{"enum": ["x", "y"]}, {"type": "null"}]}, ["x", "y", None], ["z", "xy"]),
    "opt_bounded": ({"anyOf": [{"type": "string", "maxLength": 2}, {"type": "null"}]}, ["ab", "a", None],
                    ["abc", "nul"]),
    "list_pattern": ({"type": ["string", "null"], "pattern": "^z+$"}, ["zz", None], ["za", "q"]),
    "string_any_of": ({"type": "string", "anyOf": [{"maxLength": 2}, {"pattern": "^x+$"}]}, ["ab", "xxxx"],
                      ["abc", "xxy"]),
    "mixed_enum": ({"enum": ["auto", 1, None]}, ["auto", 1, None], ["man", 2]),
    "one_of_words": ({"oneOf": [{"const": "on"}, {"const": "off"}, {"type": "null"}]}, ["on", "off", None],
                     ["of", "onoff"]),
}
FORMATS = ("qwen3_coder", "glm4", "minicpm5", "kimi_k3", "deepseek_dsml", "minimax_m3")
TOOLS = [{"type": "function", "function": {"name": "f", "parameters": {
    "type": "object", "properties": {k: s for k, (s, _, _) in CASES.items()}}}}]


def test_instances_agree_with_jsonschema() -> None:
    for key, (schema, good, bad) in CASES.items():
        assert all(jsonschema.Draft202012Validator(schema).is_valid(v) for v in good), key
        assert not any(jsonschema.Draft202012Validator(schema).is_valid(v) for v in bad), key


@pytest.mark.parametrize("fmt", FORMATS)
def test_union_values(fmt: str) -> None:
    bundles = [compile(fmt, TOOLS, dialect=d, tool_choice="required", parallel_tool_calls=False)
               for d in ("lark", "ebnf")]
    for key, (_, good, bad) in CASES.items():
        for v, ok in [*((v, True) for v in good), *((v, False) for v in bad)]:
            text = render_calls(fmt, [("f", {key: v})])
            for b in bundles:
                for engine, (accepted, pos) in engine_results(b, text).items():
                    assert accepted == ok, f"{engine} {'rejects' if ok else 'accepts'} {key}={v!r} ({pos}): {text!r}"
            calls = parse_strict(fmt, text, TOOLS, tool_choice="required", parallel_tool_calls=False)["tool_calls"]
            if ok:
                assert [json.loads(c["function"]["arguments"]) for c in calls] == [{key: v}], (key, v, text)
            else:
                assert not calls, (key, v, text)


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("schema", [
    {"anyOf": [{"type": "string", "maxLength": 3}, {"type": "integer"}]},
    {"type": ["string", "number"], "maxLength": 2},
])
def test_mixed_union_refused(fmt: str, schema: dict[str, Any]) -> None:
    """A constrained string beside another type raw text cannot tell apart: refused with the path (strict), any
    text under --permissive (a superset, listed as relaxed)."""
    tools = [{"type": "function", "function": {"name": "f", "parameters": {
        "type": "object", "properties": {"v": schema}}}}]
    with pytest.raises(UnsupportedSchemaError, match=r"properties\.v"):
        compile(fmt, tools, dialect="lark")
    relaxed = compile(fmt, tools, dialect="lark", permissive=True).relaxed
    assert [r["path"].rsplit(".", 1)[0] for r in relaxed] == ["$[0].function.parameters.properties.v"], relaxed
