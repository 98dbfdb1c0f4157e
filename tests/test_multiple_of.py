"""``multipleOf`` (issue 22): the decimal spellings of the multiples of any number, met with bounds.

The oracle is exact decimal arithmetic over the spelling language (``-``, a whole part without leading
zeros, an optional fraction for numbers; no exponent): a spelling is admitted exactly when its value is a
multiple of ``m`` and lies within the bounds.  The expressions are checked through Python's ``re`` (the
regex Lark's lexer runs, with the token's look-ahead) and, in the engine tests, through every dialect.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lark.exceptions import LarkError
from strategies import engine_results
from toolgram.compiler.bundle import Bundle, compile
from toolgram.compiler.dfa import DfaLimit, tree_size
from toolgram.compiler.emit.lark import LarkPrinter, new_lark, to_lark
from toolgram.compiler.ir import Chars, Grammar, Seq, Token
from toolgram.compiler.multiples import common_multiple, integer_step, multiples, scaled
from toolgram.compiler.values import decimal_range, int_range
from toolgram.parsing.strict import parse_strict

from toolgram.errors import EmptySchemaError, UnsupportedSchemaError

SPELLING = {True: re.compile(r"-?(0|[1-9][0-9]*)"), False: re.compile(r"-?(0|[1-9][0-9]*)(\.[0-9]+)?")}


def admitted(text: str, m: Decimal, integer: bool, lo: Decimal | None = None, hi: Decimal | None = None) -> bool:
    if not SPELLING[integer].fullmatch(text):
        return False
    d = Decimal(text)
    q = d / m
    return q == q.to_integral_value() and (lo is None or d >= lo) and (hi is None or d <= hi)


def lark_reader(e: Token) -> Callable[[str], bool]:
    """Whether Lark reads a text as the token: through the regex its lexer runs (with its look-ahead), matched from
    the start like a lexer with a ``,`` after (as in an arguments object); or, where the regex would be too long
    and the token is written as its automaton's rules, through a parser of that grammar."""
    grammar = Grammar(rules={"root": e}, root="root")
    printer = LarkPrinter(grammar)
    name = printer.terminal(e.expr, e.kind, e.follow, e.path, e.stop)
    rx = next((r for r, n in printer.terminals.items() if n == name), None)
    if rx is None:  # the automaton's rules
        parser = new_lark(to_lark(grammar))

        def parses(text: str) -> bool:
            try:
                parser.parse(text)
            except LarkError:
                return False
            return True

        return parses
    compiled = re.compile(rx)

    def lexes(text: str) -> bool:
        hit = compiled.match(text + ",")
        return hit is not None and hit.end() == len(text)

    return lexes


MULTIPLES = st.builds(lambda a, s: Decimal(a).scaleb(-s), st.integers(1, 64), st.integers(0, 3))
DIGITS = st.text("0123456789", min_size=1, max_size=6)


@st.composite
def spellings(draw: st.DrawFn, m: Decimal) -> list[str]:
    """Multiples of ``m`` (trailing zeros too), their neighbours, and texts off the spelling language."""
    out = []
    for k in draw(st.lists(st.integers(-3000, 3000), min_size=3, max_size=8)):
        v = m * k
        text = format(v, "f")
        out += [text, text + ("0" if "." in text else ".0"), format(v + Decimal("0.01"), "f"), format(v + 1, "f")]
    for _ in range(draw(st.integers(3, 8))):
        whole = draw(DIGITS).lstrip("0") or "0"
        frac = draw(st.one_of(st.just(""), DIGITS.map(lambda d: "." + d)))
        out.append(draw(st.sampled_from(["", "-"])) + whole + frac)
    return out + ["00", "01", "1.", ".5", "1e2", "+3", "-", "-0", "-0.0"]


@settings(max_examples=100, deadline=None)
@given(data=st.data(), m=MULTIPLES, integer=st.booleans())
def test_multiples_are_exact(data: st.DataObject, m: Decimal, integer: bool) -> None:
    try:
        e = Token(multiples(m, integer), "NUMBER", stop="0123456789.")
    except DfaLimit:  # every whole multiple up to 60 fits, and every decimal one of up to 16 units
        assert integer_step(m) > 60 if integer else scaled(m)[0] > 16, m
        return
    reads = lark_reader(e)
    for text in data.draw(spellings(m)):
        assert reads(text) == admitted(text, m, integer), (m, integer, text)


