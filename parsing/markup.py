"""Protocol markup removed from text read as a whole (strict parsing; SPEC section 1).

The rule is :class:`~toolgram.grammars.spec.Markup`'s; the stream scanner applies the same rule
incrementally (:meth:`toolgram.parsing.scanner.Scanner._markup`).
"""

from __future__ import annotations

import re
from functools import lru_cache

from ..grammars.spec import Markup


@lru_cache(maxsize=64)
def _pattern(markup: Markup, to_end: bool) -> re.Pattern[str]:
    m = markup.header_max
    end = f"|.{{0,{m}}}\\Z" if to_end else ""
    alts = [f"{re.escape(o)}(?:.{{0,{m}}}?{re.escape(c)}{end})" for o, c in markup.headers]
    alts += [re.escape(t) for t in sorted(markup.tokens, key=len, reverse=True)]
    return re.compile("|".join(alts), re.DOTALL)


def strip_markup(markup: Markup, text: str, *, before_call: bool = False) -> str:
    """``text`` without the format's markup (tokens and headers), the rest joined as written.

    ``before_call``: a call head follows ``text`` (strict parsing's content before the calls), so a
    header still open at its end is ended by the call, as the stream scanner reads it
    (``<|start|>assistant`` + `` to=functions.N``)."""
    if not markup or not text:
        return text
    return _pattern(markup, before_call).sub("", text)
