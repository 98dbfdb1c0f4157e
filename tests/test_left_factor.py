"""Left factoring (``compiler/factor.py``) keeps every grammar's language and shares the beginnings.

GBNF and EBNF (and structural tags' grammar parts) are printed from the factored grammar.  Each check
here compiles random tools plus copies whose names extend the originals' (``t0`` and ``t0_b``: the
name trie gets empty remainders and deep splits), prints the same IR factored and as it is, and gives
renderings of random calls and mutations of them to llama.cpp (GBNF) and xgrammar (EBNF): both
forms must accept and reject alike.  Then the point of it: no alternation of a factored grammar has
two branches that begin with the same item or the same literal character (llama.cpp keeps one stack
per branch through a shared beginning), except where a branch is a rule that other rules use too.

The same check holds EBNF's tail loops (``a (g)* b`` printed as ``loop ::= b | g loop``, for
xgrammar's per-token cost) to the EBNF printed without them.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import calls_for, ir_nodes, mutations, per_format, slow_per_format, tool, tool_lists
from toolgram.compiler.bundle import compile
from toolgram.compiler.emit.bnf import EbnfPrinter, GbnfPrinter
from toolgram.compiler.factor import left_factor
from toolgram.compiler.ir import Alt, Expr, Grammar, Lit, Ref, Seq, Token, alt, seq
from toolgram.grammars import FORMATS
from toolgram.grammars.render import render_calls

from toolgram.engines import llamacpp_engine as le
from toolgram.engines import xgrammar_engine as xe

DEFAULT_FORMATS = ("hermes", "pythonic", "qwen3_coder", "minimax_m2", "gemma4", "llama3_json", "gpt_oss",
                   "deepseek_v3_1")


def extended(tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``tools`` and a copy of each whose name extends the original's (``t0`` -> ``t0_b``)."""
    copies = [{**t, "function": {**t["function"], "name": t["function"]["name"] + "_b"}} for t in tools]
    return [*tools, *copies]


class _NoLoopsEbnf(EbnfPrinter):
    """EBNF with repetitions printed as written (``(g)*``), not as tail loops."""

    tail_loops = False


def check_same(fmt: str, tools: list[dict[str, Any]], calls: list[tuple[str, dict[str, Any]]],
               choice: str = "required", parallel: bool = True) -> None:
    options: dict[str, Any] = {"tool_choice": choice, "parallel_tool_calls": parallel}
    gb, eb = (compile(fmt, tools, dialect=d, **options) for d in ("gbnf", "ebnf"))
    assert gb.ir is not None and eb.ir is not None
    plain_g, plain_e = GbnfPrinter(gb.ir).render(), EbnfPrinter(eb.ir).render()
    xa, xb = xe.compile_ebnf(eb.grammar), xe.compile_ebnf(plain_e)
    xc = xe.compile_ebnf(_NoLoopsEbnf(left_factor(eb.ir)).render())
    names = [t["function"]["name"] for t in tools]
    text = render_calls(fmt, calls)
    for s in mutations(text, names):
        g = le.accepts_gbnf(gb.grammar, s)[0]
        assert g == le.accepts_gbnf(plain_g, s)[0], f"GBNF factored {g} on {s!r}"
        e = xe.accepts_compiled(xa, s)[0]
        assert e == xe.accepts_compiled(xb, s)[0], f"EBNF factored {e} on {s!r}"
        assert e == xe.accepts_compiled(xc, s)[0], f"EBNF with tail loops {e} on {s!r}"
    if choice == "required":
        assert le.accepts_gbnf(gb.grammar, text)[0] and xe.accepts_compiled(xa, text)[0], text


def test_tail_loops_are_printed() -> None:
    """The check above is not vacuous: a JSON string and parallel calls are tail loops in EBNF."""
    params = {"type": "object", "properties": {"s": {"type": "string"}}, "required": ["s"]}
    b = compile("hermes", [tool("t0", params)], dialect="ebnf", tool_choice="required")
    assert b.ir is not None
    assert "loop ::= " in b.grammar and ")*" not in b.grammar.split("free-1")[0], b.grammar
    assert ")*" in _NoLoopsEbnf(left_factor(b.ir)).render()


@st.composite
def examples(draw: st.DrawFn) -> tuple[list, list, str, bool]:
    tools = extended(draw(tool_lists()))
    parallel = draw(st.booleans())
    return tools, draw(calls_for(tools, max_calls=3 if parallel else 1)), draw(st.sampled_from(["required", "auto"])), \
        parallel


@pytest.mark.parametrize("fmt", DEFAULT_FORMATS)
@settings(max_examples=per_format(30, minimum=10), deadline=None)
@given(data=st.data())
def test_factored_same_language(fmt: str, data: st.DataObject) -> None:
    check_same(fmt, *data.draw(examples()))


@pytest.mark.slow
@pytest.mark.parametrize("fmt", list(FORMATS))
@settings(max_examples=slow_per_format(30, minimum=8), deadline=None)
@given(data=st.data())
def test_factored_same_language_long(fmt: str, data: st.DataObject) -> None:
    check_same(fmt, *data.draw(examples()))


PREFIXED = {"type": "object", "properties": {
    "u": {"type": "string", "enum": ["", "cel", "celsius", "cello", "fahrenheit"]},
    "uv": {"type": "integer", "enum": [1, 12, 123]}}}


