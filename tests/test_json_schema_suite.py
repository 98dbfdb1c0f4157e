"""The official JSON-Schema-Test-Suite (vendored from the ``jsonschema`` sdist: tests/data/SOURCES.md).

For every case of the keywords toolgram claims (``enforced`` in :mod:`toolgram.compiler.keywords`), the schema
is one tool's ``parameters`` when it is an object schema and the instance an object, and always also a
property's schema (``{"v": instance}``); the instance is rendered as a call, and each dialect's engine must
accept it exactly when the suite says ``valid``, and the strict parser must agree.  toolgram's documented
policies (docs/schema.md) decide where they differ from JSON Schema (:func:`toolgram_reading`).  A case of a
keyword toolgram does not claim must raise a ToolgramError naming the keyword's path (strict), or compile
with the keyword under ``relaxed`` to a grammar that accepts every valid instance (``--permissive``).

Default run: hermes with Lark and xgrammar (EBNF) over every fifth case of draft 2020-12 and draft 7's ``$ref``
cases; ``-m slow``: every case of both drafts, with llama.cpp's GBNF too.  A draft 7 case's parameters declare
draft 7 (``$schema``), as a user's draft 7 document does: there a ``$ref`` overrides its sibling keywords.
"""

from __future__ import annotations

import json
import math
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import referencing.exceptions
from strategies import engine_results, tool
from toolgram.compiler.bundle import Bundle, compile
from toolgram.compiler.keywords import KEYWORDS
from toolgram.compiler.schema import vacuous
from toolgram.compiler.values import dependency_names
from toolgram.grammars.render import render_calls
from toolgram.parsing.strict import parse_strict

from toolgram.errors import ToolgramError

SUITE = Path(__file__).parent / "data" / "json-schema-test-suite"
FILE_KEYWORD = {"ref": "$ref", "dynamicRef": "$dynamicRef", "if-then-else": "if"}
#: what a case's parameters declare as ``$schema`` (draft 2020-12 is what a schema without one is read as)
DECLARED = {"draft2020-12": None, "draft7": "http://json-schema.org/draft-07/schema#"}
#: the oracle per draft
VALIDATOR = {"draft2020-12": jsonschema.Draft202012Validator, "draft7": jsonschema.Draft7Validator}
#: the ratchet of known deviations (scripts/json_schema_suite_known.py writes it)
KNOWN: dict[str, list[str]] = json.loads((Path(__file__).parent / "json_schema_suite_known.json").read_text("utf-8"))


def suite_files(draft: str, status: str) -> list[Path]:
    files = sorted((SUITE / draft).glob("*.json"))
    return [f for f in files if KEYWORDS.get(FILE_KEYWORD.get(f.stem, f.stem)) == status]


#: keys whose values are instances or names, not schemas
VALUE_KEYS = ("enum", "const", "required", "examples", "default")


def pointer(root: Any, ref: str, missing: Any = None) -> Any:
    """The node a local reference (``#/a/b``, ``~1`` and ``~0`` escaped) names in ``root``; ``missing`` where
    there is none."""
    node = root
    for part in [p for p in ref[1:].split("/") if p]:
        node = node.get(part.replace("~1", "/").replace("~0", "~"), missing) if isinstance(node, dict) else missing
    return node


def _keywords(schema: Any) -> set[str]:
    """Every keyword used anywhere in ``schema`` (keys of schema objects; property names are skipped)."""
    out: set[str] = set()
    stack = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            for k, v in node.items():
                out.add(k)
                if k in ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas"):
                    if isinstance(v, dict):
                        stack.extend(v.values())
                elif k not in VALUE_KEYS:
                    stack.append(v)
        elif isinstance(node, list):
            stack.extend(node)
    return out


def toolgram_reading(schema: Any) -> Any:
    """:func:`_reading`, except in a schema that uses ``unevaluatedProperties``: there it, not toolgram's policy,
    decides the members no part declares (toolgram meets the parts first, then reads it as their
    ``additionalProperties``), so the schema is read as JSON Schema reads it."""
    return schema if "unevaluatedProperties" in _keywords(schema) else _reading(_inline_branches(schema, schema))


