"""Repeated groups printed as named rules (issue 10): GBNF/EBNF keep their language.

The BNF printers write every group the grammar would otherwise spell out more than once (the JSON
whitespace ``ws``, punctuation tokens, the JSON string ...) as one rule (``emit/bnf.py``
``plan_shared``). The differential check: the same IR printed with and without that pass
(``share=False`` is the printer as it was) gives the same accept/reject in xgrammar on a corpus of
renderings, whitespace respellings and mutations of them, for every format and a few option sets.
"""

from __future__ import annotations

import json
import random
from functools import cache
from pathlib import Path

import pytest
from toolgram.compiler.bundle import compile
from toolgram.compiler.emit.bnf import SHARE_MIN_NODES, EbnfPrinter, GbnfPrinter, to_ebnf, to_gbnf
from toolgram.compiler.ir import Alt, Grammar, Lit, Ref, Seq, alt, seq
from toolgram.grammars import FORMATS
from toolgram.grammars.render import render_calls

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE_TOOLS = json.loads((ROOT / "grammars" / "examples" / "tools.json").read_text(encoding="utf-8"))
RICH = {"type": "function", "function": {"name": "plan_trip", "parameters": {
    "type": "object",
    "properties": {
        "city": {"type": "string", "maxLength": 12},
        "stops": {"type": "array", "items": {"type": "object", "properties": {
            "name": {"type": "string"}, "hours": {"type": "number"}}, "required": ["name"]}},
        "budget": {"anyOf": [{"type": "integer", "minimum": 0, "maximum": 5000}, {"type": "null"}]},
        "notes": {},
        "code": {"type": "string", "pattern": "^[A-Z]{3}$"},
    },
    "required": ["city"],
}}}
TOOLS = [*EXAMPLE_TOOLS, RICH]
CALL_SETS = [
    [("get_weather", {"location": "Paris", "unit": "celsius"})],
    [("get_weather", {"location": "New York"}), ("get_time", {})],
    [("create_event", {"title": "Standup", "attendees": ["ann", "bob"], "duration_minutes": 15, "all_day": False})],
    [("plan_trip", {"city": "Rome", "stops": [{"name": "Forum", "hours": 2.5}, {"name": "Pantheon"}],
                    "budget": None, "notes": {"k": [1, "x", True]}, "code": "FCO"})],
    [("plan_trip", {"city": "Oslo", "budget": 1200}), ("get_weather", {"location": "Oslo"})],
]
OPTIONS = [
    {"tool_choice": "required"},
    {"tool_choice": "auto"},
    # the old language too: llama.cpp's bounded JSON whitespace, raw XML values read with look-ahead
    {"tool_choice": "required", "parallel_tool_calls": False, "whitespace": "flexible", "xml_values": "lookahead"},
]
#: whitespace respellings around punctuation (JSON and pythonic), within and beyond JSON_WS's bounds
RESPELL = [(", ", ",\n  "), (": ", ":\n\t"), (": ", ":"), (", ", ","), ("{", "{ "), ("}", " }"), ("[", "[\n\n"),
           ("]", "\n]"), (", ", ",\n\n\n"), ("(", "( "), (")", "\n)"), (": ", ": " + " " * 21)]
MUTATION_CHARS = ' \n\t{}[]()",:;<>/=\'x0'


def corpus(fmt: str) -> list[str]:
    rng = random.Random(f"ws-rule-{fmt}")
    texts: list[str] = []
    for calls in CALL_SETS:
        base = render_calls(fmt, calls)
        texts += [base, f"  {base}\n", f"Let me check. {base}", base + " x"]
        texts += [base.replace(a, b, 1) for a, b in RESPELL if a in base]
        texts += [base.replace(a, b) for a, b in RESPELL if a in base]
        for _ in range(24):
            i = rng.randrange(len(base) + 1)
            op = rng.randrange(3)
            if op == 0 and i < len(base):
                texts.append(base[:i] + base[i + 1:])
            elif op == 1:
                texts.append(base[:i] + rng.choice(MUTATION_CHARS) + base[i:])
            else:
                texts.append(base[:i] + rng.choice(MUTATION_CHARS) + base[i + 1:])
    return list(dict.fromkeys(texts))


@cache
def _ir(fmt: str, options: str):
    return compile(fmt, TOOLS, dialect="ebnf", **json.loads(options)).ir


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_shared_rules_keep_the_language(fmt: str) -> None:
    from toolgram.engines import xgrammar_engine as xe

    texts = corpus(fmt)
    for options in OPTIONS:
        ir = _ir(fmt, json.dumps(options))
        inline, shared = EbnfPrinter(ir, share=False).render(), to_ebnf(ir)
        assert inline != shared
        before, after = xe.compile_ebnf(inline), xe.compile_ebnf(shared)
        verdicts = []
        for text in texts:
            a, b = xe.accepts_compiled(before, text)[0], xe.accepts_compiled(after, text)[0]
            assert a == b, f"{fmt} {options}: inline {'accepts' if a else 'rejects'} {text!r}, shared does not"
            verdicts.append(a)
        # the corpus exercises both sides (the mutations of the XML formats' raw text stay accepted)
        assert any(verdicts) and not all(verdicts), (fmt, options, sum(verdicts), len(verdicts))


