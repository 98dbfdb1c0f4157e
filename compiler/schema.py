"""JSON-schema plumbing: tool list validation, local ``$ref`` resolution, keyword checks."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ..errors import SchemaError, UnsupportedSchemaError
from .keywords import with_status

# Keywords by what toolgram does with them: the one registry is :mod:`.keywords`.
ANNOTATIONS = with_status("annotation")
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


_SURROGATE = re.compile("[\ud800-\udfff]")


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


def follow_pointer(root: Any, ref: str) -> tuple[Any, list[str]] | None:
    """The node a local ``$ref`` (``#``, ``#/$defs/x``, any JSON pointer) names in ``root``, with the
    pointer's unescaped parts; None when it does not resolve.  Compile and parse both resolve here."""
    if not ref.startswith("#"):
        return None
    node: Any = root
    parts = [raw.replace("~1", "/").replace("~0", "~") for raw in ref[1:].split("/") if raw]
    for part in parts:
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return None
    return node, parts


@dataclass
class SchemaContext:
    """Where schemas are resolved and how unsupported keywords are treated."""

    root: dict[str, Any]
    path: str
    permissive: bool = False
    relaxed: list[dict[str, str]] = field(default_factory=list)

    def resolve(self, ref: str, path: str) -> tuple[Any, str]:
        """Resolve a local ``$ref`` (``#``, ``#/$defs/x``, any local JSON pointer)."""
        if not isinstance(ref, str):
            raise SchemaError("$ref must be a string", path)
        if not ref.startswith("#"):
            raise UnsupportedSchemaError(f"only local $ref ('#/...') is supported, got {ref!r}", path)
        found = follow_pointer(self.root, ref)
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

    def unsupported(self, keyword: str, path: str) -> None:
        """Reject ``keyword``, or record it as relaxed when permissive."""
        if not self.permissive:
            raise UnsupportedSchemaError(
                f"schema keyword {keyword!r} cannot be enforced by a grammar "
                "(pass permissive=True / --permissive to ignore it)",
                f"{path}.{keyword}",
            )
        self.relaxed.append({"path": f"{path}.{keyword}", "feature": keyword})

    def check_keywords(self, schema: dict[str, Any], path: str) -> None:
        for key in schema:
            if key in UNSUPPORTED:
                self.unsupported(key, path)
            elif key == "dependencies" and isinstance(schema[key], dict) and any(
                    not isinstance(v, list) for v in schema[key].values()):
                self.unsupported(key, path)  # the schema form (the array form is dependentRequired)
        t = schema.get("type")
        for one in t if isinstance(t, list) else ([t] if t is not None else []):
            if one not in TYPES:
                raise SchemaError(f"unrecognized type {one!r}{type_hint(one)}", f"{path}.type")


def merge_all_of(schema: dict[str, Any], path: str) -> dict[str, Any]:
    """Merge ``allOf`` branches of objects (properties, required) -- llama.cpp's reading."""
    merged = {k: v for k, v in schema.items() if k != "allOf"}
    branches = schema["allOf"]
    if not isinstance(branches, list) or not branches:
        raise SchemaError("allOf must be a non-empty array", f"{path}.allOf")
    for key, kind in (("properties", dict), ("required", list)):
        if key in merged and not isinstance(merged[key], kind):
            raise SchemaError(f"{key} must be an {'object' if kind is dict else 'array'}", f"{path}.{key}")
    for i, branch in enumerate(branches):
        if not isinstance(branch, dict) or "$ref" in branch or "anyOf" in branch or "oneOf" in branch:
            raise UnsupportedSchemaError("allOf is supported only over plain object schemas", f"{path}.allOf[{i}]")
        for k, v in branch.items():
            if k == "properties":
                if not isinstance(v, dict):
                    raise SchemaError("properties must be an object mapping names to schemas",
                                      f"{path}.allOf[{i}].properties")
                merged.setdefault("properties", {})
                merged["properties"] = {**merged["properties"], **v}
            elif k == "required":
                if not isinstance(v, list) or not all(isinstance(r, str) for r in v):
                    raise SchemaError("required must be an array of property names", f"{path}.allOf[{i}].required")
                merged["required"] = list(dict.fromkeys([*merged.get("required", []), *v]))
            elif k in merged and merged[k] != v:
                raise UnsupportedSchemaError(f"allOf branches disagree on {k!r}", f"{path}.allOf[{i}].{k}")
            else:
                merged[k] = v
    return merged


def arguments_object(params: dict[str, Any], ctx: SchemaContext) -> dict[str, Any]:
    """The object schema a tool's ``parameters`` describe: a chain of local ``$ref`` followed and
    ``allOf`` branches merged.  The one reading of a tool's arguments: the compiler writes its
    members from it, the parsers type their values with it (:meth:`Tool.reading_schema`)."""
    schema = ctx.deref(params, ctx.path)
    if not isinstance(schema, dict):
        raise SchemaError("parameters must resolve to an object schema", f"{ctx.path}.$ref")
    if "allOf" in schema:
        ctx.check_keywords(schema, ctx.path)
        schema = merge_all_of(schema, ctx.path)
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
        if any(c in name for c in "<>\"'\n\t ()[]{}=,") or _bad_char(name):
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
        ptype = params.get("type", "object")
        if ptype not in ("object", ["object"]) and "$ref" not in params:
            raise SchemaError(f"parameters must have type 'object', got {ptype!r}", f"{path}.parameters.type")
        strict = fn.get("strict", item.get("strict", True))
        out.append(
            Tool(name=name, parameters=params, strict=strict is not False, description=str(fn.get("description") or ""))
        )
    return out
