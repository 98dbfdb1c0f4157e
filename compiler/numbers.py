"""Numbers within bounds, as grammar expressions: integers (``minimum``/``maximum`` on ``integer``) and JSON
numbers (on ``number``), in the spellings JSON writers use.

An integer is written in canonical decimal (``-12``).  A number is written in plain decimal (``-1.50``) or in
normalized scientific notation (``1e-05``, ``1.5E+16``: one non-zero digit before the point, then an exponent
with an optional sign and leading zeros), as Python's ``json.dumps`` and JavaScript's ``JSON.stringify`` write
numbers too large or too small for plain decimal.  Every spelling admitted lies within the bounds, exactly
(``Decimal`` arithmetic).  A number's other scientific spellings (``10e-6``, ``0.1e2``) are not admitted; the
unbounded rule admits every JSON spelling.
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import Any

from .ir import EMPTY, Chars, Expr, Lit, Rep, alt, opt, seq

#: Most decimal digits of a plain spelling's whole part within bounds (the range rules grow with the digits): past a
#: bound beyond them (``maximum: 1.79769e+308``), integers and plain decimals stop at them (a subset), and the
#: scientific spellings reach the bound
MAX_INT_DIGITS = 40
_TOP = 10**MAX_INT_DIGITS - 1

DIGIT = Chars(((ord("0"), ord("9")),))
DIGIT19 = Chars(((ord("1"), ord("9")),))
FRAC = seq(Lit("."), Rep(DIGIT, 1, None))


def int_range(lo: int | None, hi: int | None) -> Expr:
    """Integers in ``[lo, hi]`` (either end open), in canonical decimal spelling."""
    if lo is not None and hi is not None and lo > hi:
        raise ValueError("empty integer range")
    lo = None if lo is None else max(lo, -_TOP)
    hi = None if hi is None else min(hi, _TOP)
    parts: list[Expr] = []
    if lo is None or lo < 0:
        neg_hi = -lo if lo is not None else None  # magnitudes
        neg_lo = 1 if hi is None or hi >= 0 else -hi
        parts.append(seq(Lit("-"), _nonneg_range(neg_lo, neg_hi)))
    if hi is None or hi >= 0:
        parts.append(_nonneg_range(max(lo or 0, 0), hi))
    return alt(*parts)


def _nonneg_range(a: int, b: int | None) -> Expr:
    """Whole numbers ``a <= n <= b`` (``b`` None: open), without leading zeros."""
    return alt(*(e for _, e in _wholes_by_length(a, b)))


def _same_length(lo: str, hi: str) -> Expr:
    if not lo:
        return EMPTY
    if len(lo) == 1:
        return _digit_class(lo, hi)
    if lo[0] == hi[0]:
        return seq(Lit(lo[0]), _same_length(lo[1:], hi[1:]))
    rest = len(lo) - 1
    if set(lo[1:]) == {"0"} and set(hi[1:]) == {"9"}:
        return seq(_digit_class(lo[0], hi[0]), Rep(DIGIT, rest, rest))
    parts = [seq(Lit(lo[0]), _same_length(lo[1:], "9" * rest))]
    if int(lo[0]) + 1 <= int(hi[0]) - 1:
        parts.append(seq(_digit_class(str(int(lo[0]) + 1), str(int(hi[0]) - 1)), Rep(DIGIT, rest, rest)))
    parts.append(seq(Lit(hi[0]), _same_length("0" * rest, hi[1:])))
    return alt(*parts)


def _digit_class(lo: str, hi: str) -> Expr:
    return Lit(lo) if lo == hi else Chars(((ord(lo), ord(hi)),))


# -- decimal ranges (``number`` with bounds) ------------------------------------------------------
#: a fraction bound is ``(digits, exclusive)``: the fraction's digits without trailing zeros; None: no bound
_ANY = "any"
DIGITS_ANY = Rep(DIGIT, 0, None)


def _frac_step(bound: tuple[str, bool] | None, c: int, upper: bool) -> Any:
    """What a fraction bound leaves for the digits after a first digit ``c``: ``_ANY``, None (no digit
    string), or the rest of the bound."""
    if bound is None:
        return _ANY
    f, ex = bound
    d = int(f[0]) if f else 0
    if not upper:
        if c > d:
            return _ANY
        if c < d:
            return None
        rest = (f[1:], ex) if f else ("", True)
        return _ANY if rest == ("", False) else rest
    if not f and not ex:  # at most 0.000...: only zeros
        return ("", False) if c == 0 else None
    if c < d:
        return _ANY
    if c > d:
        return None
    return (f[1:], ex)


def _fraction(lower: tuple[str, bool] | None, upper: tuple[str, bool] | None) -> tuple[Expr | None, bool]:
    """Digit strings ``s`` with ``0.s`` within the bounds: (the non-empty ones, whether the empty one is)."""
    if upper == ("", True):
        return None, False
    if lower is None and upper is None:
        return Rep(DIGIT, 1, None), True
    if lower == ("", True):
        if upper is None:
            return seq(Rep(Lit("0"), 0, None), DIGIT19, DIGITS_ANY), False
        if upper[0] == "":
            return None, False
    if lower is None and upper == ("", False):
        return Rep(Lit("0"), 1, None), True
    parts: list[Expr] = []
    free: list[int] = []
    for c in range(10):
        lo, hi = _frac_step(lower, c, False), _frac_step(upper, c, True)
        if lo is None or hi is None:
            continue
        if lo is _ANY and hi is _ANY:
            free.append(c)
            continue
        ne, empty = _fraction(None if lo is _ANY else lo, None if hi is _ANY else hi)
        rest = [x for x in (ne, EMPTY if empty else None) if x is not None]
        if rest:
            parts.append(seq(Lit(str(c)), alt(*rest)))
    runs: list[list[int]] = []
    for c in free:
        if runs and runs[-1][1] == c - 1:
            runs[-1][1] = c
        else:
            runs.append([c, c])
    free_parts = [seq(_digit_class(str(a), str(b)), DIGITS_ANY) for a, b in runs]
    found = free_parts + parts
    return (alt(*found) if found else None), lower is None


def _with_fraction(whole: Expr, lower: tuple[str, bool] | None, upper: tuple[str, bool] | None) -> Expr | None:
    ne, empty = _fraction(lower, upper)
    tails = [x for x in (EMPTY if empty else None, None if ne is None else seq(Lit("."), ne)) if x is not None]
    return seq(whole, alt(*tails)) if tails else None


def _split(v: Decimal) -> tuple[int, str]:
    """``v`` (non-negative) as its whole part and its fraction's digits without trailing zeros."""
    whole = int(v)  # truncates: v >= 0
    frac = format(v - whole, "f")
    digits = frac.split(".", 1)[1].rstrip("0") if "." in frac else ""
    return whole, digits


