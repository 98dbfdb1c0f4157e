"""Keywords JSON Schema does not define are annotations: they never change what is valid.

Real schemas carry editor hints and extensions beside the validation keywords (SchemaStore's
``markdownDescription`` and ``deprecationMessage``, OpenAPI's ``discriminator``, ``x-...``).  Validators ignore them,
so two ``allOf`` branches (or a ``$ref`` and its siblings) may disagree on them: the merge keeps either text, a
``$ref`` beside them alone shares its target's rule, and ``propertyNames`` may carry them.  GitLab CI, CircleCI,
Azure Pipelines, Cloud Build and Snapcraft schemas were refused for this alone.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from strategies import engine_results
from toolgram.compiler.bundle import compile
from toolgram.compiler.keywords import KEYWORDS, annotation
from toolgram.grammars.render import render_calls
from toolgram.parsing.strict import parse_strict

UNKNOWN = ("markdownDescription", "deprecationMessage", "discriminator", "x-vendor", "errorMessage")


def _tools(params: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"type": "function", "function": {"name": "f", "parameters": params}}]


def _strip(schema: Any) -> Any:
    """``schema`` without the unknown keywords (the language it must compile to)."""
    if isinstance(schema, dict):
        return {k: _strip(v) for k, v in schema.items() if k not in UNKNOWN}
    if isinstance(schema, list):
        return [_strip(v) for v in schema]
    return schema


def test_which_keywords_are_annotations() -> None:
    """Registered annotations and unknown keywords are; enforced ones, ``format`` and toolgram's own keys are not."""
    assert all(annotation(k) for k in UNKNOWN)
    assert annotation("description") and annotation("title")
    assert not any(annotation(k) for k, status in KEYWORDS.items() if status != "annotation")
    assert not annotation("format")
    assert not annotation("$toolgram:not-strings") and not annotation("$toolgram:also-patterns")


CASES: dict[str, dict[str, Any]] = {
    "all_of_disagree": {"type": "object", "properties": {"image": {"allOf": [
        {"type": "string", "markdownDescription": "the image", "deprecationMessage": "old"},
        {"maxLength": 8, "markdownDescription": "an image name", "deprecationMessage": "older"}]}},
        "required": ["image"]},
    "ref_beside_unknown": {"type": "object", "$defs": {"name": {"type": "string", "pattern": "^[a-z]+$"}},
                           "properties": {"a": {"$ref": "#/$defs/name", "markdownDescription": "first"},
                                          "b": {"$ref": "#/$defs/name", "x-vendor": {"ui": "text"}}},
                           "required": ["a"]},
    "discriminated_union": {"type": "object", "properties": {"step": {"oneOf": [
        {"allOf": [{"$ref": "#/$defs/run"}], "discriminator": {"propertyName": "kind"}},
        {"allOf": [{"$ref": "#/$defs/stop"}], "discriminator": {"propertyName": "type"}}]}},
        "required": ["step"],
        "$defs": {"run": {"type": "object", "properties": {"kind": {"const": "run"}}, "required": ["kind"],
                          "additionalProperties": False, "discriminator": {"propertyName": "kind"}},
                  "stop": {"type": "object", "properties": {"kind": {"const": "stop"}}, "required": ["kind"],
                           "additionalProperties": False}}},
    "property_names_hint": {"type": "object", "propertyNames": {"pattern": "^[a-z]+$",
                                                                "markdownDescription": "lower case"},
                            "additionalProperties": {"type": "integer"}},
}


@pytest.mark.parametrize("name", CASES)
@pytest.mark.parametrize("fmt", ["hermes", "qwen3_coder"])
def test_unknown_keywords_change_nothing(name: str, fmt: str) -> None:
    """Strict compiling succeeds, nothing is relaxed, and the grammar is the one of the schema without them."""
    schema = CASES[name]
    bundle = compile(fmt, _tools(copy.deepcopy(schema)), dialect="ebnf", tool_choice="required")
    assert bundle.relaxed == []
    plain = compile(fmt, _tools(_strip(schema)), dialect="ebnf", tool_choice="required")
    assert bundle.grammar == plain.grammar


@pytest.mark.parametrize(("name", "args", "ok"), [
    ("all_of_disagree", {"image": "alpine"}, True),
    ("all_of_disagree", {"image": "alpine:3.19"}, False),  # both branches hold: maxLength 8
    ("ref_beside_unknown", {"a": "x", "b": "y"}, True),
    ("ref_beside_unknown", {"a": "X"}, False),  # the target's pattern holds beside the hint
    ("discriminated_union", {"step": {"kind": "stop"}}, True),
    ("discriminated_union", {"step": {"kind": "go"}}, False),
    ("property_names_hint", {"ab": 1}, True),
    ("property_names_hint", {"Ab": 1}, False),
])
def test_the_validation_keywords_still_hold(name: str, args: dict[str, Any], ok: bool) -> None:
    """Beside the hints, the schema's own keywords are enforced: xgrammar, llama.cpp, Lark and the strict parser."""
    text = render_calls("hermes", [("f", args)])
    for dialect in ("ebnf", "gbnf", "lark"):
        bundle = compile("hermes", _tools(CASES[name]), dialect=dialect, tool_choice="required")
        results = engine_results(bundle, text)
        assert {accepted for accepted, _ in results.values()} == {ok}, (dialect, results)
    calls = parse_strict("hermes", text, _tools(CASES[name]), tool_choice="required")["tool_calls"]
    assert bool(calls) == ok
