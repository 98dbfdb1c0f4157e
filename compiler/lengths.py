"""Patterns met with ``minLength``/``maxLength``: the strings of a decoded pattern expression that have ``lo`` to
``hi`` characters, written exactly or refused.

By the expression's shape where it has one variable part (:func:`restrict_length`); else where the language asks for
one character of a class somewhere (:func:`_first_of_class_length`); else from the pattern's small automaton, with each
run of fixed-length items of its sequence read as one mark (:func:`_counted_dfa`: the length halved over its states);
else by spelling out a few choices and trying again, within a budget of tries (:data:`MAX_LENGTH_TRIES`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import NamedTuple

from ..errors import UnsupportedSchemaError
from .charsets import MAXCP
from .dfa import MARKS, MAX_MEET_NODES, DfaLimit, count_of, first_of_class, language_from, small_dfa, tree_size
from .ir import EMPTY, Alt, Chars, Expr, Lit, Rep, Seq, alt, seq


def span(e: Expr) -> tuple[int, int | None]:
    """The fewest and most characters of a decoded pattern expression (None: unbounded)."""
    if isinstance(e, Chars):
        return 1, 1
    if isinstance(e, Lit):
        return len(e.text), len(e.text)
    if isinstance(e, Seq):
        lo, hi = 0, 0
        for i in e.items:
            a, b = span(i)
            lo += a
            hi = None if hi is None or b is None else hi + b
        return lo, hi
    if isinstance(e, Alt):
        spans = [span(i) for i in e.items]
        his = [b for _, b in spans]
        return min(a for a, _ in spans), None if None in his else max(his)  # type: ignore[type-var]
    if isinstance(e, Rep):
        a, b = span(e.item)
        return a * e.min, None if e.max is None or b is None else b * e.max
    raise TypeError(e)


#: Most alternatives one length intersection may spell out (a bounded repetition, a sequence's choices).
MAX_LENGTH_BRANCHES = 64
#: Most sequences of several variable parts one length intersection tries to write from an automaton (each try
#: builds one): spelling out choices multiplies them, and a pattern of several bounded parts
#: (``[a-z0-9-]{1,20}:\\d{12}:[^/].{0,1023}``) would otherwise try thousands.
MAX_LENGTH_TRIES = 24


#: the parts every meet of one grammar wrote, each one object: two meets' equal parts (a schema's patterns under
#: different lengths share their halves) then compare by identity, where distinct copies of a halved meet compared
#: node by node, in time exponential in their depth (AWS::Pipes::Pipe: past 60 s).  One table per grammar
#: (:func:`canonical_parts`, entered by ``regex.shared_parts``): an earlier grammar's equal parts are other objects
_CANON: ContextVar[dict[Expr, Expr] | None] = ContextVar("toolgram_canon", default=None)


@contextmanager
def canonical_parts() -> Iterator[None]:
    """A fresh table of shared parts (:data:`_CANON`) for the meets made inside."""
    token = _CANON.set({})
    try:
        yield
    finally:
        _CANON.reset(token)


class _Tries:
    """The tries one :func:`restrict_length` has left (:data:`MAX_LENGTH_TRIES`), and the expressions tried whole."""

    def __init__(self) -> None:
        self.left = MAX_LENGTH_TRIES
        self.whole: set[int] = set()  # the ids of the expressions :func:`_whole` tried

    def take(self, pattern: str) -> None:
        self.left -= 1
        if self.left < 0:
            raise _refused(pattern)


def _refused(pattern: str) -> UnsupportedSchemaError:
    return UnsupportedSchemaError(f"pattern {pattern!r} together with minLength/maxLength: the intersection "
                                  "has no grammar toolgram can write")


def restrict_length(e: Expr, lo: int, hi: int | None, pattern: str,
                    branches: int = MAX_LENGTH_BRANCHES) -> Expr | None:
    """The strings of decoded expression ``e`` with ``lo`` to ``hi`` characters; None when there are
    none.  Exact for the shapes patterns have (one variable part per sequence, repetitions of a
    fixed-length item, alternatives of them), for a language that asks for one character of a class
    somewhere, however it is written (``^(?!\\s*$).+``: :func:`~.dfa.first_of_class`), and for a sequence whose
    automaton is small once its fixed-length runs are marks (:func:`_counted_dfa`);
    :class:`UnsupportedSchemaError` otherwise.  ``branches``: the most alternatives one step may spell out."""
    tries = _Tries()
    if hi is not None and tree_size(e) <= IMPLIED_MAX_NODES:
        e = _implied_counts(e, hi, 0)
    try:
        return _restrict(e, lo, hi, pattern, branches, tries)
    except UnsupportedSchemaError:
        if id(e) in tries.whole or tries.left < 0:  # tried as a whole already, or out of tries
            raise
        return _whole(e, lo, hi, pattern, tries)


#: :func:`_implied_counts` reads a pattern as written, a tree of about its length; an expression state elimination wrote
#: (a look-around met: parts shared many times over, millions of nodes as a tree) is left as it is
IMPLIED_MAX_NODES = 10_000


def _implied_counts(e: Expr, hi: int, outside: int) -> Expr:
    """``e`` with each repetition's upper count dropped where ``hi`` characters already hold it: ``X{m,n}`` is ``X{m,}``
    when ``n + 1`` copies of ``X`` and the fewest characters the rest of the text needs (``outside``) are more
    than ``hi``.  The same strings of at most ``hi`` characters, from a far smaller automaton
    (``^[a-z0-9](-*[a-z0-9]){0,62}$`` under ``maxLength: 63`` is ``^[a-z0-9](-*[a-z0-9])*$`` there).  ``e`` itself
    where nothing changes."""
    if type(e) is Seq:
        spans = [span(i)[0] for i in e.items]
        total = sum(spans)
        items = [_implied_counts(i, hi, outside + total - a) for i, a in zip(e.items, spans, strict=True)]
        return e if all(a is b for a, b in zip(items, e.items, strict=True)) else Seq(tuple(items))
    if type(e) is Alt:
        items = [_implied_counts(i, hi, outside) for i in e.items]
        return e if all(a is b for a, b in zip(items, e.items, strict=True)) else alt(*items)
    if type(e) is Rep:
        least = span(e.item)[0]
        item = _implied_counts(e.item, hi, outside + max(e.min - 1, 0) * least)
        # (a fixed count stays: fixed-width runs are what the shapes below count without states)
        top = None if e.max is not None and e.max > e.min and least and outside + (e.max + 1) * least > hi \
            else e.max
        return e if item is e.item and top == e.max else Rep(item, e.min, top)
    return e


def _whole(e: Expr, lo: int, hi: int | None, pattern: str, tries: _Tries) -> Expr | None:
    """The length meet from ``e``'s automaton: one class somewhere, or small once marked; else refused."""
    tries.whole.add(id(e))
    shape = first_of_class(e)  # one character of a class somewhere: the split, unambiguous and small
    if shape is not None:
        return _first_of_class_length(*shape, lo, hi)
    counted = _counted_dfa(e, lo, hi)  # a small automaton: halved, O(log hi) parts
    if counted is None:
        raise _refused(pattern)
    return counted.expr


