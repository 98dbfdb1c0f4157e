"""The one value converter shared by the whole-output parser and the stream parser.

* :func:`loads_json` reads JSON as SPEC section 4 wants it: exact ints (up to
  :data:`~toolgram.parsing.pyliteral.MAX_INT_DIGITS` digits; a longer one keeps its source text as a
  string with an ``integer_too_long`` diagnostic, so conversion stays linear), floats only
  for numbers written with a fraction or exponent, non-finite numbers kept as their source text,
  duplicate keys at their first position with their last value.
* :func:`convert_xml_value` types the raw text of an XML parameter (seed_oss, qwen3_coder) by
  its schema.
* :func:`convert_python_value` reads the text of a pythonic argument value.
* :func:`convert_gemma_value` reads the text of a Gemma 4 argument value.
* :func:`dumps_arguments` writes an ``arguments`` string (a truncated one is never completed:
  SPEC section 4).
* :func:`model_text` reads the model output given to the parsers (``str`` or UTF-8 ``bytes``).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from ..compiler.regex import matcher
from ..compiler.schema import TYPE_ALIASES, follow_pointer
from ..errors import ToolgramError
from ..grammars.syntax import gemma_text
from .diagnostics import Diagnostic
from .pyliteral import MAX_INT_DIGITS, LiteralSyntaxError, parse_literal, too_long_int, unlimited_int_digits

__all__ = [
    "Diagnostic",
    "JSONValueError",
    "TYPE_ORDER",
    "convert_gemma_value",
    "convert_python_value",
    "convert_xml_value",
    "dumps_arguments",
    "loads_json",
    "resolve_ref",
    "schema_types",
    "unlimited_int_digits",
]

#: Order in which a raw XML value is tried against a union's non-string types (SPEC section 1).
TYPE_ORDER: tuple[str, ...] = ("null", "integer", "number", "boolean", "object", "array")
_ALL_TYPES = frozenset((*TYPE_ORDER, "string"))
_JSON_WS = " \t\n\r"
_INT_RE = re.compile(r"-?(?:0|[1-9][0-9]*)")
_NUMBER_RE = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?")
_SURROGATE_RE = re.compile("[\ud800-\udfff]")
_NON_FINITE_CONSTANTS = ("NaN", "Infinity", "-Infinity")



class JSONValueError(ValueError):
    """Text that is not valid JSON. ``offset`` is the position of the error in the text read."""

    def __init__(self, msg: str, offset: int) -> None:
        super().__init__(f"{msg} (at offset {offset})")
        self.msg = msg
        self.offset = offset


# --------------------------------------------------------------------------------------------
# Input


def model_text(text: Any, name: str = "text") -> str:
    """The model output as ``str``: ``str`` as is, ``bytes`` decoded as UTF-8 with replacement.

    Anything else is a caller's error (not model output): a one-line :class:`ToolgramError`."""
    if isinstance(text, str):
        return text
    if isinstance(text, (bytes, bytearray)):
        return bytes(text).decode("utf-8", errors="replace")
    raise ToolgramError(f"{name} must be str or bytes (UTF-8), got {type(text).__name__}", name)


# --------------------------------------------------------------------------------------------
# JSON


def _pairs_hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        out[key] = value  # an existing key keeps its position and takes the new value
    return out


def loads_json(text: str, *, lenient: bool = True, offset: int | None = None) -> tuple[Any, list[Diagnostic]]:
    """Read one JSON value (surrounding whitespace allowed); return ``(value, diagnostics)``.

    A number that is not finite as a float (``1e400``) becomes the string of its source text with a
    ``non_finite_number`` diagnostic. Lenient mode also allows raw control characters inside
    strings and reads ``NaN``/``Infinity``/``-Infinity`` like ``1e400``; strict mode rejects both.
    Diagnostics carry ``offset`` (the caller's position of ``text``). Raises :class:`JSONValueError`.
    """
    diagnostics: list[Diagnostic] = []

    def non_finite(source: str) -> str:
        diagnostics.append(
            Diagnostic(
                "non_finite_number", f"number {source} is not finite as a float; kept as a string", offset
            )
        )
        return source

    def parse_float(source: str) -> float | str:
        value = float(source)
        return non_finite(source) if math.isinf(value) else value

    def parse_int(source: str) -> int | str:
        if len(source) > MAX_INT_DIGITS + (source[0] == "-"):
            diagnostics.append(too_long_int(source, offset))
            return source
        return int(source)

    def parse_constant(source: str) -> str:
        if not lenient:
            raise ValueError(f"{source} is not valid JSON")
        return non_finite(source)

    try:
        if len(text) > 4000:
            with unlimited_int_digits():
                value = _json_loads(text, lenient, parse_float, parse_constant, parse_int)
        else:
            value = _json_loads(text, lenient, parse_float, parse_constant, None)
    except json.JSONDecodeError as exc:
        raise JSONValueError(exc.msg, exc.pos) from None
    except ValueError as exc:  # from parse_constant
        raise JSONValueError(str(exc), 0) from None
    except RecursionError:
        raise JSONValueError("nesting too deep", 0) from None
    return value, diagnostics


