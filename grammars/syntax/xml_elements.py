"""Nested XML element values (MiniMax-M3): their writer and their reader, in one home.

MiniMax-M3's template (``to_xml`` in ``MiniMax-M3.jinja``) expands an argument into elements named
by its keys, every tag led by the namespace token ``NS`` (``]<]minimax[>[``):

* a string raw (it cannot hold ``NS``, a special token);
* ``true`` / ``false``; a number as Python's ``str`` (the same text as JSON for JSON numbers);
* an object as one element per member, ``NS<k>`` value ``NS</k>``, no whitespace; a member whose
  value is null is left out by the template (the writer and the grammars write ``null``);
* an array as one ``NS<item>`` value ``NS</item>`` element per item;
* an empty object or array as no text at all.

Which of these a text is depends on the schema (``<a>`` opens an object member or, named ``item``,
an array item); :func:`split` cuts a text into its top-level elements, the parsers type them.
"""

from __future__ import annotations

import json
from typing import Any

#: the element name of an array item
ITEM = "item"


def write(value: Any, ns: str) -> str:
    """``value`` in the element syntax."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        return "".join(f"{ns}<{k}>{write(v, ns)}{ns}</{k}>" for k, v in value.items())
    if isinstance(value, list):
        return "".join(f"{ns}<{ITEM}>{write(v, ns)}{ns}</{ITEM}>" for v in value)
    return json.dumps(value, ensure_ascii=False)


def close_at(text: str, ns: str, name: str, start: int, depth: int = 0,
             final: bool = True) -> tuple[int, int, int]:
    """Where the element ``name`` opened before ``start`` closes (elements of the same name inside it
    nest; ``depth`` of them are open at ``start``): ``(index of its closing tag, index after it, 0)``,
    or ``(-1, where to resume, depth there)`` when ``text`` holds no close (yet)."""
    open_, close = f"{ns}<{name}>", f"{ns}</{name}>"
    i = start
    while True:
        j = text.find(ns, i)
        if j < 0:
            return -1, (len(text) if final else max(i, len(text) - len(ns) + 1)), depth
        if text.startswith(close, j):
            if depth == 0:
                return j, j + len(close), 0
            depth -= 1
            i = j + len(close)
        elif text.startswith(open_, j):
            depth += 1
            i = j + len(open_)
        elif not final and len(text) - j < len(close) and (close.startswith(text[j:]) or open_.startswith(text[j:])):
            return -1, j, depth  # a tag cut off by the end of the text so far
        else:
            i = j + len(ns)


def split(text: str, ns: str) -> list[tuple[str, str]] | None:
    """The top-level elements of ``text``, ``(name, inner text)`` in order; None when ``text`` is not
    a sequence of well-formed elements (then it is a scalar's text)."""
    out: list[tuple[str, str]] = []
    i, n = 0, len(text)
    lead = ns + "<"
    while i < n:
        if not text.startswith(lead, i):
            return None
        gt = text.find(">", i + len(lead))
        name = text[i + len(lead):gt] if gt >= 0 else ""
        if not name or name.startswith("/") or "<" in name:
            return None
        j, after, _ = close_at(text, ns, name, gt + 1)
        if j < 0:
            return None
        out.append((name, text[gt + 1:j]))
        i = after
    return out