@settings(max_examples=50, deadline=None)
@given(data=st.data(), m=MULTIPLES, integer=st.booleans(),
       lo=st.one_of(st.none(), st.integers(-500, 500)), width=st.one_of(st.none(), st.integers(0, 3000)))
def test_multiples_within_bounds(data: st.DataObject, m: Decimal, integer: bool, lo: int | None,
                                 width: int | None) -> None:
    """Met with a range (the product DFA): exactly the multiples inside it."""
    hi = None if width is None or lo is None else lo + width
    lo_d, hi_d = (None if lo is None else Decimal(lo)), (None if hi is None else Decimal(hi))
    bounded = int_range(lo, hi) if integer else decimal_range(lo_d, False, hi_d, False)
    try:
        e = Token(multiples(m, integer, bounded), "NUMBER", stop="0123456789.")
    except DfaLimit:
        return
    reads = lark_reader(e)
    for text in data.draw(spellings(m)) + ([str(lo), str(hi)] if hi is not None else []):
        if SPELLING[False].fullmatch(text) and text.startswith("-") and Decimal(text) == 0:
            continue  # "-0": the range's own spelling policy (tested with the ranges)
        assert reads(text) == admitted(text, m, integer, lo_d, hi_d), (m, integer, lo, hi, text)


def test_common_multiple() -> None:
    assert common_multiple(4, 6) == 12
    assert common_multiple(0.5, 0.75) == 1.5
    assert common_multiple(0.01, 3) == 3
    assert common_multiple(0.1, 0.25) == 0.5


def _tools(schema: dict) -> list[dict]:
    return [{"type": "function", "function": {"name": "f", "parameters": {
        "type": "object", "properties": {"v": schema}, "required": ["v"]}}}]


@pytest.mark.parametrize("dialect", ["lark", "ebnf", "gbnf", "structural-tag"])
@pytest.mark.parametrize("fmt", ["hermes", "qwen3_coder"])
def test_every_dialect_and_the_strict_parser(fmt: str, dialect: str) -> None:
    """Spellings checked in each engine and by the strict parser against the oracle (JSON and XML raw values).
    Multiples of 16 (a real-world ``multipleOf``), 61 and 0.13 track more remainders than the 16 states the
    expression's tree once capped (they were refused): every printer writes their automaton."""
    cases = [({"type": "integer", "multipleOf": 7}, Decimal(7), True, None, None),
             ({"type": "number", "multipleOf": 0.05, "minimum": -2, "maximum": 3}, Decimal("0.05"), False,
              Decimal(-2), Decimal(3)),
             ({"type": "integer", "multipleOf": 16}, Decimal(16), True, None, None),
             ({"type": "integer", "multipleOf": 61}, Decimal(61), True, None, None),
             ({"type": "number", "multipleOf": 0.13, "minimum": 0, "maximum": 1000}, Decimal("0.13"), False,
              Decimal(0), Decimal(1000))]
    texts = ["0", "7", "-7", "49", "343", "8", "100", "-15", "7.0", "0.05", "0.15", "-1.95", "-2", "3", "3.05",
             "0.051", "0.150", "2.999", "-2.05", "1e1", "16", "-48", "1024", "1000", "4096", "4097", "61", "-122",
             "3721", "3720", "226981", "226982", "0.13", "0.26", "0.27", "999.83", "999.96", "1000.09", "1.30"]
    for schema, m, integer, lo, hi in cases:
        bundle = compile(fmt, _tools(schema), dialect=dialect, tool_choice="required")
        for text in texts:
            call = (f'<tool_call>\n{{"name": "f", "arguments": {{"v": {text}}}}}\n</tool_call>' if fmt == "hermes" else
                    f"<tool_call>\n<function=f>\n<parameter=v>\n{text}\n</parameter>\n</function>\n</tool_call>")
            want = admitted(text, m, integer, lo, hi)
            for engine, (ok, pos) in engine_results(bundle, call).items():
                assert ok == want, (engine, schema, text, pos)
            if dialect == "lark":
                msg = parse_strict(fmt, call, _tools(schema), tool_choice="required")
                assert bool(msg["tool_calls"]) == want, (schema, text, msg.get("diagnostics"))