def _wholes_by_length(a: int, b: int | None) -> list[tuple[int, Expr]]:
    """Whole numbers in ``[a, b]`` grouped by their digit count (``b`` None: the longest group is open)."""
    out: list[tuple[int, Expr]] = []
    top = b if b is not None else 10 ** len(str(a)) - 1
    for length in range(len(str(a)), len(str(top)) + 1):
        lo = max(a, 10 ** (length - 1) if length > 1 else 0)
        hi = min(top, 10**length - 1)
        if lo <= hi:
            out.append((length, _same_length(str(lo), str(hi))))
    if b is None:
        out.append((len(str(a)) + 1, seq(DIGIT19, Rep(DIGIT, len(str(a)), None))))
    return out


def _nonneg_decimal(a: Decimal, a_ex: bool, b: Decimal | None, b_ex: bool) -> Expr | None:
    """Non-negative decimals (no exponent) between ``a`` and ``b`` (None: no upper bound).  Longer
    whole parts come first: a Lark terminal takes the first alternative that matches, and ``1``
    must not end a token that ``10`` continues."""
    whole_a, fa = _split(a)
    lower = None if fa == "" and not a_ex else (fa, a_ex)
    parts: list[tuple[int, Expr | None]] = []
    if b is not None:
        whole_b, fb = _split(b)
        upper = (fb, b_ex)
        if whole_a == whole_b:
            return _with_fraction(Lit(str(whole_a)), lower, upper)
        parts.append((len(str(whole_a)), _with_fraction(Lit(str(whole_a)), lower, None)))
        if whole_a + 1 <= whole_b - 1:
            parts += [(n, seq(e, opt(FRAC))) for n, e in _wholes_by_length(whole_a + 1, whole_b - 1)]
        parts.append((len(str(whole_b)), _with_fraction(Lit(str(whole_b)), None, upper)))
    else:
        parts.append((len(str(whole_a)), _with_fraction(Lit(str(whole_a)), lower, None)))
        parts += [(n, seq(e, opt(FRAC))) for n, e in _wholes_by_length(whole_a + 1, None)]
    found = [e for _, e in sorted(parts, key=lambda p: -p[0]) if e is not None]
    return alt(*found) if found else None


