"""``$ref`` within a tool's schema: JSON pointers, ``$id`` bases and ``$anchor`` names.

A reference is resolved where it is written: against the ``$id`` around it (JSON Schema's base URI; ``id`` in
a document that declares draft 3 or 4), to a schema of the same document named by ``$id``, by ``$anchor`` (or
draft 6/7 ``"$id": "#name"``), or by a JSON pointer into such a schema.  :func:`local_refs` does this once per
tool and writes each reference as a JSON pointer from the root, so the compiler and the parsers resolve every
one alike with :func:`follow_pointer`.  A reference to another document is left as written (the compiler
refuses it, naming the path; nothing is fetched).

What a ``$ref``'s sibling keywords mean depends on the draft the document declares (``$schema``): from draft
2019-09 on, and in a document that declares none, they apply beside it (the compiler reads ``allOf: [target,
siblings]``); in a draft 3 to 7 document the ``$ref`` overrides them, so :func:`local_refs` drops them there
(annotations and the ``definitions``/``$defs`` that hold schemas are kept), and a sibling ``$id`` does not move
the base URI.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from urllib.parse import quote, unquote, urldefrag, urljoin

from .keywords import annotation

#: the base URI of a document without ``$id`` (hierarchical, so that relative references resolve against it)
_NO_BASE = "https://toolgram.invalid/parameters"
#: members whose values are data, not schemas (an ``$id`` or ``$ref`` inside them means nothing)
_DATA = frozenset({"enum", "const", "default", "examples", "example"})
_MISSING = object()
#: the drafts (as ``$schema`` names them) whose base keyword is ``id``, and those whose ``$ref`` overrides its siblings
_ID_DRAFTS = ("draft-03", "draft-04")
_OVERRIDING_DRAFTS = (*_ID_DRAFTS, "draft-06", "draft-07")
#: the siblings an overriding ``$ref`` keeps besides annotations: they hold schemas a pointer may name
_HOLDERS = frozenset({"$ref", "definitions", "$defs"})
#: members whose value maps names to schemas: the map is no schema itself, so a property named ``$ref``, ``$id``
#: or ``enum`` is a name there (the draft 7 meta-schema declares all three), and every value is a schema
_MAPS = frozenset({"properties", "patternProperties", "definitions", "$defs", "dependentSchemas", "dependencies"})


def _declares(root: dict[str, Any], drafts: tuple[str, ...]) -> bool:
    """Whether ``root``'s ``$schema`` names one of ``drafts``."""
    declared = root.get("$schema")
    return isinstance(declared, str) and any(d in declared for d in drafts)


def _ident(node: dict[str, Any], legacy: bool, overriding: bool = False) -> str | None:
    """A schema's ``$id``, or in a draft 3/4 document (``legacy``) its ``id`` (later drafts have no ``id``
    keyword: there it is an unknown member, not a base); none beside a ``$ref`` that overrides its siblings."""
    if overriding and "$ref" in node:
        return None
    ident = node.get("$id", node.get("id") if legacy else None)
    return ident if isinstance(ident, str) else None


def _legacy(root: dict[str, Any]) -> bool:
    """Whether ``root`` declares draft 3 or 4 (``$schema``), whose base keyword is ``id``."""
    return _declares(root, _ID_DRAFTS)


def ref_overrides(root: dict[str, Any]) -> bool:
    """Whether ``root`` declares a draft (3 to 7) in which a ``$ref`` overrides its sibling keywords."""
    return _declares(root, _OVERRIDING_DRAFTS)


def _overridden(node: dict[str, Any]) -> bool:
    """Whether ``node`` has a ``$ref`` and a sibling that an overriding ``$ref`` drops."""
    return "$ref" in node and any(k not in _HOLDERS and not annotation(k) for k in node)


def _inner_base(node: dict[str, Any], base: str, legacy: bool, overriding: bool = False) -> str:
    """The base URI inside ``node``: its ``$id`` resolved against ``base``, the one around it (``base`` itself
    where it has none, or only an anchor's ``#name``)."""
    ident = _ident(node, legacy, overriding)
    return urldefrag(urljoin(base, ident))[0] if ident is not None and not ident.startswith("#") else base


def _members(node: dict[str, Any]) -> Iterator[tuple[Any, list[str]]]:
    """The members of schema ``node`` that may hold schemas, each with its path's parts below ``node``: a name
    map's values (:data:`_MAPS`), and every other member but data (:data:`_DATA`), which may be a schema, a list of
    them, or any object a pointer names (``#/components/schemas/Pet``)."""
    for k, v in node.items():
        if k in _DATA:
            continue
        if k in _MAPS and isinstance(v, dict):
            for name, sub in v.items():
                yield sub, [k, name]
        else:
            yield v, [k]