@pytest.mark.parametrize("fmt", ["hermes", "pythonic", "qwen3_coder", "glm4_7", "gemma4", "kimi_k2"])
def test_names_and_values_that_are_prefixes(fmt: str) -> None:
    """Tool names, keys and enum values that are prefixes of each other (empty remainders)."""
    tools = [tool(n, PREFIXED) for n in ("get", "get_time", "get_times", "set", "g")]
    for calls in ([("get", {"u": ""})], [("get_time", {"u": "cel", "uv": 12})],
                  [("get_times", {"u": "celsius"}), ("g", {"uv": 1})], [("set", {"u": "cello", "uv": 123})]):
        check_same(fmt, tools, calls)


def _head(items: tuple[Expr, ...]) -> tuple[object, bool]:
    """A branch's first item (Tokens looked through; a literal by its first character), and whether it
    is a reference to a rule."""
    while items and type(items[0]) is Token:
        inner = items[0].expr  # type: ignore[attr-defined]
        items = (inner.items if type(inner) is Seq else (inner,)) + items[1:]
    if not items or items[0] == Lit(""):
        return None, False
    h = items[0]
    return (("lit", h.text[0]) if type(h) is Lit else h), type(h) is Ref  # type: ignore[attr-defined]


def shared_beginnings(g: Grammar) -> list[tuple[str, object]]:
    """Alternations with two branches beginning alike (neither a reference to a rule)."""
    out = []
    for name, body in g.rules.items():
        for a in (x for x in ir_nodes(body) if type(x) is Alt):
            seen: set[object] = set()
            for item in a.items:
                head, is_ref = _head(item.items if type(item) is Seq else (item,))  # type: ignore[attr-defined]
                if head is None or is_ref:
                    continue
                if head in seen:
                    out.append((name, head))
                seen.add(head)
    return out


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_no_alternation_begins_twice(fmt: str) -> None:
    tools = [tool(n, PREFIXED) for n in ("get", "get_time", "get_times", "set", "g")]
    tools += [tool(f"tool_{i}", {"type": "object", "properties": {"a": {"type": "string"}}}) for i in range(12)]
    for choice in ("required", "auto"):
        ir = compile(fmt, tools, dialect="gbnf", tool_choice=choice).ir
        assert ir is not None
        assert shared_beginnings(left_factor(ir)) == []
    # the check is not vacuous: the same grammar unfactored has alternations that begin alike
    assert shared_beginnings(ir)


def test_factoring_takes_out_the_call_prefix() -> None:
    """hermes with 100 tools: ``call`` begins with the shared ``{"name": "tool_`` once."""
    tools = [tool(f"tool_{i}", {"type": "object", "properties": {"a": {"type": "string"}}}) for i in range(100)]
    text = compile("hermes", tools, dialect="gbnf", tool_choice="required").grammar
    call = next(line for line in text.splitlines() if line.startswith("call ::= "))
    assert call.startswith('call ::= "{\\"name\\": \\"tool_" (call-tool-0 | "1" (call-tool-1 | '), call


def test_a_rule_used_elsewhere_keeps_its_body() -> None:
    """An alternation looks into a rule only it uses, and what remains keeps the rule's name; a rule
    also used elsewhere is left whole (and the alternation as it is)."""
    from toolgram.compiler.factor import count_uses

    rules = {"a": Lit("xa1"), "b": seq(Lit("xb"), Ref("c")), "c": Lit("2")}
    once = left_factor(Grammar(rules={"root": alt(Ref("a"), Ref("b")), **rules}))
    assert once.rules["root"] == seq(Lit("x"), alt(Ref("a"), Ref("b")))
    assert once.rules["a"] == Lit("a1") and once.rules["b"] == seq(Lit("b"), Ref("c"))
    twice = left_factor(Grammar(rules={"root": seq(alt(Ref("a"), Ref("b")), Ref("a")), **rules}))
    assert twice.rules["a"] == Lit("xa1") and twice.rules["root"] == seq(alt(Ref("a"), Ref("b")), Ref("a"))
    # a node object shared by two rules counts its references once per use
    shared = seq(Lit("q"), Ref("c"))
    assert count_uses({"p": shared, "q": seq(Lit("y"), shared), "c": Lit("z")}) == {"c": 2}


def _words(e: Expr) -> set[str]:
    """The finite language of an expression of literals, sequences and alternations."""
    if type(e) is Lit:
        return {e.text}  # type: ignore[attr-defined]
    if type(e) is Alt:
        return set().union(*(_words(i) for i in e.items))  # type: ignore[attr-defined]
    assert type(e) is Seq, e
    out = {""}
    for item in e.items:  # type: ignore[attr-defined]
        out = {a + b for a in out for b in _words(item)}
    return out


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text("ab-01", max_size=5), min_size=2, max_size=30))
def test_literal_alternations_factor_to_the_same_words(texts: list[str]) -> None:
    """An alternation of literals alone (an enum's values) takes the string trie (``_factor_texts``):
    the same words, no two branches beginning alike, and what a mixed alternation (the general path,
    one branch not a literal) makes of the same literals."""
    body = alt(*(Lit(t) for t in texts))
    factored = left_factor(Grammar(rules={"root": body})).rules["root"]
    assert _words(factored) == set(texts)
    assert shared_beginnings(Grammar(rules={"root": factored})) == []
    mixed = left_factor(Grammar(rules={"root": alt(body, Ref("r")), "r": Lit("ab"), "s": Ref("r")})).rules["root"]
    assert mixed == alt(factored, Ref("r"))
