"""Protocol markup removed from text read as a whole (strict parsing; SPEC section 1).

The rule is :class:`~toolgram.grammars.spec.Markup`'s; the stream scanner applies the same rule
incrementally (:meth:`toolgram.parsing.scanner.Scanner._markup`).
"""

from __future__ import annotations

import re
from functools import lru_cache

from ..grammars.spec import Markup


@lru_cache(maxsize=64)
def _pattern(markup: Markup) -> re.Pattern[str]:
    m = markup.header_max
    alts = [f"{re.escape(o)}.{{0,{m}}}?{re.escape(c)}" for o, c in markup.headers]
    alts += [re.escape(t) for t in sorted(markup.tokens, key=len, reverse=True)]
    return re.compile("|".join(alts), re.DOTALL)


def strip_markup(markup: Markup, text: str) -> str:
    """``text`` without the format's markup (tokens and headers), the rest joined as written."""
    if not markup or not text:
        return text
    return _pattern(markup).sub("", text)
