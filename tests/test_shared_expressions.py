"""Expressions written by state elimination share their parts many times over: the keys that do *not* contain an
HTTP method (``patternProperties`` with an unanchored pattern, no ``properties``) are a DFA of about fifty states,
but their expression written out as a tree has millions of nodes.  GBNF and EBNF print it as a DAG (a shared part
is one rule); an automaton built from it follows the DFA it was written from (:func:`toolgram.compiler.dfa.graph_of`),
and Lark writes that automaton as rules rather than a regex of the whole tree (which took minutes to build and to
parse with).  Checked here: the automaton's language, and every engine and the strict parser on such a schema.
"""

from __future__ import annotations

import dataclasses
import json
import re
from functools import cache

import jsonschema
import pytest
from hypothesis import given
from hypothesis import strategies as st
from strategies import engine_results, tool
from toolgram.compiler.bundle import Bundle, compile
from toolgram.compiler.dfa import DfaLimit, build_dfa, graph_of, run, tree_size
from toolgram.compiler.ir import Expr
from toolgram.compiler.keys import key_classes
from toolgram.compiler.regex import decoded_char, pattern_to_ir
from toolgram.grammars.render import render_calls
from toolgram.parsing.strict import parse_strict

METHODS = "GET|HEAD|POST|PUT|DELETE|CONNECT|OPTIONS|TRACE|PATCH"
PATTERN = f"({METHODS})\\s.*"  # unanchored: a key containing a method and a blank
#: the engines' check, on the nine methods (SchemaStore ``1e850a80d2c4``'s pattern): printed as its DAG, llama.cpp's
#: sampler took minutes for one call and xgrammar 26 ms a token; as its automaton, 0.1 s and 0.014 ms
ROUTES = {"type": "object", "patternProperties": {PATTERN: {"type": "string"}},
          "additionalProperties": {"type": "integer"}}


@cache
def _others() -> Expr:
    """The keys that match no pattern, as the decoded expression :func:`key_classes` writes."""
    classes, _ = key_classes((), (pattern_to_ir(PATTERN, decoded_char, "$"),), True)
    (other,) = [kc.decoded for kc in classes if not kc.matches]
    return other


def test_the_automaton_follows_the_graph_not_the_tree() -> None:
    other = _others()
    assert tree_size(other) > 10**6  # the premise: written out as a tree, far past the NFA's cap
    assert graph_of(other) is not None
    bare = dataclasses.replace(other)  # the same expression without the automaton noted on it
    assert graph_of(bare) is None
    with pytest.raises(DfaLimit):
        build_dfa(bare)
    build_dfa(other)


def test_a_spelling_keeps_the_automaton() -> None:
    """An equal expression spelled before without its automaton: the spelling then gets it (the printers follow it)."""
    from toolgram.compiler.regex import json_char, spell

    other = _others()
    bare = dataclasses.replace(other)
    done: dict[Expr, Expr] = {}
    first = spell(bare, json_char, done)
    assert graph_of(first) is None
    again = spell(other, json_char, done)
    assert again is first and graph_of(again) is not None


@given(st.lists(st.sampled_from(["GET", "HEAD", "PATCH", "PAT", "GE", " ", "\t", "x", "T", "/"]), max_size=6))
def test_the_automaton_is_the_complement(parts: list[str]) -> None:
    key = "".join(parts)
    trans, accepting, starts = _automaton()
    assert (run(trans, starts, key) in accepting) == (re.search(PATTERN, key) is None)


#: keys with and without a method and a blank after it; escaped characters (``\t``, ``\"``) among them
@cache
def _automaton() -> tuple[list[dict[int, int]], set[int], list[int]]:
    return build_dfa(_others())


KEYS = ["GET /a", "a POST\tb", "POST", "GETx /", "HEADS /", "x", "", 'GET "q"', '"x"\\', "HEAD\n"]


