"""toolgram's replacements for two of Lark's grammar analyses (:mod:`toolgram.compiler.emit.lark_analysis`) give
Lark's own results: FIRST, FOLLOW and NULLABLE for random grammars and for compiled ones, and the same LALR
tables, conflicts included."""

from __future__ import annotations

from typing import Any

import lark
import pytest
from hypothesis import given
from hypothesis import strategies as st
from lark.parsers import grammar_analysis
from strategies import tool
from toolgram.compiler.bundle import compile
from toolgram.compiler.emit.lark import new_lark
from toolgram.compiler.emit.lark_analysis import calculate_sets, faster_analysis
from toolgram.grammars import FORMATS

RULES = [f"r{i}" for i in range(5)]
SYMBOLS = [*RULES, "A", "B", "C"]

#: a grammar of five rules over three terminals: each rule has one to three alternatives of up to four symbols
grammars = st.lists(
    st.lists(st.lists(st.sampled_from(SYMBOLS), max_size=4), min_size=1, max_size=3),
    min_size=len(RULES), max_size=len(RULES))


def lark_text(alternatives: list[list[list[str]]]) -> str:
    lines = ["start: r0"]
    for name, alts in zip(RULES, alternatives, strict=True):
        lines.append(f"{name}: " + " | ".join(" ".join(a) for a in alts))
    return "\n".join(lines) + '\nA: "a"\nB: "b"\nC: "c"\n'


def rules_of(text: str) -> list[Any]:
    """The rules Lark analyses for ``text`` (its own plus the ``$root`` rule), before any table is built."""
    from lark.grammar import NonTerminal, Rule, Terminal

    built = lark.Lark(text, parser="earley", lexer="dynamic", keep_all_tokens=True)
    return [*built.rules, Rule(NonTerminal("$root_start"), [NonTerminal("start"), Terminal("$END")])]


def tables(text: str, faster: bool) -> Any:
    """The LALR parse table (actions by state and token) Lark builds for ``text``, or the error it raises."""
    try:
        if faster:
            with faster_analysis():
                built = lark.Lark(text, parser="lalr", lexer="contextual", debug=True)
        else:
            built = lark.Lark(text, parser="lalr", lexer="contextual", debug=True)
    except lark.exceptions.GrammarError as e:
        return type(e).__name__
    states = built.parser.parser.parser.parse_table.states
    return {s: {t: (a.name, str(arg)) for t, (a, arg) in acts.items()} for s, acts in states.items()}


@given(grammars)
def test_the_sets_are_larks(alternatives: list[list[list[str]]]) -> None:
    rules = rules_of(lark_text(alternatives))
    assert calculate_sets(rules) == grammar_analysis.calculate_sets(rules)


@given(grammars)
def test_the_lalr_tables_are_larks(alternatives: list[list[list[str]]]) -> None:
    text = lark_text(alternatives)
    assert tables(text, faster=True) == tables(text, faster=False)


def _schema() -> dict[str, Any]:
    """An object of optional members in order (a long FOLLOW chain), with nested and alternative values."""
    members: dict[str, Any] = {f"k{i}": {"type": ["string", "integer"]} for i in range(12)}
    members["nested"] = {"type": "object", "properties": {"a": {"type": "boolean"}, "b": {"type": "array"}}}
    members["either"] = {"anyOf": [{"type": "object", "properties": {"x": {"type": "string"}}},
                                   {"type": "object", "properties": {"x": {"type": "string"}, "y": {}}}]}
    return {"type": "object", "properties": members}


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_compiled_grammars_get_larks_sets(fmt: str) -> None:
    """Every format's grammar for the same tools: Lark's sets, and (where it is LALR) Lark's tables."""
    bundle = compile(fmt, [tool("f", _schema()), tool("g", {"type": "object"})], dialect="lark")
    text = bundle.grammar or ""
    rules = rules_of(text)
    assert calculate_sets(rules) == grammar_analysis.calculate_sets(rules)
    if bundle.lark_parser == "lalr":
        assert tables(text, faster=True) == tables(text, faster=False)
    new_lark(text, parser=bundle.lark_parser)  # and toolgram's own constructor builds it


def test_the_analyses_are_put_back() -> None:
    from lark.parsers import lalr_analysis

    before = grammar_analysis.calculate_sets, lalr_analysis.LALR_Analyzer.compute_includes_lookback
    with faster_analysis():
        assert grammar_analysis.calculate_sets is calculate_sets
    assert (grammar_analysis.calculate_sets, lalr_analysis.LALR_Analyzer.compute_includes_lookback) == before
