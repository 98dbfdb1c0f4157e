"""EBNF's free text with a first-character rule keeps its language (issue 10: xgrammar compile time).

Text that avoids some strings and may not start with some characters (``Until`` with ``first_not``
or ``nonempty``: the content of the start-anchored formats, llama3_json's and the pythonic ones')
is printed in EBNF as the automaton's states short of its root, the root being xgrammar's tag-less
``TagDispatch`` (about 2x faster to compile than the whole automaton).  The differential check: the
same IR printed that way and as the whole automaton (the GBNF printer's form) gives the same
accept/reject in xgrammar, for every such text the formats make and for hand-made hard cases
(overlapping and shared-prefix strings, stops followed or not), on a corpus of the forbidden strings,
their prefixes and mutations.
"""

from __future__ import annotations

import itertools
import random

import pytest
from strategies import ir_nodes
from toolgram.compiler.automaton import until_rules
from toolgram.compiler.bundle import compile
from toolgram.compiler.emit.bnf import BnfPrinter, EbnfPrinter
from toolgram.compiler.ir import Grammar, Lit, Token, Until, alt, seq
from toolgram.grammars import FORMATS

HARD = [
    Until(("<|python_tag|>",), followed=False, first_not="[ \t\n", nonempty=True),
    Until(("<|python_tag|>",), first_not="{ \t\n", nonempty=True),
    Until(("aab", "ab"), followed=False, first_not="b", nonempty=True),
    Until(("<x>", "<y>"), excludes=("<<",), followed=False, nonempty=True),
    Until(("ab",), followed=False, first_not="a"),
    Until(("abab",), followed=False, first_not=" ", nonempty=True),
]


class _AutomatonEbnf(EbnfPrinter):
    """EBNF with every ``Until`` written as the whole automaton (the form before the peel)."""

    until = BnfPrinter.until


class _GroupedEbnf(_AutomatonEbnf):
    """The whole automaton with each state's loop before one group of its alternatives (GBNF's form)."""

    flat_loops = False


def _format_untils(every: bool = False) -> list[Until]:
    tools = [{"type": "function", "function": {"name": "f", "parameters": {"type": "object",
              "properties": {"a": {"type": "string"}}}}}]
    found: set[Until] = set()
    for fmt in FORMATS:
        # both raw XML value rules: the first closing tag, and the look-ahead (its whitespace gap)
        for xml_values in ("first_close", "lookahead") if every else ("first_close",):
            ir = compile(fmt, tools, dialect="ebnf", xml_values=xml_values).ir
            if ir is None:
                continue
            for body in ir.rules.values():
                found.update(x for x in ir_nodes(body) if isinstance(x, Until))
    return sorted((u for u in found if every or u.first_not or u.nonempty), key=repr)


def _corpus(u: Until) -> list[str]:
    words = list(dict.fromkeys(u.stops + u.excludes))
    atoms = sorted({c for w in words for c in w} | set(u.first_not) | {"x", " "})
    texts = {""}
    for w in words:
        for k in range(len(w) + 1):
            texts |= {w[:k], "x" + w[:k], w[:k] + "x", w[:k] + w, " " + w[:k], w[k:]}
    for n in range(1, 4):
        texts |= {"".join(p) for p in itertools.product(atoms, repeat=n)}
    rng = random.Random(repr(u))
    for _ in range(400):
        parts = [rng.choice(words + atoms) for _ in range(rng.randint(1, 5))]
        texts.add("".join(parts))
    return sorted(texts)


def _grammar(u: Until) -> Grammar:
    # the text, then a marker: both forms must end the text at the same places
    return Grammar(rules={"root": seq(Token(u, "TEXT"), Lit("\x01"))})