@pytest.mark.parametrize("key", KEYS)
@pytest.mark.parametrize("value", ["s", 1])
def test_every_engine_reads_the_classes_alike(key: str, value: object) -> None:
    params = {"type": "object", "properties": {"routes": ROUTES}, "required": ["routes"]}
    args = {"routes": {key: value}}
    valid = jsonschema.Draft202012Validator(params).is_valid(args)
    text = render_calls("hermes", [("f", args)])
    verdicts = {}
    for dialect in ("lark", "ebnf", "gbnf"):
        bundle = _bundle(dialect)
        verdicts.update({f"{dialect}/{k}": ok for k, (ok, _) in engine_results(bundle, text).items()})
    msg = parse_strict("hermes", text, [tool("f", params)], tool_choice="required")
    verdicts["strict"] = bool(msg["tool_calls"])
    assert set(verdicts.values()) == {valid}, (text, verdicts)
    if valid:
        assert json.loads(msg["tool_calls"][0]["function"]["arguments"]) == args


@cache
def _bundle(dialect: str) -> Bundle:
    params = {"type": "object", "properties": {"routes": ROUTES}, "required": ["routes"]}
    return compile("hermes", [tool("f", params)], dialect=dialect, tool_choice="required")


def test_the_lark_grammar_is_the_automaton_not_the_tree() -> None:
    assert len(_bundle("lark").grammar) < 100_000  # (a regex of the tree: megabytes)


@pytest.mark.parametrize("dialect", ["gbnf", "ebnf"])
def test_bnf_prints_the_automaton_not_the_dag(dialect: str) -> None:
    """A key class is printed as its automaton, one rule per state (``dfa-…``), not as the expression state
    elimination wrote (82 KB of shared rules in EBNF, 72 KB in GBNF, before 7 Dec)."""
    grammar = _bundle(dialect).grammar
    states = [line for line in grammar.splitlines() if line.startswith("dfa")]
    assert len(states) >= 20, grammar  # (the class of keys with a method, and the class of keys without)
    assert len(grammar) < 30_000


#: a password rule: four look-aheads met (a DFA of a few dozen states), about 47,000 nodes as a tree
PASSWORD = "^(?=.*[a-z])(?=.*[A-Z])(?=.*\\d)(?=.*[^\\w\\s]).{8,}$"


def _strong(pw: str) -> bool:
    """``PASSWORD``, read as ECMAScript reads it (``\\d``, ``\\w`` and ``\\s`` as its sets)."""
    return (len(pw) >= 8 and "\n" not in pw and any("a" <= c <= "z" for c in pw) and any("A" <= c <= "Z" for c in pw)
            and any("0" <= c <= "9" for c in pw) and any(not (c.isascii() and (c.isalnum() or c == "_"))
                                                         and c not in " \t\r\x0b\x0c\xa0" for c in pw))


PASSWORD_PARAMS = {"type": "object", "properties": {"pw": {"type": "string", "pattern": PASSWORD}}, "required": ["pw"]}


@cache
def _password_bundle(fmt: str, dialect: str) -> Bundle:
    return compile(fmt, [tool("f", PASSWORD_PARAMS)], dialect=dialect, tool_choice="required")


@pytest.mark.parametrize("pw", ["aB3$xxxx", "aB3$xxx", "ab3$xxxx", "AB3$XXXX", "aBc$xxxx", "aB3xxxxx", "aB3$ <x>y",
                                'aB3$xx"x', "ÀB3$xxxé", "aB3 xxxx", "aB3$xx\nx", "aB3$</p>x"])
@pytest.mark.parametrize("fmt", ["hermes", "qwen3_coder"])  # a JSON string, and an XML raw value (``<`` inside)
def test_a_met_pattern_is_written_as_its_automaton(fmt: str, pw: str) -> None:
    if fmt == "hermes":  # the JSON string's token (its regex: 370 KB, 5 s in Lark's loader); the raw value's is
        assert len(_password_bundle(fmt, "lark").grammar) < 100_000  # the pattern's own DFA regex, 107 KB
    text = render_calls(fmt, [("f", {"pw": pw})])
    verdicts = {}
    for dialect in ("lark", "ebnf"):
        results = engine_results(_password_bundle(fmt, dialect), text)
        verdicts.update({f"{dialect}/{k}": ok for k, (ok, _) in results.items()})
    msg = parse_strict(fmt, text, [tool("f", PASSWORD_PARAMS)], tool_choice="required")
    verdicts["strict"] = bool(msg["tool_calls"])
    # an XML pattern value holds no ``<`` (docs/formats.md: a bounded or pattern raw string excludes it)
    assert set(verdicts.values()) == {_strong(pw) and (fmt == "hermes" or "<" not in pw)}, (pw, verdicts)