def _restrict(e: Expr, lo: int, hi: int | None, pattern: str, branches: int, tries: _Tries) -> Expr | None:
    """:func:`restrict_length` by the expression's shape."""
    a, b = span(e)
    if (hi is not None and a > hi) or (b is not None and b < lo):
        return None
    if a >= lo and (hi is None or (b is not None and b <= hi)):
        return e
    if isinstance(e, Alt):
        kept = [r for r in (_restrict(i, lo, hi, pattern, branches, tries) for i in e.items) if r is not None]
        return alt(*kept) if kept else None
    if isinstance(e, Rep):
        ia, ib = span(e.item)
        if ia == ib and ia > 0:
            n_lo = max(e.min, -(-lo // ia))
            n_hi = e.max if hi is None else (hi // ia if e.max is None else min(e.max, hi // ia))
            return None if n_hi is not None and n_lo > n_hi else Rep(e.item, n_lo, n_hi)
        if e.max is not None and e.max - e.min < 8:
            return _restrict(alt(*(seq(*[e.item] * n) for n in range(e.min, e.max + 1))), lo, hi, pattern,
                             branches, tries)
    if isinstance(e, Seq):
        items = list(e.items)
        spans = [span(i) for i in items]
        variable = [k for k, (x, y) in enumerate(spans) if x != y]
        if len(variable) == 1:
            k = variable[0]
            fixed = sum(x for j, (x, _) in enumerate(spans) if j != k)
            inner = _restrict(items[k], max(lo - fixed, 0), None if hi is None else hi - fixed, pattern, branches,
                              tries)
            return None if inner is None else seq(*items[:k], inner, *items[k + 1:])
        tries.take(pattern)
        try:
            return _whole(e, lo, hi, pattern, tries)
        except UnsupportedSchemaError:
            pass
        for k in variable:  # spell out one choice (an alternation, a short repetition) and retry
            item = items[k]
            if isinstance(item, Rep) and item.max is not None and item.max - item.min < 8:
                item = alt(*(seq(*[item.item] * n) for n in range(item.min, item.max + 1)))
            elif isinstance(item, Rep) and hi is not None and span(item.item)[0] > 0:
                top = hi // span(item.item)[0] if item.max is None else min(item.max, hi // span(item.item)[0])
                if top - item.min < branches:  # each count of its own (at most hi characters)
                    item = alt(*(Rep(item.item, n, n) for n in range(item.min, top + 1)))
            if isinstance(item, Alt) and len(item.items) <= branches:
                kept = [_restrict(seq(*items[:k], choice, *items[k + 1:]), lo, hi, pattern, branches, tries)
                        for choice in item.items]
                found = [r for r in kept if r is not None]
                return alt(*found) if found else None
    raise _refused(pattern)


def _first_of_class_length(head: tuple[Chars, Chars] | None, n: Chars, x: Chars, c: Chars, lo: int,
                           hi: int | None) -> Expr | None:
    """The strings ``N^k X C^j`` (``head``: ``X0 C^j | N0 N^k X C^j``; :func:`~.dfa.first_of_class`) of ``lo`` to
    ``hi`` characters; None when there are none.  Split at ``p = hi // 2``: a string of at most ``p`` characters, or
    ``p`` characters holding the ``X`` then ``C``s, or ``p`` ``N``s then a shorter such string.  Each split halves
    ``hi``, and the parts recur (the same expressions, which the printers write once as shared rules), so the
    expression has O(log hi) distinct parts, with every count a native repetition; unambiguous, as the DFA it
    comes from."""
    memo: dict[tuple[int, int | None], Expr | None] = {}

    def between(lo: int, hi: int | None) -> Expr | None:
        lo = max(lo, 1)  # the empty string holds no X
        if hi is not None and lo > hi:
            return None
        key = (lo, hi)
        if key not in memo:
            if hi is None:  # the first lo characters hold the X, or are all N
                memo[key] = seq(Rep(n, 0, None), x, Rep(c, 0, None)) if lo == 1 else \
                    alt(seq(between(lo, lo), Rep(c, 0, None)), seq(Rep(n, lo, None), x, Rep(c, 0, None)))
            elif hi == 1:
                memo[key] = x
            else:
                p = hi // 2
                held = between(p, p)
                after = between(lo - p, hi - p)
                parts = [between(lo, p), seq(held, Rep(c, max(lo - p, 1), hi - p)) if held is not None else None,
                         seq(Rep(n, p, p), after) if after is not None else None]
                kept = [e for e in parts if e is not None]
                memo[key] = alt(*kept) if kept else None
        return memo[key]

    if head is None:
        return between(lo, hi)
    n0, x0 = head
    if hi is not None and max(lo, 1) > hi:
        return None
    after = between(lo - 1, None if hi is None else hi - 1)
    parts = [seq(x0, Rep(c, max(lo - 1, 0), None if hi is None else hi - 1)) if x0.ranges else None,
             seq(n0, after) if after is not None else None]
    kept = [e for e in parts if e is not None]
    return alt(*kept) if kept else None


#: the most live states of a pattern's DFA that :func:`_counted_dfa` counts, and the most parts it writes
MAX_COUNTED_STATES = 64
MAX_COUNTED_PARTS = 4_000
#: the most states its DFA may have before minimizing (the minimizing is quadratic in them; a pattern of bounded
#: parts, ``[^:]{1,63}:.{0,1023}``, builds thousands that minimize to as many: past the state cap anyway)
MAX_COUNTED_BUILT = 256


class _Counted(NamedTuple):
    expr: Expr | None


def _counted_dfa(e: Expr, lo: int, hi: int | None) -> _Counted | None:
    """The strings of ``e`` with ``lo`` to ``hi`` characters, from its minimal DFA (at most
    :data:`MAX_COUNTED_STATES` states) by halving the length: the texts of exactly ``m`` characters from state ``q`` to
    state ``r`` are those of ``m // 2`` from ``q`` to some ``s`` followed by those of the rest from ``s`` to ``r``;
    the texts of ``lo`` to ``hi`` from ``q`` to acceptance are those of at most ``p = hi // 2``, or exactly ``p`` to
    some ``s`` and then ``1`` to ``hi - p`` more; with no ``hi``, exactly ``lo`` to some ``s``, then any text from
    ``s`` to acceptance (:func:`~.dfa.language_from`).  Each part is one expression, shared wherever it recurs (the
    printers write it once, as a rule), so there are O(states² · log hi) of them; unambiguous, since the state
    after a given number of characters is one.

    The automaton is the marked sequence's (:func:`_marked`): each run of fixed-length items is one symbol that
    every word reads once, so an ARN pattern's literals and ``\\d{12}`` cost no states, and the lengths are the
    variable parts' (the runs' total taken off).  A step is one character after the marks before it
    (:func:`_weighted`).  None past the caps (the caller refuses the pattern).  Equal parts are one object with those
    any meet of the same grammar wrote before (:data:`_CANON`)."""
    marked, marks, fixed = _marked(e)
    dfa = small_dfa(marked, MAX_COUNTED_STATES, MAX_COUNTED_BUILT)
    if dfa is None:
        return None
    canon = _CANON.get()
    if canon is None:  # (outside a grammar's build: parts are shared within this meet only)
        canon = {}

    def one(x: Expr) -> Expr:
        """``x``, or the equal part made before it: equal parts are one object, so comparing two (in
        ``alt``'s de-duplication, in :func:`spell`'s memo) stops at their children's identity, where
        equal copies were compared all the way down (seconds at 7 states and ``maxLength: 4096``)."""
        return canon.setdefault(x, x)

    moves, finals = _weighted(*dfa, marks, one)
    lo = max(lo - fixed, 0)
    if hi is not None:
        hi -= fixed
        if hi < 0:
            return _Counted(None)
    exact_memo: dict[tuple[int, int], dict[int, Expr]] = {}
    range_memo: dict[tuple[int, int, int], Expr | None] = {}
    parts = 0

    def exact(q: int, m: int) -> dict[int, Expr]:
        """Texts of exactly ``m >= 1`` characters from ``q``, by the state they end in."""
        nonlocal parts
        key = (q, m)
        if key not in exact_memo:
            if m == 1:
                exact_memo[key] = dict(moves[q])
            else:
                a = m // 2
                by: dict[int, list[Expr]] = {}
                for s, head in exact(q, a).items():
                    for r, tail in exact(s, m - a).items():
                        by.setdefault(r, []).append(one(_pair(head, tail)))
                parts += sum(len(v) for v in by.values())
                if parts > MAX_COUNTED_PARTS:
                    raise DfaLimit(f"more than {MAX_COUNTED_PARTS} parts")
                exact_memo[key] = {r: one(alt(*v)) for r, v in by.items()}
        return exact_memo[key]

    def counted(q: int, lo: int, hi: int) -> Expr | None:
        """Texts of ``lo`` to ``hi`` characters from ``q`` that end in an accepting state."""
        nonlocal parts
        lo = max(lo, 0)
        if lo > hi:
            return None
        key = (q, lo, hi)
        if key not in range_memo:
            found: list[Expr] = [finals[q]] if lo == 0 and q in finals else []
            if hi == 1:
                found += [one(_pair(c, finals[r])) for r, c in moves[q].items() if r in finals]
            elif hi > 1:
                p = hi // 2
                short = counted(q, max(lo, 1), p)
                if short is not None:
                    found.append(short)
                for s, head in exact(q, p).items():
                    tail = counted(s, max(lo - p, 1), hi - p)
                    if tail is not None:
                        found.append(one(_pair(head, tail)))
                parts += len(found)
                if parts > MAX_COUNTED_PARTS:
                    raise DfaLimit(f"more than {MAX_COUNTED_PARTS} parts")
            range_memo[key] = one(alt(*found)) if found else None
        return range_memo[key]

    try:
        if hi is not None:
            return _Counted(counted(0, lo, hi))
        if lo == 0:
            return _Counted(e)
        found = [one(_pair(head, _unmarked(language_from(marked, s, MAX_MEET_NODES, MAX_COUNTED_BUILT), marks)))
                 for s, head in exact(0, lo).items()]
        return _Counted(one(alt(*found)) if found else None)
    except DfaLimit:
        return None


def _marked(e: Expr) -> tuple[Expr, dict[int, Expr], int]:
    """``e`` with each run of fixed-length items of its top sequence as one mark (a code point from
    :data:`~.dfa.MARKS` on, which no class holds): ``(marked, the run of each mark, the runs' total length)``; ``e``
    itself, ``{}`` and 0 when there is none.  Every word of ``e`` reads each mark once, in order, so putting the runs
    back gives ``e``'s words, each of the marked word's variable characters plus the runs' length."""
    if not isinstance(e, Seq):
        return e, {}, 0
    items: list[Expr] = []
    marks: dict[int, Expr] = {}
    run: list[Expr] = []
    fixed = 0

    def close() -> None:
        if run:
            mark = MARKS + len(marks)
            marks[mark] = seq(*run)  # one object, wherever the mark is read
            items.append(Chars(((mark, mark),)))
            run.clear()

    for item in e.items:
        a, b = span(item)
        if a == b:
            run.append(item)
            fixed += a
        else:
            close()
            items.append(item)
    close()
    return (Seq(tuple(items)), marks, fixed) if marks else (e, {}, 0)


def _weighted(moves: dict[int, dict[int, Chars]], accepting: set[int], marks: dict[int, Expr],
              one: Callable[[Expr], Expr]) -> tuple[dict[int, dict[int, Expr]], dict[int, Expr]]:
    """A marked automaton as steps of one character each: ``(steps, finals)``; ``steps[q][r]`` the marks read from
    ``q`` (none, or a chain) then one character, to ``r``; ``finals[q]`` the marks from ``q`` to acceptance, for
    the states that reach it by marks alone.  Marks never loop (each is read once), so the chains are finite; the
    automaton is deterministic, so each word still has one path.  ``one`` makes equal parts one object."""
    chars: dict[int, dict[int, Chars]] = {}
    by_mark: dict[int, list[tuple[Expr, int]]] = {}
    for q, out in moves.items():
        chars[q], by_mark[q] = {}, []
        for r, c in out.items():
            real = tuple((a, b) for a, b in c.ranges if b <= MAXCP)
            if real:
                chars[q][r] = one(Chars(real))
            by_mark[q] += [(marks[m], r) for a, b in c.ranges if a >= MARKS for m in range(a, b + 1)]

    def chains(q: int) -> list[tuple[Expr, int]]:  # (the marks read, the state they lead to), from q
        return [(EMPTY, q)] + [(one(_pair(run, rest)), p) for run, r in by_mark[q] for rest, p in chains(r)]

    steps: dict[int, dict[int, Expr]] = {}
    finals: dict[int, Expr] = {}
    for q in moves:
        by: dict[int, list[Expr]] = {}
        ends: list[Expr] = []
        for before, p in chains(q):
            for r, c in chars[p].items():
                by.setdefault(r, []).append(one(_pair(before, c)))
            if p in accepting:
                ends.append(before)
        steps[q] = {r: one(alt(*v)) for r, v in by.items()}
        if ends:
            finals[q] = one(alt(*ends))
    return steps, finals


def _unmarked(e: Expr, marks: dict[int, Expr]) -> Expr:
    """``e`` (over a marked alphabet) with each mark's run put back."""
    if not marks:
        return e
    if isinstance(e, Chars) and any(b >= MARKS for _, b in e.ranges):
        real = tuple((a, b) for a, b in e.ranges if b <= MAXCP)
        runs = [marks[m] for a, b in e.ranges if a >= MARKS for m in range(a, b + 1)]
        return alt(*([Chars(real)] if real else []), *runs)
    if isinstance(e, Seq):
        return Seq(tuple(_unmarked(i, marks) for i in e.items))
    if isinstance(e, Alt):
        return alt(*(_unmarked(i, marks) for i in e.items))
    if isinstance(e, Rep):
        return Rep(_unmarked(e.item, marks), e.min, e.max)
    return e


def _pair(head: Expr, tail: Expr) -> Expr:
    """``head`` then ``tail``, each kept whole (:func:`~.ir.seq` would flatten a sequence into its items, and a part
    shared by many would then be spelled out in each: the halving's size is in the sharing)."""
    if head == EMPTY or tail == EMPTY:
        return seq(head, tail)
    x, y = count_of(head), count_of(tail)
    if x is not None and y is not None and x[0] == y[0] and x[2] is not None and y[2] is not None:
        return Rep(x[0], x[1] + y[1], x[2] + y[2])  # a state that loops on one class: C{m}, not m C's written out
    return Seq((head, tail))