@pytest.mark.parametrize(("schema", "error", "where"), [
    ({"type": "integer", "multipleOf": 1_000_003}, UnsupportedSchemaError, "v.multipleOf"),
    ({"type": "integer", "multipleOf": 97}, UnsupportedSchemaError, "v.multipleOf"),
    ({"type": "number", "multipleOf": 0.039}, UnsupportedSchemaError, "v.multipleOf"),
    ({"type": "integer", "multipleOf": 0}, Exception, "v.multipleOf"),
    ({"type": "integer", "multipleOf": 10, "minimum": 1, "maximum": 9}, EmptySchemaError, "v.multipleOf"),
    ({"type": "number", "multipleOf": 0.5, "minimum": 0.6, "maximum": 0.9}, EmptySchemaError, "v.multipleOf"),
    ({"type": "integer", "not": {"multipleOf": 0.5}}, EmptySchemaError, "v"),  # every integer is a multiple
    ({"type": "integer", "minimum": 5, "maximum": 5, "not": {"multipleOf": 5}}, EmptySchemaError, "v"),
])
def test_refusals_name_the_path(schema: dict, error: type[Exception], where: str) -> None:
    with pytest.raises(error) as err:
        compile("hermes", _tools(schema))
    assert f"properties.{where}" in str(err.value)


def test_permissive_relaxes_to_the_bounds() -> None:
    bundle = compile("hermes", _tools({"type": "integer", "multipleOf": 211, "minimum": 0}), permissive=True)
    assert [r["path"] for r in bundle.relaxed] == ["$[0].function.parameters.properties.v.multipleOf"]


def test_anyof_branches_meet_the_outer_keywords() -> None:
    """A branch's ``multipleOf`` adds to the one beside ``anyOf`` (the branch used to replace it), and
    a branch with no value is left out."""
    schema = {"type": "integer", "multipleOf": 2, "anyOf": [{"multipleOf": 3}, {"maximum": -1, "minimum": 0}]}
    bundle = compile("hermes", _tools(schema), dialect="lark", tool_choice="required")
    for v, want in ((6, True), (3, False), (4, False), (-12, True)):
        call = f'<tool_call>\n{{"name": "f", "arguments": {{"v": {v}}}}}\n</tool_call>'
        assert engine_results(bundle, call)["lark"][0] == want, v


def test_tree_size_never_compares_expressions(monkeypatch: pytest.MonkeyPatch) -> None:
    """State elimination asks for the size of every new label. Labels equal to earlier ones but built anew
    (a second compile of the same ``multipleOf``: 13 was refused after ~0.5 s each time, not ~15 ms) must not
    be looked up by value: comparing two equal trees walks them whole, at every level of the lookup."""

    def dag(depth: int) -> Seq:
        e = Seq((Chars.of("a"), Chars.of("b")))
        for _ in range(depth):
            e = Seq((e, e))
        return e

    assert tree_size(dag(40)) == 3 * 2**40 + (2**40 - 1)  # shared halves count twice: a tree, not the DAG

    def refuse(self: object, other: object) -> bool:
        raise AssertionError("tree_size compared two expressions")

    assert tree_size(dag(12)) == 3 * 2**12 + (2**12 - 1)
    again = dag(12)  # equal to the one above, built anew
    monkeypatch.setattr(Seq, "__eq__", refuse)
    assert tree_size(again) == 3 * 2**12 + (2**12 - 1)


def test_a_prefill_into_a_large_multiple() -> None:
    """The grammar that continues a prefill ending inside a multiple of 61 (an automaton of 64 states whose
    expression, walked as a tree, is of 10**12 nodes): derivatives are taken once per shared node, and the
    continuation is exact in xgrammar."""
    from toolgram.compiler.derivative import prefilled_grammar

    from toolgram.engines.xgrammar_engine import accepts_ebnf

    bundle = compile("hermes", _tools({"type": "integer", "multipleOf": 61}), dialect="ebnf", tool_choice="required")
    continued = prefilled_grammar(bundle.ir, '<tool_call>\n{"name": "f", "arguments": {"v": 37')
    for rest, want in (("21}}\n</tool_call>", True), ("22}}\n</tool_call>", False), ("20}}\n</tool_call>", False),
                       ("}}\n</tool_call>", False), ("454}}\n</tool_call>", True)):  # 3721 = 61 * 61, 37454 = 61 * 614
        assert accepts_ebnf(continued, rest)[0] == want, rest


