"""Render tool calls in a format's canonical spelling (SPEC section 1), from its description.

The inverse of the parser: ``parse(render(calls)) == calls``.  Used by the prompt
templates for assistant history, by the tests' round trips and by benchmarks.
"""

from __future__ import annotations

from typing import Any

from .spec import FormatSpec, XmlCall
from .syntax.python_text import literal as python_literal

__all__ = ["python_literal", "render_call", "render_calls"]


def render_call(spec: FormatSpec, name: str, arguments: dict[str, Any], index: int = 0) -> str:
    """One call's text, without its block or list (the description's call syntax writes it);
    ``index`` is the call's position in the turn (formats that number their calls write it).
    ValueError: the call holds what the format cannot carry (a Python argument name that is not an
    identifier; an XML string value holding its closing tag and the next opening)."""
    c = spec.call
    if isinstance(c, XmlCall):
        for k, v in arguments.items():
            if isinstance(v, str) and c.ends_early(v, spec.scope.close):
                raise ValueError(f"the value of {k!r} holds its closing tag and the next opening: "
                                 f"{spec.id} cannot carry it")
    return c.render(name, arguments, index)


def render_calls(format_id: str | FormatSpec, calls: list[tuple[str, dict[str, Any]]], *, wrapper: bool = False) -> str:
    """All calls of one assistant turn; ``wrapper`` uses the format's first optional wrapper."""
    from . import get_format  # this package's discovery imports this module

    spec = get_format(format_id) if isinstance(format_id, str) else format_id
    sc = spec.scope
    parts = [render_call(spec, n, a, i) for i, (n, a) in enumerate(calls)]
    if sc.per_call:
        text = sc.canonical_join.join(f"{sc.open}{p}{sc.close}" for p in parts)
    else:
        text = sc.open + sc.canonical_join.join(parts) + sc.close
        if wrapper and sc.wrappers:
            w = sc.wrappers[0]
            text = w.open + text + w.close
    if sc.section is not None:
        text = sc.section.open + text + sc.section.close
    return text
