"""``multipleOf``: the decimal spellings of the multiples of a number, as regular IR.

A multiple of ``m`` is read digit by digit.  Write ``m = a / 10**s`` (``a`` a whole number) and a
decimal spelling as its digits ``N`` with ``t`` of them after the point: the value ``N / 10**t`` is
a multiple of ``m`` exactly when ``N * 10**(s - t)`` is a multiple of ``a`` (``t <= s``), or, for
``t > s``, when the digits after the ``s``-th fractional one are zeros and the rest is a multiple
of ``a``.  So a DFA keeps the remainder modulo ``a`` and the count of fractional digits read; it
is minimized (a multiple of 10, 2 or 5 needs only the last digit) and turned back into an
expression by state elimination (:mod:`.dfa`).  Spellings are JSON's and Python's: ``-``, a whole
part without leading zeros, an optional fraction; no exponent (a bounded number without multipleOf also takes
normalized scientific spellings, :mod:`.numbers`).  A negated ``multipleOf`` (``not``, a ``oneOf`` branch split
from another, a condition's ``else``) is the same DFA with the other complete spellings accepting, met with the
rest by the product construction.

Written out as a tree, the expression grows quickly with the remainders it must track (a multiple of 7
is a few thousand nodes, of 13 10**6, of 61 10**12), but it is a DAG noted with its automaton
(:func:`~.dfa.with_graph`): GBNF and EBNF print the automaton, one rule per state, and Lark its rules past
a tree of 40,000 nodes (:meth:`~.emit.lark.LarkPrinter.automaton`).  Beyond :data:`MAX_STATES` states or a
modulus above :data:`MAX_MODULUS`, :class:`~.dfa.DfaLimit` (the caller refuses the keyword).
"""

from __future__ import annotations

from bisect import bisect_right
from decimal import Decimal
from functools import lru_cache
from math import gcd, lcm

from .dfa import DfaLimit, build_dfa, dfa_expr, minimize, product
from .ir import Expr

#: largest remainder modulus a DFA is built for
MAX_MODULUS = 1_000
#: most states of the minimized DFA (elimination is cubic in them: 64 states, a multiple of 61, take 0.15 s)
MAX_STATES = 64
#: the DFA's character intervals: '-', '.', '/', then each digit
STARTS = [0, ord("-"), ord("."), ord("/"), *range(ord("0"), ord("9") + 2)]


def _iv(ch: str) -> int:
    return bisect_right(STARTS, ord(ch)) - 1


def scaled(m: Decimal) -> tuple[int, int]:
    """``(a, s)`` with ``m == a / 10**s``, ``a`` a whole number and ``s`` as small as it can be."""
    _, digits, exp = m.normalize().as_tuple()
    a = int("".join(map(str, digits)))
    assert isinstance(exp, int)
    return (a * 10**exp, 0) if exp >= 0 else (a, -exp)


def valid_step(v: object) -> bool:
    """Whether ``v`` may be a ``multipleOf``'s value: a finite number above 0 (not a boolean)."""
    return isinstance(v, (int, float)) and not isinstance(v, bool) and 0 < v < float("inf")


def is_multiple(v: int | float, m: Decimal) -> bool:
    """Whether the number ``v`` is a multiple of ``m``, in exact decimal arithmetic (:func:`exact_decimal`)."""
    q = exact_decimal(v) / m
    return q == q.to_integral_value()


def exact_decimal(v: float) -> Decimal:
    """The decimal a JSON number means: a float by its shortest spelling (``0.1``, not its binary value)."""
    return Decimal(repr(v)) if isinstance(v, float) else Decimal(v)


def common_multiple(m1: float, m2: float) -> int | float:
    """The least common multiple of two ``multipleOf`` values (``allOf`` of both): exact in decimal."""
    (a1, s1), (a2, s2) = scaled(exact_decimal(m1)), scaled(exact_decimal(m2))
    s = max(s1, s2)
    a = lcm(a1 * 10 ** (s - s1), a2 * 10 ** (s - s2))
    return a if s == 0 else float(Decimal(a).scaleb(-s))


