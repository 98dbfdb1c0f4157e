"""toolgram: one description per tool-call format, compiled to grammars and read back by a matching parser.

Public API (SPEC section 8): :func:`compile`, :func:`parse`, :class:`StreamParser`,
``toolgram.runtime.Generator``; every user error is a :class:`ToolgramError`.
"""

from __future__ import annotations

from typing import Any

from .compiler import Bundle, compile
from .errors import ToolgramError
from .grammars import FORMATS

__all__ = ["Bundle", "FORMATS", "ToolgramError", "compile", "parse", "StreamParser"]


def __getattr__(name: str) -> Any:
    # The parser lives in toolgram.parsing; import it on first use.
    if name in ("parse", "StreamParser"):
        from .parsing import parser

        return getattr(parser, name)
    raise AttributeError(name)
