"""``$ref`` within a tool's schema: JSON pointers, ``$id`` bases and ``$anchor`` names.

A reference is resolved where it is written: against the ``$id`` around it (JSON Schema's base URI; ``id`` in
a document that declares draft 3 or 4), to a schema of the same document named by ``$id``, by ``$anchor`` (or
draft 6/7 ``"$id": "#name"``), or by a JSON pointer into such a schema.  :func:`local_refs` does this once per
tool and writes each reference as a JSON pointer from the root, so the compiler and the parsers resolve every
one alike with :func:`follow_pointer`.  A reference to another document is left as written (the compiler
refuses it, naming the path; nothing is fetched).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from urllib.parse import quote, unquote, urldefrag, urljoin

#: the base URI of a document without ``$id`` (hierarchical, so that relative references resolve against it)
_NO_BASE = "https://toolgram.invalid/parameters"
#: members whose values are data, not schemas (an ``$id`` or ``$ref`` inside them means nothing)
_DATA = frozenset({"enum", "const", "default", "examples", "example"})
_MISSING = object()


def _ident(node: dict[str, Any], legacy: bool) -> str | None:
    """A schema's ``$id``, or in a draft 3/4 document (``legacy``) its ``id`` (later drafts have no ``id``
    keyword: there it is an unknown member, not a base)."""
    ident = node.get("$id", node.get("id") if legacy else None)
    return ident if isinstance(ident, str) else None


def _legacy(root: dict[str, Any]) -> bool:
    """Whether ``root`` declares draft 3 or 4 (``$schema``), whose base keyword is ``id``."""
    declared = root.get("$schema")
    return isinstance(declared, str) and ("draft-04" in declared or "draft-03" in declared)


def _inner_base(node: dict[str, Any], base: str, legacy: bool) -> str:
    """The base URI inside ``node``: its ``$id`` resolved against ``base``, the one around it (``base`` itself
    where it has none, or only an anchor's ``#name``)."""
    ident = _ident(node, legacy)
    return urldefrag(urljoin(base, ident))[0] if ident is not None and not ident.startswith("#") else base


def _schemas(root: dict[str, Any], legacy: bool) -> Iterator[tuple[dict[str, Any], str, list[str]]]:
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
        base = _inner_base(node, base, legacy)
        yield node, base, parts
        stack += [(v, base, [*parts, k]) for k, v in reversed(node.items()) if k not in _DATA]


def _index(root: dict[str, Any], legacy: bool) -> dict[str, list[str]]:
    """The path (pointer parts) of each schema an absolute URI names: ``base`` for an ``$id``, ``base#name`` for
    an anchor, the root under its own base and under :data:`_NO_BASE`."""
    found: dict[str, list[str]] = {_NO_BASE: []}
    for node, base, parts in _schemas(root, legacy):
        ident = _ident(node, legacy)
        if ident is not None:
            found.setdefault(f"{base}{ident}" if ident.startswith("#") else base, parts)
        if isinstance(node.get("$anchor"), str):
            found.setdefault(f"{base}#{node['$anchor']}", parts)
    return found


def _pointer(parts: list[str]) -> str:
    return "#" + "".join("/" + quote(p.replace("~", "~0").replace("/", "~1"), safe="~!$&'()*+,;=:@") for p in parts)


def _needs_bases(node: dict[str, Any], legacy: bool) -> bool:
    """Whether ``node`` has an ``$id``, an ``$anchor`` or a reference other than a JSON pointer."""
    for schema, _, _ in _schemas(node, legacy):
        ref = schema.get("$ref")
        if isinstance(ref, str) and not (ref == "#" or ref.startswith("#/")) or "$anchor" in schema or _ident(
                schema, legacy):
            return True
    return False


def local_refs(root: dict[str, Any]) -> dict[str, Any]:
    """``root`` with each ``$ref`` that names a schema of this document written as a JSON pointer from the root
    (resolved where it is written: the module docstring); ``root`` itself when every reference already is one."""
    legacy = _legacy(root)
    if not _needs_bases(root, legacy):
        return root
    index = _index(root, legacy)

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
        base = _inner_base(node, base, legacy)
        out = {k: v if k in _DATA else rewrite(v, base) for k, v in node.items()}
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
