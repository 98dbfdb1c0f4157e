"""``if``/``then``/``else`` and ``dependentSchemas`` written as ``anyOf`` branches.

JSON Schema's conditional: a value that ``if`` admits must satisfy ``then``, any other value ``else``.  A grammar
has no negation, but a schema's ``if`` is nearly always a test a few keywords make (``properties: {kind: {const:
"a"}}``, ``required``, a ``type``, a bound), and the values such a test rejects are a union of positive schemas
(:func:`negation`): ``kind`` present and not ``"a"``; ``required`` name absent (``properties: {name: false}``); a
number below the bound.  So ``{if: I, then: T, else: E}`` beside the keywords ``S`` is the union of ``S ∧ T ∧ I``
and ``S ∧ E ∧ n`` for each ``n`` of ``negation(I)``.  ``dependentSchemas`` ``{p: D}`` (and the schema form of
``dependencies``) is ``if {required: [p]} then D``.

Each condition splits the branches built so far; branches that admit no value (a required name whose schema no
value meets) are dropped as they appear, so tests on one discriminator grow linearly, and a schema whose
conditions would need more than :data:`MAX_BRANCHES` branches is refused with the path.

Object policy: ``then``/``else`` declare names as ``allOf`` branches do (toolgram's reading of an absent
``additionalProperties``: docs/schema.md); the test ``if`` (and its negation) declares none: where the object
is closed its names outside the declared ones cannot appear, where it is open they stay open.
"""

from __future__ import annotations

from itertools import combinations, product
from typing import Any

from ..errors import EmptySchemaError, SchemaError, UnsupportedSchemaError
from .formats import format_pattern
from .keywords import annotation
from .multiples import valid_step
from .regex import writable
from .schema import (
    ALSO_PATTERNS,
    CONDITIONS,
    NOT_MULTIPLES,
    NOT_PATTERNS,
    SchemaContext,
    conditions_of,
    flatten,
    meet,
    settle_names,
)

#: the most branches a schema's conditions may spread into (an object body each)
MAX_BRANCHES = 64

#: keywords that test one JSON type (any other type passes them), and that type
_TYPED = {
    **dict.fromkeys(("properties", "required", "minProperties", "maxProperties", "additionalProperties",
                     "patternProperties", "propertyNames", "dependentRequired", "dependencies",
                     "unevaluatedProperties"), "object"),
    **dict.fromkeys(("items", "prefixItems", "minItems", "maxItems", "uniqueItems", "contains", "minContains",
                     "maxContains", "additionalItems", "unevaluatedItems"), "array"),
    **dict.fromkeys(("minLength", "maxLength", "pattern", "format", ALSO_PATTERNS, NOT_PATTERNS), "string"),
    **dict.fromkeys(("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", NOT_MULTIPLES),
                    "number"),
}
#: the JSON types a value may have (``integer`` is a ``number``)
_KINDS = ("string", "number", "boolean", "null", "object", "array")
#: a bound and the bound that admits exactly the values it rejects
_OPPOSITE = {"minimum": "exclusiveMaximum", "maximum": "exclusiveMinimum", "exclusiveMinimum": "maximum",
             "exclusiveMaximum": "minimum"}
_COUNTS = {"minLength": "maxLength", "minItems": "maxItems", "minProperties": "maxProperties"}


#: the keywords :func:`.schema.conditions_of` reads conditions from (checked first: value building asks every schema)
_STATING = (CONDITIONS, "if", "dependentSchemas", "dependencies")


def pending(schema: Any, path: str) -> bool:
    """Whether ``schema`` (at ``path``) holds a condition to write out (:func:`expand`)."""
    return isinstance(schema, dict) and any(k in schema for k in _STATING) and bool(conditions_of(schema, path)[0])


