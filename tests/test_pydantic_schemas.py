"""Real-world pydantic schemas: a sample of the OpenAI Python SDK's models (tests/data/pydantic-schemas, made by
its ``make.py``), each as one tool's ``parameters``.  These are the schemas Python tools hand over (FastAPI, MCP
servers, agent SDKs): ``$defs`` and ``$ref``, ``anyOf`` with ``null``, ``const`` discriminators, ``default``s,
and, since the SDK's models allow extra fields, ``additionalProperties: true`` on most objects.

Every one compiles strictly.  Valid arguments that ``hypothesis-jsonschema`` draws (the oracle is ``jsonschema``
on the schema as toolgram reads it: an object with ``properties`` and no ``additionalProperties`` admits no
other key; members in ``properties`` order, extra ones last) are accepted by xgrammar and read back equal by the
strict parser; arguments with one value of the wrong type, or a required member left out, are rejected by both.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_jsonschema import from_schema
from strategies import engine_results, tool
from toolgram.compiler.bundle import Bundle, compile
from toolgram.grammars.render import render_calls
from toolgram.parsing.strict import parse_strict

DATA = json.loads((Path(__file__).parent / "data" / "pydantic-schemas" / "openai.json").read_text("utf-8"))
SCHEMAS: dict[str, dict[str, Any]] = DATA["schemas"]


def closed(schema: Any) -> Any:
    """``schema`` as toolgram reads it, for the oracle: ``additionalProperties: false`` where ``properties`` stand
    without it (toolgram's documented policy)."""
    if isinstance(schema, list):
        return [closed(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out = {k: closed(v) for k, v in schema.items()}
    if "properties" in out and "additionalProperties" not in out and "patternProperties" not in out:
        out["additionalProperties"] = False
    return out


def _target(schema: dict[str, Any], root: dict[str, Any]) -> dict[str, Any]:
    while isinstance(schema, dict) and isinstance(schema.get("$ref"), str) and schema["$ref"].startswith("#/$defs/"):
        rest = {k: v for k, v in schema.items() if k != "$ref"}
        schema = {**root["$defs"][schema["$ref"][len("#/$defs/"):]], **rest}
    return schema


def ordered(value: Any, schema: Any, root: dict[str, Any]) -> Any:
    """``value`` with each object's members in the order toolgram writes them: its schema's ``properties`` order,
    extra members after (an ``anyOf``/``oneOf`` value follows the first branch that admits it)."""
    schema = _target(schema, root)
    if not isinstance(schema, dict):
        return value
    for key in ("anyOf", "oneOf"):
        for branch in schema.get(key, []):
            if jsonschema.Draft202012Validator({**_target(branch, root), "$defs": root.get("$defs", {})}
                                               ).is_valid(value):
                return ordered(value, branch, root)
    if isinstance(value, dict):
        props = schema.get("properties", {})
        names = list(props)
        extra = schema.get("additionalProperties")
        keys = sorted(value, key=lambda k: names.index(k) if k in names else len(names))
        return {k: ordered(value[k], props.get(k, extra if isinstance(extra, dict) else {}), root) for k in keys}
    if isinstance(value, list) and isinstance(schema.get("items"), dict):
        return [ordered(v, schema["items"], root) for v in value]
    return value


@cache
def _compiled(name: str) -> tuple[list[dict[str, Any]], dict[str, Any], Bundle]:
    schema = closed(SCHEMAS[name])
    tools = [tool("f", schema)]
    return tools, schema, compile("hermes", tools, dialect="ebnf", tool_choice="required")


@cache
def _arguments(name: str) -> st.SearchStrategy[Any]:
    return from_schema(json.loads(json.dumps(_compiled(name)[1])))  # (a copy: the strategy may edit its schema)


def _verdicts(name: str, args: dict[str, Any]) -> set[bool]:
    tools, _, bundle = _compiled(name)
    text = render_calls("hermes", [("f", args)])
    verdicts = {accepted for accepted, _ in engine_results(bundle, text).values()}
    calls = parse_strict("hermes", text, tools, tool_choice="required")["tool_calls"]
    verdicts.add(bool(calls) and json.loads(calls[0]["function"]["arguments"]) == args)
    return verdicts


def test_the_sample() -> None:
    assert DATA["openai"] == "3.63.0" and len(SCHEMAS) == 56
    extra = sum('"additionalProperties": true' in json.dumps(s) for s in SCHEMAS.values())
    assert extra > 40  # most carry real-world extra keys


def _check(name: str, data: st.DataObject) -> None:
    _, schema, _ = _compiled(name)
    oracle = jsonschema.Draft202012Validator(schema)
    args = data.draw(_arguments(name))
    assert oracle.is_valid(args)
    args = ordered(args, schema, schema)
    assert _verdicts(name, args) == {True}, args
    # one member of the wrong type, or a required one left out
    key = data.draw(st.sampled_from(sorted(args))) if args else None
    if key is None:
        return
    wrong = {k: v for k, v in args.items() if k != key}
    if data.draw(st.booleans()):
        wrong = {**args, key: data.draw(st.sampled_from([12345, "zz", True, None, [], {}, 1.5]))}
    if not oracle.is_valid(wrong):
        assert _verdicts(name, ordered(wrong, schema, schema)) == {False}, wrong


@pytest.mark.parametrize("name", sorted(SCHEMAS)[::4])  # a quarter by default; all of them in the slow twin
@settings(max_examples=3, deadline=None, database=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_valid_arguments_pass_and_invalid_ones_do_not(name: str, data: st.DataObject) -> None:
    _check(name, data)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(SCHEMAS))
@settings(max_examples=12, deadline=None, database=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_valid_arguments_pass_and_invalid_ones_do_not_long(name: str, data: st.DataObject) -> None:
    _check(name, data)
