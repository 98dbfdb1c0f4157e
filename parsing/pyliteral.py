"""A small recursive-descent reader of Python literal syntax that yields JSON-compatible values.

It reads what models write inside pythonic tool calls (``[f(a=1, b='x')]``) and the Python
spellings that chat templates print into history (``True``, ``None``, ``{'k': 'v'}``).

Two modes:

* **strict** (``lenient=False``) accepts what toolgram's pythonic grammars emit: ``'...'`` and
  ``"..."`` strings with the escapes in :data:`STRICT_ESCAPES` plus ``\\xXX``, ``\\uXXXX`` and
  ``\\UXXXXXXXX``; decimal ints with an optional leading ``-``; floats (no ``_``); ``True``,
  ``False``, ``None``; lists; dicts with string keys.
* **lenient** (default) also accepts tuples and sets (both become lists), ``(x)`` grouping,
  ``0x``/``0o``/``0b`` ints, ``_`` digit separators, leading zeros (``007`` is 7), unary ``+`` and
  repeated signs, ``\\N{NAME}``, octal and unknown escapes (kept as Python keeps them), backslash
  line continuations, raw newlines inside ``'...'``, ``r``/``u`` prefixes, triple quotes, adjacent
  string concatenation, trailing commas, JSON ``true``/``false``/``null``, and int, float, bool and
  ``None`` dict keys (converted to strings the way ``json.dumps`` does).

Values: ``str``, ``int`` (exact at any size), ``float`` (only for numbers written with a fraction or
an exponent), ``bool``, ``None``, ``list`` and ``dict``. A float literal that overflows (``1e400``)
becomes the string of its source text, and a ``non_finite_number`` diagnostic is recorded.
"""

from __future__ import annotations

import functools
import math
import re
import sys
import threading
import unicodedata
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from ..grammars.syntax import python_text
from .diagnostics import Diagnostic

__all__ = [
    "LiteralSyntaxError",
    "MAX_INT_DIGITS",
    "STRICT_ESCAPES",
    "parse_literal",
    "read_identifier",
    "read_value",
    "skip_whitespace",
    "unlimited_int_digits",
]

#: Single-character escapes (``\\xXX``, ``\\uXXXX``, ``\\UXXXXXXXX`` too): Python's, from the syntax's one home.
STRICT_ESCAPES: dict[str, str] = python_text.READ_ESCAPES

#: Deepest bracket nesting read before giving up (keeps clear of Python's recursion limit).
MAX_DEPTH = 200
#: the longest name a ``\\N{NAME}`` escape may hold (Unicode's longest character name has 88 characters)
N_NAME_MAX = 100

#: Longest integer (in decimal digits, or the same magnitude in another base) converted exactly.
#: Decimal conversion is quadratic in CPython 3.11, so a longer integer keeps its source text as a
#: string, with an ``integer_too_long`` diagnostic: parsing stays linear in the input.
MAX_INT_DIGITS = 10_000
_MAX_INT_BITS = int(MAX_INT_DIGITS * 3.3219280948873626)

_WHITESPACE = " \t\n\r\f\v"
_IDENT_RE = re.compile(r"[^\W\d]\w*")
_HEX = "0123456789abcdefABCDEF"
# Python number tokens. Groups: hex/oct/bin, float, decimal int.
_NUMBER_RE = re.compile(
    r"""
    (?P<based>0[xX](?:_?[0-9a-fA-F])+|0[oO](?:_?[0-7])+|0[bB](?:_?[01])+)
    |(?P<float>
        (?:\d(?:_?\d)*)?\.\d(?:_?\d)*(?:[eE][-+]?\d(?:_?\d)*)?
       |\d(?:_?\d)*\.(?:[eE][-+]?\d(?:_?\d)*)?
       |\d(?:_?\d)*[eE][-+]?\d(?:_?\d)*
    )
    |(?P<int>\d(?:_?\d)*)
    """,
    re.VERBOSE,
)
_NAMES_STRICT = {"True": True, "False": False, "None": None}
_NAMES_LENIENT = {**_NAMES_STRICT, "true": True, "false": False, "null": None}
_STRING_PREFIXES_LENIENT = {"r", "u", "R", "U"}
_REJECTED_PREFIXES = {"b", "f", "br", "rb", "fr", "rf"}

_digits_lock = threading.Lock()
_digits_users = 0
_digits_saved = 0