def _types(schema: dict[str, Any]) -> list[str] | None:
    """The kinds ``schema``'s ``type`` admits (:data:`_KINDS`; ``integer`` alone as ``integer``), or None."""
    t = schema.get("type")
    if t is None:
        return None
    names = t if isinstance(t, list) else [t]
    if not all(isinstance(n, str) for n in names):
        raise SchemaError("type must be a string or an array of strings", "type")
    return [k for k in (*_KINDS, "integer") if k in names and not (k == "integer" and "number" in names)]


def _split(schema: dict[str, Any]) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    """``schema``'s keywords that apply to any value, and those that test one type, by type."""
    common: dict[str, Any] = {}
    typed: dict[str, dict[str, Any]] = {}
    for k, v in schema.items():
        kind = _TYPED.get(k)
        if kind is None:
            common[k] = v
        else:
            typed.setdefault(kind, {})[k] = v
    return common, typed


def _guard(kind: str, types: list[str] | None) -> str | None:
    """The type a keyword testing ``kind`` applies to under ``types`` (None: ``types`` excludes it)."""
    if types is None:
        return kind
    if kind == "number":
        return "number" if "number" in types else "integer" if "integer" in types else None
    return kind if kind in types else None


def read_test(test: Any, ctx: SchemaContext, path: str) -> dict[str, Any] | bool:
    """A condition's test with its ``allOf``/``$ref`` met, or ``True`` (it admits every value) / ``False`` (none)."""
    if test is True or test == {}:
        return True
    if test is False:
        return False
    if not isinstance(test, dict):
        raise SchemaError("a schema must be an object or a boolean", path)
    try:
        return flatten(test, ctx, path)
    except EmptySchemaError:
        return False


def positive(test: Any, ctx: SchemaContext, path: str) -> list[dict[str, Any]]:
    """Schemas whose union admits what ``test`` admits, each of one type where ``test``'s keywords test types (so
    that met with a typed schema, the branches of the other types drop out)."""
    test = read_test(test, ctx, path)
    if isinstance(test, bool):
        return [{}] if test else []
    if "not" in test:  # not N: the values N rejects (when toolgram can write them)
        negs = negation(test["not"], ctx, f"{path}.not")
        if negs is not None:
            rest = {k: v for k, v in test.items() if k != "not"}
            out = []
            for p in positive(rest, ctx, path):
                for n in negs:
                    try:
                        out.append(meet(p, n, path))
                    except EmptySchemaError:
                        continue
            return out
    common, typed = _split(test)
    if not typed:
        return [test]
    types = _types(test)
    out = []
    rest = [k for k in (types or _KINDS) if k not in typed and not (k == "integer" and "number" in typed)]
    if rest:
        out.append({**common, "type": rest if len(rest) > 1 else rest[0]})
    for kind, keywords in typed.items():
        guard = _guard(kind, types)
        if guard is not None:
            out.append({**common, **keywords, "type": guard})
    return out


def negation(test: Any, ctx: SchemaContext, path: str,
             refs: frozenset[str] = frozenset()) -> list[dict[str, Any]] | None:
    """Schemas whose union admits exactly the values ``test`` rejects, or None where toolgram cannot write them
    (a ``pattern``, ``items``, ``additionalProperties`` ..., a recursive ``$ref``: ``refs`` are those being
    negated around this test)."""
    ref = test.get("$ref") if isinstance(test, dict) else None
    if isinstance(ref, str):
        if ref in refs:
            return None  # the negation of a recursive schema has no end
        refs = refs | {ref}
    test = read_test(test, ctx, path)
    if isinstance(test, bool):
        return [] if test else [{}]
    types = _types(test)
    out: list[dict[str, Any]] = []
    if types is not None:
        if "integer" in types:
            return None  # a number that is not an integer: no grammar here
        other = [k for k in _KINDS if k not in types]
        if other:
            out.append({"type": other if len(other) > 1 else other[0]})
    for k, v in test.items():
        if k == "type" or annotation(k):
            continue
        kind = _TYPED.get(k)
        guard = _guard(kind, types) if kind else None
        if kind and guard is None:
            continue  # the test's type already rejects every value this keyword could
        parts = _negate_keyword(k, v, test, ctx, f"{path}.{k}", refs)
        if parts is None:
            return None
        out += [{**p, "type": guard} if guard else p for p in parts]
    return out


