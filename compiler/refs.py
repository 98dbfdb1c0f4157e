"""``$ref`` within a tool's schema: JSON pointers, ``$id`` bases and ``$anchor`` names.

A reference is resolved where it is written: against the ``$id`` around it (JSON Schema's base URI; ``id`` in
a document that declares draft 3 or 4), to a schema of the same document named by ``$id``, by ``$anchor`` (or
draft 6/7 ``"$id": "#name"``), or by a JSON pointer into such a schema.  :func:`local_refs` does this once per
tool and writes each reference as a JSON pointer from the root, so the compiler and the parsers resolve every
one alike with :func:`follow_pointer`.  A reference to another document is left as written (the compiler
refuses it, naming the path; nothing is fetched).
"""

from __future__ import annotations

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


def _index(root: dict[str, Any], legacy: bool) -> dict[str, list[str]]:
    """The path (pointer parts) of each schema an absolute URI names: ``base`` for an ``$id``, ``base#name`` for
    an anchor, the root under its own base and under :data:`_NO_BASE`."""
    found: dict[str, list[str]] = {_NO_BASE: []}

    def walk(node: Any, base: str, parts: list[str]) -> None:
        if isinstance(node, list):
            for i, item in enumerate(node):
                walk(item, base, [*parts, str(i)])
            return
        if not isinstance(node, dict):
            return
        ident = _ident(node, legacy)
        if ident is not None and ident.startswith("#"):
            found.setdefault(f"{base}{ident}", parts)
        elif ident is not None:
            base = urldefrag(urljoin(base, ident))[0]
            found.setdefault(base, parts)
        if isinstance(node.get("$anchor"), str):
            found.setdefault(f"{base}#{node['$anchor']}", parts)
        for key, value in node.items():
            if key not in _DATA:
                walk(value, base, [*parts, key])

    walk(root, _NO_BASE, [])
    return found


def _pointer(parts: list[str]) -> str:
    return "#" + "".join("/" + quote(p.replace("~", "~0").replace("/", "~1"), safe="~!$&'()*+,;=:@") for p in parts)


def _needs_bases(node: Any, legacy: bool) -> bool:
    """Whether ``node`` has an ``$id``, an ``$anchor`` or a reference other than a JSON pointer."""
    if isinstance(node, list):
        return any(_needs_bases(v, legacy) for v in node)
    if not isinstance(node, dict):
        return False
    ref = node.get("$ref")
    if isinstance(ref, str) and not (ref == "#" or ref.startswith("#/")) or "$anchor" in node or _ident(node, legacy):
        return True
    return any(_needs_bases(v, legacy) for k, v in node.items() if k not in _DATA)


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
        node = follow_pointer(root, _pointer(parts))
        found = follow_pointer(node[0], f"#{fragment}") if node is not None else None
        return None if found is None else _pointer([*parts, *found[1]])

    def rewrite(node: Any, base: str) -> Any:
        if isinstance(node, list):
            return [rewrite(item, base) for item in node]
        if not isinstance(node, dict):
            return node
        ident = _ident(node, legacy)
        if ident is not None and not ident.startswith("#"):
            base = urldefrag(urljoin(base, ident))[0]
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