def assert_same_verdicts(u: Until, text_a: str, text_b: str, a: str, b: str) -> None:
    """The two EBNF texts of ``_grammar(u)`` accept and reject alike in xgrammar on ``u``'s corpus
    (which holds texts of both kinds)."""
    from toolgram.engines import xgrammar_engine as xe

    first, second = xe.compile_ebnf(text_a), xe.compile_ebnf(text_b)
    verdicts = []
    for text in _corpus(u):
        got, want = xe.accepts_compiled(first, text + "\x01")[0], xe.accepts_compiled(second, text + "\x01")[0]
        assert got == want, f"{u}: {a} {'accepts' if got else 'rejects'} {text!r}, {b} does not"
        verdicts.append(got)
    assert any(verdicts) and not all(verdicts)


CASES = HARD + _format_untils()


@pytest.mark.parametrize("u", CASES, ids=[f"{i}" for i in range(len(CASES))])
def test_peeled_free_text_keeps_the_language(u: Until) -> None:
    g = _grammar(u)
    peeled, whole = EbnfPrinter(g).render(), _AutomatonEbnf(g).render()
    if until_rules(u, "t", "free") is not None:
        assert "TagDispatch" in peeled and "TagDispatch" not in whole, peeled
    assert_same_verdicts(u, peeled, whole, "peeled", "the automaton")


ALL_CASES = [*HARD, Until(("</p><p=", "</p></f>"), followed=False, gap=("</p>", " \n")), *_format_untils(every=True)]


@pytest.mark.parametrize("u", ALL_CASES, ids=[f"{i}" for i in range(len(ALL_CASES))])
def test_flat_loops_keep_the_language(u: Until) -> None:
    """EBNF writes a looping state's loop before each alternative (``[<]* | [<]* [^/<] s0 | ...``:
    xgrammar's mask time stays flat inside a raw value); the same automaton with one group after the
    loop (GBNF's form) accepts and rejects alike in xgrammar, raw XML values' whitespace gaps included."""
    g = _grammar(u)
    flat, grouped = _AutomatonEbnf(g).render(), _GroupedEbnf(g).render()
    assert ("]* (" in grouped) == (flat != grouped), (flat, grouped)  # a loop before a group is what differs
    assert_same_verdicts(u, flat, grouped, "flat", "grouped")


def test_the_formats_have_such_texts() -> None:
    """The start-anchored formats' content is among the cases (the peel is not tested on toys only),
    and the raw XML values are among the flat-loop cases, printed differently from the grouped form."""
    assert any("<|python_tag|>" in u.stops for u in _format_untils())
    raw = [u for u in _format_untils(every=True) if u.gap]
    assert raw and all(_AutomatonEbnf(_grammar(u)).render() != _GroupedEbnf(_grammar(u)).render() for u in raw)


@pytest.mark.parametrize("printer", [BnfPrinter, EbnfPrinter, _AutomatonEbnf], ids=["gbnf", "ebnf", "ebnf-whole"])
def test_equal_automata_are_printed_once(printer: type[BnfPrinter]) -> None:
    """A text followed by a stop and one that is not have the same automaton when no stop overlaps
    itself (llama3_json's content alone and before ``<|python_tag|>``): one set of rules for both
    (llama3_json's auto EBNF: 14 rules fewer, xgrammar compile 261 -> 138 ms at 1 tool); a different
    automaton gets rules of its own."""
    alone = Until(("<|python_tag|>",), followed=False, first_not="{ \t\n", nonempty=True)
    before = Until(("<|python_tag|>",), first_not="{ \t\n", nonempty=True)
    other = Until(("<|python_tag|>",), first_not="[ \t\n", nonempty=True)
    texts = (seq(Token(alone, "TEXT"), Lit("!")), seq(Token(before, "TEXT"), Lit("<|python_tag|>")),
             seq(Token(other, "TEXT"), Lit("?")))
    lines = printer(Grammar(rules={"root": alt(*texts)})).render().splitlines()
    assert lines[0] == 'root ::= text-1 "!" | text-1 "<|python_tag|>" | text-2 "?"', lines
    peeled = printer is EbnfPrinter
    rules = until_rules(alone, "t", "free" if peeled else None)
    assert rules is not None
    assert sum(1 for line in lines if line.startswith("text-")) == 2 * len(rules[1]), lines