def decimal_range(lo: Decimal | None, lo_ex: bool, hi: Decimal | None, hi_ex: bool) -> Expr:
    """JSON numbers (``-``, whole part, optional fraction; no exponent) between ``lo`` and ``hi``
    (None: unbounded; ``*_ex``: the bound itself excluded).  ValueError when none is."""
    if lo is not None and hi is not None and (lo > hi or (lo == hi and (lo_ex or hi_ex))):
        raise ValueError("empty number range")
    if lo is not None and lo < -_TOP:
        lo, lo_ex = Decimal(-_TOP), False
    if hi is not None and hi > _TOP:
        hi, hi_ex = Decimal(_TOP), False
    found = _signed(lo, lo_ex, hi, hi_ex, _nonneg_decimal)
    if found is None:
        raise ValueError("empty number range")
    return found


def _signed(lo: Decimal | None, lo_ex: bool, hi: Decimal | None, hi_ex: bool,
            magnitudes: Callable[[Decimal, bool, Decimal | None, bool], Expr | None]) -> Expr | None:
    """The numbers between the bounds: ``-`` and the ``magnitudes`` of the negative ones (``-0`` where 0 is in
    range), then the non-negative ones; None when there are none."""
    parts: list[Expr | None] = []
    if lo is None or lo < 0:
        # magnitudes of the negative numbers (and -0 where 0 is in range)
        if hi is None or hi > 0:
            m_lo, m_lo_ex = Decimal(0), False
        else:
            m_lo, m_lo_ex = -hi, hi_ex
        m_hi, m_hi_ex = (None, False) if lo is None else (-lo, lo_ex)
        neg = magnitudes(m_lo, m_lo_ex, m_hi, m_hi_ex)
        if neg is not None:
            parts.append(seq(Lit("-"), neg))
    if hi is None or hi > 0 or (hi == 0 and not hi_ex):
        p_lo, p_lo_ex = (Decimal(0), False) if lo is None or lo < 0 else (lo, lo_ex)
        parts.append(magnitudes(p_lo, p_lo_ex, hi, hi_ex))
    found = [p for p in parts if p is not None]
    return alt(*found) if found else None


# -- scientific spellings -----------------------------------------------------------------------
#: a mantissa of normalized scientific notation: ``[1-9](.[0-9]+)?``, every value in [1, 10)
_MANTISSA = seq(DIGIT19, opt(FRAC))
_E = Chars.of("eE")


