"""The builder's per-grammar memos (issue 10: grammar text time) change no grammar.

``ValueBuilder.value_once`` builds a value once per schema text and ``GrammarBuilder._validate_json``
checks a schema text once.  The differential check needs no switch: a schema's ``description``
does not change its grammar but does change its text, so tools that repeat one schema (memo hits)
and the same tools with a distinct description on every schema (no hit) must compile to the same
bytes, with the same relaxations, in every format and dialect.  The cases reach the memo's
exclusions too: any-value (``{}``, open objects), ``$ref``, ``pattern`` and relaxed keywords.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from toolgram.compiler.bundle import compile
from toolgram.compiler.dialects import NAMES as DIALECTS
from toolgram.grammars import FORMATS

PARAMS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "city": {"type": "string"},
        "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
        "days": {"type": "integer", "minimum": 1, "maximum": 14},
        "tags": {"type": "array", "items": {"type": "string"}},
        "where": {"type": "object", "properties": {"lat": {"type": "number"}, "lon": {"type": "number"}},
                  "required": ["lat"]},
        "code": {"type": "string", "pattern": "^[A-Z]{3}$"},
        "note": {"anyOf": [{"type": "string", "maxLength": 20}, {"type": "null"}]},
        "extra": {},
        "open": {"type": "object"},
    },
    "required": ["city"],
}
REF_PARAMS: dict[str, Any] = {
    "type": "object",
    "properties": {"a": {"$ref": "#/$defs/n"}, "b": {"type": "string"}},
    "$defs": {"n": {"type": "integer"}},
}
#: a keyword no grammar enforces: relaxed under permissive=True, and listed once per place
RELAXED_PARAMS: dict[str, Any] = {
    "type": "object",
    "properties": {"s": {"type": "integer", "multipleOf": 97}, "t": {"type": "string"}},
}


def _tools(params: dict[str, Any], n: int) -> list[dict[str, Any]]:
    return [{"type": "function", "function": {"name": f"tool_{i}", "parameters": copy.deepcopy(params)}}
            for i in range(n)]


def _described(tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The same tools, every (sub)schema given its own description: no two schema texts are equal."""
    out = copy.deepcopy(tools)
    count = 0

    def walk(node: Any, is_schema: bool) -> None:
        nonlocal count
        if isinstance(node, dict):
            if is_schema:
                count += 1
                node["description"] = f"d{count}"
            for k, v in list(node.items()):
                if k in ("properties", "$defs"):
                    for sub in v.values():
                        walk(sub, True)
                elif k in ("items", "additionalProperties") and isinstance(v, dict):
                    walk(v, True)
                elif k in ("anyOf", "oneOf", "allOf"):
                    for sub in v:
                        walk(sub, True)
    for t in out:
        walk(t["function"]["parameters"], True)
    assert count >= 3 * len(tools)
    return out


def _compiled(fmt: str, dialect: str, tools: list[dict[str, Any]], **opts: Any) -> tuple[str, list]:
    try:
        b = compile(fmt, tools, dialect=dialect, **opts)
    except Exception as exc:  # noqa: BLE001 - both sides must fail alike
        return f"{type(exc).__name__}: {exc}", []
    g = b.grammar if isinstance(b.grammar, str) else json.dumps(b.grammar, sort_keys=True)
    return g, b.relaxed


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_repeated_schemas_compile_as_distinct_ones(fmt: str, dialect: str) -> None:
    for params, opts in ((PARAMS, {}), (REF_PARAMS, {}), (RELAXED_PARAMS, {"permissive": True})):
        tools = _tools(params, 3)
        same = _compiled(fmt, dialect, tools, **opts)
        distinct = _compiled(fmt, dialect, _described(tools), **opts)
        assert same == distinct, (fmt, dialect, params)


def test_relaxations_are_listed_for_every_tool() -> None:
    """A relaxed keyword is never hidden behind a memo hit: each tool's path is listed."""
    b = compile("hermes", _tools(RELAXED_PARAMS, 3), dialect="gbnf", permissive=True)
    paths = sorted(r["path"] for r in b.relaxed)
    assert paths == [f"$[{i}].function.parameters.properties.s.multipleOf" for i in range(3)]
    b = compile("qwen3_coder", _tools(RELAXED_PARAMS, 3), dialect="gbnf", permissive=True)
    assert sorted(r["path"] for r in b.relaxed) == paths
