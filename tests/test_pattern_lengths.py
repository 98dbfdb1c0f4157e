"""Issue 22: a pattern that asks for one character of a class somewhere (``\\S``, ``[*?]``, ``.*[^ ].*$``: the
strings ``N* X C*``), met with ``minLength``/``maxLength`` past what spelling out its choices can hold.

The meet is written exactly (:func:`toolgram.compiler.lengths.restrict_length`, split at half the length, the
parts shared), in every dialect and value syntax (JSON, Python literals, Gemma 4, XML raw text), and Lark prints
it as the pattern under a look-ahead that counts the text (:attr:`toolgram.compiler.ir.Token.within`).  Every
engine and the strict parser agree with ``jsonschema`` on strings at and around the bounds; the grammar text
stays small at the largest lengths.
"""

from __future__ import annotations

import json
import random
from typing import Any

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import SLOW, engine_results
from toolgram.compiler.bundle import compile
from toolgram.compiler.dfa import first_of_class
from toolgram.compiler.lengths import restrict_length
from toolgram.compiler.regex import _pattern_ir, decoded_char
from toolgram.grammars.render import render_calls
from toolgram.parsing.strict import parse_strict

#: argument -> (pattern, minLength, maxLength)
CASES: dict[str, tuple[str, int, int | None]] = {
    "nonblank": ("\\S", 1, 100),
    "glob": ("[*?]", 0, 300),
    "circle": (".*[^ ].*$", 0, 512),
    "line": ("^\\s*\\S.*$", 70, 90),
    "exact": ("[0-9]", 65, 65),
    "open": ("\\S", 70, None),
    "not_blank": ("^(?!\\s*$).+", 1, 255),  # a first character of its own: not a newline
}
#: argument -> (pattern, minLength, maxLength, alphabet): patterns of another shape whose minimal DFA is small
#: (:func:`toolgram.compiler.lengths._counted_dfa`, halving the length over its states)
COUNTED: dict[str, tuple[str, int, int | None, str]] = {
    "words": ("^[a-z]+( [a-z]+)*$", 1, 300, "ab "),
    "trimmed": ("^(?!\\s)(?!.*\\s$).*$", 2, 255, "ab \t"),
    "ab_c": ("^(ab|c)+$", 3, 70, "abc"),
    "email": ("^[a-z0-9.]+@[a-z0-9.-]+\\.[a-z]{2,}$", 6, 120, "a.@"),  # 7 states (refused before 6 Dec)
    "slug": ("^[a-z]+(-[a-z]+)*$", 3, None, "a-"),  # minLength alone: exactly 3, then any text from there
}
#: argument -> (pattern, minLength, maxLength, parts): ARN-like patterns, literals and fixed-width parts between
#: several variable ones; their DFA is past MAX_COUNTED_STATES until each fixed run is one mark
#: (:func:`toolgram.compiler.lengths._marked`; refused before 6 Dec, as were 413 of cfn-lint's 2,843 meets).
#: ``parts``: the pattern cut at its variable parts, each as ``(fixed text, the variable part's alphabet)``.
ARN = "^arn:aws[a-z-]*:certificate-manager-service-prod:[a-z0-9-]*:\\d{12}:certificate/[a-z0-9]+$"
ARN_PARTS = [("arn:aws", "a-"), (":certificate-manager-service-prod:", "a0-"), (":123456789012:certificate/", "a0")]
MARKED: dict[str, tuple[str, int, int | None, list[tuple[str, str]]]] = {
    "arn": (ARN, 72, 100, ARN_PARTS),  # the three variable parts share 6 to 34 characters
    "arn_open": (ARN, 82, None, ARN_PARTS),  # minLength alone
}
TOOLS = [{"type": "function", "function": {"name": "f", "parameters": {"type": "object", "properties": {
    k: {"type": "string", "pattern": v[0], "minLength": v[1], **({} if v[2] is None else {"maxLength": v[2]})}
    for k, v in {**CASES, **COUNTED, **MARKED}.items()}}}}]