def _json_loads(text: str, lenient: bool, parse_float: Any, parse_constant: Any, parse_int: Any) -> Any:
    return json.loads(
        text,
        object_pairs_hook=_pairs_hook,
        parse_float=parse_float,
        parse_constant=parse_constant,
        parse_int=parse_int,
        strict=not lenient,
    )


def dumps_arguments(obj: Any) -> str:
    """``json.dumps(obj, ensure_ascii=False)`` with exact ints of any size.

    Lone surrogates (from ``"\\ud800"`` in the input) are written as ``\\uXXXX`` escapes, so the text
    stays encodable as UTF-8 and still decodes to the same value.
    """
    with unlimited_int_digits():
        text = json.dumps(obj, ensure_ascii=False)
    if _SURROGATE_RE.search(text):
        text = _SURROGATE_RE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
    return text


# --------------------------------------------------------------------------------------------
# Schemas


def resolve_ref(schema: Any, root: dict[str, Any] | None) -> Any:
    """Follow ``$ref`` within the tool's schema (JSON pointers, ``$anchor``, ``$id``: :func:`follow_pointer`).

    Unresolvable or non-local refs, and ref cycles, resolve to ``{}`` (any value).
    """
    seen: set[str] = set()
    while isinstance(schema, dict) and isinstance(schema.get("$ref"), str):
        ref = schema["$ref"]
        if ref in seen or root is None:
            return {}
        seen.add(ref)
        found = follow_pointer(root, ref)
        if found is None:
            return {}
        schema = found[0]
    return schema


def member_schema(params: Any, key: str) -> Any:
    """The schema of argument ``key`` in the parameters object ``params``: its ``properties`` entry,
    else the ``additionalProperties`` schema (an undeclared argument is typed by it, both parsers),
    else None (untyped)."""
    if not isinstance(params, dict):
        return None
    props = params.get("properties")
    if isinstance(props, dict) and key in props:
        return props[key]
    patterns = params.get("patternProperties")
    if isinstance(patterns, dict):
        for pattern, schema in patterns.items():
            if isinstance(pattern, str) and key_pattern(pattern)(key):
                return schema  # the first pattern's (a grammar admits no key whose patterns' types differ)
    extra = params.get("additionalProperties")
    return extra if isinstance(extra, dict) and extra else None


def key_pattern(pattern: str) -> Callable[[str], bool]:
    """Whether a key matches a ``patternProperties`` pattern, read as the compiler reads it; a pattern the
    compiler cannot read matches nothing."""
    return matcher(pattern) or (lambda key: False)


def _value_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def schema_types(schema: Any, root: dict[str, Any] | None = None, _depth: int = 0) -> frozenset[str] | None:
    """The JSON types a schema admits, or ``None`` for any value.

    Reads ``type`` (a name or a list; vLLM's aliases such as ``int``, ``str``, ``dict`` are mapped;
    an unknown name means any), ``enum`` and ``const`` (the types of their values), ``anyOf`` and
    ``oneOf`` (the union of the branches), ``allOf`` (the intersection) and OpenAPI's ``nullable``,
    after following ``$ref``.
    ``"integer"`` in the result means whole numbers only; ``"number"`` includes integers.
    """
    if root is None and isinstance(schema, dict):
        root = schema
    schema = resolve_ref(schema, root)
    if not isinstance(schema, dict) or _depth > 50:
        return None
    result: frozenset[str] | None = None

    def meet(types: frozenset[str] | None) -> None:
        nonlocal result
        if types is None:
            return
        result = types if result is None else result & types

    if "type" in schema:
        names = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        mapped: set[str] | None = set()
        for name in names:
            alias = TYPE_ALIASES.get(str(name).lower())
            if alias is None or mapped is None:
                mapped = None
                break
            mapped.add(alias)
        if mapped is not None:
            meet(frozenset(mapped))
    if "const" in schema:
        meet(frozenset({_value_type(schema["const"])}))
    if isinstance(schema.get("enum"), list):
        meet(frozenset(_value_type(v) for v in schema["enum"]))
    for key in ("anyOf", "oneOf"):
        branches = schema.get(key)
        if isinstance(branches, list) and branches:
            union: set[str] = set()
            for branch in branches:
                types = schema_types(branch, root, _depth + 1)
                if types is None:  # an unconstrained branch: the union admits anything
                    break
                union |= types
            else:
                meet(frozenset(union))
    if isinstance(schema.get("allOf"), list):
        for branch in schema["allOf"]:
            meet(schema_types(branch, root, _depth + 1))
    if not result:  # no constraint, or contradictory branches: treat as any value
        return None
    if schema.get("nullable") is True:  # OpenAPI 3.0 spelling of a nullable type
        result = result | {"null"}
    if "integer" in result and "number" in result:
        result = result - {"integer"}
    return None if result == _ALL_TYPES - {"integer"} else result


