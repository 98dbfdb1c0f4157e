"""JSON-schema ``pattern`` -> grammar IR over the *decoded* string characters.

Supported: literals, ``.``, classes (ranges, negation, ``\\d \\w \\s`` and their negations),
groups, alternation, greedy or lazy ``? * + {m,n}``, and ``^``/``$`` at the ends.
Unanchored patterns match anywhere (JSON Schema semantics), so they get any text around them.
Look-arounds, back-references and anchors inside the pattern raise
:class:`UnsupportedSchemaError`.  ``.`` means any character but a newline, as in ECMAScript.

The result is a :class:`CharSpace` expression: the caller says how one decoded character
is spelled (a JSON escape, a Python escape, or raw text that must avoid a delimiter).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache, lru_cache
from re import _constants as c  # type: ignore[attr-defined]
from re import _parser as sre  # type: ignore[attr-defined]

from ..errors import UnsupportedSchemaError
from ..grammars.syntax import json_text, python_text
from .ir import EMPTY, Chars, Expr, Lit, Rep, alt, seq

MAXCP = 0x10FFFF
_DIGIT = ((48, 57),)
_WORD = ((48, 57), (65, 90), (95, 95), (97, 122))
_SPACE = (
    (9, 13),
    (32, 32),
    (0xA0, 0xA0),
    (0x1680, 0x1680),
    (0x2000, 0x200A),
    (0x2028, 0x2029),
    (0x202F, 0x202F),
    (0x205F, 0x205F),
    (0x3000, 0x3000),
    (0xFEFF, 0xFEFF),
)


def _negate(ranges: tuple[tuple[int, int], ...]) -> tuple[tuple[int, int], ...]:
    out = []
    prev = 0
    for lo, hi in sorted(ranges):
        if lo > prev:
            out.append((prev, lo - 1))
        prev = max(prev, hi + 1)
    if prev <= MAXCP:
        out.append((prev, MAXCP))
    return tuple(out)


def _merge(ranges: list[tuple[int, int]]) -> tuple[tuple[int, int], ...]:
    out: list[list[int]] = []
    for lo, hi in sorted(ranges):
        if out and lo <= out[-1][1] + 1:
            out[-1][1] = max(out[-1][1], hi)
        else:
            out.append([lo, hi])
    return tuple((a, b) for a, b in out)


_CATEGORIES = {
    c.CATEGORY_DIGIT: _DIGIT,
    c.CATEGORY_WORD: _WORD,
    c.CATEGORY_SPACE: _SPACE,
    c.CATEGORY_NOT_DIGIT: _negate(_DIGIT),
    c.CATEGORY_NOT_WORD: _negate(_WORD),
    c.CATEGORY_NOT_SPACE: _negate(_SPACE),
}


def pattern_to_ir(pattern: str, char: Callable[[tuple[tuple[int, int], ...]], Expr], path: str) -> Expr:
    """The language of strings matching ``pattern``; ``char(ranges)`` spells one character from ``ranges``.
    Built once per pattern and spelling (a format's call-id pattern recurs in every call)."""
    try:
        return _pattern_ir(pattern, char)
    except UnsupportedSchemaError as exc:
        raise UnsupportedSchemaError(exc.message, path) from None


@lru_cache(maxsize=1024)
def _pattern_ir(pattern: str, char: Callable[[tuple[tuple[int, int], ...]], Expr], path: None = None) -> Expr:
    try:
        tree = sre.parse(pattern)
    except Exception as exc:  # re.error
        raise UnsupportedSchemaError(f"pattern {pattern!r} is not a valid regex: {exc}", path) from None
    items = list(tree)
    anchored_start = bool(items) and items[0] == (c.AT, c.AT_BEGINNING)
    anchored_end = bool(items) and items[-1][0] == c.AT and items[-1][1] in (c.AT_END, c.AT_END_STRING)
    if anchored_start:
        items = items[1:]
    if anchored_end:
        items = items[:-1]
    any_text = Rep(char(((0, MAXCP),)), 0, None)
    body = _seq(items, char, pattern, path)
    return seq(EMPTY if anchored_start else any_text, body, EMPTY if anchored_end else any_text)


def _seq(items: list, char: Callable, pattern: str, path: str) -> Expr:
    return seq(*(_node(op, av, char, pattern, path) for op, av in items))


def _node(op, av, char: Callable, pattern: str, path: str) -> Expr:  # noqa: C901 - one case per opcode
    if op == c.LITERAL:
        return char(((av, av),))
    if op == c.NOT_LITERAL:
        return char(_negate(((av, av),)))
    if op == c.ANY:
        return char(_negate(((10, 10),)))
    if op == c.IN:
        negate = False
        ranges: list[tuple[int, int]] = []
        for iop, iav in av:
            if iop == c.NEGATE:
                negate = True
            elif iop == c.LITERAL:
                ranges.append((iav, iav))
            elif iop == c.RANGE:
                ranges.append(iav)
            elif iop == c.CATEGORY and iav in _CATEGORIES:
                ranges.extend(_CATEGORIES[iav])
            else:
                raise UnsupportedSchemaError(f"pattern {pattern!r}: unsupported class item {iop}", path)
        merged = _merge(ranges)
        return char(_negate(merged) if negate else merged)
    if op == c.SUBPATTERN:
        return _seq(list(av[-1]), char, pattern, path)
    if op == c.BRANCH:
        return alt(*(_seq(list(b), char, pattern, path) for b in av[1]))
    if op in (c.MAX_REPEAT, c.MIN_REPEAT, getattr(c, "POSSESSIVE_REPEAT", None)):
        lo, hi, sub = av
        return Rep(_seq(list(sub), char, pattern, path), lo, None if hi == c.MAXREPEAT else hi)
    raise UnsupportedSchemaError(f"pattern {pattern!r}: {str(op).lower()} cannot be expressed in a grammar", path)


def subtract(ranges: tuple[tuple[int, int], ...], remove: tuple[tuple[int, int], ...]) -> tuple[tuple[int, int], ...]:
    """``ranges`` minus ``remove``."""
    out = []
    for lo, hi in ranges:
        pieces = [(lo, hi)]
        for rlo, rhi in remove:
            nxt = []
            for a, b in pieces:
                if rhi < a or rlo > b:
                    nxt.append((a, b))
                    continue
                if a < rlo:
                    nxt.append((a, rlo - 1))
                if rhi < b:
                    nxt.append((rhi + 1, b))
            pieces = nxt
        out.extend(pieces)
    return tuple(out)


def chars_expr(ranges: tuple[tuple[int, int], ...]) -> Expr:
    """A :class:`Chars` for ``ranges``, written negated when that is shorter."""
    if not ranges:
        return Chars((), False)
    neg = _negate(ranges)
    if len(neg) < len(ranges):
        return Chars(neg, True)
    return Chars(ranges, False)




@lru_cache(maxsize=1024)
def json_char(ranges: tuple[tuple[int, int], ...]) -> Expr:
    """One decoded character from ``ranges`` as it appears inside a JSON string (``json.dumps`` escapes)."""
    special = json_text.MUST_ESCAPE
    plain = subtract(ranges, special)
    parts: list[Expr] = [chars_expr(plain)] if plain else []
    top = max(hi for _, hi in special)
    for lo, hi in ranges:
        for cp in range(lo, min(hi, top) + 1):
            if any(a <= cp <= b for a, b in special):
                parts.append(Lit(json_text.written(cp)))
    return alt(*parts)


@cache
def python_char(quote: str) -> Callable[[tuple[tuple[int, int], ...]], Expr]:
    """Spell one decoded character inside a Python string quoted with ``quote``."""
    esc = {**{ord(ch): python_text.WRITTEN[ch] for ch in python_text.MUST_ESCAPE}, ord(quote): "\\" + quote}
    # characters the writer escapes that may also stand raw (a tab)
    also = {ord(ch): text for ch, text in python_text.WRITTEN.items() if ch not in python_text.MUST_ESCAPE}

    def char(ranges: tuple[tuple[int, int], ...]) -> Expr:
        special = tuple((k, k) for k in sorted(esc))
        parts: list[Expr] = []
        plain = subtract(ranges, special)
        if plain:
            parts.append(chars_expr(plain))
        for k, text in {**esc, **also}.items():
            if any(lo <= k <= hi for lo, hi in ranges):
                parts.append(Lit(text))
        return alt(*parts)

    return char


@cache
def raw_char(forbidden: str) -> Callable[[tuple[tuple[int, int], ...]], Expr]:
    """Spell one character of raw text that may not contain any of ``forbidden``."""
    remove = tuple((ord(ch), ord(ch)) for ch in forbidden)

    def char(ranges: tuple[tuple[int, int], ...]) -> Expr:
        return chars_expr(subtract(ranges, remove))

    return char
