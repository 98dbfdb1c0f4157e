"""The JSON value syntax: its string escapes and how ``json.dumps`` writes them.

Read and written with Python's ``json`` module (``json.dumps(..., ensure_ascii=False)``); the
grammar builder (:mod:`toolgram.compiler.values`, :mod:`toolgram.compiler.regex`) builds JSON
string rules from these tables.
"""

from __future__ import annotations

#: ``\\X`` escapes: the character after the backslash -> the character it stands for.
SINGLE_ESCAPES: dict[str, str] = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r",
                                  "t": "\t"}
#: The code-point escape: ``\\u`` and four hex digits.
HEX_ESCAPE: tuple[str, int] = ("u", 4)
#: Code points a JSON string cannot hold raw (inclusive ranges): control characters, ``"`` and ``\\``.
MUST_ESCAPE: tuple[tuple[int, int], ...] = ((ord('"'), ord('"')), (ord("\\"), ord("\\")), (0, 0x1F))
#: How ``json.dumps`` writes the characters it has a short escape for (the rest as ``\\u00XX``).
WRITTEN: dict[int, str] = {8: "\\b", 9: "\\t", 10: "\\n", 12: "\\f", 13: "\\r", 34: '\\"', 92: "\\\\"}


def written(cp: int) -> str:
    """How ``json.dumps`` writes the code point ``cp`` when it must be escaped."""
    return WRITTEN.get(cp, f"\\u{cp:04x}")