@contextmanager
def unlimited_int_digits() -> Iterator[None]:
    """Lift Python's int/str conversion digit limit (``sys.set_int_max_str_digits``) inside the block.

    The limit is per interpreter; it is restored when the last nested user leaves.
    """
    global _digits_users, _digits_saved
    if not hasattr(sys, "set_int_max_str_digits"):
        yield
        return
    with _digits_lock:
        if _digits_users == 0:
            _digits_saved = sys.get_int_max_str_digits()
            if _digits_saved:
                sys.set_int_max_str_digits(0)
        _digits_users += 1
    try:
        yield
    finally:
        with _digits_lock:
            _digits_users -= 1
            if _digits_users == 0 and _digits_saved:
                sys.set_int_max_str_digits(_digits_saved)


@functools.cache
def _special_re(chars: str) -> re.Pattern[str]:
    return re.compile("[" + re.escape(chars) + "]")


def too_long_int(source: str, offset: int | None) -> Diagnostic:
    """The diagnostic for an integer past :data:`MAX_INT_DIGITS` (kept as its source text)."""
    return Diagnostic(
        "integer_too_long",
        f"an integer of {len(source)} characters is kept as a string (limit {MAX_INT_DIGITS} digits)",
        offset,
    )


def _decimal_int(digits: str) -> int:
    if len(digits) > 4000:
        with unlimited_int_digits():
            return int(digits)
    return int(digits)


class LiteralSyntaxError(ValueError):
    """Text that is not a (supported) Python literal. ``offset`` is the position in the text read.

    ``incomplete`` is true when the text ended before the value did, so more input could fix it.
    """

    def __init__(self, msg: str, offset: int, *, incomplete: bool = False) -> None:
        super().__init__(f"{msg} (at offset {offset})")
        self.msg = msg
        self.offset = offset
        self.incomplete = incomplete


def skip_whitespace(text: str, pos: int) -> int:
    """Return the first position at or after ``pos`` that is not Python whitespace."""
    n = len(text)
    while pos < n and text[pos] in _WHITESPACE:
        pos += 1
    return pos


def read_identifier(text: str, pos: int = 0) -> tuple[str, int]:
    """Read a Python identifier after optional whitespace; return ``(name, end_offset)``."""
    pos = skip_whitespace(text, pos)
    m = _IDENT_RE.match(text, pos)
    if not m:
        raise LiteralSyntaxError("expected an identifier", pos, incomplete=pos >= len(text))
    return m.group(), m.end()


def read_value(
    text: str,
    pos: int = 0,
    *,
    lenient: bool = True,
    diagnostics: list[Diagnostic] | None = None,
) -> tuple[Any, int]:
    """Read ONE literal starting at ``pos`` (after optional whitespace).

    Returns ``(value, end_offset)``; ``end_offset`` is just past the value (trailing whitespace is
    not consumed). Offsets in errors and diagnostics are positions in ``text``. Diagnostics
    (``non_finite_number``) are appended to ``diagnostics`` when it is given.
    """
    reader = _Reader(text, lenient, diagnostics)
    return reader.value(skip_whitespace(text, pos), 0)


def parse_literal(text: str, *, lenient: bool = True, diagnostics: list[Diagnostic] | None = None) -> Any:
    """Read the whole ``text`` (surrounding whitespace allowed) as one literal."""
    value, end = read_value(text, 0, lenient=lenient, diagnostics=diagnostics)
    end = skip_whitespace(text, end)
    if end != len(text):
        raise LiteralSyntaxError(f"unexpected {text[end]!r} after the value", end)
    return value


def _json_key(key: Any, offset: int) -> str:
    """Convert a non-string dict key the way ``json.dumps`` does."""
    if key is True:
        return "true"
    if key is False:
        return "false"
    if key is None:
        return "null"
    if isinstance(key, int):
        with unlimited_int_digits():
            return str(key)
    if isinstance(key, float):
        return repr(key)
    raise LiteralSyntaxError(f"unhashable dict key of type {type(key).__name__}", offset)