# --------------------------------------------------------------------------------------------
# XML parameter values


def _shift(diagnostics: list[Diagnostic], offset: int | None) -> list[Diagnostic]:
    return [
        replace(d, offset=None if offset is None or d.offset is None else d.offset + offset)
        for d in diagnostics
    ]


def convert_xml_value(
    raw: str,
    schema: dict[str, Any] | None,
    *,
    lenient: bool = True,
    root: dict[str, Any] | None = None,
    name: str | None = None,
    offset: int | None = None,
    hint: bool = False,
) -> tuple[Any, list[Diagnostic]]:
    """Type the raw text of an XML parameter (the format's fixed padding already removed).

    * A schema that admits only strings (``type: string``, string ``enum``/``const``): ``raw`` as is.
    * Otherwise the text with JSON whitespace stripped is tried as each admitted type in the order
      null, integer, number, boolean, object, array; the first that fits wins.
      - null: ``null`` (lenient: also ``None``); tried only when the schema admits null or no string.
      - integer: JSON integer syntax, or a JSON number with a zero fraction (``3.0`` stays 3.0).
      - number: JSON number syntax; an int stays an int, a fraction or exponent makes a float.
      - boolean: ``true``/``false`` (lenient: also ``True``/``False``).
      - object/array: JSON; lenient: then a Python literal (``{'k': 'v'}``, ``(1, 2)``).
    * Nothing fits: a schema admitting strings gives ``raw`` unchanged; otherwise ``raw`` is kept with a
      ``value_type_mismatch`` diagnostic (``non_finite_number`` with the stripped text for ``1e400``).
    * ``None``, ``{}`` or an unknown type admits everything: strings are the fallback.

    ``root`` resolves local ``$ref`` (default: ``schema`` itself); ``name`` names the parameter in
    messages; diagnostics carry ``offset`` (the caller's position of ``raw``), or ``None``.
    ``hint``: the schema only guides the reading (a tool with ``strict: false``, whose grammar takes
    any value): a value it does not admit is read as any type, without a diagnostic.
    """
    types = schema_types(schema, root if root is not None else schema) if schema is not None else None
    allowed = _ALL_TYPES if types is None else types
    if allowed == {"string"}:
        return raw, []
    text = raw.strip(_JSON_WS)
    lead = len(raw) - len(raw.lstrip(_JSON_WS))
    base = None if offset is None else offset + lead
    number = _NUMBER_RE.fullmatch(text)
    non_finite = False
    container: tuple[Any, list[Diagnostic]] | None | bool = False  # False: not parsed yet

    for kind in TYPE_ORDER:
        if kind == "null":
            # null counts where the schema admits it, or where no string could be meant
            if ("null" in allowed or "string" not in allowed) and (
                text == "null" or (lenient and text == "None")
            ):
                return None, []
        elif kind not in allowed:
            continue
        elif kind in ("integer", "number") and number:
            if _INT_RE.fullmatch(text):
                if len(text) > MAX_INT_DIGITS + (text[0] == "-"):
                    return text, [too_long_int(text, base)]
                with unlimited_int_digits():
                    return int(text), []
            value = float(text)
            if math.isinf(value):
                non_finite = True
            elif kind == "number" or value.is_integer():
                return value, []
        elif kind == "boolean":
            if text in ("true", "false") or (lenient and text in ("True", "False")):
                return text in ("true", "True"), []
        elif kind in ("object", "array"):
            if container is False:
                container = _read_container(text, lenient)
            if isinstance(container, tuple):
                value, diagnostics = container
                if (kind == "object") == isinstance(value, dict):
                    return value, _shift(diagnostics, base)

    if "string" in allowed:
        return raw, []
    if non_finite:
        return text, [
            Diagnostic("non_finite_number", f"number {text} is not finite as a float; kept as a string", base)
        ]
    if hint:
        return convert_xml_value(raw, None, lenient=lenient, offset=offset)
    wanted = " or ".join(k for k in TYPE_ORDER if k in allowed)
    label = f"parameter {name!r}" if name is not None else "parameter"
    return raw, [
        Diagnostic("value_type_mismatch", f"{label} expects {wanted}; the value is kept as a string", offset)
    ]