def _schemas(root: dict[str, Any], legacy: bool,
             overriding: bool = False) -> Iterator[tuple[dict[str, Any], str, list[str]]]:
    """Every object in ``root`` outside data members (:data:`_DATA`), with its base URI (its own ``$id`` resolved
    against the one around it) and its path's parts, parents first."""
    stack: list[tuple[Any, str, list[str]]] = [(root, _NO_BASE, [])]
    while stack:
        node, base, parts = stack.pop()
        if isinstance(node, list):
            stack += [(item, base, [*parts, str(i)]) for i, item in reversed(list(enumerate(node)))]
            continue
        if not isinstance(node, dict):
            continue
        base = _inner_base(node, base, legacy, overriding)
        yield node, base, parts
        stack += [(v, base, [*parts, *below]) for v, below in reversed(list(_members(node)))]


def _index(root: dict[str, Any], legacy: bool, overriding: bool) -> dict[str, list[str]]:
    """The path (pointer parts) of each schema an absolute URI names: ``base`` for an ``$id``, ``base#name`` for
    an anchor, the root under its own base and under :data:`_NO_BASE`."""
    found: dict[str, list[str]] = {_NO_BASE: []}
    for node, base, parts in _schemas(root, legacy, overriding):
        ident = _ident(node, legacy, overriding)
        if ident is not None:
            found.setdefault(f"{base}{ident}" if ident.startswith("#") else base, parts)
        if isinstance(node.get("$anchor"), str):
            found.setdefault(f"{base}#{node['$anchor']}", parts)
    return found


def _pointer(parts: list[str]) -> str:
    return "#" + "".join("/" + quote(p.replace("~", "~0").replace("/", "~1"), safe="~!$&'()*+,;=:@") for p in parts)


def _needs_rewrite(node: dict[str, Any], legacy: bool, overriding: bool) -> bool:
    """Whether ``node`` has an ``$id``, an ``$anchor``, a reference other than a JSON pointer, or (``overriding``)
    a ``$ref`` with siblings to drop."""
    for schema, _, _ in _schemas(node, legacy):
        ref = schema.get("$ref")
        if isinstance(ref, str) and not (ref == "#" or ref.startswith("#/")) or "$anchor" in schema or _ident(
                schema, legacy) or overriding and _overridden(schema):
            return True
    return False


def local_refs(root: dict[str, Any]) -> dict[str, Any]:
    """``root`` with each ``$ref`` that names a schema of this document written as a JSON pointer from the root
    (resolved where it is written: the module docstring), and in a draft 3 to 7 document without the siblings its
    ``$ref`` overrides; ``root`` itself when there is nothing to rewrite."""
    legacy, overriding = _legacy(root), ref_overrides(root)
    if not _needs_rewrite(root, legacy, overriding):
        return root
    index = _index(root, legacy, overriding)

    def target(ref: str, base: str) -> str | None:
        uri, fragment = (base, ref[1:]) if ref.startswith("#") else urldefrag(urljoin(base, ref))
        parts = index.get(uri)
        if parts is None:
            return None
        if fragment and not fragment.startswith("/"):
            named = index.get(f"{uri}#{unquote(fragment)}")
            return None if named is None else _pointer(named)
        found = follow_pointer(_walk(root, parts), f"#{fragment}")
        return None if found is None else _pointer([*parts, *found[1]])

    def rewrite(node: Any, base: str) -> Any:
        if isinstance(node, list):
            return [rewrite(item, base) for item in node]
        if not isinstance(node, dict):
            return node
        base = _inner_base(node, base, legacy, overriding)
        if overriding and "$ref" in node:
            node = {k: v for k, v in node.items() if k in _HOLDERS or annotation(k)}
        out: dict[str, Any] = {}
        for k, v in node.items():
            if k in _DATA:
                out[k] = v
            elif k in _MAPS and isinstance(v, dict):  # (a map of names: each value a schema, :func:`_members`)
                out[k] = {name: rewrite(sub, base) for name, sub in v.items()}
            else:
                out[k] = rewrite(v, base)
        if isinstance(node.get("$ref"), str):
            out["$ref"] = target(node["$ref"], base) or node["$ref"]
        return out

    return rewrite(root, _NO_BASE)


def follow_pointer(root: Any, ref: str) -> tuple[Any, list[str]] | None:
    """The node a ``#`` JSON pointer names in ``root``, with the pointer's parts; None when it does not resolve.
    Compile and parse both resolve here.  The parts are percent-decoded (a URI fragment) and then ``~1``/``~0``
    unescaped; where that names nothing, as written (generators that do not encode a name holding ``%``)."""
    if not isinstance(ref, str) or not ref.startswith("#") or ref != "#" and not ref.startswith("#/"):
        return None
    raw = ref[1:].split("/")[1:]
    for steps in ([unquote(p) for p in raw], raw):
        parts = [p.replace("~1", "/").replace("~0", "~") for p in steps]
        node = _walk(root, parts)
        if node is not _MISSING:
            return node, parts
    return None


def _walk(node: Any, steps: list[str]) -> Any:
    """The node at ``steps`` (unescaped pointer parts) below ``node``, or :data:`_MISSING`."""
    for part in steps:
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return _MISSING
    return node
