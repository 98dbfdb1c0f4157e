"""JSON-schema plumbing: tool list validation, local ``$ref`` resolution, keyword checks."""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from ..errors import EmptySchemaError, SchemaError, UnsupportedSchemaError
from .keywords import annotation, with_status
from .multiples import common_multiple
from .refs import follow_pointer, local_refs

# Keywords by what toolgram does with them: the one registry is :mod:`.keywords`.
ENFORCED = with_status("enforced")
UNSUPPORTED = with_status("unsupported")
TYPES = ("string", "integer", "number", "boolean", "null", "object", "array")
#: Non-standard type names seen in tool schemas and the JSON Schema type each means (vLLM's reading,
#: FORMATS.md section 0.4): the parsers type values by it; the compiler names it in its error.
TYPE_ALIASES = {
    "string": "string", "str": "string", "text": "string", "varchar": "string", "char": "string",
    "enum": "string",
    "integer": "integer", "int": "integer", "long": "integer", "short": "integer",
    "unsigned": "integer",
    "number": "number", "float": "number", "double": "number", "num": "number",
    "boolean": "boolean", "bool": "boolean", "binary": "boolean",
    "object": "object", "dict": "object",
    "array": "array", "arr": "array", "list": "array", "sequence": "array", "tuple": "array",
    "null": "null",
}  # fmt: skip
#: Deepest nesting of a tool's ``parameters`` document, counted in JSON objects and arrays
#: (``{"properties": {"a": {...}}}`` is two levels per schema level).
MAX_SCHEMA_DEPTH = 128


def type_hint(name: Any) -> str:
    """`` (did you mean 'integer'?)`` for a non-standard type name the parsers would read, else ``""``."""
    meant = TYPE_ALIASES.get(str(name).lower())
    return f" (did you mean {meant!r}?)" if meant and meant != name else ""


def _bad_char(text: str) -> str | None:
    """A character no grammar or UTF-8 output can carry in a name: a control character or a lone surrogate."""
    for ch in text:
        cp = ord(ch)
        if cp < 0x20 or 0x7F <= cp <= 0x9F or 0xD800 <= cp <= 0xDFFF:
            return ch
    return None


def space_char(text: str) -> str | None:
    """A whitespace or separator character of Unicode in ``text`` (NBSP, U+2028, U+3000, ...: the
    parsers end a name at whitespace, so a name holding one could not round-trip)."""
    for ch in text:
        if ch.isspace() or unicodedata.category(ch) in ("Zs", "Zl", "Zp"):
            return ch
    return None


_SURROGATE = re.compile("[\ud800-\udfff]")