@settings(max_examples=60, deadline=None)
@given(data=st.data(), m=MULTIPLES, integer=st.booleans())
def test_negated_multiples_are_exact(data: st.DataObject, m: Decimal, integer: bool) -> None:
    """The spellings of the numbers that are not multiples of ``m`` (a negated ``multipleOf``): every other
    spelling of the language, a digit past ``m``'s last decimal place included."""
    try:
        e = Token(multiples(None, integer, nots=(m,)), "NUMBER", stop="0123456789.")
    except DfaLimit:
        return
    if e.expr == Chars(()):  # every integer is a multiple of 0.5
        assert integer and integer_step(m) == 1
        return
    reads = lark_reader(e)
    for text in data.draw(spellings(m)) + ["0.001", "12.3400001"]:
        want = bool(SPELLING[integer].fullmatch(text)) and not admitted(text, m, integer)
        assert reads(text) == want, (m, integer, text)


NEGATED = [
    {"type": "number", "oneOf": [{"multipleOf": 5}, {"multipleOf": 3}]},  # Understanding JSON Schema's example
    {"type": "integer", "oneOf": [{"multipleOf": 5}, {"multipleOf": 3}]},
    {"type": "integer", "minimum": 0, "maximum": 30, "oneOf": [{"multipleOf": 5}, {"multipleOf": 3}]},  # listed
    {"type": "integer", "not": {"multipleOf": 7}},
    {"type": "number", "not": {"multipleOf": 0.5}},
    {"type": "integer", "if": {"multipleOf": 2}, "then": {"minimum": 10}, "else": {"maximum": 3}},
]


@pytest.mark.parametrize("dialect", ["lark", "ebnf", "gbnf", "structural-tag"])
@pytest.mark.parametrize("fmt", ["hermes", "qwen3_coder"])
def test_negated_multiples_in_every_dialect(fmt: str, dialect: str) -> None:
    """``oneOf`` over overlapping ``multipleOf`` branches (15 is a multiple of both: invalid), ``not`` and a
    condition's ``else`` negate a ``multipleOf``: each engine and the strict parser agree with ``jsonschema``.
    (Integers are spelled without a fraction, toolgram's policy, so ``3.0`` is left out of the values.)"""
    import jsonschema
    from toolgram.grammars.render import render_calls

    values = [0, 1, 2, 3, 5, 9, 10, 15, 30, 45, 7, 14, 21, 22, 1.5, 2.5, 0.5, -15, -10, 11, 12, 31, 60, -3, 4.25]
    for schema in NEGATED:
        bundle = compile(fmt, _tools(schema), dialect=dialect, tool_choice="required")
        assert not bundle.relaxed
        for v in values:
            want = jsonschema.Draft202012Validator(schema).is_valid(v)
            call = render_calls(fmt, [("f", {"v": v})])
            for engine, (ok, pos) in engine_results(bundle, call).items():
                assert ok == want, (engine, schema, v, pos)


def test_a_negation_past_the_caps() -> None:
    """Multiples of 41 that are not multiples of 37 need more states than the caps.  Under ``not`` the keyword is
    refused with its path (``--permissive``: the negation is left out, a superset, listed); a ``oneOf`` whose split
    needs it is read as ``anyOf``, as any ``oneOf`` whose pieces toolgram cannot write (1517 is a multiple of both),
    and each branch's multiples still hold."""
    from toolgram.grammars.render import render_calls

    def accepted(bundle: Bundle, v: int) -> bool:
        return engine_results(bundle, render_calls("hermes", [("f", {"v": v})]))["xgrammar"][0]

    negated = _tools({"type": "integer", "multipleOf": 41, "not": {"multipleOf": 37}})
    with pytest.raises(UnsupportedSchemaError, match=r"properties\.v\.multipleOf"):
        compile("hermes", negated, dialect="ebnf", tool_choice="required")
    bundle = compile("hermes", negated, dialect="ebnf", tool_choice="required", permissive=True)
    assert [r["path"] for r in bundle.relaxed] == ["$[0].function.parameters.properties.v.multipleOf"]
    assert [accepted(bundle, v) for v in (82, 1517, 38)] == [True, True, False]
    bundle = compile("hermes", _tools({"type": "integer", "oneOf": [{"multipleOf": 37}, {"multipleOf": 41}]}),
                     dialect="ebnf", tool_choice="required")
    assert not bundle.relaxed
    assert [accepted(bundle, v) for v in (37, 82, 1517, 38)] == [True, True, True, False]