def _read_container(text: str, lenient: bool) -> tuple[Any, list[Diagnostic]] | None:
    """Read an object or array as JSON, then (lenient) as a Python literal; ``None`` when neither."""
    if not text or text[0] not in "{[(":
        return None
    try:
        value, diagnostics = loads_json(text, lenient=lenient, offset=0)
    except JSONValueError:
        if not lenient:
            return None
        diagnostics = []
        try:
            value = parse_literal(text, lenient=True, diagnostics=diagnostics)
        except LiteralSyntaxError:
            return None
    if isinstance(value, (dict, list)):
        return value, diagnostics
    return None


# --------------------------------------------------------------------------------------------
# Pythonic values


def convert_python_value(text: str, *, lenient: bool = True, offset: int = 0) -> tuple[Any, list[Diagnostic]]:
    """Read the source text of one pythonic argument value.

    Text that is not a literal (in the chosen mode) is kept as its stripped source text with an
    ``invalid_literal`` diagnostic. Diagnostic offsets are ``offset`` plus the position in ``text``.
    """
    diagnostics: list[Diagnostic] = []
    try:
        value = parse_literal(text, lenient=lenient, diagnostics=diagnostics)
    except LiteralSyntaxError as exc:
        return text.strip(), [
            Diagnostic(
                "invalid_literal", f"not a Python literal: {exc.msg}; kept as a string", offset + exc.offset
            )
        ]
    return value, _shift(diagnostics, offset)


# --------------------------------------------------------------------------------------------
# Gemma 4 values


def convert_gemma_value(text: str, *, lenient: bool = True, offset: int = 0) -> tuple[Any, list[Diagnostic]]:
    """Read the source text of one Gemma 4 argument value (:mod:`~toolgram.grammars.syntax.gemma_text`,
    the one reader of the syntax); numbers follow :func:`loads_json`'s rules.

    Text that is not a value (in the chosen mode) is kept as its stripped source text with an
    ``invalid_literal`` diagnostic, as pythonic values are. Offsets are ``offset`` plus the position."""
    diagnostics: list[Diagnostic] = []

    def number(source: str) -> Any:
        value, diags = loads_json(source, lenient=False, offset=offset)
        diagnostics.extend(diags)
        return value

    try:
        with unlimited_int_digits():
            value = gemma_text.read(text, lenient=lenient, number=number)
    except gemma_text.GemmaSyntaxError as exc:
        return text.strip(), [
            Diagnostic("invalid_literal", f"not a Gemma 4 value: {exc.msg}; kept as a string", offset + exc.pos)
        ]
    return value, diagnostics


# --------------------------------------------------------------------------------------------
# Partial JSON


_PARTIAL_NUMBER_RE = re.compile(r"-?[0-9]*(?:\.[0-9]*)?(?:[eE][-+]?[0-9]*)?")
_LITERALS = ("true", "false", "null")


_JSON_STRING_RE = re.compile(r'"(?:[^"\\]|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})*"')
_JSON_STRING_PREFIX_RE = re.compile(
    r'"(?:[^"\\]|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})*(?:\\(?:u[0-9a-fA-F]{0,3})?)?\Z'
)


def _string_end(text: str, i: int) -> int:
    """Index just past the closing quote of the string opening at ``i``; -1 when the text ends
    inside it, -2 when it holds an invalid escape."""
    m = _JSON_STRING_RE.match(text, i)
    if m:
        return m.end()
    return -1 if _JSON_STRING_PREFIX_RE.match(text, i) else -2


_OPEN_ESCAPE_RE = re.compile(r"(?<!\\)(?:\\\\)*(\\(?:u[0-9a-fA-F]{0,3})?)\Z")
_HIGH_SURROGATE_RE = re.compile(r"(?<!\\)(?:\\\\)*(\\u[dD][89abAB][0-9a-fA-F]{2})\Z")


def _cut_partial_escape(body: str) -> str:
    """Drop an unfinished escape (``\\`` or ``\\u12``) from the end of a truncated string body, then
    a ``\\uD83D`` whose low surrogate was cut off."""
    for pattern in (_OPEN_ESCAPE_RE, _HIGH_SURROGATE_RE):
        m = pattern.search(body)
        if m:
            body = body[: m.start(1)]
    return body