class _Reader:
    def __init__(self, text: str, lenient: bool, diagnostics: list[Diagnostic] | None) -> None:
        self.text = text
        self.n = len(text)
        self.lenient = lenient
        self.diagnostics = diagnostics

    # -- helpers -------------------------------------------------------------------------------
    def _eof(self, what: str) -> LiteralSyntaxError:
        return LiteralSyntaxError(f"unexpected end of input {what}", self.n, incomplete=True)

    def _ws(self, pos: int) -> int:
        return skip_whitespace(self.text, pos)

    def _string_start(self, pos: int) -> int | None:
        """If a string literal starts at ``pos``, return the position of its opening quote."""
        text = self.text
        if pos >= self.n:
            return None
        c = text[pos]
        if c in "'\"":
            return pos
        if c.isalpha():
            j = pos
            while j < self.n and j - pos < 2 and text[j].isalpha():
                j += 1
            if j < self.n and text[j] in "'\"":
                return j
        return None

    # -- values --------------------------------------------------------------------------------
    def value(self, pos: int, depth: int) -> tuple[Any, int]:
        text = self.text
        if pos >= self.n:
            raise self._eof("where a value was expected")
        c = text[pos]
        quote = self._string_start(pos)
        if quote is not None:
            return self.strings(pos, quote)
        if c == "[":
            return self.sequence(pos, depth, "]", "list")
        if c == "{":
            return self.brace(pos, depth)
        if c == "(":
            if not self.lenient:
                raise LiteralSyntaxError("tuples and parentheses are not allowed in strict mode", pos)
            return self.paren(pos, depth)
        if c.isdigit() or (c == "." and pos + 1 < self.n and text[pos + 1].isdigit()):
            return self.number(pos, pos, False)
        if c in "+-":
            return self.signed(pos)
        m = _IDENT_RE.match(text, pos)
        if m:
            names = _NAMES_LENIENT if self.lenient else _NAMES_STRICT
            word = m.group()
            if word in names:
                return names[word], m.end()
            incomplete = m.end() >= self.n and any(k.startswith(word) for k in names)
            raise LiteralSyntaxError(f"unknown name {word!r}", pos, incomplete=incomplete)
        raise LiteralSyntaxError(f"unexpected {c!r} where a value was expected", pos)

    def signed(self, start: int) -> tuple[Any, int]:
        text = self.text
        negative = False
        pos = start
        while True:
            c = text[pos]
            if c == "+" and not self.lenient:
                raise LiteralSyntaxError("unary '+' is not allowed in strict mode", pos)
            if pos > start and not self.lenient:
                raise LiteralSyntaxError("repeated signs are not allowed in strict mode", pos)
            negative ^= c == "-"
            pos += 1
            if self.lenient:
                pos = self._ws(pos)
            if pos >= self.n:
                raise self._eof("after a sign")
            if text[pos] not in "+-":
                break
        c = text[pos]
        if c.isdigit() or (c == "." and pos + 1 < self.n and text[pos + 1].isdigit()):
            return self.number(start, pos, negative)
        raise LiteralSyntaxError("a sign must be followed by a number", pos)

    def number(self, start: int, pos: int, negative: bool) -> tuple[Any, int]:
        """Read a number token at ``pos``; ``start`` is where its sign (if any) began."""
        text = self.text
        m = _NUMBER_RE.match(text, pos)
        if not m:  # pragma: no cover - callers check for a digit first
            raise LiteralSyntaxError("invalid number", pos)
        end = m.end()
        if end < self.n and (text[end].isalnum() or text[end] in "_."):
            incomplete = end + 1 >= self.n and text[end] in "eExXoObB_"
            raise LiteralSyntaxError(f"invalid number {text[pos : end + 1]!r}", pos, incomplete=incomplete)
        token = m.group()
        if "_" in token and not self.lenient:
            raise LiteralSyntaxError("'_' in numbers is not allowed in strict mode", pos)
        if m.group("based"):
            if not self.lenient:
                raise LiteralSyntaxError("hex, octal and binary ints are not allowed in strict mode", pos)
            value: Any = int(token, 0)  # linear for power-of-two bases
            if value.bit_length() > _MAX_INT_BITS:
                return self._too_long(start, end)
        elif m.group("float"):
            f = float(token)
            if math.isinf(f):
                source = text[start:end]
                if self.diagnostics is not None:
                    self.diagnostics.append(
                        Diagnostic(
                            "non_finite_number",
                            f"number {source} is not finite as a float; kept as a string",
                            start,
                        )
                    )
                return source, end
            value = f
        else:
            digits = token.replace("_", "")
            if len(digits) > MAX_INT_DIGITS:
                return self._too_long(start, end)
            if len(digits) > 1 and digits[0] == "0" and digits.strip("0"):
                if not self.lenient:
                    raise LiteralSyntaxError("leading zeros are not allowed in strict mode", pos)
            value = _decimal_int(digits)
        return (-value if negative else value), end

    def _too_long(self, start: int, end: int) -> tuple[str, int]:
        source = self.text[start:end]
        if self.diagnostics is not None:
            self.diagnostics.append(too_long_int(source, start))
        return source, end

    def strings(self, pos: int, quote: int) -> tuple[str, int]:
        """Read one string literal, plus (lenient) adjacent ones concatenated to it."""
        parts: list[str] = []
        s, end = self.string(pos, quote)
        parts.append(s)
        if self.lenient:
            while True:
                nxt = self._ws(end)
                q = self._string_start(nxt)
                if q is None:
                    break
                s, end = self.string(nxt, q)
                parts.append(s)
        return "".join(parts), end

    def string(self, pos: int, quote_pos: int) -> tuple[str, int]:
        text = self.text
        prefix = text[pos:quote_pos]
        raw = False
        if prefix:
            low = prefix.lower()
            if not self.lenient:
                raise LiteralSyntaxError(f"string prefix {prefix!r} is not allowed in strict mode", pos)
            if low in _REJECTED_PREFIXES:
                raise LiteralSyntaxError(f"{prefix!r} strings are not supported", pos)
            if prefix not in _STRING_PREFIXES_LENIENT:
                raise LiteralSyntaxError(f"unknown string prefix {prefix!r}", pos)
            raw = low == "r"
        q = text[quote_pos]
        if text.startswith(q * 3, quote_pos):
            if not self.lenient:
                raise LiteralSyntaxError("triple-quoted strings are not allowed in strict mode", quote_pos)
            delim = q * 3
        else:
            delim = q
        i = quote_pos + len(delim)
        out: list[str] = []
        n = self.n
        stop = "\\" + q if self.lenient or len(delim) == 3 else "\\" + q + "\n\r"
        special = _special_re(stop)
        while True:
            m = special.search(text, i)
            j = m.start() if m else n
            if j > i:
                out.append(text[i:j])
            if j >= n:
                raise self._eof("inside a string")
            c = text[j]
            if c == q:
                if text.startswith(delim, j):
                    return "".join(out), j + len(delim)
                out.append(c)
                i = j + 1
                continue
            if c in "\n\r":
                raise LiteralSyntaxError("unescaped line break inside a string", j)
            # backslash
            if j + 1 >= n:
                raise self._eof("inside a string")
            if raw:
                out.append(text[j : j + 2])
                i = j + 2
                continue
            s, i = self.escape(j, out)
            out.append(s)

    def escape(self, pos: int, out: list[str]) -> tuple[str, int]:
        """Decode the escape sequence whose backslash is at ``pos``; return (text, next position)."""
        text = self.text
        c = text[pos + 1]
        if c in STRICT_ESCAPES:
            return STRICT_ESCAPES[c], pos + 2
        if c in "xuU":
            width = {"x": 2, "u": 4, "U": 8}[c]
            digits = text[pos + 2 : pos + 2 + width]
            if len(digits) < width and all(d in _HEX for d in digits) and pos + 2 + len(digits) >= self.n:
                raise self._eof("inside an escape")
            if len(digits) < width or not all(d in _HEX for d in digits):
                raise LiteralSyntaxError(f"truncated \\{c} escape", pos)
            code = int(digits, 16)
            if code > 0x10FFFF:
                raise LiteralSyntaxError(f"\\{c} escape out of range", pos)
            # A JSON-style surrogate pair \uD83D\uDE00 becomes one character.
            if 0xDC00 <= code <= 0xDFFF and out and out[-1] and 0xD800 <= ord(out[-1][-1]) <= 0xDBFF:
                prev = out[-1]
                if text[pos - 6 : pos - 4] == "\\u":
                    out[-1] = prev[:-1]
                    return chr(0x10000 + ((ord(prev[-1]) - 0xD800) << 10) + (code - 0xDC00)), pos + 2 + width
            return chr(code), pos + 2 + width
        if not self.lenient:
            raise LiteralSyntaxError(f"escape \\{c} is not allowed in strict mode", pos)
        if c == "N":
            if pos + 2 >= self.n:
                raise self._eof("inside an escape")
            if text[pos + 2] != "{":
                raise LiteralSyntaxError("malformed \\N{...} escape", pos)
            stop = pos + 3 + N_NAME_MAX + 1  # bounded: an unclosed \\N{ costs no scan to the end
            close = text.find("}", pos + 3, stop)
            name = text[pos + 3 : close if close >= 0 else stop]
            if "\\" in name or (close < 0 and self.n >= stop):
                raise LiteralSyntaxError("malformed \\N{...} escape", pos)
            if close < 0:
                raise self._eof("inside an escape")
            try:
                return unicodedata.lookup(name), close + 1
            except KeyError:
                raise LiteralSyntaxError(f"unknown Unicode character name {name!r}", pos) from None
        if c in "01234567":
            j = pos + 1
            while j < self.n and j < pos + 4 and text[j] in "01234567":
                j += 1
            return chr(int(text[pos + 1 : j], 8)), j
        if c == "\n":
            return "", pos + 2
        if c == "\r":
            return "", pos + 3 if text.startswith("\n", pos + 2) else pos + 2
        return "\\" + c, pos + 2

    def sequence(self, pos: int, depth: int, close: str, kind: str) -> tuple[list[Any], int]:
        """Read ``[a, b]`` starting at the opening bracket ``pos``."""
        return self.items(pos + 1, depth, close, kind)

    def items(self, pos: int, depth: int, close: str, kind: str, first: Any = ...) -> tuple[list[Any], int]:
        """Read comma-separated values up to ``close``; ``first`` is an already-read first item."""
        if depth >= MAX_DEPTH:
            raise LiteralSyntaxError("nesting too deep", pos)
        text = self.text
        items: list[Any] = []
        pos = self._ws(pos)
        if first is not ...:
            items.append(first)
            expect_value = False
        else:
            expect_value = True
        while True:
            if pos >= self.n:
                raise self._eof(f"inside a {kind}")
            c = text[pos]
            if c == close:
                if items and expect_value and not self.lenient:
                    raise LiteralSyntaxError("trailing commas are not allowed in strict mode", pos)
                return items, pos + 1
            if not expect_value:
                if c != ",":
                    raise LiteralSyntaxError(f"expected ',' or {close!r} in a {kind}", pos)
                pos = self._ws(pos + 1)
                expect_value = True
                continue
            v, pos = self.value(pos, depth + 1)
            items.append(v)
            pos = self._ws(pos)
            expect_value = False

    def paren(self, pos: int, depth: int) -> tuple[Any, int]:
        """``()`` is [], ``(x)`` is x, ``(x,)`` and ``(x, y)`` are lists."""
        if depth >= MAX_DEPTH:
            raise LiteralSyntaxError("nesting too deep", pos)
        text = self.text
        p = self._ws(pos + 1)
        if p >= self.n:
            raise self._eof("inside a tuple")
        if text[p] == ")":
            return [], p + 1
        first, p = self.value(p, depth + 1)
        p = self._ws(p)
        if p >= self.n:
            raise self._eof("inside a tuple")
        if text[p] == ")":
            return first, p + 1
        if text[p] != ",":
            raise LiteralSyntaxError("expected ',' or ')' in a tuple", p)
        return self.items(p, depth, ")", "tuple", first)

    def brace(self, pos: int, depth: int) -> tuple[Any, int]:
        """A dict, or (lenient) a set, which becomes a list without duplicates."""
        if depth >= MAX_DEPTH:
            raise LiteralSyntaxError("nesting too deep", pos)
        text = self.text
        p = self._ws(pos + 1)
        if p >= self.n:
            raise self._eof("inside a dict")
        if text[p] == "}":
            return {}, p + 1
        key_pos = p
        key, p = self.value(p, depth + 1)
        p = self._ws(p)
        if p >= self.n:
            raise self._eof("inside a dict")
        if text[p] != ":":
            if not self.lenient:
                raise LiteralSyntaxError("expected ':' in a dict (sets are not allowed in strict mode)", p)
            if text[p] not in ",}":
                raise LiteralSyntaxError("expected ':', ',' or '}'", p)
            items, end = self.items(p, depth, "}", "set", key)
            return _dedupe(items), end
        result: dict[str, Any] = {}
        while True:
            if not isinstance(key, str):
                if not self.lenient:
                    raise LiteralSyntaxError("dict keys must be strings in strict mode", key_pos)
                key = _json_key(key, key_pos)
            p = self._ws(p + 1)  # past ':'
            val, p = self.value(p, depth + 1)
            result[key] = val  # a duplicate key keeps its first position and takes the last value
            p = self._ws(p)
            if p >= self.n:
                raise self._eof("inside a dict")
            if text[p] == "}":
                return result, p + 1
            if text[p] != ",":
                raise LiteralSyntaxError("expected ',' or '}' in a dict", p)
            p = self._ws(p + 1)
            if p >= self.n:
                raise self._eof("inside a dict")
            if text[p] == "}":
                if not self.lenient:
                    raise LiteralSyntaxError("trailing commas are not allowed in strict mode", p)
                return result, p + 1
            key_pos = p
            key, p = self.value(p, depth + 1)
            p = self._ws(p)
            if p >= self.n:
                raise self._eof("inside a dict")
            if text[p] != ":":
                raise LiteralSyntaxError("expected ':' in a dict", p)


def _dedupe(items: list[Any]) -> list[Any]:
    import json

    seen: set[str] = set()
    out: list[Any] = []
    with unlimited_int_digits():
        for item in items:
            k = json.dumps(item, sort_keys=True)
            if k not in seen:
                seen.add(k)
                out.append(item)
    return out