def _negate_keyword(k: str, v: Any, test: dict[str, Any], ctx: SchemaContext,  # noqa: C901 - one case per keyword
                    path: str, refs: frozenset[str]) -> list[dict[str, Any]] | None:
    """The values of its type that keyword ``k`` (value ``v``) rejects, as a union; None where not writable."""
    if k == "const":
        return [{"not": {"const": v}}]
    if k == "enum":
        return [{"not": {"enum": v}}] if isinstance(v, list) else None
    if k == "not":
        return [v] if isinstance(v, dict) else [{}] if v is True else []
    if k in ("anyOf", "oneOf"):
        if not isinstance(v, list) or not v:
            return None
        each = [negation(b, ctx, f"{path}[{i}]", refs) for i, b in enumerate(v)]
        if any(n is None for n in each):
            return None
        out = conjunctions({}, each, path)  # type: ignore[arg-type]
        if out is None:
            return None
        if k == "oneOf":  # not exactly one: none (above) or two at once
            for i, j in combinations(range(len(v)), 2):
                try:
                    both = flatten({"allOf": [v[i], v[j]]}, ctx, path)
                except EmptySchemaError:
                    continue
                except (SchemaError, UnsupportedSchemaError):
                    return None
                out.append(both)
        return out if len(out) <= MAX_BRANCHES else None
    if k == "required":
        if not isinstance(v, list):
            return None
        return [{"properties": {name: False}} for name in v]
    if k == "properties":
        if not isinstance(v, dict):
            return None
        out = []
        for name, sub in v.items():
            neg = negation(sub, ctx, f"{path}.{name}", refs)
            if neg is None:
                return None
            out += [{"required": [name], "properties": {name: n}} for n in neg]
        return out
    if k in _OPPOSITE:
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            return None  # draft 4's boolean exclusives
        if k in ("minimum", "maximum") and test.get(f"exclusive{k[0].upper()}{k[1:]}") is True:
            return None
        return [{_OPPOSITE[k]: v}]
    if k in _COUNTS or k in _COUNTS.values():
        if not isinstance(v, int) or isinstance(v, bool):
            return None
        if k in _COUNTS:
            return [{_COUNTS[k]: v - 1}] if v > 0 else []
        low = next(lo for lo, hi in _COUNTS.items() if hi == k)
        return [{low: v + 1}]
    if k == "contains":  # an array none of whose items is a match: every item one of the values it rejects
        if "minContains" in test or "maxContains" in test:
            return None
        neg = negation(v, ctx, path, refs)
        if neg is None:
            return None
        return [{"items": {"anyOf": neg}}] if neg else [{"maxItems": 0}]
    if k == "format" and format_pattern(v) is None:
        return []  # an annotation: it rejects nothing
    if k in ("pattern", ALSO_PATTERNS):  # a string that fails one of the patterns
        both = [v] if k == "pattern" else v
        if not isinstance(both, list) or not all(isinstance(p, str) and writable(p) for p in both):
            return None
        return [{NOT_PATTERNS: [p]} for p in both]
    if k == NOT_PATTERNS:  # it matches one of them
        return [{"pattern": p} for p in v] if isinstance(v, list) else None
    if k == "multipleOf":  # a number that is not a multiple
        return [{NOT_MULTIPLES: [v]}] if valid_step(v) else None
    if k == NOT_MULTIPLES:  # a multiple of one of them
        return [{"multipleOf": n} for n in v] if isinstance(v, list) else None
    return None


def conjunctions(base: Any, unions: list[list[dict[str, Any]]], path: str) -> list[Any] | None:
    """``base`` met with one schema of each union, for every choice: the union of the intersections.  Those that
    admit no value are left out; None where a meet is unsupported or more than :data:`MAX_BRANCHES` are left."""
    out = []
    for combo in product(*unions):
        met = base
        try:
            for part in combo:
                met = meet(met, part, path)
        except EmptySchemaError:
            continue
        except UnsupportedSchemaError:
            return None
        out.append(met)
        if len(out) > MAX_BRANCHES:
            return None
    return out


