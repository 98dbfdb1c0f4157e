"""Instances from ``hypothesis-jsonschema`` (issue 22): every valid instance of a random schema, rendered as a
call, is accepted by every dialect's engine and parsed back equal by the strict parser; a mutated instance
that ``jsonschema`` finds invalid (under toolgram's reading, docs/schema.md) is rejected by all of them.

The schemas are random tool parameters (tests/strategies.py) with the object keywords of this issue added:
``additionalProperties`` (true, a schema or absent), ``minProperties``/``maxProperties``, a required
name that ``properties`` does not declare, a ``oneOf`` of two tests on declared names, and a condition on
declared names (``if``/``then``/``else`` or ``dependentSchemas``).  Instances are written in the documented
member order.
"""

from __future__ import annotations

import json
import string
from functools import cache

import jsonschema
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from hypothesis_jsonschema import from_schema
from strategies import SLOW, engine_results, json_schemas, tool
from test_json_schema_suite import _ordered, toolgram_reading
from toolgram.compiler.bundle import Bundle, compile
from toolgram.grammars.render import render_calls
from toolgram.parsing.strict import parse_strict

from toolgram.errors import EmptySchemaError

DIALECTS = ("lark", "ebnf", "gbnf") if SLOW else ("lark", "ebnf")


@st.composite
def object_schemas(draw: st.DrawFn) -> dict:
    params = draw(json_schemas())
    params.pop("$defs", None)
    params["properties"] = {k: v for k, v in params["properties"].items() if "$ref" not in v}
    ap = draw(st.sampled_from([None, True, {"type": "integer"}, {"type": "string", "maxLength": 3}]))
    if ap is not None:
        params["additionalProperties"] = ap
        if draw(st.booleans()):
            params.setdefault("required", []).append("zz")
    if draw(st.booleans()):
        lo = draw(st.integers(0, 2))
        params["minProperties"] = lo
        params["maxProperties"] = lo + draw(st.integers(0, 2))
    names = sorted(params["properties"])

    def tests(a: str) -> st.SearchStrategy[dict]:
        return st.sampled_from([{"required": [a]}, {"properties": {a: {"type": "null"}}},
                                {"properties": {a: {"type": ["string", "boolean"]}}, "required": [a]},
                                {"not": {"required": [a]}}, {"minProperties": 2},
                                {"properties": {a: {"type": "string", "pattern": "^a"}}, "required": [a]},
                                {"properties": {a: {"not": {"pattern": "b"}}}}])

    if names and draw(st.booleans()):  # exactly one of two tests on declared names (oneOf, the branches split)
        params["oneOf"] = [draw(tests(draw(st.sampled_from(names)))) for _ in range(2)]
    if names and draw(st.booleans()):  # a condition on declared names (if/then/else, dependentSchemas)
        a, b = draw(st.sampled_from(names)), draw(st.sampled_from(names))
        test = draw(tests(a))
        then = draw(st.sampled_from([{"required": [b]}, {"maxProperties": 1}, {"properties": {b: {"type": "null"}}}]))
        if draw(st.booleans()):
            params["if"], params["then"] = test, then
            if draw(st.booleans()):
                params["else"] = {"required": [a]}
        else:
            params["dependentSchemas"] = {a: then}
    return params


@cache
def _bundles(params_json: str) -> tuple[Bundle, ...] | None:
    return tuple(compile("hermes", [tool("f", json.loads(params_json))], dialect=d, tool_choice="required")
                 for d in DIALECTS)


def _verdicts(params: dict, args: dict) -> tuple[dict[str, bool], str]:
    text = render_calls("hermes", [("f", args)])
    out = {}
    for b in _bundles(json.dumps(params)):
        out.update({f"{b.dialect}/{k}": ok for k, (ok, _) in engine_results(b, text).items()})
    msg = parse_strict("hermes", text, [tool("f", params)], tool_choice="required")
    out["strict"] = bool(msg["tool_calls"])
    return out, (msg["tool_calls"][0]["function"]["arguments"] if msg["tool_calls"] else "")


_KEYS = st.text(alphabet=string.ascii_lowercase[:4] + "z", min_size=1, max_size=2)
_SCALARS = st.none() | st.booleans() | st.integers(-99, 99) | st.text(alphabet="ab<\"\\é", max_size=4)


def mutate(value: object, data: st.DataObject) -> object:
    """One random change: a member dropped, added (often a declared name) or its value replaced."""
    if isinstance(value, dict) and value and data.draw(st.booleans()):
        key = data.draw(st.sampled_from(sorted(value)))
        choice = data.draw(st.integers(0, 2))
        if choice == 0:
            return {k: v for k, v in value.items() if k != key}
        if choice == 1:
            return {**value, key: mutate(value[key], data)}
    if isinstance(value, dict):
        return {**value, data.draw(_KEYS): data.draw(_SCALARS)}
    return data.draw(_SCALARS)


@pytest.mark.parametrize("seed", [0])
@settings(max_examples=200 if SLOW else 10, suppress_health_check=list(HealthCheck))
@given(params=object_schemas(), data=st.data())
def test_valid_and_mutated_instances(seed: int, params: dict, data: st.DataObject) -> None:
    try:
        _bundles(json.dumps(params))
    except EmptySchemaError:
        assume(False)  # no object is valid (minProperties 1 with no name to write): nothing to draw
    reading = toolgram_reading(params)
    validator = jsonschema.Draft202012Validator(reading)
    # (a copy: hypothesis-jsonschema rewrites its schema in place, inlining `$ref`s with their members sorted)
    args = data.draw(from_schema(json.loads(json.dumps(reading))), label="instance")
    args = _ordered(args, reading, reading)
    assume(validator.is_valid(args))  # (hypothesis-jsonschema draws some instances dependentSchemas rejects)
    verdicts, arguments = _verdicts(params, args)
    assert set(verdicts.values()) == {True}, (verdicts, args)
    assert json.loads(arguments) == args
    bad = _ordered(mutate(args, data), reading, reading)
    if not validator.is_valid(bad):
        verdicts, _ = _verdicts(params, bad)
        assert set(verdicts.values()) == {False}, (verdicts, bad)