def integer_step(m: Decimal) -> int:
    """``k`` such that an integer is a multiple of ``m`` exactly when ``k`` divides it (1: every
    integer, as for ``0.5`` or ``1e-8``; 3 for ``1.5``)."""
    a, s = scaled(m)
    return a // gcd(a, 10**s)


@lru_cache(maxsize=256)
def multiples(m: Decimal | None, integer: bool, within: Expr | None = None, nots: tuple[Decimal, ...] = ()) -> Expr:
    """The spellings of the multiples of ``m`` (> 0; None: any number) that are multiples of none of ``nots``
    (a negated ``multipleOf``): integers only, or numbers with a fraction; with ``within`` (a range's
    expression), those it matches too.  :class:`DfaLimit` past the caps."""
    parts = [(*_dfa(m, integer), STARTS)] if m is not None else []
    parts += [(*_dfa(n, integer, True), STARTS) for n in nots]
    if within is not None:
        parts.append(build_dfa(within))
    (trans, accepting, starts), *rest = parts
    for part in rest:  # met by the product construction: more states may be eliminated
        trans, accepting, starts = product((trans, accepting, starts), part)
        trans, accepting = minimize(trans, accepting)
    return dfa_expr(trans, accepting, starts, max_states=2 * MAX_STATES if rest else MAX_STATES)


@lru_cache(maxsize=256)
def _dfa(m: Decimal, integer: bool, negated: bool = False) -> tuple[list[dict[int, int]], set[int]]:
    """The minimized DFA over :data:`STARTS` of the multiples' spellings (``negated``: of the spellings of the
    numbers that are not multiples: a digit other than ``0`` past ``m``'s last decimal place makes one)."""
    a, s = (integer_step(m), 0) if integer else scaled(m)
    if a > MAX_MODULUS:
        raise DfaLimit(f"a multiple of {m}: more than {MAX_MODULUS} remainders")
    trans: list[dict[int, int]] = []
    accepting: set[int] = set()
    ids: dict[tuple[object, ...], int] = {}
    todo: list[tuple[object, ...]] = []

    def state(key: tuple[object, ...]) -> int:
        if key not in ids:
            ids[key] = len(trans)
            trans.append({})
            todo.append(key)
        return ids[key]

    def edge(key: tuple[object, ...], ch: str, to: tuple[object, ...]) -> None:
        trans[ids[key]][_iv(ch)] = state(to)

    state(("start",))
    while todo:
        key = todo.pop()
        kind = key[0]
        if kind in ("start", "sign"):
            if kind == "start":
                edge(key, "-", ("sign",))
            edge(key, "0", ("whole", 0, True))
            for d in "123456789":
                edge(key, d, ("whole", int(d) % a, False))
        elif kind == "whole":  # ("whole", remainder, the whole part is "0")
            _, r, zero = key
            assert isinstance(r, int)
            if (r * 10**s % a == 0) != negated:
                accepting.add(ids[key])
            if not zero:
                for d in "0123456789":
                    edge(key, d, ("whole", (10 * r + int(d)) % a, False))
            if not integer:
                edge(key, ".", ("frac", r, 0))
        elif kind == "frac":  # ("frac", remainder, fractional digits read, up to s; past s only zeros)
            _, r, j = key
            assert isinstance(r, int) and isinstance(j, int)
            if j > 0 and (r * 10 ** max(s - j, 0) % a == 0) != negated:
                accepting.add(ids[key])
            for d in "0123456789":
                if j < s:
                    edge(key, d, ("frac", (10 * r + int(d)) % a, j + 1))
                elif d == "0":
                    edge(key, d, ("frac", r, s + 1))
                elif negated:
                    edge(key, d, ("past",))
        else:  # ("past",): a digit other than 0 past s was read (negated only): any digits follow
            accepting.add(ids[key])
            for d in "0123456789":
                edge(key, d, key)
    return minimize(trans, accepting)