def _strings(key: str, seed: int = 0) -> list[str]:
    """Strings at and around the bounds: blank, with the class's character at the start, middle or end (a
    newline after the first character: ``not_blank``'s first character may not be one, the rest may)."""
    _, lo, hi = CASES[key]
    top = (hi if hi is not None else lo + 40) + 2
    rng = random.Random(seed)
    out = []
    for n in sorted({0, 1, lo - 1, lo, lo + 1, (lo + top) // 2, top - 3, top - 2, top - 1}):
        if n < 0:
            continue
        out.append(" " * n)
        for where in (0, n // 2, n - 1):
            if n > 0:
                chars = [rng.choice(" a\t") for _ in range(n)]
                if n > 2:
                    chars[1] = rng.choice(" \n")
                chars[where] = rng.choice("*?7x")  # (no newline: Python's $ also matches before a last one)
                out.append("".join(chars))
    return out


def _counted_strings(key: str, seed: int = 0) -> list[str]:
    """Strings over the case's alphabet at and around the bounds: random ones, and ones built to match (words
    joined by one space, ``ab``/``c`` tokens, text between two letters), cut or padded to the length."""
    _, lo, top, alphabet = COUNTED[key]
    hi = lo + 40 if top is None else top
    rng = random.Random(seed)
    out = []
    for n in sorted({0, 1, 2, lo - 1, lo, lo + 1, (lo + hi) // 2, hi - 1, hi, hi + 1}):
        if n < 0:
            continue
        out.append("".join(rng.choice(alphabet) for _ in range(n)))
        if key == "words":
            text = " ".join("ab"[: rng.randint(1, 2)] for _ in range(n))[:n].rstrip()
            out.append(text + "a" * (n - len(text)))
        elif key == "ab_c":
            out.append("".join(rng.choice(["ab", "c"]) for _ in range(n))[:n])
        elif key == "email" and n >= 5:
            at = rng.randint(1, n - 4)
            out.append("a" * at + "@" + "b" * (n - at - 4) + ".co")
        elif n >= 2:
            out.append("a" + "".join(rng.choice(alphabet) for _ in range(n - 2)) + "b")
    return out


def _marked_strings(key: str, seed: int = 0) -> list[str]:
    """The case's fixed texts with variable parts of random lengths between (their total at and around the
    bounds), some with one character broken (a ``!``, a digit dropped)."""
    _, lo, top, parts = MARKED[key]
    hi = lo + 30 if top is None else top
    rng = random.Random(seed)
    fixed = sum(len(text) for text, _ in parts)
    out = []
    for n in sorted({lo - 1, lo, lo + 1, (lo + hi) // 2, hi - 1, hi, hi + 1}):
        for _ in range(3):
            spare = max(n - fixed, 0)
            cuts = sorted(rng.randint(0, spare) for _ in range(len(parts) - 1))
            sizes = [b - a for a, b in zip([0, *cuts], [*cuts, spare], strict=True)]
            text = "".join(t + "".join(rng.choice(alpha or "a") for _ in range(k))
                           for (t, alpha), k in zip(parts, sizes, strict=True))
            out.append(text)
            if rng.random() < 0.5:
                at = rng.randrange(len(text))
                out.append(text[:at] + rng.choice(["!", ":", ""]) + text[at + 1:])
    return out


def _instances(fmt: str) -> list[tuple[str, str, bool]]:
    out = []
    cases = {**{k: (p, lo, hi, _strings(k)) for k, (p, lo, hi) in CASES.items()},
             **{k: (p, lo, hi, _counted_strings(k)) for k, (p, lo, hi, _) in COUNTED.items()},
             **{k: (p, lo, hi, _marked_strings(k)) for k, (p, lo, hi, _) in MARKED.items()}}
    for key, (pattern, lo, hi, strings) in cases.items():
        schema = {"type": "string", "pattern": pattern, "minLength": lo, **({} if hi is None else {"maxLength": hi})}
        check = jsonschema.Draft202012Validator(schema)
        for s in strings:
            if fmt == "qwen3_coder" and ("\n" in s or s != s.strip()):
                continue  # raw XML text: the parsers trim a value's padding
            out.append((key, s, check.is_valid(s)))
    return out


def test_the_cases_take_the_new_path() -> None:
    """Each case is of the shape and past what spelling out choices holds (else this file tests nothing new)."""
    for pattern, lo, hi in CASES.values():
        assert first_of_class(_pattern_ir(pattern, decoded_char)) is not None, pattern
        assert hi is None or hi > 64 or lo > 64, pattern
    from toolgram.compiler.dfa import small_dfa
    from toolgram.compiler.lengths import MAX_COUNTED_STATES

    for pattern, _, hi, _ in COUNTED.values():
        decoded = _pattern_ir(pattern, decoded_char)
        assert first_of_class(decoded) is None, pattern
        assert small_dfa(decoded, MAX_COUNTED_STATES) is not None and (hi is None or hi > 64), pattern
    for pattern, _, _, _ in MARKED.values():
        decoded = _pattern_ir(pattern, decoded_char)
        assert first_of_class(decoded) is None and small_dfa(decoded, MAX_COUNTED_STATES) is None, pattern


@pytest.mark.parametrize("fmt", ["hermes", "pythonic", "gemma4", "qwen3_coder"])
@pytest.mark.parametrize("dialect", ["lark", "ebnf", "gbnf", "structural-tag"])
def test_engines_and_strict_parser_agree_with_jsonschema(fmt: str, dialect: str) -> None:
    bundle = compile(fmt, TOOLS, dialect=dialect, tool_choice="required", parallel_tool_calls=False)
    assert bundle.relaxed == []
    seen = {True: 0, False: 0}
    for key, s, ok in _instances(fmt):
        seen[ok] += 1
        text = render_calls(fmt, [("f", {key: s})])
        for engine, (accepted, pos) in engine_results(bundle, text).items():
            assert accepted == ok, f"{engine} {'rejects' if ok else 'accepts'} {key}={s!r} ({pos})"
        if dialect == "lark":
            msg = parse_strict(fmt, text, TOOLS, tool_choice="required", parallel_tool_calls=False)
            assert bool(msg["tool_calls"]) == ok, (key, s, msg["diagnostics"])
            if ok:
                assert json.loads(msg["tool_calls"][0]["function"]["arguments"]) == {key: s}
    assert seen[True] >= 15 and seen[False] >= 15, seen


def test_small_at_large_lengths() -> None:
    """Up to the 100,000-character limit: the split keeps the parts few (xgrammar and Lark count natively)."""
    schema: dict[str, Any] = {"type": "string", "pattern": "\\S", "minLength": 1, "maxLength": 100_000}
    tools = [{"name": "f", "parameters": {"type": "object", "properties": {"v": schema}, "required": ["v"]}}]
    for fmt in ("hermes", "pythonic", "qwen3_coder"):
        for dialect in ("ebnf", "lark"):
            grammar = compile(fmt, tools, dialect=dialect, tool_choice="required").grammar
            assert len(grammar) < 20_000, (fmt, dialect)
            if dialect == "lark":  # the pattern alone under the counting look-ahead (Token.within)
                assert "{1,100000}" in grammar and "/(?=" in grammar, fmt
    decoded = restrict_length(_pattern_ir("\\S", decoded_char), 1, 100_000, "\\S")
    seen: set[int] = set()
    todo = [decoded]
    while todo:  # the distinct parts (the tree written out has one per character)
        e = todo.pop()
        if id(e) not in seen:
            seen.add(id(e))
            todo.extend(getattr(e, "items", ()) + ((e.item,) if hasattr(e, "item") else ()))
    assert len(seen) < 1_000, len(seen)  # (264 on 6 Dec: about 15 per halving)


@pytest.mark.parametrize(("pattern", "lo", "hi"), [
    ("\\S", 1, 9), ("[ab]", 3, 12), ("[ab]", 0, 7), ("x", 5, None), ("^(?!\\s*$).+", 2, 7), ("^(?![ a]*$)[ab ]", 0, 6),
    ("^[ab]+( [ab]+)*$", 2, 7), ("^(ab|x)+$", 1, 8), ("^(?! )(?!.* $).*$", 1, 7),
    ("^[ab]+x[ab ]+ [ab]{2,}$", 6, 8), ("^a?b+ b+ b+( [abx]+)?$", 5, 8), ("^[ab]+( [ab]+)*$", 4, None),
    ("^a?b+ b+ b+( [abx]+)?$", 7, None), ("^(ab|x)+$", 3, None),
    ("^a[bx]*ab[ x]*b$", 4, 7), ("^x?a[ab]*b b+x$", 5, 8), ("^ab[ax]* [bx]+ba$", 6, None),  # runs read as marks
    ("[ab]{0,3}", 0, 5), ("^ x*", 2, 6),  # a search for what may be empty: any text
    ("^x(ab|b)+$", 3, 8),  # one variable part the shape cannot count: the whole sequence's automaton
    ("[ab]{1,30}", 1, 6), ("^x[ab]{1,40}", 2, 7), ("[ab]{2,40}$", 0, 8), ("(?:a[bx]{1,9}){2}", 1, 8),  # open ends
    ("^a(x*b){0,5}$", 1, 6), ("^(a b?){1,3}$", 0, 8), ("^(a b?){1,3}$", 0, 3), ("^a(x*b){0,9}(bx){1,3}$", 3, 8)])
def test_exact_over_every_short_string(pattern: str, lo: int, hi: int | None) -> None:
    """The split itself, against Python's ``re`` and the lengths, over every string of ``' '``, ``a``, ``b``
    and ``x`` up to 8 characters (no engine in the way)."""
    import itertools
    import re

    from toolgram.compiler.dfa import dfa_regex
    from toolgram.compiler.lengths import _counted_dfa

    whole = _pattern_ir(pattern, decoded_char)
    decoded = restrict_length(whole, lo, hi, pattern)
    counted = None if hi is None else _counted_dfa(whole, lo, hi)  # the halving over states, on any small DFA
    assert decoded is not None
    rx = re.compile(dfa_regex(decoded))
    rx_counted = None if counted is None or counted.expr is None else re.compile(dfa_regex(counted.expr))
    for n in range(9):
        for chars in itertools.product(" abx", repeat=n):
            s = "".join(chars)
            want = re.search(pattern, s) is not None and lo <= n and (hi is None or n <= hi)
            assert bool(rx.fullmatch(s)) == want, (pattern, lo, hi, s)
            if rx_counted is not None:
                assert bool(rx_counted.fullmatch(s)) == want, ("counted", pattern, lo, hi, s)


#: CloudFormation's (cfn-lint 1.58.0) patterns whose counts a search's open end or the length bound already holds:
#: refused before 7 Dec (the counts made automata of hundreds of states), each now a few states
HELD = [("[\\S]{1,255}", 1, 255), ("^[^:*]{1,512}", 1, 512), ("[a-zA-Z0-9_\\-]{1,2048}$", 1, 2048),
        ("^[a-zA-Z0-9](-*[a-zA-Z0-9]){0,62}$", 1, 63), ("^([0-9a-zA-Z][_-]?){1,100}$", 1, 100),
        ("^d-(-*[a-z0-9]){1,61}$", 1, 63)]


@pytest.mark.parametrize(("pattern", "lo", "hi"), HELD)
def test_counts_already_held_are_not_counted(pattern: str, lo: int, hi: int) -> None:
    """The meet is written, and small: the counts the open end or the length holds cost no states."""
    assert restrict_length(_pattern_ir(pattern, decoded_char), lo, hi, pattern) is not None
    schema = {"type": "string", "pattern": pattern, "minLength": lo, "maxLength": hi}
    tools = [{"name": "f", "parameters": {"type": "object", "properties": {"v": schema}, "required": ["v"]}}]
    assert len(compile("hermes", tools, dialect="ebnf", tool_choice="required").grammar) < 30_000


@pytest.mark.parametrize("dialect", ["lark", "ebnf", "gbnf"])
def test_held_counts_in_every_engine(dialect: str) -> None:
    """Every engine and the strict parser agree with ``jsonschema`` on strings around the held counts' bounds."""
    rng = random.Random(7)
    props = {f"p{i}": {"type": "string", "pattern": p, "minLength": lo, "maxLength": hi}
             for i, (p, lo, hi) in enumerate(HELD)}
    tools = [{"name": "f", "parameters": {"type": "object", "properties": props}}]
    bundle = compile("hermes", tools, dialect=dialect, tool_choice="required", parallel_tool_calls=False)
    seen = {True: 0, False: 0}
    for key, schema in props.items():
        check = jsonschema.Draft202012Validator(schema)
        for n in (0, 1, 2, 3, 62, 63, 64, 100, 101, 255, 256):
            for alphabet in ("a-", "a1-", "a :", "-", "d-a"):
                s = "".join(rng.choice(alphabet) for _ in range(n))
                ok = check.is_valid(s)
                seen[ok] += 1
                text = render_calls("hermes", [("f", {key: s})])
                for engine, (accepted, pos) in engine_results(bundle, text).items():
                    assert accepted == ok, f"{engine} {'rejects' if ok else 'accepts'} {key}={s!r} ({pos})"
                if dialect == "lark":
                    msg = parse_strict("hermes", text, tools, tool_choice="required", parallel_tool_calls=False)
                    assert bool(msg["tool_calls"]) == ok, (key, s, msg["diagnostics"])
    assert seen[True] >= 30 and seen[False] >= 30, seen


def _regexes() -> st.SearchStrategy[str]:
    """Random ECMAScript patterns over ``' '``, ``a``, ``b`` and ``x``: classes, sequences, choices and
    repetitions (bounded and not), anchored at either end or not."""
    atoms = st.sampled_from(["a", "b", "x", " ", "[ab]", "[^a]", "\\S", "\\s", "."])
    tree = st.recursive(atoms, lambda inner: st.one_of(
        st.tuples(inner, inner).map("".join),
        st.tuples(inner, inner).map(lambda t: f"(?:{t[0]}|{t[1]})"),
        st.tuples(inner, st.sampled_from(["*", "+", "?", "{2}", "{1,3}", "{2,}", "{0,2}", "{2,4}"])).map(
            lambda t: f"(?:{t[0]}){t[1]}")),
        max_leaves=8)
    return st.tuples(st.sampled_from(["", "^"]), tree, st.sampled_from(["", "$"])).map("".join)


@settings(max_examples=80 if not SLOW else 500, deadline=None)
@given(pattern=_regexes())
def test_a_search_is_its_pattern(pattern: str) -> None:
    """A pattern's decoded language, its open ends' counts cut (:func:`toolgram.compiler.regex._open_ends`), is
    exactly what Python's ``re.search`` finds, over every string of up to 6 of the four characters."""
    import itertools
    import re

    from toolgram.compiler.dfa import build_dfa, run

    trans, accepting, starts = build_dfa(_pattern_ir(pattern, decoded_char))
    for n in range(7):
        for chars in itertools.product(" abx", repeat=n):
            s = "".join(chars)
            assert (run(trans, starts, s) in accepting) == (re.search(pattern, s) is not None), (pattern, s)


@settings(max_examples=60 if not SLOW else 400, deadline=None)
@given(pattern=_regexes(), lo=st.integers(0, 6), span=st.one_of(st.none(), st.integers(0, 4)))
def test_random_patterns_within_lengths(pattern: str, lo: int, span: int | None) -> None:
    """Whatever :func:`restrict_length` writes (refusing is allowed; the shape decides) is exactly the
    pattern's strings of ``lo`` to ``hi`` characters, over every string of up to 6 of the four characters."""
    import itertools
    import re

    from toolgram.compiler.dfa import build_dfa, run

    from toolgram.errors import UnsupportedSchemaError

    hi = None if span is None else lo + span
    try:
        decoded = restrict_length(_pattern_ir(pattern, decoded_char), lo, hi, pattern)
    except UnsupportedSchemaError:
        return
    # the result's own automaton (a regex written from it may pass the regex printer's size cap)
    trans, accepting, starts = build_dfa(decoded) if decoded is not None else ([{}], set(), [0])
    for n in range(7):
        for chars in itertools.product(" abx", repeat=n):
            s = "".join(chars)
            want = re.search(pattern, s) is not None and lo <= n and (hi is None or n <= hi)
            assert (run(trans, starts, s) in accepting) == want, (pattern, lo, hi, s)


@pytest.mark.parametrize(("pattern", "lo", "hi"), [
    ("^arn:[^:]{1,63}:[^:]{0,63}:[^:]{0,63}:(?:|\\d{12}):[^/].{0,1023}$", 8, 1024),
    ("^arn:(aws[a-zA-Z-]*)?:chatbot:[A-Za-z0-9_/.-]{0,63}:[A-Za-z0-9_/.-]{0,63}:custom-action/[a-zA-Z0-9_-]{1,64}$",
     1, 1011),
    ("^(arn:aws(-[^:]{1,12})?:(bedrock|sagemaker):[a-z0-9-]{1,20}:([0-9]{12})?:([a-z-]+/)?)?([a-zA-Z0-9.-]{1,63}){0,2}"
     "(([:][a-z0-9-]{1,63}){0,2})?(/[a-z0-9]{1,12})?$", 1, 2048),
    ("[\\p{L}\\p{M}\\p{Z}\\p{N}\\p{P}]{0,1024}", 0, 1024),
    # a look-ahead met (an expression of shared parts): its counts are not read for what the length holds (minutes)
    ("^(?=.{2,256}$)([a-z0-9]+((\\.|_|__|-+)[a-z0-9]+)*(\\/[a-z0-9]+((\\.|_|__|-+)[a-z0-9]+)*)*)$", 2, 256)])
def test_many_bounded_parts_answer_in_time(pattern: str, lo: int, hi: int) -> None:
    """A hang guard: patterns of several bounded parts under a length (CloudFormation's, from cfn-lint 1.58.0) are
    written or refused in seconds, where spelling out each part's counts and trying again took minutes (the
    tries are capped: :data:`~toolgram.compiler.lengths.MAX_LENGTH_TRIES`; a DFA to minimize is capped before)."""
    import time

    from toolgram.errors import UnsupportedSchemaError

    start = time.process_time()
    try:
        restrict_length(_pattern_ir(pattern, decoded_char), lo, hi, pattern)
    except UnsupportedSchemaError:
        pass
    assert time.process_time() - start < 20, pattern  # (0.03-0.4 s on 6 Dec; more than 60 s before)


def test_a_state_that_loops_on_one_class_is_counted_natively() -> None:
    """An unanchored ARN under ``maxLength: 1224`` (AWS::SSO's, cfn-lint 1.58.0): the text after the match loops on
    any character, and its exact parts are ``C{m}``, not ``m`` copies of ``C`` written out (1.4 MB of EBNF for
    thirteen such strings before, 0.26 MB after; a 2.8 MB grammar took xgrammar 4.5 s to compile)."""
    arn = "^arn:aws(-[a-z]{1,5}){0,3}:sso:::permissionSet/(sso)?ins-[a-zA-Z0-9-.]{16}/ps-[a-zA-Z0-9-./]{16}$"
    props: dict[str, Any] = {f"p{i}": {"type": "string", "pattern": arn, "minLength": 10, "maxLength": 1224}
                             for i in range(12)}
    props["u"] = {"type": "string", "pattern": "arn:aws(-[a-z]{1,5}){0,3}:sso:::instance/(sso)?ins-[a-zA-Z0-9-.]{16}",
                  "minLength": 10, "maxLength": 1224}
    tools = [{"name": "f", "parameters": {"type": "object", "properties": props, "required": ["u"]}}]
    bundle = compile("hermes", tools, dialect="ebnf", tool_choice="required")
    assert len(bundle.grammar) < 600_000, len(bundle.grammar)
    schema = props["u"]
    for text, ok in [("x" * 900 + "arn:aws-ab:sso:::instance/ins-" + "a" * 16, True),
                     ("x" * 1200 + "arn:aws-ab:sso:::instance/ins-" + "a" * 16, False),
                     ("arn:aws:sso:::instance/ins-" + "a" * 15, False)]:
        assert jsonschema.Draft202012Validator(schema).is_valid(text) == ok
        call = render_calls("hermes", [("f", {"u": text})])
        for engine, (accepted, pos) in engine_results(bundle, call).items():
            assert accepted == ok, (engine, len(text), pos)


#: AWS::Pipes::Pipe's (pattern, minLength, maxLength) with maxLength >= 1000 (cfn-lint 1.58.0)
PIPE = [
    ("^sg-[0-9a-zA-Z]*|(\\$(\\.[\\w/_-]+(\\[(\\d+|\\*)\\])*)*)$", 1, 1024),
    ("^subnet-[0-9a-z]*|(\\$(\\.[\\w/_-]+(\\[(\\d+|\\*)\\])*)*)$", 1, 1024),
    ("^(^arn:aws([a-z]|\\-)*:logs:([a-z]{2}((-gov)|(-iso([a-z]?)))?-[a-z]+-\\d{1}):(\\d{12}):log-group:.+)$", 1, 1600),
    ("^arn:(aws[a-zA-Z0-9-]*):([a-zA-Z0-9\\-]+):([a-z]{2}((-"
     "gov)|(-iso([a-z]?)))?-[a-z]+-\\d{1})?:(\\d{12})?:(.+)$", 1, 1600),
    ("^arn:(aws[a-zA-Z0-9-]*):([a-zA-Z0-9\\-]+):([a-z]{2}((-gov)|(-iso([a-z]?)))?-[a-z]+-\\d{1})?:(\\d{12})?:(.+)|"
     "(\\$(\\.[\\w/_-]+(\\[(\\d+|\\*)\\])*)*)$", 1, 1600),
    ("^(^arn:aws([a-z]|\\-)*:firehose:([a-z]{2}((-gov)|(-iso"
     "([a-z]?)))?-[a-z]+-\\d{1}):(\\d{12}):deliverystream/.+)$", 1,
     1600),
    ("^(^arn:aws([a-z]|\\-)*:secretsmanager:([a-z]{2}((-gov)|(-iso([a-z]?)))?-[a-z]+-\\d{1}):(\\d{12}):secret:.+)$", 1,
     1600),
    ("^[\\s\\S]*$", 1, 1000),
    ("^(^arn:aws([a-z]|\\-)*:secretsmanager:([a-z]{2}((-gov)|(-iso([a-z]?)))?-[a-z]+-\\d{1}):(\\d{12}):secret:.+)|"
     "(\\$(\\.[\\w/_-]+(\\[(\\d+|\\*)\\])*)*)$", 1, 1600),
    ("^sg-[0-9a-zA-Z]*$", 1, 1024), ("^subnet-[0-9a-z]*$", 1, 1024),
    ("^arn:aws([a-z]|\\-)*:([a-zA-Z0-9\\-]+):([a-z]|\\d|\\-)*:([0-9]{12})?:(.+)$", 1, 1600),
    ("^$|arn:(aws[a-zA-Z0-9-]*):([a-zA-Z0-9\\-]+):([a-z]{2}("
     "(-gov)|(-iso([a-z]?)))?-[a-z]+-\\d{1})?:(\\d{12})?:(.+)$", 0,
     1600),
    ("^[a-zA-Z0-9_\\-/:]*$", 0, 2048),
    ("^arn:(aws[a-zA-Z-]*)?:iam::\\d{12}:role/?[a-zA-Z0-9+=,.@\\-_/]+$", 1, 1600),
    ("^smk://(([a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9\\-]*[a-zA-Z"
     "0-9])\\.)*([A-Za-z0-9]|[A-Za-z0-9][A-Za-z0-9\\-]*[A-Za-z0-9])"
     ":[0-9]{1,5}|arn:(aws[a-zA-Z0-9-]*):([a-zA-Z0-9\\-]+):("
     "[a-z]{2}((-gov)|(-iso([a-z]?)))?-[a-z]+-\\d{1})?:(\\d{12})?:(.+)$",
     1, 1600),
]


def test_meets_of_many_patterns_share_their_halves() -> None:
    """A hang guard: AWS::Pipes::Pipe's long patterns, each under its length, in one object.  Their halved meets
    hold equal parts; built as distinct objects, the grammar's interning and left factoring compared them node by
    node (exponential in the halving depth), and hoisted groups were named in quadratic time: past 90 s before
    6 Dec, 1.4 s after (the meets' parts and spellings are now one object each: ``lengths._CANON``,
    ``regex._SPELLED``)."""
    import time

    props = {f"p{i}": {"type": "string", "pattern": p, "minLength": lo, "maxLength": hi}
             for i, (p, lo, hi) in enumerate(PIPE)}
    start = time.process_time()
    compile("hermes", [{"name": "f", "parameters": {"type": "object", "properties": props}}], dialect="ebnf",
            tool_choice="required")
    assert time.process_time() - start < 30


#: (patterns, minLength, maxLength): ``allOf`` meets of several patterns under lengths.  The meet is made first and
#: the lengths counted on it; the prefixes ``if``/``then`` tests put beside a pattern (CloudFormation's
#: AWS::EventsV2::Subscriber: ``^arn:`` with ``^arn:[^:]*:lambda:`` under ``maxLength: 1600``) were refused when the
#: last pattern was restricted first (its halved expression passed the product's caps)
MEETS = [(("^a", "^a[^x]*x"), 1, 7), (("^a", "^a[^x]*xb", "b"), 2, 8), (("a", "b$"), 0, 5), (("^[ab]+$", "ab"), 3, 6),
         (("^a", "^a x"), 1, None), (("^(ab|x)+$", "x"), 0, 8)]


@pytest.mark.parametrize(("patterns", "lo", "hi"), MEETS)
def test_meets_of_patterns_under_lengths_are_exact(patterns: tuple[str, ...], lo: int, hi: int | None) -> None:
    """Against Python's ``re`` and the lengths, over every string of ``' '``, ``a``, ``b`` and ``x`` up to 8
    characters."""
    import itertools
    import re

    from toolgram.compiler.dfa import dfa_regex
    from toolgram.compiler.regex import patterns_to_ir

    rx = re.compile(dfa_regex(patterns_to_ir(patterns, decoded_char, "$", (lo, hi))))
    for n in range(9):
        for chars in itertools.product(" abx", repeat=n):
            s = "".join(chars)
            want = all(re.search(p, s) for p in patterns) and lo <= n and (hi is None or n <= hi)
            assert bool(rx.fullmatch(s)) == want, (patterns, lo, hi, s)


@pytest.mark.parametrize("dialect", ["lark", "ebnf", "gbnf"])
def test_prefix_meets_under_a_long_length_compile_strictly(dialect: str) -> None:
    """The Subscriber's shape, strict: the meet holds both prefixes and the bound, in the engines and the strict
    parser alike."""
    schema = {"type": "object", "properties": {"arn": {"type": "string", "minLength": 1, "maxLength": 1600,
                                                       "allOf": [{"pattern": "^arn:"},
                                                                 {"pattern": "^arn:[^:]*:lambda:"}]}}}
    tools = [{"type": "function", "function": {"name": "f", "parameters": schema}}]
    bundle = compile("hermes", tools, dialect=dialect, tool_choice="required")
    for value, ok in (("arn:aws:lambda:x", True), ("arn:aws:lambda:" + "y" * 1585, True),
                      ("arn:aws:lambda:" + "y" * 1586, False), ("arn:aws:sqs:x", False), ("xarn:aws:lambda:", False)):
        text = render_calls("hermes", [("f", {"arn": value})])
        assert [v for v, _ in engine_results(bundle, text).values()] == [ok], (dialect, len(value))
        if dialect == "lark":
            assert bool(parse_strict("hermes", text, tools, tool_choice="required")["tool_calls"]) == ok
