"""Anchors and word boundaries inside a pattern (``^``, ``$``, ``\\b``, ``\\B``), decided by what stands beside them.

A grammar reads one character at a time and cannot look back, so a zero-width test is written only where its
context decides it. Each side of a test is a set of kinds: a word character (``w``, ECMAScript's ASCII
``[A-Za-z0-9_]``), another character (``n``), or the text's edge (``e``). ``^`` holds where only the edge can
stand before it and never where the edge cannot (``^arn:…/^.{1,255}$`` matches nothing); ``$`` likewise after it;
``\\b`` holds where exactly one side is a word character (the edge is not one). So ``(^http|^tcp)/([0-9]+$|…)``,
``^(?:^[a-z]+:)?\\S*$``, ``^(\\bTSTALIASID\\b|[0-9a-zA-Z]+)$`` and ``cron\\((\\b[0-5]?[0-9]\\b) `` are written
exactly. Where a search's open end leaves a test undecided, the branch is split by what is beside the match: the
text's edge (the branch is anchored there), a word character or another one (``\\b[0-9]+\\b`` searched for). A
test still undecided is left in place, and the pattern is refused where it is written out.
"""

from __future__ import annotations

from re import _constants as c  # type: ignore[attr-defined]
from typing import Any

from .charsets import class_ranges, negate, subtract

_WORD = ((48, 57), (65, 90), (95, 95), (97, 122))
_OTHER = negate(_WORD)
WORD_CLASS = (c.IN, [(c.RANGE, r) for r in _WORD])
OTHER_CLASS = (c.IN, [(c.NEGATE, None), *WORD_CLASS[1]])
ANY_SIDE = frozenset("wne")
_REPEATS = (c.MAX_REPEAT, c.MIN_REPEAT, getattr(c, "POSSESSIVE_REPEAT", None))
_BOUNDARY = {c.AT_BOUNDARY: True, c.AT_NON_BOUNDARY: False}
_START = (c.AT_BEGINNING, c.AT_BEGINNING_STRING)
_END = (c.AT_END, c.AT_END_STRING)
_TESTS = (*_BOUNDARY, *_START, *_END)

Branch = tuple[bool, bool, list]


class _Never(Exception):
    """A test that never holds where it stands: its branch matches nothing."""


class _Undecided(Exception):
    """A test its context does not decide."""


def resolved(items: list, start: bool, end: bool, pattern: str) -> list[Branch]:
    """One top-level branch (anchored at the ``start``/``end`` or searched for) as branches whose tests inside are
    decided (none: it matches nothing); the branch as it was where a test stays undecided."""
    if not _has_test(items):
        return [(start, end, items)]
    for split in ((False, False), (True, False), (False, True), (True, True)):
        if (split[0] and start) or (split[1] and end):
            continue
        try:
            return _variants(items, start, end, split, pattern)
        except _Undecided:
            pass
    return [(start, end, items)]


def _variants(items: list, start: bool, end: bool, split: tuple[bool, bool], pattern: str) -> list[Branch]:
    out = []
    for anchored_l, left, before in _sides(start, split[0]):
        for anchored_r, right, after in _sides(end, split[1]):
            try:
                kept = _seq(items, left, right, pattern)
            except _Never:
                continue
            if _has_test(kept):
                raise _Undecided
            out.append((anchored_l, anchored_r, [*before, *kept, *after]))
    return out


def _sides(anchored: bool, split: bool) -> list[tuple[bool, frozenset, list]]:
    """``(anchored, kinds beside the match, items read there)`` for one end of a branch."""
    if anchored:
        return [(True, frozenset("e"), [])]
    if not split:
        return [(False, ANY_SIDE, [])]
    return [(True, frozenset("e"), []), (False, frozenset("w"), [WORD_CLASS]), (False, frozenset("n"), [OTHER_CLASS])]


def _has_test(items: Any) -> bool:
    for op, av in items:
        if op == c.AT and av in _TESTS:
            return True
        if any(_has_test(list(s)) for s in _subs(op, av)):
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


def _holds(test: Any, before: frozenset, after: frozenset) -> bool | None:
    """Whether ``test`` holds between characters of kinds ``before`` and ``after`` (``None``: it depends)."""
    if test in _START or test in _END:
        side = before if test in _START else after
        return True if side == {"e"} else False if "e" not in side else None
    word_before, word_after = {k == "w" for k in before}, {k == "w" for k in after}
    if len(word_before) != 1 or len(word_after) != 1:
        return None
    return (word_before != word_after) == _BOUNDARY[test]


def _seq(items: list, left: frozenset, right: frozenset, pattern: str) -> list:
    """``items`` between kinds ``left`` before and ``right`` after, the tests their context decides dropped."""
    out = []
    for i, (op, av) in enumerate(items):
        if op == c.AT and av in _TESTS:
            holds = _holds(av, _last(items[:i], left, pattern), _first(items[i + 1:], right, pattern))
            if holds is False:
                raise _Never
            if holds is None:
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
    if not any(_has_test(list(s)) for s in _subs(op, av)):
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
    if hi != 1:
        before, after = before | _last(sub, frozenset(), pattern), after | _first(sub, frozenset(), pattern)
    try:
        return (lo, hi, _seq(sub, before, after, pattern))
    except _Never:
        if lo:
            raise
        return None


def _first(items: list, after: frozenset, pattern: str) -> frozenset:
    """The kinds of what ``items`` can begin with (``after``'s where they may read nothing)."""
    out: frozenset = frozenset()
    for op, av in items:
        kinds, empty = _kinds(op, av, pattern, first=True)
        out |= kinds
        if not empty:
            return out
    return out | after


def _last(items: list, before: frozenset, pattern: str) -> frozenset:
    """The kinds of what ``items`` can end with (``before``'s where they may read nothing)."""
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
        return frozenset("wn"), False
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
    return frozenset("wn"), True  # (back-references and the like: anything, maybe nothing)


def _nullable(items: list, pattern: str) -> bool:
    return all(_kinds(op, av, pattern, first=True)[1] for op, av in items)


def _of(ranges: Any) -> frozenset:
    """The kinds (``w`` word, ``n`` other) of the characters in ``ranges``."""
    return frozenset("w" * bool(subtract(ranges, _OTHER)) + "n" * bool(subtract(ranges, _WORD)))
