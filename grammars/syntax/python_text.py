"""The Python-literal value syntax (pythonic formats): its string escapes and its writer.

The grammar builder (:mod:`toolgram.compiler.values`, :mod:`toolgram.compiler.regex`) builds
Python string rules from these tables, the renderer writes values with :func:`literal`, and the
reader (:mod:`toolgram.parsing.pyliteral`) reads :data:`READ_ESCAPES`.
"""

from __future__ import annotations

import json
import re
from typing import Any

#: a keyword argument's name (and a tool's name) the pythonic formats write and read: an ASCII identifier
KWARG_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
#: a dotted tool name (``Calendar.create_event``)
DOTTED_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")

#: ``\\X`` escapes the grammars accept: the character after the backslash -> what it stands for.
SINGLE_ESCAPES: dict[str, str] = {"\\": "\\", "'": "'", '"': '"', "n": "\n", "r": "\r", "t": "\t"}
#: Code-point escapes: the letter after the backslash -> the number of hex digits.
HEX_ESCAPES: dict[str, int] = {"x": 2, "u": 4, "U": 8}
#: Every single-character escape Python reads (the reader's; the grammars and the writer use
#: :data:`SINGLE_ESCAPES` only).
READ_ESCAPES: dict[str, str] = {**SINGLE_ESCAPES, "a": "\a", "b": "\b", "f": "\f", "v": "\v"}
#: Characters a quoted string cannot hold raw, besides its own quote (in the order the grammar lists them).
MUST_ESCAPE = "\n\r\\"
#: What the writer writes for each character it escapes (a tab may also stand raw); the quote is
#: written as a backslash and the quote.
WRITTEN: dict[str, str] = {"\n": "\\n", "\r": "\\r", "\\": "\\\\", "\t": "\\t"}


def string(value: str, quote: str = "'") -> str:
    """``value`` as a Python string literal quoted with ``quote``."""
    table = {**WRITTEN, quote: "\\" + quote}
    return quote + "".join(table.get(ch, ch) for ch in value) + quote


def literal(value: Any, quote: str = "'") -> str:
    """``value`` (a JSON value) as a Python literal in the spelling the grammars emit."""
    if isinstance(value, str):
        return string(value, quote)
    if value is None:
        return "None"
    if isinstance(value, bool):
        return "True" if value else "False"
    if isinstance(value, (int, float)):
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ", ".join(literal(v, quote) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{literal(str(k), quote)}: {literal(v, quote)}" for k, v in value.items()) + "}"
    raise TypeError(f"not a JSON value: {value!r}")


def spellings(value: Any) -> list[str]:
    """Every spelling of ``value`` the grammars accept: strings in either quote style."""
    single = literal(value, "'")
    double = literal(value, '"')
    return [single] if single == double else [single, double]
