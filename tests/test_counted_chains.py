"""An automaton's chain of states that each read the same class is written as one bounded repetition.

A key class bounded by ``propertyNames: {maxLength: 1024}`` (MergeQueue's schema in SchemaStore) is an automaton
of 1,024 states in a row.  State elimination wrote it as an expression nested a level per character
(``(C(C(C…)?)?)?``): 2,048 levels, which every recursive walk over the IR (Python's recursion limit) and every
engine's unrolling paid for.  Now the writer counts: ``C{0,1024}``, the engines' own repetition form.
"""

from __future__ import annotations

from typing import Any

import pytest
from strategies import engine_results, tool
from toolgram.compiler.bundle import compile
from toolgram.compiler.dfa import build_dfa, dfa_expr
from toolgram.compiler.ir import EMPTY, Alt, Chars, Expr, Lit, Rep, Seq, alt, seq
from toolgram.grammars.render import render_calls
from toolgram.parsing.strict import parse_strict

ANY = Chars(((0, 0x10FFFF),))
A = Chars(((ord("a"), ord("a")),))


def _depth(e: Expr) -> int:
    if isinstance(e, (Seq, Alt)):
        return 1 + max((_depth(i) for i in e.items), default=0)
    if isinstance(e, Rep):
        return 1 + _depth(e.item)
    return 1


def _written(e: Expr) -> Expr:
    trans, accepting, starts = build_dfa(e)
    return dfa_expr(trans, accepting, starts)


@pytest.mark.parametrize(("expr", "expected"), [
    (Rep(ANY, 0, 1024), Rep(ANY, 0, 1024)),
    (Rep(A, 3, 700), Rep(A, 3, 700)),
    (Rep(A, 5, None), Rep(A, 5, None)),
    (seq(Lit("x"), Rep(A, 0, 300)), None),  # a prefix, then the chain
    (alt(Rep(A, 0, 2), Rep(A, 6, 9)), None),  # counts that do not meet stay apart
])
def test_a_chain_is_one_repetition(expr: Expr, expected: Expr | None) -> None:
    """The written expression is shallow, and (where given) exactly the counted class."""
    out = _written(expr)
    assert _depth(out) <= 10, out
    if expected is not None:
        assert out == expected


def test_the_written_language_is_the_same() -> None:
    """Counting never changes the words: every length 0..12 of ``a`` agrees with the source expression."""
    import re

    from toolgram.compiler.dfa import dfa_regex

    for expr in (Rep(A, 0, 5), Rep(A, 2, 4), alt(Rep(A, 0, 2), Rep(A, 6, 9)), seq(Rep(A, 1, 3), Rep(A, 2, None)),
                 alt(EMPTY, Rep(A, 2, 3))):
        src = re.compile(dfa_regex(expr))
        out = re.compile(dfa_regex(_written(expr)))
        for n in range(13):
            assert bool(src.fullmatch("a" * n)) == bool(out.fullmatch("a" * n)), (expr, n)


PARAMS: dict[str, Any] = {"type": "object", "properties": {"name": {"type": "string"}},
                          "propertyNames": {"maxLength": 1024}, "additionalProperties": {"type": "integer"}}


@pytest.mark.parametrize(("key", "ok"), [("k" * 1024, True), ("k" * 1025, False), ("q", True)])
def test_a_long_bound_on_key_names(key: str, ok: bool) -> None:
    """``propertyNames: {maxLength: 1024}`` compiles in every dialect and holds: xgrammar, llama.cpp, Lark and the
    strict parser accept a 1,024-character extra key and refuse a 1,025-character one."""
    text = render_calls("hermes", [("f", {"name": "n", key: 1})])
    for dialect in ("ebnf", "gbnf", "lark"):
        bundle = compile("hermes", [tool("f", PARAMS)], dialect=dialect, tool_choice="required")
        results = engine_results(bundle, text)
        assert {accepted for accepted, _ in results.values()} == {ok}, (dialect, results)
    assert bool(parse_strict("hermes", text, [tool("f", PARAMS)], tool_choice="required")["tool_calls"]) == ok