def deeper_than(doc: Any, limit: int) -> bool:
    """Whether ``doc`` nests more than ``limit`` JSON objects and arrays deep (iterative: any depth is safe)."""
    stack: list[tuple[Any, int]] = [(doc, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, (dict, list)):
            if depth > limit:
                return True
            stack.extend((v, depth + 1) for v in (node.values() if isinstance(node, dict) else node))
    return False


def _sound(doc: Any) -> bool:
    """:func:`check_document`'s checks without building paths (the common case: nothing to report)."""
    search = _SURROGATE.search
    stack: list[tuple[Any, int]] = [(doc, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_SCHEMA_DEPTH:
            return False
        for k, v in node.items() if isinstance(node, dict) else enumerate(node):
            if isinstance(v, (dict, list)):
                stack.append((v, depth + 1))
            elif isinstance(v, str) and search(v):
                return False
            if isinstance(k, str) and search(k):
                return False
    return True


def check_document(doc: Any, path: str) -> None:
    """Reject a schema document nested deeper than :data:`MAX_SCHEMA_DEPTH`, or holding a string or
    key with a lone surrogate (which no UTF-8 text can contain). Iterative: any depth is safe."""
    if isinstance(doc, (dict, list)) and _sound(doc):
        return
    stack: list[tuple[Any, str, int]] = [(doc, path, 1)]
    while stack:
        node, where, depth = stack.pop()
        if isinstance(node, (dict, list)):
            if depth > MAX_SCHEMA_DEPTH:
                raise SchemaError(f"the schema is nested more than {MAX_SCHEMA_DEPTH} levels deep", where)
            items = node.items() if isinstance(node, dict) else enumerate(node)
            for k, v in items:
                if isinstance(k, str) and any(0xD800 <= ord(ch) <= 0xDFFF for ch in k):
                    raise SchemaError(f"key {k!r} contains a lone surrogate", where)
                stack.append((v, f"{where}.{k}" if isinstance(node, dict) else f"{where}[{k}]", depth + 1))
        elif isinstance(node, str) and any(0xD800 <= ord(ch) <= 0xDFFF for ch in node):
            raise SchemaError(f"string {node[:40]!r} contains a lone surrogate", where)


@dataclass(frozen=True)
class Tool:
    """One function tool: its name, parameters schema, and whether the schema is enforced."""

    name: str
    parameters: dict[str, Any]
    strict: bool = True
    description: str = ""

    def reading_schema(self) -> dict[str, Any]:
        """``parameters`` as the parsers read them: the arguments object's keywords
        (:func:`arguments_object`: ``properties``, ``required`` ...) in place of a top-level ``$ref``
        or ``allOf``, every other key kept, so local ``$ref`` inside resolve as before.  A schema
        the compiler would reject is read as written."""
        params = self.parameters
        if "$ref" not in params and "allOf" not in params:
            return params
        try:
            obj = arguments_object(params, SchemaContext(root=params, path="$", permissive=True))
        except (SchemaError, UnsupportedSchemaError):
            return params
        view = {k: v for k, v in params.items() if k not in ("$ref", "allOf")}
        view.update(obj)
        return view


@dataclass
class SchemaContext:
    """Where schemas are resolved and how unsupported keywords are treated."""

    root: dict[str, Any]
    path: str
    permissive: bool = False
    relaxed: list[dict[str, str]] = field(default_factory=list)
    #: members in any order (``--any-order``, SPEC section 1), where :meth:`.values.ValueBuilder.members_body`
    #: can write it
    any_order: bool = False

    def resolve(self, ref: str, path: str) -> tuple[Any, str]:
        """Resolve a ``$ref`` within the tool's schema (:func:`follow_pointer`).  A reference to another document
        is refused (nothing is fetched); permissive, it names any value (``{}``: a superset), listed as relaxed."""
        if not isinstance(ref, str):
            raise SchemaError("$ref must be a string", path)
        found = follow_pointer(self.root, ref)
        if found is None and not ref.startswith("#"):
            if self.permissive:
                self.unsupported("$ref", path.removesuffix(".$ref"))
                return {}, path
            raise UnsupportedSchemaError(f"only a $ref within the tool's schema (a JSON pointer, an $anchor, an "
                                         f"$id in it) is supported, got {ref!r}", path)
        if found is None:
            raise SchemaError(f"$ref {ref!r} does not resolve", path)
        node, parts = found
        return node, self.path + "".join(f".{p}" for p in parts)

    def deref(self, schema: Any, path: str) -> Any:
        """Follow a chain of local ``$ref`` to the schema it names."""
        seen: set[str] = set()
        while isinstance(schema, dict) and "$ref" in schema:
            ref = schema["$ref"]
            if ref in seen:
                raise SchemaError(f"$ref cycle through {ref!r}", path)
            seen.add(ref)
            schema, _ = self.resolve(ref, path)
        return schema

    @contextmanager
    def strictly(self) -> Iterator[None]:
        """Within: no keyword is relaxed (for what must be exact even under ``--permissive``: a negation, whose
        superset would narrow the language, and the pieces of a split ``oneOf``)."""
        permissive, self.permissive = self.permissive, False
        try:
            yield
        finally:
            self.permissive = permissive

    def unsupported(self, keyword: str, path: str) -> None:
        """Reject ``keyword``, or record it as relaxed when permissive."""
        if not self.permissive:
            raise UnsupportedSchemaError(
                f"schema keyword {keyword!r} cannot be enforced by a grammar "
                "(pass permissive=True / --permissive to ignore it)",
                f"{path}.{keyword}",
            )
        self.relax(f"{path}.{keyword}", keyword)

    def relax(self, path: str, feature: str) -> None:
        """Record ``feature`` at ``path`` as relaxed (permissive: the grammar there is a superset)."""
        entry = {"path": path, "feature": feature}
        if entry not in self.relaxed:  # (a schema met again after its allOf is read twice)
            self.relaxed.append(entry)

    def settled(self, schema: Any, path: str) -> Any:
        """``schema`` with its ``unevaluated*`` read as plain keywords (:func:`settle_unevaluated`): its ``allOf`` /
        ``$ref`` met and their ``additionalProperties`` / ``items`` set, or dropped where they are no-ops.  Where
        they do not read so they are refused (or relaxed, left in place); ``schema`` itself when there are none."""
        settled = settle_unevaluated(schema, self, path)
        if settled is None:
            for key in _UNEVALUATED:
                if key in schema:
                    self.unsupported(key, path)
            return schema
        own, after = settled
        return {**flatten(own, self, path), **after} if after else own

    def check_keywords(self, schema: dict[str, Any], path: str) -> None:
        for key in schema:
            if key in UNSUPPORTED and not vacuous(key, schema):
                self.unsupported(key, path)
        t = schema.get("type")
        for one in t if isinstance(t, list) else ([t] if t is not None else []):
            if one not in TYPES:
                raise SchemaError(f"unrecognized type {one!r}{type_hint(one)}", f"{path}.type")


def vacuous(key: str, schema: dict[str, Any]) -> bool:
    """Whether ``schema[key]`` (an unsupported keyword) constrains nothing where it stands, so it is not refused:
    ``uniqueItems: false``; ``minContains``/``maxContains`` without ``contains``, and ``minContains: 1`` (the
    default); ``then``/``else`` without ``if``,
    and ``if`` without either; a ``dependentSchemas`` whose schemas all admit anything (JSON Schema ignores each of
    these)."""
    v = schema[key]
    if key == "uniqueItems":
        return v is False
    if key in ("minContains", "maxContains"):
        return "contains" not in schema or key == "minContains" and v == 1 and not isinstance(v, bool)
    if key in ("then", "else"):
        return "if" not in schema
    if key == "if":
        return "then" not in schema and "else" not in schema
    if key == "dependentSchemas":
        return isinstance(v, dict) and all(sub is True or sub == {} for sub in v.values())
    return False


def forbids(schema: Any) -> bool:
    """Whether a property schema is ``false`` as written (or an ``allOf`` holding it, as a meet writes one): JSON
    Schema's way of saying the key may not appear.  Other schemas that admit no value stay errors (crossed bounds
    are more likely a mistake than a ban)."""
    if schema is False or isinstance(schema, dict) and schema.get("not") in (True, {}):
        return True
    return isinstance(schema, dict) and isinstance(schema.get("allOf"), list) and any(map(forbids, schema["allOf"]))


#: where :func:`in_place_parts` keeps the conditions of the parts it meets (``if``/``then``/``else``,
#: ``dependentSchemas``, the schema form of ``dependencies``: :func:`conditions_of`); :func:`meet` joins them
CONDITIONS = "$toolgram:conditions"
#: a string schema's patterns beyond its ``pattern`` (:func:`meet` of two), and the patterns it must not match
#: (a negated ``pattern``: ``not``, a condition's else, a split ``oneOf``), read together by the string builders
ALSO_PATTERNS = "$toolgram:also-patterns"
NOT_PATTERNS = "$toolgram:not-patterns"
#: the numbers a number schema's value must not be a multiple of (a negated ``multipleOf``), read by the number
#: builders beside ``multipleOf``
NOT_MULTIPLES = "$toolgram:not-multiples"


def conditions_of(schema: dict[str, Any], path: str = "$") -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The conditions ``schema`` states, each ``{"if", "then", "else", "keyword"}`` (``dependentSchemas`` ``{p: D}``
    is ``if {required: [p]} then D``), and ``schema`` without them (:mod:`.conditional` writes them out)."""
    conds = list(schema.get(CONDITIONS, []))
    rest = {k: v for k, v in schema.items() if k not in (CONDITIONS, "if", "then", "else")}
    if "if" in schema and not vacuous("if", schema):
        conds.append({"if": schema["if"], "then": schema.get("then", True), "else": schema.get("else", True),
                      "keyword": "if"})
    for key in ("dependentSchemas", "dependencies"):
        spec = rest.get(key)
        if spec is None:
            continue
        if not isinstance(spec, dict):
            raise SchemaError(f"{key} must be an object mapping names to schemas", f"{path}.{key}")
        for name, sub in spec.items():
            if not isinstance(sub, list) and not (sub is True or sub == {}):
                conds.append({"if": {"required": [name]}, "then": sub, "else": True, "keyword": key})
        left = {name: v for name, v in spec.items() if isinstance(v, list)}  # (the array form: dependentRequired)
        if left and key == "dependencies":
            rest[key] = left
        else:
            rest.pop(key)
    return conds, rest


def prefix_form(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` with draft 7's tuple form (``items`` an array, ``additionalItems`` past it) written as draft
    2020-12 writes it (``prefixItems``, ``items``), so that ``allOf`` parts meet position by position; an
    ``additionalItems`` beside a schema ``items`` or none is dropped (JSON Schema ignores it: it never looks into
    applicators for the ``items`` it follows)."""
    items = schema.get("items")
    if "prefixItems" in schema or not isinstance(items, list) and "additionalItems" not in schema:
        return schema
    out = {k: v for k, v in schema.items() if k not in ("items", "additionalItems")}
    if isinstance(items, list):
        if items:
            out["prefixItems"] = items
        if "additionalItems" in schema:
            out["items"] = schema["additionalItems"]
    elif items is not None:
        out["items"] = items
    return out


def ref_siblings(schema: dict[str, Any]) -> dict[str, Any]:
    """The keywords beside a ``$ref`` that constrain (annotations, unknown keywords included, aside): with any, the
    ``$ref`` means ``allOf: [target, siblings]``."""
    return {k: v for k, v in schema.items() if k != "$ref" and not annotation(k)}


def merge_all_of(schema: dict[str, Any], path: str, ctx: SchemaContext | None = None) -> dict[str, Any]:
    """``schema``'s ``allOf`` branches (and ``$ref`` with sibling keywords) met into one schema: see :func:`flatten`."""
    ctx = ctx or SchemaContext(root=schema, path=path)
    return flatten(schema, ctx, path)


#: keywords whose ``allOf`` meet is the larger / the smaller of the two values
_LOWER_BOUNDS = ("minimum", "minLength", "minItems", "minProperties")
_UPPER_BOUNDS = ("maximum", "maxLength", "maxItems", "maxProperties")
_NUMERIC_TYPES = {"integer", "number"}


def _type_set(t: Any) -> set[str] | None:
    if t is None:
        return None
    return set(t) if isinstance(t, list) else {t}


def _meet_types(a: Any, b: Any, path: str) -> Any:
    """The types both ``a`` and ``b`` admit (``integer`` is a ``number``)."""
    sa, sb = _type_set(a), _type_set(b)
    if sa is None or sb is None:
        return b if sa is None else a
    out = sa & sb
    if "number" in sa and "integer" in sb or "number" in sb and "integer" in sa:
        out.add("integer")
    if not out:
        raise EmptySchemaError(f"allOf admits no value: type {a!r} and type {b!r} share none", f"{path}.type")
    order = [t for t in (*(a if isinstance(a, list) else [a]), "integer") if t in out]
    order = list(dict.fromkeys(order))
    return order[0] if len(order) == 1 else order


def _meet_values(a: list[Any], b: list[Any]) -> list[Any]:
    """The values of ``a`` that ``b`` holds too (JSON equality: ``1`` and ``true`` differ)."""
    keys = {json.dumps(v, sort_keys=True) for v in b}
    return [v for v in a if json.dumps(v, sort_keys=True) in keys]


def _meet_prefix(a: dict[str, Any], b: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """``a`` and ``b`` with their ``prefixItems`` met position by position (then only ``a`` holds them).

    An item at position ``i`` follows ``prefixItems[i]`` of a side that has one there, else that side's ``items``
    (absent: any item; ``false``: no item there, so the met prefix ends before ``i``).  ``items`` themselves are
    met by :func:`meet` as before; draft 7's array form of ``items`` is left to it (refused)."""
    pa, pb = a.get("prefixItems"), b.get("prefixItems")
    if pa is None and pb is None or any(isinstance(s.get("items"), list) for s in (a, b)):
        return a, b
    if pa is not None and not isinstance(pa, list) or pb is not None and not isinstance(pb, list):
        return a, b  # not an array: reported where the array is built
    pa, pb = pa or [], pb or []
    if pa and not pb and b.get("items", True) is True or pb and not pa and a.get("items", True) is True:
        return ({**a, "prefixItems": pa or pb}, {k: v for k, v in b.items() if k != "prefixItems"})

    def at(prefix: list[Any], items: Any, i: int) -> Any:
        return prefix[i] if i < len(prefix) else items

    merged: list[Any] = []
    for i in range(max(len(pa), len(pb))):
        x, y = at(pa, a.get("items", True), i), at(pb, b.get("items", True), i)
        if x is False or y is False:  # no item at i: the array ends before it
            return ({**a, "prefixItems": merged, "items": False},
                    {k: v for k, v in b.items() if k not in ("prefixItems", "items")})
        merged.append(y if x is True or x == {} else x if y is True or y == {} or x == y else {"allOf": [x, y]})
    return {**a, "prefixItems": merged}, {k: v for k, v in b.items() if k != "prefixItems"}


def meet(a: dict[str, Any], b: dict[str, Any], path: str, ctx: SchemaContext | None = None) -> dict[str, Any]:
    """One schema admitting exactly what both ``a`` and ``b`` admit, where the keywords allow it;
    an :class:`UnsupportedSchemaError` at ``path`` where they cannot be merged (two ``pattern``).  Under
    ``--permissive`` (``ctx``) such a keyword keeps ``a``'s value alone (a superset) and is listed as relaxed."""
    a, b = _meet_prefix(a, b)
    out = dict(a)
    for k, v in b.items():
        if k not in out or out[k] == v:
            out[k] = v
            continue
        mine = out[k]
        if k == CONDITIONS:
            out[k] = [*mine, *v]
        elif k == "type":
            out[k] = _meet_types(mine, v, path)
        elif k in ("properties", "patternProperties"):
            if not isinstance(mine, dict) or not isinstance(v, dict):
                raise SchemaError(f"{k} must be an object mapping names to schemas", f"{path}.{k}")
            both = {**mine}
            for name, sub in v.items():
                both[name] = sub if name not in both or both[name] == sub else {"allOf": [both[name], sub]}
            out[k] = both
        elif k == "pattern" and isinstance(mine, str) and isinstance(v, str):
            out[ALSO_PATTERNS] = list(dict.fromkeys([*out.get(ALSO_PATTERNS, []), v]))  # both hold
        elif k in (ALSO_PATTERNS, NOT_PATTERNS, NOT_MULTIPLES) and isinstance(mine, list) and isinstance(v, list):
            out[k] = list(dict.fromkeys([*mine, *v]))
        elif k == "required":
            if not isinstance(mine, list) or not isinstance(v, list):
                raise SchemaError("required must be an array of property names", f"{path}.required")
            out[k] = list(dict.fromkeys([*mine, *v]))
        elif k in _LOWER_BOUNDS and _plain_number(mine) and _plain_number(v):
            out[k] = max(mine, v)
        elif k in _UPPER_BOUNDS and _plain_number(mine) and _plain_number(v):
            out[k] = min(mine, v)
        elif k == "exclusiveMinimum" and _plain_number(mine) and _plain_number(v):
            out[k] = max(mine, v)
        elif k == "exclusiveMaximum" and _plain_number(mine) and _plain_number(v):
            out[k] = min(mine, v)
        elif k == "multipleOf" and _plain_number(mine) and _plain_number(v) and mine > 0 and v > 0:
            out[k] = common_multiple(mine, v)
        elif k in ("anyOf", "oneOf") and isinstance(mine, list) and isinstance(v, list):
            # (a1 | a2) & (b1 | b2): each of one side's branches holds the other side's choice
            out[k] = [meet(x, {k: v}, path, ctx) if isinstance(x, dict) else {k: v} if x is True else x for x in mine]
        elif k in ("enum", "const"):
            pass  # met below, with each other
        elif k == "not" and values_of(mine) is not None and values_of(v) is not None:
            out[k] = {"enum": [*values_of(mine), *values_of(v)]}  # (not a and not b: none of the values)
        elif k in ("items", "additionalProperties", "propertyNames", "not") and isinstance(mine, dict) \
                and isinstance(v, dict):
            out[k] = {"allOf": [mine, v]} if k != "not" else {"anyOf": [mine, v]}
        elif k in ("items", "additionalProperties", "propertyNames") and (mine is False or v is False):
            out[k] = False
        elif k in ("items", "additionalProperties", "propertyNames") and (mine is True or v is True):
            out[k] = v if mine is True else mine
        elif annotation(k):
            pass  # an annotation (an unknown keyword too): either text will do
        elif ctx is not None and ctx.permissive:
            ctx.unsupported(k, path)  # relaxed: a's value alone, a superset
        else:
            raise UnsupportedSchemaError(f"allOf branches disagree on {k!r} (cannot be merged into one grammar)",
                                         f"{path}.{k}")
    sides = [[s["const"]] if "const" in s else s["enum"] for s in (a, b) if "const" in s or "enum" in s]
    if len(sides) == 2 and all(isinstance(s, list) for s in sides):
        values = _meet_values(sides[0], sides[1])
        if not values:
            raise EmptySchemaError("allOf admits no value: its enum/const values have none in common", path)
        out.pop("const", None)
        out["enum"] = values
    _check_bounds(out, path)
    # a side's additionalProperties schema holds for the names it does not declare, the other side's names too
    # (without patternProperties there, which would take some of them: those are left to their own schema)
    for side in (a, b):
        ap = side.get("additionalProperties")
        if isinstance(ap, dict) and ap and "patternProperties" not in side and isinstance(out.get("properties"), dict):
            own = side.get("properties") if isinstance(side.get("properties"), dict) else {}
            out["properties"] = {n: sub if n in own else {"allOf": [sub, ap]} for n, sub in out["properties"].items()}
    # an explicit additionalProperties false admits no name its own properties do not declare
    for side in (a, b):
        if side.get("additionalProperties") is False and isinstance(out.get("properties"), dict):
            own = side.get("properties") or {}
            gone = [n for n in out["properties"] if n not in own]
            for n in gone:
                if n in (out.get("required") or []):
                    raise EmptySchemaError(f"allOf admits no value: {n!r} is required but not allowed", path)
                del out["properties"][n]
    return out


def met_branch(outer: dict[str, Any], branch: Any, path: str, ctx: SchemaContext | None = None) -> Any:
    """An ``anyOf``/``oneOf`` branch met with the keywords beside it (``outer``: the schema without
    that keyword): what a value taking this branch must satisfy.  The branch's own ``unevaluated*`` see only
    the branch: they are read in it first (with ``ctx``; :meth:`SchemaContext.settled`)."""
    if not isinstance(branch, dict):
        return outer if branch is True else branch
    if ctx is not None:
        branch = ctx.settled(branch, path)
        if "properties" in outer and ("$ref" in branch or "allOf" in branch):
            branch = flatten(branch, ctx, path)  # met first: its members follow the outer's, as an inline one's do
    return meet(outer, branch, path)


def values_of(schema: Any) -> list[Any] | None:
    """The values a schema of ``const``/``enum`` alone lists (annotations aside), else None."""
    if not isinstance(schema, dict) or {k for k in schema if not annotation(k)} - {"const", "enum"}:
        return None
    if "const" in schema and "enum" not in schema:
        return [schema["const"]]
    if "enum" in schema and "const" not in schema and isinstance(schema["enum"], list):
        return list(schema["enum"])
    return None


def _check_bounds(schema: dict[str, Any], path: str) -> None:
    """A meet whose tightened bounds cross (``minItems`` 1 from one side, ``maxItems`` 0 from the other)
    admits no value: an :class:`EmptySchemaError` (one side alone with crossed bounds is malformed: a
    :class:`SchemaError` from the value rules)."""
    for lo_k, hi_k in (("minLength", "maxLength"), ("minItems", "maxItems"), ("minProperties", "maxProperties")):
        lo, hi = schema.get(lo_k), schema.get(hi_k)
        if _plain_number(lo) and _plain_number(hi) and lo > hi:
            raise EmptySchemaError(f"allOf admits no value: {lo_k} {lo} and {hi_k} {hi}", f"{path}.{hi_k}")
    lows = [(schema[k], k == "exclusiveMinimum") for k in ("minimum", "exclusiveMinimum")
            if _plain_number(schema.get(k))]
    highs = [(schema[k], k == "exclusiveMaximum") for k in ("maximum", "exclusiveMaximum")
             if _plain_number(schema.get(k))]
    for lo, lo_x in lows:
        for hi, hi_x in highs:
            if lo > hi or (lo == hi and (lo_x or hi_x)):
                raise EmptySchemaError(f"allOf admits no value: no number is at least {lo} and at most {hi}", path)


def _plain_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def flatten(schema: Any, ctx: SchemaContext, path: str, _refs: frozenset[str] = frozenset()) -> Any:
    """``schema`` with its ``allOf`` and its ``$ref``-with-sibling-keywords (which mean ``allOf:
    [target, siblings]``) met into one schema (:func:`meet`).  Nested schemas keep their ``$ref``."""
    parts = in_place_parts(schema, ctx, path, _refs)
    if not parts:
        return {}
    out, _ = parts[0]
    for part, where in parts[1:]:
        out = meet(out, part, where, ctx)
    return out


def settle_names(branch: dict[str, Any], ctx: SchemaContext, path: str) -> dict[str, Any] | None:
    """``branch`` with each declared name whose schema admits no value made ``false`` (it cannot appear), or None
    when such a name is required (no object takes the branch)."""
    props = branch.get("properties")
    if not isinstance(props, dict):
        return branch
    required = set(branch.get("required") or [])
    if branch.get("additionalProperties") is False and "patternProperties" not in branch and required - set(props):
        return None  # a required name no key may be
    out = dict(props)
    for name, sub in props.items():
        empty = forbids(sub)
        if not empty and isinstance(sub, dict) and ("allOf" in sub or "not" in sub):
            try:
                flatten(sub, ctx, path)
            except EmptySchemaError:
                empty = True
            except (SchemaError, UnsupportedSchemaError):
                pass  # reported where the member is built
        if empty:
            if name in required:
                return None
            out[name] = False
    return {**branch, "properties": out}


def may_overlap(a: Any, b: Any, ctx: SchemaContext, path: str) -> bool:
    """Whether two schemas may admit a common value (False only where their meet provably admits none: crossed
    types, bounds or values, a required name no value meets)."""
    if a is False or b is False:
        return False
    if not isinstance(a, dict) or not isinstance(b, dict):
        return True
    try:
        both = flatten({"allOf": [a, b]}, ctx, path)
    except EmptySchemaError:
        return False
    except (SchemaError, UnsupportedSchemaError):
        return True
    return not isinstance(both, dict) or settle_names(both, ctx, path) is not None and _items_met(both, ctx, path)


def _items_met(schema: dict[str, Any], ctx: SchemaContext, path: str) -> bool:
    """Whether each item position ``minItems`` requires admits a value (as met: an ``allOf`` per position)."""
    prefix = schema.get("prefixItems")
    low = schema.get("minItems")
    if not isinstance(prefix, list) or not isinstance(low, int) or isinstance(low, bool):
        return True
    for item in prefix[:low]:
        if item is False:
            return False
        if isinstance(item, dict) and "allOf" in item:
            try:
                flatten(item, ctx, path)
            except EmptySchemaError:
                return False
            except (SchemaError, UnsupportedSchemaError):
                pass  # reported where the item is built
    return True


def in_place_parts(schema: Any, ctx: SchemaContext, path: str,
                   _refs: frozenset[str] = frozenset()) -> list[tuple[dict[str, Any], str]]:
    """The schemas that apply to the same value as ``schema`` itself, each without its ``allOf`` and ``$ref``
    (followed: ``$ref`` targets and ``allOf`` branches, recursively), with their paths.  A part with
    ``unevaluated*`` of its own sees only its own parts: it is met on its own first (:func:`settle_unevaluated`),
    or its ``unevaluated*`` is refused (relaxed)."""
    parts: list[tuple[dict[str, Any], str]] = []

    def collect(s: Any, where: str, refs: frozenset[str], top: bool = False) -> None:
        if s is True or s == {}:
            return
        if s is False:
            raise EmptySchemaError("schema 'false' admits no value", where)
        if not isinstance(s, dict):
            raise SchemaError("a schema must be an object or a boolean", where)
        rest = dict(s)
        if not top and any(k in rest for k in _UNEVALUATED):
            settled = settle_unevaluated(rest, ctx, where)
            if settled is not None:
                own, after = settled
                parts.append(({**flatten(own, ctx, where, refs), **after}, where))
                return
            for k in _UNEVALUATED:
                if rest.pop(k, None) is not None:
                    ctx.unsupported(k, where)
        ref = rest.pop("$ref", None)
        branches = rest.pop("allOf", None)
        if ref is not None:
            if not isinstance(ref, str):
                raise SchemaError("$ref must be a string", f"{where}.$ref")
            if ref in refs:
                raise SchemaError(f"$ref cycle through {ref!r}", f"{where}.$ref")
            target, _ = ctx.resolve(ref, f"{where}.$ref")
            collect(target, where, refs | {ref})
        if branches is not None:
            if not isinstance(branches, list) or not branches:
                raise SchemaError("allOf must be a non-empty array", f"{where}.allOf")
            for i, branch in enumerate(branches):
                collect(branch, f"{where}.allOf[{i}]", refs)
        conds, plain = conditions_of(prefix_form(rest), where)
        # met as a list, each part's conditions holding (an if, then or else standing alone is dropped: it is
        # vacuous in its own part, and must not meet another part's; an if leaves an empty list, since its
        # annotations still count for unevaluated*: settle_unevaluated)
        rest = {**plain, CONDITIONS: conds} if conds or "if" in rest else plain
        if "properties" in rest and not isinstance(rest["properties"], dict):
            raise SchemaError("properties must be an object mapping names to schemas", f"{where}.properties")
        req = rest.get("required")
        if req is not None and (not isinstance(req, list) or not all(isinstance(r, str) for r in req)):
            raise SchemaError("required must be an array of property names", f"{where}.required")
        if rest:
            parts.append((rest, where))

    collect(schema, path, _refs, top=True)
    return parts


#: keywords that evaluate members or items only when a subschema matches (or does not): under them,
#: ``unevaluated*`` depends on which branch a value takes
_CONDITIONAL = frozenset({"anyOf", "oneOf", "if", "then", "else", "dependentSchemas", "$dynamicRef", CONDITIONS})
#: unevaluated keyword -> (the keyword that reads the same in a flat schema, keywords that block that reading)
_UNEVALUATED = {
    "unevaluatedProperties": ("additionalProperties", frozenset({"unevaluatedProperties"})),
    "unevaluatedItems": ("items", frozenset({"unevaluatedItems", "contains"})),
}


def settle_unevaluated(schema: Any, ctx: SchemaContext, path: str) -> tuple[Any, dict[str, Any]] | None:
    """``schema`` without ``unevaluatedProperties`` / ``unevaluatedItems`` where they read as plain keywords, and
    those keywords, to set on ``schema`` once its ``allOf`` / ``$ref`` are met (:func:`flatten`).

    When every schema applying in place (``allOf`` branches, ``$ref`` targets) evaluates unconditionally (no
    ``anyOf``, ``oneOf``, ``if``, ``dependentSchemas``, nested ``unevaluated*``, ``contains`` for items), the members
    left unevaluated are those no part's ``properties`` / ``patternProperties`` / ``additionalProperties`` covers:
    in the met schema, ``unevaluatedProperties`` is its ``additionalProperties``; the items left are those past
    every part's ``prefixItems`` that no part's ``items`` covers: ``unevaluatedItems`` is the met ``items``.  A
    part that already has ``additionalProperties`` (``items``) evaluates everything: the keyword is then a
    no-op.  Beside ``anyOf``/``oneOf`` branches that admit no common value they move into each branch
    (:func:`_distributed`).  None when they do not read so (the caller refuses them, or relaxes them)."""
    if not isinstance(schema, dict) or not any(k in schema for k in _UNEVALUATED):
        return schema, {}
    distributed = _distributed(schema, ctx, path)
    if distributed is not None:
        return distributed, {}
    rest = {k: v for k, v in schema.items() if k not in _UNEVALUATED}
    parts = [part for part, _ in in_place_parts(rest, ctx, path)]
    after: dict[str, Any] = {}
    for key, (plain, blockers) in _UNEVALUATED.items():
        if key not in schema:
            continue
        if not isinstance(schema[key], (bool, dict)):
            raise SchemaError(f"{key} must be a schema (an object or a boolean)", f"{path}.{key}")
        if any(k in part for part in parts for k in _CONDITIONAL | blockers) or any(
                isinstance(part.get("items"), list) for part in parts):
            return None
        if not any(plain in part for part in parts):
            after[plain] = schema[key]
    return rest, after


def _distributed(schema: dict[str, Any], ctx: SchemaContext, path: str) -> dict[str, Any] | None:
    """``schema``'s ``unevaluated*`` beside an ``anyOf``/``oneOf`` whose branches admit no common value, moved into
    each branch met with the keywords beside it: a value takes one branch, so the members (items) left unevaluated
    are those neither that branch nor the keywords beside it evaluate.  None where the branches may overlap, or
    another keyword evaluates conditionally (:func:`settle_unevaluated` then refuses them)."""
    keys = [k for k in ("anyOf", "oneOf") if k in schema]
    if len(keys) != 1 or not isinstance(schema[keys[0]], list):
        return None
    key = keys[0]
    outer = {k: v for k, v in schema.items() if k != key and k not in _UNEVALUATED}
    if any(k in outer for k in _CONDITIONAL):
        return None
    unevaluated = {k: schema[k] for k in _UNEVALUATED if k in schema}
    mets: list[Any] = []
    try:
        for i, branch in enumerate(schema[key]):
            try:
                mets.append(met_branch(outer, branch, f"{path}.{key}[{i}]", ctx))
            except EmptySchemaError:
                mets.append(False)  # the branch admits no value
    except (SchemaError, UnsupportedSchemaError):
        return None  # reported where the branch is built
    if any(may_overlap(a, b, ctx, path) for n, a in enumerate(mets) for b in mets[n + 1:]):
        return None
    return {key: [m if m is False else {**m, **unevaluated} for m in mets]}  # (disjoint: each a dict or False)


def arguments_object(params: dict[str, Any], ctx: SchemaContext) -> dict[str, Any]:
    """The object schema a tool's ``parameters`` describe: a chain of local ``$ref`` followed and
    ``allOf`` branches merged.  The one reading of a tool's arguments: the compiler writes its
    members from it, the parsers type their values with it (:meth:`Tool.reading_schema`)."""
    params = ctx.settled(params, ctx.path)
    if not isinstance(params, dict) or ("$ref" not in params and "allOf" not in params):
        return params
    ctx.check_keywords(params, ctx.path)
    schema = flatten(params, ctx, ctx.path)
    if not isinstance(schema, dict):
        raise SchemaError("parameters must resolve to an object schema", f"{ctx.path}.$ref")
    return schema


def load_tools(tools: Any) -> list[Tool]:
    """Validate an OpenAI ``tools`` array (bare function objects are accepted too)."""
    if not isinstance(tools, list):
        raise SchemaError("tools must be a JSON array of {'type': 'function', 'function': {...}}", "$")
    out: list[Tool] = []
    seen: set[str] = set()
    for i, item in enumerate(tools):
        path = f"$[{i}]"
        if not isinstance(item, dict):
            raise SchemaError("a tool must be an object", path)
        if "function" in item:
            if item.get("type", "function") != "function":
                raise SchemaError(f"unsupported tool type {item.get('type')!r}", f"{path}.type")
            fn = item["function"]
            path += ".function"
        else:
            fn = item
        if not isinstance(fn, dict):
            raise SchemaError("function must be an object", path)
        name = fn.get("name")
        if not isinstance(name, str) or not name:
            raise SchemaError("function.name must be a non-empty string", f"{path}.name")
        if any(c in name for c in "<>\"'()[]{}=,") or _bad_char(name) or space_char(name):
            raise SchemaError(f"function name {name!r} contains characters no format can carry", f"{path}.name")
        if name in seen:
            raise SchemaError(f"duplicate tool name {name!r}", f"{path}.name")
        seen.add(name)
        params = fn.get("parameters", {"type": "object", "properties": {}})
        if params is None:
            params = {"type": "object", "properties": {}}
        if not isinstance(params, dict):
            raise SchemaError("parameters must be a JSON schema object", f"{path}.parameters")
        check_document(params, f"{path}.parameters")
        params = local_refs(params)  # every $ref a JSON pointer from here on, where it resolves in the document
        ptype = params.get("type", "object")
        if isinstance(ptype, list) and "object" in ptype:  # a call's arguments are an object: the rest never is
            params, ptype = {**params, "type": "object"}, "object"
        if ptype != "object" and "$ref" not in params:
            raise SchemaError(f"parameters must have type 'object', got {ptype!r}", f"{path}.parameters.type")
        strict = fn.get("strict", item.get("strict", True))
        out.append(
            Tool(name=name, parameters=params, strict=strict is not False, description=str(fn.get("description") or ""))
        )
    return out