def _exponents(lo: int | None, hi: int | None) -> Expr | None:
    """The spellings of an exponent ``k`` with ``lo <= k <= hi`` (None: open): an optional ``+`` (or ``-``),
    leading zeros allowed (Python writes ``1e-05``)."""
    if lo is not None and hi is not None and lo > hi:
        return None
    # zero last: a Lark terminal takes the first alternative that matches, and ``-0`` must not end a token
    # that ``-05`` continues
    parts: list[Expr] = []
    if lo is None or lo < 0:  # k < 0: "-" 0* magnitude
        m_lo = 1 if hi is None or hi >= 0 else -hi
        parts.append(seq(Lit("-"), Rep(Lit("0"), 0, None), _nonneg_range(m_lo, None if lo is None else -lo)))
    if hi is None or hi >= 1:  # k > 0: "+"? 0* digits
        a = max(lo, 1) if lo is not None else 1
        if hi is None or hi >= a:
            parts.append(seq(opt(Lit("+")), Rep(Lit("0"), 0, None), _nonneg_range(a, hi)))
    if (lo is None or lo <= 0) and (hi is None or hi >= 0):  # k = 0: 0, -0, +00
        parts.append(seq(opt(Chars.of("+-")), Rep(Lit("0"), 1, None)))
    return alt(*parts) if parts else None


def _mantissas(lo: Decimal | None, lo_ex: bool, hi: Decimal | None, hi_ex: bool) -> Expr | None:
    """Mantissas ``m`` in [1, 10) within the bounds (None: 1 or 10)."""
    if lo is None and hi is None:
        return _MANTISSA
    return _nonneg_decimal(lo if lo is not None else Decimal(1), lo_ex if lo is not None else False,
                           hi if hi is not None else Decimal(10), hi_ex if hi is not None else True)


def _nonneg_scientific(a: Decimal, a_ex: bool, b: Decimal | None, b_ex: bool) -> Expr | None:
    """Positive numbers in normalized scientific notation between ``a`` and ``b`` (None: no upper bound).
    ``m e k`` is ``m * 10**k`` with ``m`` in [1, 10): exponents strictly between those of the bounds take any
    mantissa, and an exponent equal to a bound's takes the mantissas on its side of it."""
    if b is not None and b <= 0:
        return None
    ka = a.adjusted() if a > 0 else None  # the exponent of a's leading digit; None: every smaller one too
    kb = b.adjusted() if b is not None else None
    parts: list[Expr | None] = []
    if ka is not None and ka == kb:
        assert b is not None
        parts.append(_sci(_mantissas(a.scaleb(-ka), a_ex, b.scaleb(-kb), b_ex), ka, ka))
    else:
        if ka is not None:
            parts.append(_sci(_mantissas(a.scaleb(-ka), a_ex, None, False), ka, ka))
        if b is not None and kb is not None:
            parts.append(_sci(_mantissas(None, False, b.scaleb(-kb), b_ex), kb, kb))
        middle_lo = None if ka is None else ka + 1
        middle_hi = None if kb is None else kb - 1
        parts.append(_sci(_MANTISSA, middle_lo, middle_hi))
    found = [p for p in parts if p is not None]
    return alt(*found) if found else None


def _sci(mantissas: Expr | None, lo: int | None, hi: int | None) -> Expr | None:
    exponents = _exponents(lo, hi)
    return None if mantissas is None or exponents is None else seq(mantissas, _E, exponents)


def number_range(lo: Decimal | None, lo_ex: bool, hi: Decimal | None, hi_ex: bool) -> Expr:
    """JSON numbers between ``lo`` and ``hi`` (None: unbounded; ``*_ex``: the bound itself excluded), in plain
    decimal (up to :data:`MAX_INT_DIGITS` whole digits) and in normalized scientific spelling (which reaches a
    bound such as ``1.79769e+308``).  The scientific alternatives come first: a Lark terminal takes the first
    alternative that matches, and ``1`` must not end a token that ``1e5`` continues.  ValueError when no number
    is in range."""
    plain = decimal_range(lo, lo_ex, hi, hi_ex)
    found = _signed(lo, lo_ex, hi, hi_ex, _nonneg_scientific)
    return plain if found is None else alt(found, plain)
