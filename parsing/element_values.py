"""Typing nested XML element values (:mod:`toolgram.grammars.syntax.xml_elements`, MiniMax-M3) by the schema.

An element value is a raw scalar (read as :func:`~.values.convert_xml_value` reads an XML
parameter), or, where the schema admits an object or an array, a sequence of elements: ``item``
elements are an array's items (unless the schema wants an object), other names an object's members.
An empty text is ``{}`` or ``[]`` where the schema admits only an object or only an array.
"""

from __future__ import annotations

from typing import Any

from ..grammars.syntax import xml_elements
from .diagnostics import Diagnostic
from .values import convert_xml_value, member_schema, resolve_ref, schema_types


def convert_element_value(raw: str, schema: Any, *, ns: str, lenient: bool = True, root: Any = None,
                          name: str | None = None, offset: int | None = None,
                          hint: bool = False) -> tuple[Any, list[Diagnostic]]:
    """The JSON value of an element value's text under ``schema`` (None: any value)."""
    root = root if root is not None else schema
    types = schema_types(schema, root) if schema is not None else None
    nested = types is None or bool(types & {"object", "array"})
    target = resolve_ref(schema, root) if isinstance(schema, dict) else {}
    target = target if isinstance(target, dict) else {}
    if nested and raw.startswith(ns + "<"):
        elems = xml_elements.split(raw, ns)
        if elems is not None:
            props = target.get("properties") if isinstance(target.get("properties"), dict) else {}
            as_array = types is not None and "array" in types and "object" not in types or (
                (types is None or "array" in types) and all(n == xml_elements.ITEM for n, _ in elems)
                and xml_elements.ITEM not in props)
            diags: list[Diagnostic] = []
            if as_array:
                items = target.get("items") if isinstance(target.get("items"), dict) else None
                out = []
                for _, text in elems:
                    v, d = convert_element_value(text, items, ns=ns, lenient=lenient, root=root, name=name,
                                                 offset=offset, hint=hint)
                    out.append(v)
                    diags += d
                return out, diags
            obj: dict[str, Any] = {}
            for key, text in elems:
                sub = member_schema(target, key)
                v, d = convert_element_value(text, sub, ns=ns, lenient=lenient, root=root, name=key,
                                             offset=offset, hint=hint)
                diags += d
                obj.setdefault(key, v)  # a member written twice keeps its first value
            return obj, diags
    if raw == "" and types is not None and "string" not in types:
        if types <= {"object", "null"} and "object" in types:
            return {}, []
        if types <= {"array", "null"} and "array" in types:
            return [], []
    return convert_xml_value(raw, schema, lenient=lenient, root=root, name=name, offset=offset, hint=hint)