def explicit_policy(pre: dict[str, Any], *, admit: bool) -> dict[str, Any]:
    """``pre`` with toolgram's object policy made explicit, before a test's names are met with it (they must
    not count as declared): ``additionalProperties: false`` (its undeclared required names declared) where the
    policy closes the object, ``true`` where it leaves it open.  ``admit``: a condition was relaxed, which may
    admit any key (``--permissive`` never narrows)."""
    if "additionalProperties" in pre or "patternProperties" in pre:
        return pre
    if admit:
        return {**pre, "additionalProperties": True}
    props = pre.get("properties")
    if not isinstance(props, dict):
        return {**pre, "additionalProperties": True}
    req = pre.get("required") if isinstance(pre.get("required"), list) else []
    return {**pre, "properties": {**props, **{n: {} for n in req if isinstance(n, str) and n not in props}},
            "additionalProperties": False}


def expand(schema: dict[str, Any], ctx: SchemaContext, path: str) -> dict[str, Any]:
    """``schema`` with its conditions written as ``anyOf`` branches (the module docstring); a condition toolgram
    cannot negate is refused with its path (``--permissive``: dropped, a superset)."""
    conditions, rest = conditions_of(schema, path)
    states: list[tuple[dict[str, Any], list[dict[str, Any]]]] = [(rest, [])]
    admit = False
    for cond in conditions:
        where = f"{path}.{cond['keyword']}"
        with ctx.strictly():  # a relaxed test would send some values to the other side: exact, or dropped
            try:
                neg = negation(cond["if"], ctx, where)
                pos = positive(cond["if"], ctx, where) if neg is not None else []
            except UnsupportedSchemaError:
                neg = None
        if neg is None:
            ctx.unsupported(cond["keyword"], path)
            admit = True
            continue
        choices = [(p, cond["then"]) for p in pos] + [(n, cond["else"]) for n in neg]
        grown: list[tuple[dict[str, Any], list[dict[str, Any]]]] = []
        for pre, tests in states:
            for test, body in choices:
                if body is False:
                    continue
                try:
                    after = pre if body is True or body == {} else flatten({"allOf": [pre, body]}, ctx, where)
                    if _build(after, [*tests, test], ctx, where, admit) is not None:
                        grown.append((after, [*tests, test]))
                except EmptySchemaError:
                    continue
        if len(grown) > MAX_BRANCHES:
            if not ctx.permissive:
                raise UnsupportedSchemaError(f"the conditions spread into more than {MAX_BRANCHES} branches "
                                             "(pass permissive=True / --permissive to drop the rest)", where)
            ctx.unsupported(cond["keyword"], path)  # dropped: a superset
            admit = True
            continue
        states = grown
    branches = [b for b in (_build(pre, tests, ctx, path, admit) for pre, tests in states) if b is not None]
    if not branches:
        raise EmptySchemaError("no value meets the schema's conditions (if/then/else, dependentSchemas, not)", path)
    return branches[0] if len(branches) == 1 else {"anyOf": branches}


def _build(pre: dict[str, Any], tests: list[dict[str, Any]], ctx: SchemaContext, path: str,
           admit: bool) -> dict[str, Any] | None:
    """One branch: ``pre`` (the keywords and the ``then``/``else`` taken) met with its ``tests``, or None when
    no value takes it."""
    objectish = pre.get("type") in ("object", ["object"]) or "properties" in pre
    out = explicit_policy(pre, admit=admit) if any("properties" in t for t in tests) or admit and objectish else pre
    for test in tests:
        out = meet(out, test, path)
    tested = [n for t in tests for n in t.get("required", [])]
    if tested:  # undeclared names a test requires are members before those then/else require (a trigger first)
        out["required"] = list(dict.fromkeys([*tested, *out["required"]]))
    return settle_names(out, ctx, path)