BRANCHES = ("allOf", "anyOf", "oneOf")


def _inline_branches(schema: Any, root: Any, depth: int = 0) -> Any:
    """``schema`` with each in-place branch that is only a local ``$ref`` (an ``allOf``/``anyOf``/``oneOf``
    branch, ``then``, ``else``) replaced by a copy of its target: toolgram meets the target as a branch, so its
    object policy is read on the met object, while the definition read alone is closed on its own names."""
    if isinstance(schema, list):
        return [_inline_branches(s, root, depth) for s in schema]
    if not isinstance(schema, dict):
        return schema

    def branch(b: Any) -> Any:
        ref = b.get("$ref") if isinstance(b, dict) else None
        if depth < 4 and isinstance(ref, str) and ref[:2] == "#/" and set(b) <= {"$ref", "description", "title"}:
            node = pointer(root, ref)
            if isinstance(node, dict) and "$ref" not in node and "$id" not in node:
                return _inline_branches(node, root, depth + 1)
        return _inline_branches(b, root, depth)
    out: dict[str, Any] = {}
    for k, v in schema.items():
        if k in VALUE_KEYS:
            out[k] = v
        elif k in BRANCHES and isinstance(v, list):
            out[k] = [branch(b) for b in v]
        elif k in ("then", "else"):
            out[k] = branch(v)
        else:
            out[k] = _inline_branches(v, root, depth)
    return out


