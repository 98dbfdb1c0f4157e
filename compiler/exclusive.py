"""``oneOf`` written exactly: each branch without the values another branch admits.

A value is valid under ``oneOf`` when exactly one branch admits it.  Where the branches admit no common value
(different types, a discriminator's different ``const``, the usual case) that is ``anyOf``.  Where two branches
overlap (``oneOf: [{required: [a]}, {required: [b]}]``: exactly one of the two), branch ``i`` becomes ``B_i ∧
¬B_j`` for each ``B_j`` that overlaps it, the negation written as positive schemas by
:func:`.conditional.negation` (``b`` absent).

This is exact only where a branch's negation can be written and where the object policy cannot tell the
branches apart by their names alone: toolgram closes an object that declares ``properties`` (docs/schema.md),
so a branch that declares or requires a name the keywords beside ``oneOf`` do not declare rejects, beside
another branch, values that its tests alone would admit.  One such case is written exactly without negations:
closed objects with no name in common (:func:`_apart_by_names`).  Elsewhere ``oneOf`` is read as ``anyOf`` (a
value two branches admit is accepted), as llama.cpp, xgrammar and llguidance read it.
"""

from __future__ import annotations

from typing import Any

from ..errors import SchemaError, UnsupportedSchemaError
from .conditional import conjunctions, explicit_policy, negation, read_test
from .keywords import annotation
from .schema import SchemaContext, may_overlap, settle_names

#: object keywords whose names a branch's negation cannot follow (they open or close the object by name)
_BY_NAME = ("additionalProperties", "patternProperties", "propertyNames", "unevaluatedProperties")


#: keywords whose schemas apply in place: the names they declare are the branch's too
_IN_PLACE = ("allOf", "anyOf", "oneOf", "then", "else")


def _names(schema: dict[str, Any], ctx: SchemaContext | None = None, refs: frozenset[str] = frozenset()) -> set[str]:
    """The names ``schema`` declares or requires, also in its in-place parts and (with ``ctx``) the targets of its
    ``$ref``s: a ``oneOf`` branch that is itself a ``oneOf`` of objects declares their names."""
    props = schema.get("properties")
    req = schema.get("required")
    out = {*(props if isinstance(props, dict) else ()), *(n for n in (req or []) if isinstance(n, str))}
    ref = schema.get("$ref")
    if ctx is not None and isinstance(ref, str) and ref not in refs:
        try:
            target, _ = ctx.resolve(ref, "$")
        except (SchemaError, UnsupportedSchemaError):  # (reported where it is built)
            target = None
        if isinstance(target, dict):
            out |= _names(target, ctx, refs | {ref})
    for k in _IN_PLACE:
        parts = schema.get(k)
        for part in parts if isinstance(parts, list) else [parts]:
            if isinstance(part, dict):
                out |= _names(part, ctx, refs)
    return out


def _names_agree(outer: dict[str, Any], raws: list[Any], ctx: SchemaContext) -> bool:
    """Whether no branch admits or rejects an object by a name alone beside ``outer`` (the module docstring)."""
    if any(isinstance(b, dict) and any(k in b for k in _BY_NAME) for b in raws) or "patternProperties" in outer:
        return False
    extra = outer.get("additionalProperties")
    if extra is True or extra == {}:
        return True  # open: a branch's names are extra keys beside any other branch
    if extra is None and "properties" not in outer:  # open by toolgram's policy while no branch declares names
        return not any(isinstance(b, dict) and "properties" in b for b in raws)
    declared = _names({"properties": outer.get("properties") or {}})
    return all(not isinstance(b, dict) or _names(b, ctx) <= declared for b in raws)


def _apart_by_names(outer: dict[str, Any], raws: list[Any], mets: list[tuple[int, Any]]) -> dict[int, list[Any]] | None:
    """Branches that are closed objects (``additionalProperties: false``, nothing but ``properties`` and
    ``required``) with no name in common, beside nothing but ``type: object``: CloudFormation's ``oneOf:
    [{properties: {A: …}, additionalProperties: false}, {properties: {B: …}, …}]``.  A non-empty object's names fit
    at most one of them, so only ``{}`` can be valid under two; where two or more admit it (no ``required``), it is
    valid under none, and those branches take ``minProperties: 1``.  None where this is not the shape, or where
    ``anyOf`` is already exact (fewer than two admit ``{}``)."""
    if outer.get("type", "object") != "object" or not all(k == "type" or annotation(k) for k in outer):
        return None
    names: list[set[str]] = []
    for b in raws:
        if not (isinstance(b, dict) and b.get("additionalProperties") is False and b.get("type", "object") == "object"
                and isinstance(b.get("properties", {}), dict)
                and all(k in ("type", "properties", "required", "additionalProperties") or annotation(k) for k in b)):
            return None
        names.append(_names(b))
    if any(a & b for i, a in enumerate(names) for b in names[i + 1:]):
        return None
    empty = [i for i, met in mets if not raws[i].get("required") and isinstance(met, dict)]
    if len(empty) < 2:
        return None
    return {i: [{**met, "minProperties": 1}] for i, met in mets if i in empty}


def _flat(branch: Any, ctx: SchemaContext, path: str) -> Any:
    """A raw branch read as a condition's test is (:func:`.conditional.read_test`), or None where it is malformed
    or unsupported (reported where it is built)."""
    try:
        return read_test(branch, ctx, path)
    except (SchemaError, UnsupportedSchemaError):
        return None


def exclusive(outer: dict[str, Any], raws: list[Any], mets: list[tuple[int, Any]], ctx: SchemaContext,
              path: str) -> dict[int, list[Any]] | None:
    """The pieces of each met branch of a ``oneOf`` at ``path`` (``mets``: index into ``raws``, branch met with
    ``outer``) that overlaps another: the values no other branch admits (none: the branch is left out).  None
    where the branches are disjoint or the split cannot be written (read as ``anyOf``: the module docstring)."""
    with ctx.strictly():  # a relaxed (larger) branch would have a smaller negation: the split would narrow
        raws = [_flat(b, ctx, f"{path}.oneOf[{i}]") for i, b in enumerate(raws)]
        if any(b is None for b in raws):
            return None
        if not _names_agree(outer, raws, ctx):
            return _apart_by_names(outer, raws, mets)
        overlaps = {i: [j for j, other in mets if j != i and may_overlap(m, other, ctx, path)] for i, m in mets}
        if not any(overlaps.values()):
            return None
        negations: dict[int, list[dict[str, Any]]] = {}
        for j in {j for js in overlaps.values() for j in js}:
            try:
                neg = negation(raws[j], ctx, f"{path}.oneOf[{j}]")
            except (SchemaError, UnsupportedSchemaError):
                neg = None
            if neg is None:
                return None
            negations[j] = neg
    out: dict[int, list[Any]] = {}
    for i, m in mets:
        if not overlaps[i]:
            continue
        named = any("properties" in part for j in overlaps[i] for part in negations[j])
        base = explicit_policy(m, admit=False) if named and isinstance(m, dict) else m  # before names are met
        met = conjunctions(base, [negations[j] for j in overlaps[i]], path)
        if met is None:
            return None
        out[i] = [p for p in (settle_names(b, ctx, path) for b in met) if p is not None]
    return out
