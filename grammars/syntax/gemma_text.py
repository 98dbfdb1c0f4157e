"""The Gemma 4 value syntax: its writer and its reader, in one home.

Gemma 4's template (``format_argument`` in ``google-gemma-4-31B-it.jinja``) writes a call's
arguments as ``{city:<|"|>Paris<|"|>,days:2}``:

* strings between two ``<|"|>`` tokens, raw: no escapes at all (a string cannot hold ``<|"|>``);
* ``true`` / ``false``; numbers as Python's ``str`` (the same text as JSON for JSON numbers);
* objects ``{k:v,...}`` with bare keys (at every depth: the call passes ``escape_keys=False``),
  no whitespace, keys sorted by the template (any order is read);
* arrays ``[a,b]``;
* null: the template prints Jinja's ``None``; the writer (and the grammars) write ``null`` (the
  JSON spelling its ``true``/``false`` already use) and the reader takes both.

Keys stand bare (the template's arguments spelling), so a bare key is 1+ characters none of which
is in :data:`KEY_EXCLUDED` (whitespace, the separators, brackets, quotes and ``<``/``>``, which start
the delimiter tokens); the writer quotes any other key with ``<|"|>`` (the template's spelling for
``escape_keys=True``) and the reader reads both.  Declared argument names must stand bare.
The grammars build their key and string rules from the same constants.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

#: the string delimiter token (both ends)
QUOTE = '<|"|>'
#: characters a bare key cannot hold: whitespace, separators, brackets, quotes, '<' and '>'
KEY_EXCLUDED = " :,{}[]<>\"'\x7f" + "".join(map(chr, range(0x20)))
#: a bare key
KEY_RE = re.compile("[^" + re.escape(KEY_EXCLUDED) + "]+")
_NUMBER_RE = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
#: bare words and what they stand for (``None``/``True``/``False``: read, never written)
WORDS: dict[str, Any] = {"true": True, "false": False, "null": None, "None": None, "True": True, "False": False}


def writable_key(key: str) -> bool:
    """Whether ``key`` can stand bare (the reader reads it back as the same key)."""
    return KEY_RE.fullmatch(key) is not None


def literal(value: Any) -> str:
    """``value`` (a JSON value) in Gemma 4's spelling; ValueError if it cannot be written."""
    if isinstance(value, str):
        if QUOTE in value:
            raise ValueError(f"a Gemma 4 string cannot hold {QUOTE!r}")
        return QUOTE + value + QUOTE
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ",".join(literal(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + members(value) + "}"
    raise TypeError(f"not a JSON value: {value!r}")


def key(name: str) -> str:
    """A key as written: bare when it can stand bare, else between ``<|"|>`` (the template's
    ``escape_keys=True`` spelling, which the reader also reads)."""
    return name if writable_key(name) else literal(name)


def members(value: dict[str, Any]) -> str:
    """An object's members without its braces: ``k:v,k2:v2``."""
    return ",".join(f"{key(str(k))}:{literal(v)}" for k, v in value.items())


class GemmaSyntaxError(ValueError):
    """The text is not a Gemma 4 value; ``pos`` is the offset where reading failed."""

    def __init__(self, message: str, pos: int) -> None:
        super().__init__(f"{message} at offset {pos}")
        self.msg = message
        self.pos = pos


#: reads a number's source text (the runtime passes its exact-int / non-finite rules)
NumberReader = Callable[[str], Any]
_WS = " \t\n\r"
_MAX_DEPTH = 200


def read(text: str, *, lenient: bool = False, number: NumberReader | None = None) -> Any:
    """The JSON value of one Gemma 4 value ``text`` (whitespace around tokens is allowed).

    Strict: the writer's spelling (``true``/``false``/``null``, ``<|"|>`` strings, bare or
    ``<|"|>``-quoted keys).  Lenient also reads Python's ``True``/``False``/``None`` and JSON
    ``"..."`` strings and keys.  Raises :class:`GemmaSyntaxError`."""
    reader = _Reader(text, lenient, number)
    value, end = reader.value(reader.skip(0), 0)
    end = reader.skip(end)
    if end != len(text):
        raise GemmaSyntaxError("text after the value", end)
    return value


def read_members(text: str, *, lenient: bool = False, number: NumberReader | None = None) -> dict[str, Any]:
    """An object body ``k:v,...`` (no braces) as a dict."""
    reader = _Reader(text, lenient, number)
    value, end = reader.object(reader.skip(0), None, 0)
    end = reader.skip(end)
    if end != len(text):
        raise GemmaSyntaxError("text after the arguments", end)
    return value


def read_at(text: str, i: int, *, lenient: bool = False, number: NumberReader | None = None) -> tuple[Any, int]:
    """Read one value starting at ``i``: (value, index after it)."""
    return _Reader(text, lenient, number).value(i, 0)


def _number(source: str) -> Any:
    return json.loads(source)


class _Reader:
    """A recursive reader (depth-bounded); every step moves forward: linear in the text."""

    def __init__(self, text: str, lenient: bool, number: NumberReader | None) -> None:
        self.text = text
        self.lenient = lenient
        self.number = number or _number

    def skip(self, i: int) -> int:
        text = self.text
        while i < len(text) and text[i] in _WS:
            i += 1
        return i

    def value(self, i: int, depth: int) -> tuple[Any, int]:
        text = self.text
        if depth > _MAX_DEPTH:
            raise GemmaSyntaxError("nesting too deep", i)
        if text.startswith(QUOTE, i):
            j = text.find(QUOTE, i + len(QUOTE))
            if j < 0:
                raise GemmaSyntaxError("unterminated string", i)
            return text[i + len(QUOTE):j], j + len(QUOTE)
        if i >= len(text):
            raise GemmaSyntaxError("expected a value", i)
        ch = text[i]
        if ch == "{":
            return self.object(self.skip(i + 1), "}", depth + 1)
        if ch == "[":
            return self.array(self.skip(i + 1), depth + 1)
        if self.lenient and ch == '"':
            return self.json_string(i)
        m = _NUMBER_RE.match(text, i)
        if m:
            return self.number(m.group()), m.end()
        for word, value in WORDS.items():
            if text.startswith(word, i) and (self.lenient or word in ("true", "false", "null")):
                return value, i + len(word)
        raise GemmaSyntaxError("expected a value", i)

    def json_string(self, i: int) -> tuple[str, int]:
        try:
            value, end = json.JSONDecoder(strict=False).raw_decode(self.text, i)
        except ValueError:
            raise GemmaSyntaxError("invalid JSON string", i) from None
        if not isinstance(value, str):
            raise GemmaSyntaxError("expected a string", i)
        return value, end

    def object(self, i: int, close: str | None, depth: int) -> tuple[dict[str, Any], int]:
        text = self.text
        out: dict[str, Any] = {}
        first = True
        while True:
            i = self.skip(i)
            if close is not None and text.startswith(close, i):
                return out, i + 1
            if close is None and i >= len(text):
                return out, i
            if not first:
                if not text.startswith(",", i):
                    raise GemmaSyntaxError("expected ',' between members", i)
                i = self.skip(i + 1)
            first = False
            if text.startswith(QUOTE, i):  # a quoted key (the template's escape_keys=True spelling)
                key, i = self.value(i, depth)
            elif self.lenient and text.startswith('"', i):
                key, i = self.json_string(i)
            else:
                m = KEY_RE.match(text, i)
                if not m:
                    raise GemmaSyntaxError("expected a key", i)
                key, i = m.group(), m.end()
            i = self.skip(i)
            if not text.startswith(":", i):
                raise GemmaSyntaxError("expected ':' after a key", i)
            value, i = self.value(self.skip(i + 1), depth)
            out[key] = value  # a repeated key keeps its first position and takes the last value

    def array(self, i: int, depth: int) -> tuple[list[Any], int]:
        text = self.text
        out: list[Any] = []
        if text.startswith("]", i):
            return out, i + 1
        while True:
            value, i = self.value(self.skip(i), depth)
            out.append(value)
            i = self.skip(i)
            if text.startswith("]", i):
                return out, i + 1
            if not text.startswith(",", i):
                raise GemmaSyntaxError("expected ',' or ']'", i)
            i += 1