def test_one_whitespace_rule_for_many_tools() -> None:
    """``whitespace="flexible"``: llama.cpp's bounded JSON whitespace, printed once."""
    tools = [{"type": "function", "function": {"name": f"t{i}", "parameters": {"type": "object", "properties": {
        "a": {"type": "string"}, "b": {"type": "array", "items": {"type": "integer"}}}}}} for i in range(20)]
    for fmt in ("hermes", "llama3_json"):
        for dialect in ("gbnf", "ebnf"):
            text = compile(fmt, tools, dialect=dialect, tool_choice="required", whitespace="flexible").grammar
            assert text.count(' "\\n"{1,2} [\\t ]{0,20}') == 1, (fmt, dialect)
            assert 'ws ::= "" | " " | "\\n"{1,2} [\\t ]{0,20}\n' in text
            again = compile(fmt, tools, dialect=dialect, tool_choice="required", whitespace="flexible").grammar
            assert text == again  # deterministic


def test_structural_tag_parts_share_the_whitespace_rule() -> None:
    tag = json.loads(compile("hermes", TOOLS, dialect="structural-tag", tool_choice="required",
                             whitespace="flexible").grammar)
    parts = []

    def walk(x: object) -> None:
        if isinstance(x, dict):
            if x.get("type") == "grammar":
                parts.append(x["grammar"])
            for v in x.values():
                walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)

    walk(tag)
    assert parts and all(p.count('"\\n"{1,2}') <= 1 for p in parts)


def _big(n: int) -> Seq:
    """A group of ``n`` IR nodes (a sequence of ``n - 1`` distinct one-character choices)."""
    return Seq(tuple(alt(Lit(chr(97 + i)), Lit(chr(65 + i))) for i in range(n - 1)))


def test_plan_rules() -> None:
    """The printers' sharing plan (printed as is: to_ebnf/to_gbnf would left-factor these first)."""
    small = Alt((Lit("x"), Lit("y")))  # 3 nodes: stays inline
    big = alt(seq(Lit("<"), _big(SHARE_MIN_NODES), Lit(">")), Lit("-"))
    once = alt(seq(Lit("("), _big(SHARE_MIN_NODES + 1), Lit(")")), Lit("-"))
    g = Grammar(rules={"root": alt(seq(big, small, once), seq(small, big)), "ws": Lit(" ")})
    text = EbnfPrinter(g).render()
    # the repeated big group is one rule (named away from the existing rule "ws"); the rest is inline
    assert text.count(" ::= ") == 2, text
    assert text.count('"<"') == 1 and text.count('"("') == 1 and text.count('("x" | "y")') == 2
    assert GbnfPrinter(g).render().count(" ::= ") == 2
    # a group only used inside one shared group is printed once, inside it
    inner = _big(SHARE_MIN_NODES + 2)
    outer = alt(seq(Lit("["), inner, Lit("]")), Lit("-"))
    g2 = Grammar(rules={"root": alt(seq(outer, Lit("1")), seq(outer, Lit("2")))})
    assert EbnfPrinter(g2).render().count(" ::= ") == 2
    # a rule referenced twice is not re-hoisted, and a rule body is never replaced by its own name
    g3 = Grammar(rules={"root": seq(Ref("r"), big, Ref("r")), "r": big})
    out = EbnfPrinter(g3).render()
    assert out.count(" ::= ") == 3 and out.count('"<"') == 1, out
    assert EbnfPrinter(g3, share=False).render().count('"<"') == 2


@pytest.mark.parametrize("fmt", ["hermes", "pythonic"])
def test_gbnf_differential_llamacpp(fmt: str) -> None:
    """The same check for GBNF in llama.cpp, on a smaller corpus (token-by-token matching)."""
    from toolgram.engines import llamacpp_engine as le

    ir = compile(fmt, TOOLS, dialect="gbnf", tool_choice="required").ir
    inline, shared = GbnfPrinter(ir, share=False).render(), to_gbnf(ir)
    assert inline != shared
    texts = corpus(fmt)[::4]
    verdicts = [le.accepts_gbnf(inline, t)[0] for t in texts]
    assert verdicts == [le.accepts_gbnf(shared, t)[0] for t in texts]
    assert any(verdicts) and not all(verdicts)
