"""The grammar compiler: format description -> grammar IR -> GBNF, EBNF, Lark, structural tags."""

from .bundle import Bundle, compile

__all__ = ["Bundle", "compile"]
