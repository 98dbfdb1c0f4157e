"""Lark adapter: build a parser from a Lark grammar (cached) and check strings.

``parser="lalr"`` uses the contextual lexer (fast, deterministic); ``parser="earley"`` uses
the dynamic lexer and accepts grammars LALR rejects. A grammar is written for one of them and
should be tested with that one.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Literal

import lark
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from ..compiler.emit.lark import new_lark
from . import GrammarRejected

__all__ = ["ENGINE", "ParserKind", "accepts_lark", "build"]

ENGINE = "lark"
ParserKind = Literal["lalr", "earley"]


@lru_cache(maxsize=256)
def build(text: str, parser: ParserKind = "lalr", start: str = "start") -> lark.Lark:
    """Build (once per ``(text, parser, start)``) a Lark parser; raises :class:`GrammarRejected`."""
    if parser not in ("lalr", "earley"):
        raise ValueError(f"parser must be 'lalr' or 'earley', not {parser!r}")
    lexer = "contextual" if parser == "lalr" else "dynamic"
    try:
        return new_lark(text, parser=parser, lexer=lexer, start=start)
    except Exception as e:  # GrammarError, LexError, re/regex errors, UnexpectedInput in the grammar
        reason = " ".join(str(e).split()) or type(e).__name__
        raise GrammarRejected(f"{ENGINE}-{parser}", reason) from None


def _position(e: UnexpectedInput, s: str) -> int:
    if isinstance(e, UnexpectedEOF):
        return len(s)
    if isinstance(e, UnexpectedToken):
        tok = e.token
        if tok.type == "$END" or tok.start_pos is None:
            return len(s)
        return tok.start_pos
    if isinstance(e, UnexpectedCharacters):
        return e.pos_in_stream
    pos = getattr(e, "pos_in_stream", None)
    return len(s) if pos is None or pos < 0 else pos


def accepts_lark(
    text: str, s: str | bytes, parser: ParserKind = "lalr", start: str = "start"
) -> tuple[bool, int | None]:
    """Whether ``s`` parses completely; ``(False, char_offset)`` where parsing stopped otherwise.

    ``bytes`` input is decoded as UTF-8; invalid UTF-8 is rejected at the offending byte.
    """
    if isinstance(s, bytes):
        try:
            s = s.decode("utf-8")
        except UnicodeDecodeError as e:
            return False, e.start
    p = build(text, parser, start)
    try:
        p.parse(s)
    except UnexpectedInput as e:
        return False, _position(e, s)
    return True, None
