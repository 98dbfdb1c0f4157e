"""JSON-schema ``pattern`` -> grammar IR over the *decoded* string characters.

Supported: literals, ``.``, classes (ranges, negation, ``\\d \\w \\s`` and their negations),
groups, alternation, greedy or lazy ``? * + {m,n}``, ``^``/``$`` at the ends, and look-arounds in
the top-level sequence (met with the text after or before them by product automata).
Unanchored patterns match anywhere (JSON Schema semantics), so they get any text around them.
ECMAScript syntax Python's parser lacks is translated first (``\\p{…}`` classes, ``(?<name>…)``, ``[^]``, ``[]``:
:mod:`.ecmascript`), and the inline flags ``(?i)``/``(?s)`` of patterns written for Python or Java are
applied.  Anchors and word boundaries inside the pattern are kept where what stands beside them decides them
(:mod:`.boundaries`).  Look-arounds inside groups, back-references and ``(?m)`` raise
:class:`UnsupportedSchemaError`.
``.`` means any character but a newline, as in ECMAScript.

The result is a :class:`CharSpace` expression: the caller says how one decoded character
is spelled (a JSON escape, a Python escape, or raw text that must avoid a delimiter).
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from functools import cache, lru_cache
from re import _constants as c  # type: ignore[attr-defined]
from re import _parser as sre  # type: ignore[attr-defined]
from typing import Any, NamedTuple

from ..errors import EmptySchemaError, ToolgramError, UnsupportedSchemaError
from ..grammars.syntax import json_text, python_text
from .boundaries import resolved
from .charsets import MAXCP, class_ranges, negate, subtract
from .dfa import (
    MAX_MEET_NODES,
    MAX_MEET_STATES,
    DfaLimit,
    build_dfa,
    build_labeled_dfa,
    dfa_expr,
    dfa_regex,
    graph_of,
    intersection,
    minimize,
    tree_size,
    with_graph,
)
from .ecmascript import ecmascript, flagged
from .ir import EMPTY, Alt, Chars, Expr, Lit, Rep, Seq, alt, seq
from .lengths import canonical_parts, restrict_length, span

#: how a value syntax spells one character from a set of code-point ranges (:func:`json_char`, :func:`raw_char` ...)
Char = Callable[[tuple[tuple[int, int], ...]], Expr]


class Patterns(NamedTuple):
    """The strings that match every pattern of ``all`` and none of ``none`` (a string schema's ``pattern``
    met with another, or with a negated one: ``not``, a condition's else)."""

    all: tuple[str, ...]
    none: tuple[str, ...] = ()


def pattern_to_ir(
    pattern: str | Patterns, char: Char, path: str,
    length: tuple[int, int | None] = (0, None),
) -> Expr:
    """The language of strings matching ``pattern`` (or a :class:`Patterns`: :func:`patterns_to_ir`);
    ``char(ranges)`` spells one character from ``ranges``.
    ``length``: only strings of that many characters (``minLength``/``maxLength``; an
    :class:`UnsupportedSchemaError` when the pattern's shape does not allow the intersection).
    Built once per pattern and spelling (a format's call-id pattern recurs in every call)."""
    if isinstance(pattern, Patterns):
        return patterns_to_ir(pattern.all, char, path, length, pattern.none)
    if length != (0, None):
        return _at(_restricted(pattern, char, length), path)
    try:
        return _pattern_ir(pattern, char)
    except (UnsupportedSchemaError, EmptySchemaError) as exc:
        raise type(exc)(exc.message, path) from None


#: what the caches of meets keep where a meet is refused: the error without its path (:func:`_at` adds it)
Refusal = UnsupportedSchemaError | EmptySchemaError


def _at(out: Expr | Refusal, path: str) -> Expr:
    """A cached meet, or its refusal raised at ``path``."""
    if isinstance(out, (UnsupportedSchemaError, EmptySchemaError)):
        raise type(out)(out.message, path)
    return out


@lru_cache(maxsize=256)
def _restricted(pattern: str, char: Char, length: tuple[int, int | None]) -> Expr | Refusal:
    """:func:`pattern_to_ir` with lengths, built once per pattern, spelling and lengths: a schema that uses one
    pattern in many places then holds one expression, and comparing the places' rules (the grammar's interning)
    stops at its identity, where two equal copies of a halved meet were compared all the way down (minutes).  A
    refusal is returned, and so kept, too: the tries before it cost up to a second, and a pattern under lengths in
    each branch of an ``anyOf`` (CloudFormation's AWS::EventsV2::Subscriber: 128 of them) paid them in each."""
    try:
        decoded = restrict_length(_pattern_ir(pattern, decoded_char), length[0], length[1], pattern)
    except UnsupportedSchemaError as exc:
        return exc
    if decoded is None:
        return UnsupportedSchemaError(f"no string of length {length[0]}..{length[1]} matches pattern {pattern!r}")
    return spell(decoded, char)


def _parse(pattern: str) -> Any:
    """``pattern`` (ECMAScript) parsed by Python's regex parser.  Its ``FutureWarning`` about set operations that
    Python may add inside classes (``[a||b]``, ``[a--b]``) is not shown: ECMAScript has none, and the class means
    its characters, which is how the parser reads it today."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        return sre.parse(ecmascript(pattern))


@lru_cache(maxsize=256)
def matcher(pattern: str) -> Callable[[str], bool] | None:
    """Whether a text matches ``pattern`` as toolgram reads it (its decoded expression as an unambiguous Python
    regex: ECMAScript's classes and anchors, not Python's); ``None`` for a pattern toolgram cannot write."""
    try:
        rx = re.compile(dfa_regex(pattern_to_ir(pattern, decoded_char, "")))
    except (ToolgramError, DfaLimit):
        return None
    return lambda text: rx.fullmatch(text) is not None


@lru_cache(maxsize=1024)
def unambiguous(pattern: str | Patterns) -> bool:
    """Whether ``pattern``'s expression is written back from its minimal DFA (a :class:`Patterns` meet, a
    pattern with look-arounds): one parse per string, so a backtracking matcher needs no DFA of its own
    (Lark prints other patterns through one when they could backtrack: :mod:`.emit.lark`)."""
    if isinstance(pattern, Patterns):
        return True
    try:
        tree = _parse(pattern)
    except Exception:  # noqa: BLE001 - not a pattern toolgram reads: refused where it is built
        return False
    return any(op in _LOOK for _, _, items in _anchored(list(tree)) for op, _ in items)


def writable(pattern: str | Patterns, length: tuple[int, int | None] = (0, None)) -> bool:
    """Whether :func:`pattern_to_ir` can write ``pattern`` with ``length`` (else it raises
    :class:`UnsupportedSchemaError`; a pattern no string of that length matches is writable: it is empty)."""
    try:
        pattern_to_ir(pattern, decoded_char, "", length)
    except UnsupportedSchemaError as exc:
        return exc.message.startswith("no string of length")
    except EmptySchemaError:
        return True
    return True


def patterns_to_ir(
    patterns: tuple[str, ...], char: Char, path: str,
    length: tuple[int, int | None] = (0, None), excluded: tuple[str, ...] = (),
) -> Expr:
    """The strings matching every one of ``patterns`` (a ``format``'s and a ``pattern``) and none of ``excluded``,
    of ``length`` characters (:func:`_patterns_met`): the product of their automata, written back as one
    unambiguous expression.
    :class:`UnsupportedSchemaError` at ``path`` past :data:`MAX_MEET_STATES` / :data:`MAX_MEET_NODES`;
    :class:`~toolgram.errors.EmptySchemaError` when no string matches them all."""
    return _at(_patterns_ir(patterns, char, length, excluded), path)


@lru_cache(maxsize=256)
def _patterns_ir(patterns: tuple[str, ...], char: Char, length: tuple[int, int | None],
                 excluded: tuple[str, ...]) -> Expr | Refusal:
    """:func:`patterns_to_ir`, built once per meet, spelling and lengths; a refusal is returned, and so kept, too
    (the products before it cost up to a second, and CloudFormation's AWS::EventsV2::Subscriber asks for the same
    meet in 128 ``anyOf`` branches)."""
    try:
        return _patterns_met(patterns, char, length, excluded)
    except (UnsupportedSchemaError, EmptySchemaError) as exc:
        return exc


def _patterns_met(patterns: tuple[str, ...], char: Char, length: tuple[int, int | None],
                  excluded: tuple[str, ...]) -> Expr:
    """The meet first, its lengths after; where lengths cannot be written on the meet's expression (the automaton's,
    written back), on the last pattern's own shape first.  Meeting first is the cheap order: the prefixes that
    ``if``/``then`` tests put beside an ARN pattern (``^arn:``, ``^arn:[^:]*:lambda:``) meet in a few states, and
    ``maxLength: 1600`` is then one count, where the last pattern under its lengths was a large expression whose
    products passed the caps (all 131 such meets of the CloudFormation corpus were refused, 20 s; now 128 written,
    1 s)."""
    if length != (0, None) and patterns:
        try:
            return _patterns_met_in(patterns, char, length, excluded, lengths_first=False)
        except UnsupportedSchemaError:
            pass
    return _patterns_met_in(patterns, char, length, excluded, lengths_first=True)


def _patterns_met_in(patterns: tuple[str, ...], char: Char, length: tuple[int, int | None],
                     excluded: tuple[str, ...], lengths_first: bool) -> Expr:
    shown = [*patterns, *(f"not {x}" for x in excluded)]
    try:
        decoded = [_pattern_ir(p, decoded_char) for p in patterns] or [_ANY_TEXT]
        if length != (0, None) and patterns and lengths_first:
            last = restrict_length(decoded[-1], length[0], length[1], patterns[-1])
            if last is None:
                raise EmptySchemaError(f"no string of length {length[0]}..{length[1]} matches {patterns[-1]!r}")
            decoded[-1] = last
        met = decoded[0]
        for d in decoded[1:]:
            met = intersection(met, d, max_states=MAX_MEET_STATES, max_nodes=MAX_MEET_NODES)
        for x in excluded:
            met = _meet(met, _pattern_ir(x, decoded_char), True, x, None)
        if length != (0, None) and not (patterns and lengths_first):
            met = restrict_length(met, length[0], length[1], " and ".join(shown))
            if met is None:
                raise EmptySchemaError(f"no string of length {length[0]}..{length[1]} matches {shown!r}")
    except DfaLimit as exc:
        raise UnsupportedSchemaError(f"the patterns {shown!r} together: {exc}") from None
    if met == Chars(()):
        raise EmptySchemaError(f"no string matches all of {shown!r}")
    return spell(met, char)


def within(spelled: Callable[[Callable[[Char], Expr]], Expr], pattern: str | Patterns, where: str,
           length: tuple[int, int | None]) -> tuple[Expr, Expr] | None:
    """A length-bound pattern token's :attr:`~.ir.Token.within`: the pattern alone, and any text of ``length``,
    each put in the token's quotes by ``spelled(body)`` (``body(char)``: the text, each character spelled by
    ``char``).  A pattern that counts its own length (:func:`_length_form`) gives its text alone, and the lengths
    it and ``length`` allow.  None without lengths, or where the pattern alone has no expression (a meet of
    patterns past its caps, which the lengths brought within them)."""
    form = None
    if isinstance(pattern, str):
        try:
            form = _length_form(pattern)
        except (UnsupportedSchemaError, EmptySchemaError):  # refused where it is built
            form = None
    if form is not None:  # the pattern counts its own length: its text alone, and the lengths both allow
        text, lo, hi = form
        lo, hi = max(lo, length[0]), hi if length[1] is None else length[1] if hi is None else min(hi, length[1])
        return (spelled(lambda char: spell(text, char)), spelled(lambda char: Rep(char(((0, MAXCP),)), lo, hi)))
    if length == (0, None):
        return None
    try:
        return (spelled(lambda char: pattern_to_ir(pattern, char, where)),
                spelled(lambda char: Rep(char(((0, MAXCP),)), length[0], length[1])))
    except (UnsupportedSchemaError, EmptySchemaError):
        return None


def decoded_char(ranges: tuple[tuple[int, int], ...]) -> Expr:
    """One decoded character (the spelling of the length-restricted patterns and of key patterns,
    re-spelled after by :func:`spell`)."""
    return Chars(ranges, False)


#: per spelling, what :func:`spell` wrote, so that equal decoded parts of two patterns (a schema's patterns under
#: different lengths share halves) are one spelled object, which the grammar's interning and left factoring
#: compare by identity rather than node by node.  One table per grammar (:func:`shared_parts`): a table kept from
#: an earlier grammar holds parts *equal* to the new grammar's but not the same objects, and one look-up then
#: compared them node by node, in time exponential in their depth (CloudFormation's AWS::Cognito::UserPoolDomain and
#: AWS::EntityResolution::MatchingWorkflow: 0.3 s alone, 30 s after the corpus before them).  The lru caches below
#: keep spelled results across grammars; those are the same objects wherever they are used again
_SPELLED: ContextVar[dict[Char, dict[Expr, Expr]] | None] = ContextVar("toolgram_spelled", default=None)


@contextmanager
def shared_parts() -> Iterator[None]:
    """Fresh tables that make equal parts one object (:data:`_SPELLED`, ``lengths._CANON``) for the grammar
    built inside; per context, so two threads building grammars at once keep theirs apart."""
    spelled = _SPELLED.set({})
    with canonical_parts():
        try:
            yield
        finally:
            _SPELLED.reset(spelled)


def spell(e: Expr, char: Char, done: dict[Expr, Expr] | None = None) -> Expr:
    """A decoded regular expression (of :class:`Chars`, literals, sequences, choices, repetitions)
    with each character spelled by ``char(ranges)``, as a value syntax writes it.  A part the expression
    holds more than once is spelled once (``done``; the length products share theirs)."""
    if done is None:
        tables = _SPELLED.get()
        done = {} if tables is None else tables.setdefault(char, {})
    hit = done.get(e)
    if hit is not None:
        if graph_of(hit) is None and graph_of(e) is not None:  # an equal expression spelled before, without it
            _spell_graph(e, hit, char, done)
        return hit
    if isinstance(e, Chars):
        out = char(e.ranges if not e.negated else negate(tuple(sorted(e.ranges))))
    elif isinstance(e, Lit):
        out = seq(*(char(((ord(ch), ord(ch)),)) for ch in e.text))
    elif isinstance(e, (Seq, Alt)):  # (a loop, not a generator: one Python frame per level of a deep expression)
        items = []
        for i in e.items:
            items.append(spell(i, char, done))
        if isinstance(e, Seq):  # nested sequences stay whole (the length products share them: :func:`.lengths._pair`)
            out = Seq(tuple(items)) if any(type(i) is Seq for i in e.items) else seq(*items)
        else:
            out = alt(*items)
    elif isinstance(e, Rep):
        out = Rep(spell(e.item, char, done), e.min, e.max)
    else:
        out = e  # EMPTY
    if graph_of(e) is not None:
        _spell_graph(e, out, char, done)
    done[e] = out
    return out


def _spell_graph(e: Expr, out: Expr, char: Char, done: dict[Expr, Expr]) -> None:
    """Note on ``out`` (``e`` spelled) the automaton ``e`` was written from, its labels spelled."""
    edges, src, dst = graph_of(e)  # type: ignore[misc]
    with_graph(out, ({k: spell(label, char, done) for k, label in edges.items()}, src, dst))


@lru_cache(maxsize=1024)
def _branches_of(pattern: str) -> tuple[tuple[bool, bool, list], ...]:
    """``pattern``'s top-level branches (:func:`_anchored`), its inline flags applied; an
    :class:`UnsupportedSchemaError` where it is not a regex toolgram reads."""
    try:
        tree = _parse(pattern)
    except UnsupportedSchemaError:
        raise
    except Exception as exc:  # re.error
        raise UnsupportedSchemaError(f"pattern {pattern!r} is not a valid regex: {exc}") from None
    branches = [part for start, end, items in _anchored(flagged(list(tree), tree.state.flags, pattern))
                for part in resolved(items, start, end, pattern)]
    if not branches:
        raise EmptySchemaError(f"no string matches pattern {pattern!r}: an anchor or word boundary in it never holds")
    return tuple(branches)


@lru_cache(maxsize=1024)
def _pattern_ir(pattern: str, char: Char, path: None = None) -> Expr:
    branches = _branches_of(pattern)
    if any(op in _LOOK for _, _, items in branches for op, _ in items):
        tested = _length_tested(pattern)
        if tested is not None:
            return spell(tested, char)
        try:
            looking = alt(*(_looking(start, end, items, pattern, path) for start, end, items in branches))
            return spell(_minimal(looking, pattern, path), char)
        except UnsupportedSchemaError:
            bounded = _counted(branches, pattern, path)
            if bounded is None:
                raise
            return spell(bounded, char)
    any_text = Rep(char(((0, MAXCP),)), 0, None)
    searched = [None if start and end else _seq(items, decoded_char, pattern, path) for start, end, items in branches]
    if any(d is not None and span(d)[0] == 0 for d in searched):
        return any_text  # a search for what may be empty finds it in any text (``[a-z]{0,1024}``, ``^\s*``)
    return alt(*(seq(EMPTY if start else any_text,
                     _seq(items, char, pattern, path) if d is None else spell(_open_ends(d, start, end), char),
                     EMPTY if end else any_text)
                 for (start, end, items), d in zip(branches, searched, strict=True)))


def _open_ends(e: Expr, start: bool, end: bool) -> Expr:
    """Decoded ``e`` searched for (``start``/``end``: anchored there), with what a search's open end reads anyway
    cut: ``Σ*·X{m,n}`` is ``Σ*·X{m}`` (a match's last ``m`` copies; the text before reads the others), and
    ``X{m,n}·Σ*`` is ``X{m}·Σ*``.  The same language, a far smaller automaton: ``[a-z]{1,300}$`` is ``Σ*[a-z]``,
    and its meet with ``maxLength`` is then writable."""
    if not start:
        e = _cut(e, True)
    return e if end else _cut(e, False)


def _cut(e: Expr, first: bool) -> Expr:
    """:func:`_open_ends` at one end (``first``: the end that ``Σ*`` precedes, else the one it follows); ``e``
    itself where nothing is cut, :data:`EMPTY` where the open end reads all of ``e`` (``Σ*·X* = Σ*``)."""
    if type(e) is Rep:
        if e.min == 0:
            return EMPTY
        one = _cut(e.item, first)
        if one is e.item and e.max == e.min:
            return e
        rest = Rep(e.item, e.min - 1, e.min - 1) if e.min > 1 else EMPTY
        return seq(one, rest) if first else seq(rest, one)
    if type(e) is Seq:
        items = list(e.items if first else reversed(e.items))
        while items:
            one = _cut(items[0], first)
            if one is items[0]:
                return e if len(items) == len(e.items) else seq(*(items if first else reversed(items)))
            if one != EMPTY:
                items[0] = one
                return seq(*(items if first else reversed(items)))
            del items[0]  # Σ*·ε·rest = Σ*·rest
        return EMPTY
    if type(e) is Alt:
        cut = [_cut(i, first) for i in e.items]
        if any(i == EMPTY for i in cut):
            return EMPTY  # Σ*·(A|ε) = Σ*
        return e if all(a is b for a, b in zip(cut, e.items, strict=True)) else alt(*cut)
    return e


_LOOK = (c.ASSERT, c.ASSERT_NOT)
_ANY_CHAR = Chars(((0, MAXCP),), False)
_ANY_TEXT = Rep(_ANY_CHAR, 0, None)
_REPEATS = (c.MAX_REPEAT, c.MIN_REPEAT, getattr(c, "POSSESSIVE_REPEAT", None))


#: the most (length ** look-arounds) :func:`_counted` spells out (its expression grows so; past it, refused at once)
_COUNTED_BUDGET = 5_000


def _counted(branches: tuple[tuple[bool, bool, list], ...], pattern: str, path: str | None) -> Expr | None:
    """A look-around pattern whose length is counted by one bounded repetition of a character
    (``^(?=.*[A-Z]).{8,64}$``), whose product with the count has too many states to write: the pattern
    with the repetition unbounded, then held to the lengths the count allows (:func:`restrict_length`).
    Exact when the pattern is anchored at both ends and its other parts have fixed lengths (the count then
    fixes the text's length).  None where that shape does not hold; :class:`UnsupportedSchemaError` past
    :data:`MAX_MEET_NODES`."""
    if len(branches) != 1 or not branches[0][0] or not branches[0][1]:
        return None
    items = branches[0][2]
    counted = [i for i, (op, av) in enumerate(items) if op in _REPEATS and av[1] != c.MAXREPEAT]
    if len(counted) != 1:
        return None
    k = counted[0]
    lo, hi, sub = items[k][1]
    fixed = 0
    for i, (op, av) in enumerate(items):
        if op in _LOOK:
            continue
        a, b = span(_seq(list(sub) if i == k else [(op, av)], decoded_char, pattern, path))
        if a != b or (i == k and a != 1):
            return None
        fixed += 0 if i == k else a
    looks = sum(op in _LOOK for op, _ in items)
    if (fixed + hi) ** looks > _COUNTED_BUDGET:  # each look-around spells the count out again: refuse at once
        return None
    loose = [*items[:k], (items[k][0], (lo, c.MAXREPEAT, sub)), *items[k + 1:]]
    unbounded = _minimal(_looking(True, True, loose, pattern, path), pattern, path)
    out = restrict_length(unbounded, fixed + lo, fixed + hi, pattern, branches=fixed + hi + 2)
    if out is None:
        return Chars(())
    if tree_size(out) > MAX_MEET_NODES:
        raise UnsupportedSchemaError(f"pattern {pattern!r}: its look-around within {lo}..{hi} characters has no "
                                     f"grammar toolgram can write (more than {MAX_MEET_NODES} nodes)", path)
    return out


def _length_tested(pattern: str) -> Expr | None:
    """A pattern whose length is tested (:func:`_length_form`): its text held to the lengths
    (:func:`restrict_length`; the product with the count would have too many states to write); None where the
    pattern has another shape."""
    form = _length_form(pattern)
    if form is None:
        return None
    met = restrict_length(*form, pattern)
    return Chars(()) if met is None else met


@lru_cache(maxsize=256)
def _length_form(pattern: str) -> tuple[Expr, int, int | None] | None:
    """``(text, lo, hi)`` for a pattern anchored at the start whose leading look-ahead, or whose rest, only counts
    one class to the end (``^(?=.{1,253}$)…``, ``(?=^[a-z0-9-]{3,64}$)…``, ``^(?=^[a-z]+(-[a-z]+)*$).{1,255}$``):
    the other side, each of its characters held to that class (``spell``: no automaton), and the count.  The
    pattern's strings are those texts of ``lo`` to ``hi`` characters; Lark's terminal counts them with a
    look-ahead (:func:`within`).  None where the pattern has another shape."""
    branches = _branches_of(pattern)
    if len(branches) != 1:
        return None
    start, end, items = branches[0]
    if not items or items[0][0] != c.ASSERT or items[0][1][0] != 1:
        return None
    parts = _anchored(list(items[0][1][1]))
    if len(parts) != 1 or not (start or parts[0][0]):
        return None
    _, tested_to_end, body = parts[0]
    count = _class_count(body, pattern) if tested_to_end else None
    if count is not None:
        other = _branch_ir(end, items[1:], pattern)
    else:
        count = _class_count(items[1:], pattern) if end else None
        if count is None:
            return None
        other = _branch_ir(tested_to_end, body, pattern)
    one, lo, hi = count
    allowed = negate(tuple(sorted(one.ranges))) if one.negated else one.ranges
    held = spell(other, lambda ranges: Chars(subtract(ranges, negate(allowed))), {})
    try:
        held = _minimal(held, pattern, None)  # unambiguous where its automaton is small
    except UnsupportedSchemaError:
        pass
    return held, lo, hi


def _class_count(items: list, pattern: str) -> tuple[Chars, int, int | None] | None:
    """``(class, lo, hi)`` where ``items`` are one class repeated ``lo`` to ``hi`` times; else None."""
    if len(items) != 1 or items[0][0] not in _REPEATS:
        return None
    lo, hi, sub = items[0][1]
    one = _seq(list(sub), decoded_char, pattern, None)
    return (one, lo, None if hi == c.MAXREPEAT else hi) if isinstance(one, Chars) else None


def _branch_ir(end: bool, items: list, pattern: str) -> Expr:
    """The decoded language of a branch anchored at the start, its look-arounds met (:func:`_looking`)."""
    if any(op in _LOOK for op, _ in items):
        return _looking(True, end, items, pattern, None)
    return seq(_open_ends(_seq(items, decoded_char, pattern, None), True, end), EMPTY if end else _ANY_TEXT)


def _looking(start: bool, end: bool, items: list, pattern: str, path: str | None) -> Expr:
    """The decoded language of one top-level branch whose sequence holds look-arounds (``(?=…)``,
    ``(?!…)``, ``(?<=…)``, ``(?<!…)``).  A look-behind tests all the text before its place: the last one
    meets (or, negated, strips) the branch's head with ``Σ*·test``; a look-ahead tests all the text after
    it: the first one meets the rest with ``test·Σ*``.  Exact, by product automata
    (:data:`MAX_MEET_STATES`), when every look-behind comes before every look-ahead (adjacent ones are
    swapped: both are zero-width); the other order, and a look-around inside a group or a repetition,
    is refused."""
    items = _behind_first(items)
    behind = [i for i, (op, av) in enumerate(items) if op in _LOOK and av[0] == -1]
    ahead = [i for i, (op, av) in enumerate(items) if op in _LOOK and av[0] == 1]
    if behind and ahead and ahead[0] < behind[-1]:
        raise UnsupportedSchemaError(f"pattern {pattern!r}: a look-behind after a look-ahead", path)
    if behind:
        k = behind[-1]
        op, (_, sub) = items[k]
        parts = _anchored(list(sub))
        if any(b_end for _, b_end, _ in parts) and not (end and k == len(items) - 1):
            raise UnsupportedSchemaError(f"pattern {pattern!r}: $ inside a look-behind before the end", path)
        test = alt(*(_looking(b_start, True, _only(b_items, -1, pattern, path), pattern, path)
                     for b_start, _, b_items in parts))
        head = _meet(_looking(start, True, items[:k], pattern, path), test, op == c.ASSERT_NOT, pattern, path)
        return seq(head, _looking(True, end, items[k + 1:], pattern, path))
    body = _seq(items[:ahead[0]] if ahead else items, decoded_char, pattern, path)
    head = seq(EMPTY if start else _ANY_TEXT, _open_ends(body, start, end or bool(ahead)))
    if not ahead:
        return seq(head, EMPTY if end else _ANY_TEXT)
    k = ahead[0]
    op, (_, sub) = items[k]
    parts = _anchored(list(sub))
    if any(b_start for b_start, _, _ in parts) and not start and k == 0:
        # a match at the start, where the look-ahead's ^ holds, or one character on or later, where its branches
        # anchored at the start cannot match: (?!^x)y is ^(?!x)y or .y (ECMAScript's search)
        later = [(b_start, b_end, b_items) for b_start, b_end, b_items in parts if not b_start]
        at_start = _looking(True, end, items, pattern, path)
        if not later and op == c.ASSERT:
            return at_start  # (?=^x)y: only at the start
        rest = [(op, (1, _branches(later))), *items[1:]] if later else items[1:]
        return alt(at_start, seq(_ANY_CHAR, _looking(False, end, rest, pattern, path)))
    if any(b_start for b_start, _, _ in parts) and not (start and k == 0):
        raise UnsupportedSchemaError(f"pattern {pattern!r}: ^ inside a look-ahead after the start", path)
    test = alt(*(_looking(True, b_end, _only(b_items, 1, pattern, path), pattern, path) for _, b_end, b_items in parts))
    return seq(head, _meet(_looking(True, end, items[k + 1:], pattern, path), test, op == c.ASSERT_NOT, pattern, path))


def _branches(parts: list[tuple[bool, bool, list]]) -> list:
    """Parsed items that match what ``parts`` (:func:`_anchored`'s branches, none anchored at the start) match."""
    bodies = [[*items, *([(c.AT, c.AT_END)] if end else [])] for _, end, items in parts]
    return bodies[0] if len(bodies) == 1 else [(c.BRANCH, (None, bodies))]


def _behind_first(items: list) -> list:
    """``items`` with each run of adjacent look-arounds reordered look-behinds first (zero-width: the
    same language)."""
    out: list = []
    run: list = []
    for item in [*items, None]:
        if item is not None and item[0] in _LOOK:
            run.append(item)
            continue
        out.extend(sorted(run, key=lambda i: i[1][0]))
        run = []
        if item is not None:
            out.append(item)
    return out


def _only(items: list, direction: int, pattern: str, path: str | None) -> list:
    """A look-around's body, whose own look-arounds must look the same way (a look-behind inside a
    look-ahead would see text before the look-ahead's body, which the body's expression does not hold)."""
    if any(op in _LOOK and av[0] != direction for op, av in items):
        raise UnsupportedSchemaError(f"pattern {pattern!r}: a look-around facing the other way inside a look-around",
                                     path)
    return items


def _minimal(e: Expr, pattern: str, path: str | None) -> Expr:
    """Decoded ``e`` written back from its minimal DFA: one unambiguous expression, which every dialect and
    the strict parser's linear-time terminals can hold (the text around a look-around's meet no longer
    multiplies its states when a matcher determinizes it); :class:`UnsupportedSchemaError` past the caps."""
    try:
        trans, accepting, starts = build_dfa(e)
        trans, accepting = minimize(trans, accepting)
        return dfa_expr(trans, accepting, starts, max_states=MAX_MEET_STATES, max_nodes=MAX_MEET_NODES)
    except DfaLimit as exc:
        raise UnsupportedSchemaError(f"pattern {pattern!r}: its look-around has no grammar toolgram can "
                                     f"write ({exc})", path) from None


def _meet(base: Expr, test: Expr, negated: bool, pattern: str, path: str | None) -> Expr:
    """The words of decoded ``base`` that ``test`` matches (does not match, ``negated``), written back as
    one unambiguous expression; :class:`UnsupportedSchemaError` past the meet caps."""
    try:
        trans, labels, starts = build_labeled_dfa((base, test))
        trans, accepting = minimize(trans, {s for s, lab in enumerate(labels)
                                            if 0 in lab and (1 in lab) != negated})
        return dfa_expr(trans, accepting, starts, max_states=MAX_MEET_STATES, max_nodes=MAX_MEET_NODES)
    except DfaLimit as exc:
        raise UnsupportedSchemaError(f"pattern {pattern!r}: the strings it {'excludes' if negated else 'tests'} "
                                     f"have no grammar toolgram can write ({exc})", path) from None


def _anchored(items: list) -> list[tuple[bool, bool, list]]:
    """A pattern's top-level alternatives as ``(anchored at the start, at the end, items)``: ECMAScript
    anchors bind inside an alternation (``^dev|alpha|stable$`` is ``(^dev)|(alpha)|(stable$)``),
    also inside one group that is the whole pattern.  ``\\A`` and ``\\Z``, which patterns written for Python or
    Java use (CloudFormation's ``\\A[0-9a-fA-F]+\\Z``), are anchors at the ends as those engines read them."""
    items = _spliced(items)
    at = next((i for i, (op, av) in enumerate(items) if op == c.BRANCH and any(
        o == c.AT for b in av[1] for o, _ in b)), None)
    if at is not None and len(items) > 1:
        # anchors inside a choice in the sequence (Python's parser takes the prefix the branches share out of them:
        # ^a$|^b$ is ^(?:a$|b$); ^(^$|x)$): the sequence around it goes into each branch
        items = [(c.BRANCH, (None, [[*items[:at], *b, *items[at + 1:]] for b in items[at][1][1]]))]
    if len(items) == 1 and items[0][0] == c.BRANCH:
        return [part for branch in items[0][1][1] for part in _anchored(list(branch))]
    items, start = _edge_anchor(items, (c.AT_BEGINNING, c.AT_BEGINNING_STRING))
    rev, end = _edge_anchor(items[::-1], (c.AT_END, c.AT_END_STRING))
    return [(start, end, rev[::-1])]


def _spliced(items: list) -> list:
    """``items`` with each group in the sequence opened (a group that is not repeated only groups: ``(^a)(b$)``
    reads as ``^ab$``, ``((?!x)y)`` as ``(?!x)y``)."""
    if not any(op == c.SUBPATTERN for op, _ in items):
        return items
    return [it for op, av in items for it in (_spliced(list(av[-1])) if op == c.SUBPATTERN else [(op, av)])]


def _edge_anchor(items: list, kinds: tuple) -> tuple[list, bool]:
    """``items`` without the anchors of ``kinds`` in their leading run of zero-width items (anchors and
    look-arounds), and whether there was one: ``(?!_)^a`` is anchored as ``^(?!_)a`` is."""
    run = 0
    while run < len(items) and (items[run][0] in _LOOK or items[run][0] == c.AT and items[run][1] in kinds):
        run += 1
    if not any(op == c.AT for op, _ in items[:run]):
        return items, False
    return [it for it in items[:run] if it[0] != c.AT] + items[run:], True


def _seq(items: list, char: Callable, pattern: str, path: str) -> Expr:
    return seq(*(_node(op, av, char, pattern, path) for op, av in items))


def _node(op, av, char: Callable, pattern: str, path: str) -> Expr:  # noqa: C901 - one case per opcode
    if op == c.LITERAL:
        return char(((av, av),))
    if op == c.NOT_LITERAL:
        return char(negate(((av, av),)))
    if op == c.ANY:
        return char(negate(((10, 10),)))
    if op == c.IN:
        negated = any(iop == c.NEGATE for iop, _ in av)
        merged = class_ranges([(iop, iav) for iop, iav in av if iop != c.NEGATE], pattern, path)
        return char(negate(merged) if negated else merged)
    if op == c.SUBPATTERN:
        return _seq(list(av[-1]), char, pattern, path)
    if op == c.BRANCH:
        return alt(*(_seq(list(b), char, pattern, path) for b in av[1]))
    if op in (c.MAX_REPEAT, c.MIN_REPEAT, getattr(c, "POSSESSIVE_REPEAT", None)):
        lo, hi, sub = av
        return Rep(_seq(list(sub), char, pattern, path), lo, None if hi == c.MAXREPEAT else hi)
    if op == c.AT and av in (c.AT_BOUNDARY, c.AT_NON_BOUNDARY):
        raise UnsupportedSchemaError(f"pattern {pattern!r}: a word boundary whose neighbours may be word or non-word "
                                     "characters cannot be expressed in a grammar", path)
    if op == c.AT:
        raise UnsupportedSchemaError(f"pattern {pattern!r}: an anchor inside it that may stand at the text's edge or "
                                     "not cannot be expressed in a grammar", path)
    raise UnsupportedSchemaError(f"pattern {pattern!r}: {str(op).lower()} cannot be expressed in a grammar", path)


def chars_expr(ranges: tuple[tuple[int, int], ...]) -> Expr:
    """A :class:`Chars` for ``ranges``, written negated when that is shorter."""
    if not ranges:
        return Chars((), False)
    neg = negate(ranges)
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
def python_char(quote: str) -> Char:
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
def raw_char(forbidden: str) -> Char:
    """Spell one character of raw text that may not contain any of ``forbidden``."""
    remove = tuple((ord(ch), ord(ch)) for ch in forbidden)

    def char(ranges: tuple[tuple[int, int], ...]) -> Expr:
        return chars_expr(subtract(ranges, remove))

    return char
