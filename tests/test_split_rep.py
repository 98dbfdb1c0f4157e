"""Wide bounded repetitions printed as nested blocks keep their language (issue 10: xgrammar compile time).

EBNF prints ``x{m,n}`` with ``n - m >= 32`` (call ids ``{1,64}``, long ``maxLength`` strings) as
``x{m} ((x{8}){0,A-1} x{0,7} | (x{8}){A} x{0,r-1})`` (:func:`toolgram.compiler.emit.bnf.split_rep`).
Checked in xgrammar: exactly the lengths ``m..n`` are accepted, for bounds on both sides of a block
boundary, a multi-character item, and a width that splits twice.
"""

from __future__ import annotations

import pytest
from toolgram.compiler.emit.bnf import EbnfPrinter, split_rep
from toolgram.compiler.ir import Chars, Grammar, Lit, Rep

BOUNDS = [(0, 32), (1, 64), (0, 63), (0, 40), (3, 50), (5, 37), (0, 33), (2, 100), (0, 600)]


@pytest.mark.parametrize(("lo", "hi"), BOUNDS)
@pytest.mark.parametrize("item", [Chars.of("a"), Lit("ab")], ids=["char", "word"])
def test_split_repetition_accepts_exactly_its_lengths(lo: int, hi: int, item: Chars | Lit) -> None:
    from toolgram.engines import xgrammar_engine as xe

    unit = "a" if isinstance(item, Chars) else "ab"
    text = EbnfPrinter(Grammar(rules={"root": Rep(item, lo, hi)})).render()
    assert "{" + f"{lo},{hi}" + "}" not in text, text  # printed split, not as written
    compiled = xe.compile_ebnf(text)
    lengths = sorted({0, 1, lo - 1, lo, lo + 1, hi - 1, hi, hi + 1, hi + 8, *range(max(0, lo - 9), lo + 17, 1),
                      *range(max(0, hi - 17), hi + 9)} - {-1})
    got = [n for n in lengths if xe.accepts_compiled(compiled, unit * n)[0]]
    assert got == [n for n in lengths if lo <= n <= hi], text


def test_narrow_repetition_is_printed_as_written() -> None:
    assert "[a]{0,31}" in EbnfPrinter(Grammar(rules={"root": Rep(Chars.of("a"), 0, 31)})).render()
    assert split_rep(Rep(Chars.of("a"), 0, 63)) != Rep(Chars.of("a"), 0, 63)
