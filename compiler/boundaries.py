"""Word boundaries (``\\b``, ``\\B``) in a parsed pattern, decided from the characters around them.

A grammar reads one character at a time and cannot look back, so a boundary is written only where its context
decides it: ``\\b`` holds where exactly one of the characters before and after it is a word character
(ECMAScript's ``[A-Za-z0-9_]``; the string's ends count as non-word). When every character that can come before
a boundary is of one kind and every character after it of one kind (``^\\bTSTALIASID\\b$``,
``cron\\((\\b[0-5]?[0-9]\\b) ``, ``arn:\\b(aws|aws-cn)\\b:``), the boundary always holds (it is dropped) or never
does (the branch that holds it matches nothing). Elsewhere it is left in place, and the pattern is refused where
it is written out, as before.
"""

from __future__ import annotations

from re import _constants as c  # type: ignore[attr-defined]
from typing import Any

from .charsets import class_ranges, negate

WORD = (("0", "9"), ("A", "Z"), ("_", "_"), ("a", "z"))
_WORD = tuple((ord(a), ord(b)) for a, b in WORD)
BOTH = frozenset("wn")
NON_WORD = frozenset("n")
_REPEATS = (c.MAX_REPEAT, c.MIN_REPEAT, getattr(c, "POSSESSIVE_REPEAT", None))
_BOUNDARY = {c.AT_BOUNDARY: True, c.AT_NON_BOUNDARY: False}


class _Never(Exception):
    """A boundary that never holds where it stands: its branch matches nothing."""


def resolved(items: list, start: bool, end: bool, pattern: str) -> list | None:
    """``items`` (one top-level branch, anchored at the ``start``/``end`` or searched for) with each boundary its
    context decides dropped; ``None`` where one never holds."""
    if not _has_boundary(items):
        return items
    try:
        return _seq(items, NON_WORD if start else BOTH, NON_WORD if end else BOTH, pattern)
    except _Never:
        return None


def _has_boundary(items: Any) -> bool:
    for op, av in items:
        if op == c.AT and av in _BOUNDARY:
            return True
        subs = _subs(op, av)
        if any(_has_boundary(list(s)) for s in subs):
            return True
    return False


def _subs(op: Any, av: Any) -> list:
    if op == c.SUBPATTERN:
        return [av[-1]]
    if op == c.BRANCH:
        return list(av[1])
    if op in _REPEATS:
        return [av[2]]
    return []


def _seq(items: list, left: frozenset, right: frozenset, pattern: str) -> list:
    """``items`` between a character of kinds ``left`` before and ``right`` after, boundaries decided."""
    out = []
    for i, (op, av) in enumerate(items):
        if op == c.AT and av in _BOUNDARY:
            before, after = _last(items[:i], left, pattern), _first(items[i + 1:], right, pattern)
            if len(before) == 1 and len(after) == 1:
                if (before != after) != _BOUNDARY[av]:
                    raise _Never
                continue  # always holds here
            out.append((op, av))
        elif op == c.SUBPATTERN or op == c.BRANCH or op in _REPEATS:
            before, after = _last(items[:i], left, pattern), _first(items[i + 1:], right, pattern)
            inside = _inside(op, av, before, after, pattern)
            if inside is not None:  # (None: a repetition that can only be taken no times)
                out.append((op, inside))
        else:
            out.append((op, av))
    return out


def _inside(op: Any, av: Any, before: frozenset, after: frozenset, pattern: str) -> Any:
    if not any(_has_boundary(list(s)) for s in _subs(op, av)):
        return av
    if op == c.SUBPATTERN:
        return (*av[:-1], _seq(list(av[-1]), before, after, pattern))
    if op == c.BRANCH:
        kept = []
        for b in av[1]:
            try:
                kept.append(_seq(list(b), before, after, pattern))
            except _Never:
                pass
        if not kept:
            raise _Never
        return (av[0], kept)
    lo, hi, sub = av  # a repetition: a copy may follow or precede another copy
    sub = list(sub)
    try:
        return (lo, hi, _seq(sub, before | _last(sub, frozenset(), pattern),
                             after | _first(sub, frozenset(), pattern), pattern))
    except _Never:
        if lo:
            raise
        return None


def _first(items: list, after: frozenset, pattern: str) -> frozenset:
    """The kinds of the character ``items`` can begin with (``after``'s where they may read nothing)."""
    out: frozenset = frozenset()
    for op, av in items:
        kinds, empty = _kinds(op, av, pattern, first=True)
        out |= kinds
        if not empty:
            return out
    return out | after


def _last(items: list, before: frozenset, pattern: str) -> frozenset:
    """The kinds of the character ``items`` can end with (``before``'s where they may read nothing)."""
    out: frozenset = frozenset()
    for op, av in reversed(items):
        kinds, empty = _kinds(op, av, pattern, first=False)
        out |= kinds
        if not empty:
            return out
    return out | before


def _kinds(op: Any, av: Any, pattern: str, first: bool) -> tuple[frozenset, bool]:
    """``(kinds of the first or last character, may read nothing)`` for one item."""
    if op == c.LITERAL:
        return _of(((av, av),)), False
    if op == c.IN:
        merged = class_ranges([(iop, iav) for iop, iav in av if iop != c.NEGATE], pattern, None)
        return _of(negate(merged) if any(iop == c.NEGATE for iop, _ in av) else merged), False
    if op in (c.NOT_LITERAL, c.ANY):
        return BOTH, False
    if op == c.AT or op in (c.ASSERT, c.ASSERT_NOT):
        return frozenset(), True
    if op in (c.SUBPATTERN, c.BRANCH) or op in _REPEATS:
        kinds: frozenset = frozenset()
        empty = op in _REPEATS and av[0] == 0
        for sub in _subs(op, av):
            sub = list(sub)
            kinds |= _first(sub, frozenset(), pattern) if first else _last(sub, frozenset(), pattern)
            empty |= op == c.BRANCH and _nullable(sub, pattern)
        if op != c.BRANCH:
            empty |= _nullable(list(_subs(op, av)[0]), pattern)
        return kinds, empty
    return BOTH, True  # (back-references and the like: anything, maybe nothing)


def _nullable(items: list, pattern: str) -> bool:
    return all(_kinds(op, av, pattern, first=True)[1] for op, av in items)


def _of(ranges: Any) -> frozenset:
    """The kinds (``w`` word, ``n`` non-word) of the characters in ``ranges``."""
    word = any(a <= y and x <= b for a, b in ranges for x, y in _WORD)
    return frozenset("w" * word + "n" * _non_word(ranges))


def _non_word(ranges: Any) -> bool:
    """Whether ``ranges`` hold a non-word character."""
    for a, b in ranges:
        point = a
        for x, y in _WORD:
            if y < point:
                continue
            if x > point:
                break
            point = y + 1
        if point <= b:
            return True
    return False
