"""EBNF's free text keeps its language in every form the printer writes (issue 10: xgrammar compile time).

Text that avoids some strings (``Until``) is printed in EBNF, fastest first, as xgrammar's tag-less
``TagDispatch``; as one rule holding the automaton as a regular expression (:func:`until_expr`: raw
XML values, and text with a first-character rule such as the start-anchored formats' content); or,
when that expression would be too large, as the automaton's states short of its root, the root being
the ``TagDispatch`` ("peeled").  The differential check: the same IR printed each way and as the whole
automaton, one rule per state (the GBNF printer's form), gives the same accept/reject in xgrammar,
for every such text the formats make and for hand-made hard cases (overlapping and shared-prefix
strings, stops followed or not, whitespace gaps), on a corpus of the forbidden strings, their
prefixes and mutations.
"""

from __future__ import annotations

import itertools
import random

import pytest
from strategies import ir_nodes
from toolgram.compiler.automaton import until_expr, until_rules
from toolgram.compiler.bundle import compile
from toolgram.compiler.emit.bnf import BnfPrinter, EbnfPrinter
from toolgram.compiler.ir import Grammar, Lit, Token, Until, seq
from toolgram.grammars import FORMATS

HARD = [
    Until(("<|python_tag|>",), followed=False, first_not="[ \t\n", nonempty=True),
    Until(("<|python_tag|>",), first_not="{ \t\n", nonempty=True),
    Until(("aab", "ab"), followed=False, first_not="b", nonempty=True),
    Until(("<x>", "<y>"), excludes=("<<",), followed=False, nonempty=True),
    Until(("ab",), followed=False, first_not="a"),
    Until(("abab",), followed=False, first_not=" ", nonempty=True),
    Until(("</p><p=", "</p></f>"), followed=False, gap=("</p>", " \n")),
    Until(("\n</p>\n<p=", "\n</p>\n</f>"), gap=("\n</p>", " \n")),
    Until(("aab", "ab"), excludes=("ba",)),
    Until(("<x>",), followed=False, nonempty=True),
]


class _AutomatonEbnf(EbnfPrinter):
    """EBNF with every ``Until`` written as the whole automaton, one rule per state."""

    until = BnfPrinter.until
    until_inline = False


class _PeeledEbnf(EbnfPrinter):
    """EBNF without the regular-expression form (what the printer falls back to for large automata)."""

    until_inline = False


def _format_untils() -> list[Until]:
    tools = [{"type": "function", "function": {"name": "f", "parameters": {"type": "object",
              "properties": {"a": {"type": "string"}}}}}]
    found: set[Until] = set()
    for fmt in FORMATS:
        ir = compile(fmt, tools, dialect="ebnf").ir
        if ir is None:
            continue
        for body in ir.rules.values():
            found.update(x for x in ir_nodes(body) if isinstance(x, Until))
    return sorted(found, key=repr)


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


CASES = HARD + _format_untils()


@pytest.mark.parametrize("u", CASES, ids=[f"{i}" for i in range(len(CASES))])
def test_free_text_forms_keep_the_language(u: Until) -> None:
    from toolgram.engines import xgrammar_engine as xe

    g = _grammar(u)
    whole = _AutomatonEbnf(g).render()
    forms = {"printed": EbnfPrinter(g).render(), "peeled": _PeeledEbnf(g).render()}
    if until_expr(u) is not None:
        # the default form is the one-rule expression (or the tag-less TagDispatch), never the automaton
        assert forms["printed"].count("\n") <= 3, forms["printed"]
    if until_rules(u, "t", "free") is not None:
        assert "TagDispatch" in forms["peeled"] and "TagDispatch" not in whole, forms["peeled"]
    want_of = xe.compile_ebnf(whole)
    corpus = _corpus(u)
    wants = [xe.accepts_compiled(want_of, text + "\x01")[0] for text in corpus]
    assert any(wants) and not all(wants)
    for form, text_of in forms.items():
        compiled = xe.compile_ebnf(text_of)
        for text, want in zip(corpus, wants, strict=True):
            got = xe.accepts_compiled(compiled, text + "\x01")[0]
            assert got == want, f"{u}: {form} {'accepts' if got else 'rejects'} {text!r}, the automaton does not"


def test_regular_expression_is_bounded() -> None:
    """An automaton whose expression would be too large is printed as rules (the fallback is reached)."""
    big = Until(tuple(f"<w{i}{'x' * i}>" for i in range(12)), gap=("<w", " "))
    assert until_expr(big, max_nodes=50) is None
    assert until_expr(big, max_nodes=10**6) is not None


def test_the_formats_have_such_texts() -> None:
    """The start-anchored formats' content and the XML raw values are among the cases (the forms are
    not tested on toys only)."""
    untils = _format_untils()
    assert any("<|python_tag|>" in u.stops for u in untils)
    assert any(u.gap for u in untils)