def _reading(schema: Any, branch: bool = False) -> Any:
    """``schema`` as toolgram reads it (docs/schema.md), for jsonschema: ``additionalProperties`` absent means
    none when ``properties`` is present; a required name ``properties`` does not declare is a member.  toolgram
    reads that policy on an object met with its ``allOf`` branches (``branch``: one of them, left open), so
    the names the branches declare count as declared."""
    if isinstance(schema, list):
        return [_reading(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    # a condition's test (if, not) is read as JSON Schema reads it, at every depth; then/else declare their names
    # as allOf branches do (toolgram meets each with the object it tests): read them open
    out = {k: (v if k in ("enum", "const", "required", "if", "not") else _reading(v, branch=k in ("then", "else")))
           for k, v in schema.items()}
    if isinstance(schema.get("dependentSchemas"), dict):
        out["dependentSchemas"] = {k: _reading(v, branch=True) for k, v in schema["dependentSchemas"].items()}
    branches = [b for b in schema.get("allOf", []) if isinstance(b, dict)] if isinstance(schema.get("allOf"), list) \
        else []
    if branches:
        out["allOf"] = [_reading(b, branch=True) if isinstance(b, dict) else b for b in schema["allOf"]]
    parts = [schema, *branches]
    declared = {k: {} for p in parts if isinstance(p.get("properties"), dict) for k in p["properties"]}
    if isinstance(schema.get("properties"), dict):
        out["properties"] = {k: _reading(v) for k, v in schema["properties"].items()}
    has_properties = any(isinstance(p.get("properties"), dict) for p in parts)  # (an empty one too)
    policy = not branch and not any("additionalProperties" in p for p in parts)
    required_here = [k for p in parts for k in p.get("required", []) if isinstance(k, str)]
    closed_branches = False
    for key in ("anyOf", "oneOf"):
        # toolgram meets each branch with the keywords beside it and closes the met object on the names both
        # declare or require, where a policy applies (the outer declares names, or the branch does)
        if not isinstance(schema.get(key), list):
            continue
        read = []
        for b in schema[key]:
            if not isinstance(b, dict):
                read.append(b)
                continue
            own = isinstance(b.get("properties"), dict)
            closes = policy and "additionalProperties" not in b and (has_properties or own)
            # a branch the outer neither closes nor opens is the met object alone: read on its own
            rb = _reading(b, branch=closes or not policy)
            if closes:
                names = [*declared, *required_here, *(b.get("properties") or {}),
                         *(k for k in b.get("required", []) if isinstance(k, str))]
                props = rb.get("properties", {})
                rb = {**rb, "properties": {**props, **{k: {} for k in names if k not in props}},
                      "additionalProperties": False}
                closed_branches = True
            read.append(rb)
        out[key] = read
    if has_properties and policy and not closed_branches:
        extra = {k: {} for k in [*declared, *required_here] if k not in out.get("properties", {})}
        out["properties"] = {**out.get("properties", {}), **extra}
        out["additionalProperties"] = False
    return out


def _ordered(value: Any, schema: Any, root: Any) -> Any:
    """``value`` with object keys in toolgram's member order (``properties``, then the undeclared names ``required`` and
    ``dependentRequired`` mention), extras last."""
    if isinstance(schema, dict) and isinstance(schema.get("$ref"), str) and schema["$ref"].startswith("#"):
        schema = pointer(root, schema["$ref"], {})
    if not isinstance(schema, dict):
        return value
    if isinstance(value, list):
        items = schema.get("items") if isinstance(schema.get("items"), dict) else {}
        prefix = schema.get("prefixItems") or (schema["items"] if isinstance(schema.get("items"), list) else [])
        return [_ordered(v, prefix[i] if i < len(prefix) else items, root) for i, v in enumerate(value)]
    if not isinstance(value, dict):
        return value
    props: dict[str, Any] = {}
    for part in [*(schema.get("allOf") or []), schema]:  # toolgram meets allOf branches before the schema's own
        if isinstance(part, dict) and isinstance(part.get("properties"), dict):
            props.update(part["properties"])
    named = [*schema.get("required", []), *dependency_names(schema)]  # undeclared ones follow, in this order
    order = [*props, *[k for k in dict.fromkeys(named) if k not in props]]
    keys = sorted(value, key=lambda k: order.index(k) if k in order else len(order))
    return {k: _ordered(value[k], props.get(k, schema.get("additionalProperties", {})), root) for k in keys}


def _renderable(value: Any) -> bool:
    """A value a call can carry (no non-finite float)."""
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, list):
        return all(map(_renderable, value))
    if isinstance(value, dict):
        return all(map(_renderable, value.values()))
    return True


def wrappings(schema: Any, data: Any, draft: str = "draft2020-12") -> list[tuple[str, dict, dict]]:
    """``(how, parameters, arguments)``: as the parameters (an object schema, an object instance), and as
    a property's schema (its ``$defs``/``definitions`` kept at the root, so local references resolve); the
    parameters declare ``draft`` where it is not the default (:data:`DECLARED`)."""
    out = []
    is_object = isinstance(schema, dict) and (schema.get("type") in ("object", ["object"]) or any(
        k in schema for k in ("properties", "additionalProperties", "required", "minProperties", "maxProperties",
                              "patternProperties", "dependentRequired", "dependencies", "propertyNames")))
    if is_object and isinstance(data, dict) and "type" in schema or (is_object and isinstance(data, dict)):
        params = dict(schema)
        params.setdefault("type", "object")
        out.append(("parameters", params, _ordered(data, schema, schema)))
    if '"$ref": "#"' not in json.dumps(schema):
        root = {k: schema[k] for k in ("$defs", "definitions") if isinstance(schema, dict) and k in schema}
        params = {**root, "type": "object", "properties": {"v": schema}, "required": ["v"]}
        out.append(("property", params, {"v": _ordered(data, schema, params)}))
    declared = DECLARED[draft]
    return [(how, {"$schema": declared, **params} if declared else params, args) for how, params, args in out]


def cases(draft: str, status: str) -> list[tuple[str, str, Any, list[dict]]]:
    """The suite's cases of the keywords of ``status``; those about other documents left out (their schemas
    reference the suite's ``remotes/``, which is not vendored: toolgram fetches nothing, and the oracle cannot
    resolve them)."""
    out = []
    for f in suite_files(draft, status):
        for group in json.loads(f.read_text(encoding="utf-8")):
            if _resolvable(draft, group["schema"], group["tests"]):
                out.append((f"{draft}/{f.stem}", group["description"], group["schema"], group["tests"]))
    return out


def _resolvable(draft: str, schema: Any, tests: list[dict]) -> bool:
    try:
        for test in tests:
            VALIDATOR[draft](schema).is_valid(test["data"])
    except referencing.exceptions.Unresolvable:
        return False
    return True


@cache
def _bundles(fmt: str, params_json: str, dialects: tuple[str, ...], permissive: bool) -> tuple[Bundle, ...]:
    return tuple(compile(fmt, [tool("f", json.loads(params_json))], dialect=d, tool_choice="required",
                         permissive=permissive) for d in dialects)


def run_case(fmt: str, schema: Any, tests: list[dict], dialects: tuple[str, ...], permissive: bool = False,
             draft: str = "draft2020-12") -> tuple[list[str], list[str]]:
    """``(deviations, disagreements)`` of one suite case.  A deviation: the schema does not compile, or every
    engine and the strict parser agree on a verdict that is not the suite's under toolgram's reading.  A
    disagreement: the engines and the strict parser do not all give the same verdict (never allowed)."""
    deviations: list[str] = []
    disagreements: list[str] = []
    for test in tests:
        if not _renderable(test["data"]):
            continue
        for how, params, args in wrappings(schema, test["data"], draft):
            try:
                bundles = _bundles(fmt, json.dumps(params), dialects, permissive)
            except ToolgramError as exc:
                assert "(at $[0].function.parameters" in str(exc), exc  # the error names the JSON path
                deviations.append(f"{how}: does not compile: {exc}")
                continue
            expected = VALIDATOR[draft](toolgram_reading(params)).is_valid(args)
            if permissive and not expected:
                continue  # a relaxed grammar may accept an invalid instance
            text = render_calls(fmt, [("f", args)])
            verdicts = {}
            for b in bundles:
                verdicts.update({f"{b.dialect}/{k}": ok for k, (ok, _) in engine_results(b, text).items()})
            if not permissive:
                msg = parse_strict(fmt, text, [tool("f", params)], tool_choice="required")
                verdicts["strict"] = bool(msg["tool_calls"])
            if len(set(verdicts.values())) > 1:
                disagreements.append(f"{how}: {test['description']!r}: {verdicts}\n{text}")
            elif set(verdicts.values()) != {expected}:
                deviations.append(f"{how}: {test['description']!r}: accepted={not expected} "
                                  f"(suite valid={test['valid']})")
    return sorted(set(deviations)), disagreements


def _ids(items: list) -> list[str]:
    return [f"{c[0]}:{c[1]}" for c in items]


def _draft(case: tuple) -> str:
    return case[0].split("/")[0]


CLAIMED = cases("draft2020-12", "enforced")
CLAIMED_7 = cases("draft7", "enforced")


#: the default run takes every SAMPLE-th case (Lark and xgrammar); ``-m slow`` the others, with llama.cpp too
SAMPLE = 5


def check_claimed(case: tuple, dialects: tuple[str, ...]) -> None:
    """Grammar = strict parser on every case; against the suite, exactly the known deviations remain
    (json_schema_suite_known.json, a ratchet: a fixed deviation must leave the list)."""
    name, description, schema, tests = case
    deviations, disagreements = run_case("hermes", schema, tests, dialects, draft=_draft(case))
    assert not disagreements, "\n".join(disagreements)
    assert deviations == KNOWN.get(f"{name}:{description}", []), "\n".join(deviations)


@pytest.mark.parametrize("case", CLAIMED[::SAMPLE], ids=_ids(CLAIMED[::SAMPLE]))
def test_claimed_keywords(case: tuple) -> None:
    check_claimed(case, ("lark", "ebnf"))


#: draft 7's $ref cases run by default: that draft's $ref overrides its siblings, where 2020-12's applies them
REFS_7 = [c for c in CLAIMED_7 if c[0] == "draft7/ref"]


@pytest.mark.parametrize("case", REFS_7, ids=_ids(REFS_7))
def test_draft7_refs(case: tuple) -> None:
    check_claimed(case, ("lark", "ebnf"))


REST = [c for i, c in enumerate(CLAIMED) if i % SAMPLE] + [c for c in CLAIMED_7 if c[0] != "draft7/ref"]


@pytest.mark.slow
@pytest.mark.parametrize("case", REST, ids=_ids(REST))
def test_claimed_keywords_all(case: tuple) -> None:
    check_claimed(case, ("lark", "ebnf", "gbnf"))


UNCLAIMED = cases("draft2020-12", "unsupported")
UNCLAIMED_7 = cases("draft7", "unsupported")


def _only_vacuous(schema: Any, keyword: str) -> bool:
    """Whether every schema object of ``schema`` holding ``keyword`` holds it where it constrains nothing
    (:func:`toolgram.compiler.schema.vacuous`: ``if`` alone, ``minContains`` without ``contains`` ...)."""
    stack, found = [schema], False
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            if keyword in node:
                found = True
                if not vacuous(keyword, node):
                    return False
            stack.extend(v for k, v in node.items() if k not in VALUE_KEYS)
        elif isinstance(node, list):
            stack.extend(node)
    return found


def unclaimed_problems(case: tuple) -> list[str]:
    """How a case of an unclaimed keyword falls short: strict compiling must raise a ToolgramError naming the
    path, and ``--permissive`` list the keyword under ``relaxed`` and accept every valid instance."""
    name, description, schema, tests = case
    keyword = FILE_KEYWORD.get(name.split("/")[1], name.split("/")[1])
    problems = []
    for how, params, _ in wrappings(schema, {}, _draft(case)):
        if keyword not in _keywords(params):
            continue
        try:
            compile("hermes", [tool("f", params)], dialect="lark", tool_choice="required")
        except ToolgramError as exc:
            assert "$[0].function.parameters" in str(exc), exc
        else:
            if not _only_vacuous(params, keyword):  # (a keyword that constrains nothing compiles, rightly)
                problems.append(f"{how}: {keyword} compiled without --permissive")
            continue
        try:
            bundle = compile("hermes", [tool("f", params)], dialect="lark", tool_choice="required", permissive=True)
        except ToolgramError as exc:
            problems.append(f"{how}: does not compile with --permissive: {exc}")
            continue
        if not any(r["feature"] == keyword or r["path"].endswith("." + keyword) for r in bundle.relaxed):
            problems.append(f"{how}: {keyword} not under relaxed: {bundle.relaxed}")
    deviations, disagreements = run_case("hermes", schema, tests, ("lark", "ebnf"), permissive=True, draft=_draft(case))
    assert not disagreements, "\n".join(disagreements)
    return sorted(set(problems) | {d for d in deviations if "does not compile" not in d})


@pytest.mark.parametrize("case", UNCLAIMED[::SAMPLE], ids=_ids(UNCLAIMED[::SAMPLE]))
def test_unclaimed_keywords(case: tuple) -> None:
    """Strict: a ToolgramError naming the keyword's path; permissive: the keyword under ``relaxed``, and
    every valid instance accepted by every engine (a superset grammar); known shortfalls as above."""
    name, description = case[:2]
    assert unclaimed_problems(case) == KNOWN.get(f"{name}:{description}", [])


UNCLAIMED_REST = [c for i, c in enumerate(UNCLAIMED) if i % SAMPLE] + UNCLAIMED_7


@pytest.mark.slow
@pytest.mark.parametrize("case", UNCLAIMED_REST, ids=_ids(UNCLAIMED_REST))
def test_unclaimed_keywords_all(case: tuple) -> None:
    assert unclaimed_problems(case) == KNOWN.get(f"{case[0]}:{case[1]}", [])
