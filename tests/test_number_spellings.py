"""Bounded numbers in scientific notation (issue 22: no valid argument refused): ``json.dumps`` writes ``1e-05``
and ``1.5e+16``, ``JSON.stringify`` writes ``1e+21``, and a ``number`` with ``minimum``/``maximum`` took only plain
decimal spellings, so such a value was refused by the grammar and the strict parser.  Now a bounded number
takes plain decimal and normalized scientific spellings (``compiler/numbers.py``), exactly those whose value is
within the bounds, in every dialect and in the strict parser alike.
"""

from __future__ import annotations

import json
import re
from decimal import Decimal

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from strategies import engine_results, tool
from toolgram.compiler.bundle import compile
from toolgram.compiler.dfa import dfa_regex
from toolgram.compiler.numbers import number_range
from toolgram.compiler.values import admits
from toolgram.grammars.render import render_calls
from toolgram.parsing.strict import parse_strict


def scientific(d: Decimal, upper: bool = False, plus: bool = True, width: int = 2, pad: int = 0) -> str:
    """``d`` (non-zero) in normalized scientific notation: one non-zero digit before the point, ``pad``
    trailing zeros, an exponent of at least ``width`` digits (``+`` on a non-negative one if ``plus``)."""
    sign, digits, _ = d.normalize().as_tuple()
    k = d.adjusted()
    body = "".join(map(str, digits)).rstrip("0") or "0"
    mantissa = body[0] + ("." + body[1:] if len(body) > 1 else "") + ("" if len(body) > 1 or not pad else ".")
    mantissa += "0" * pad
    exp = ("-" if k < 0 else "+" if plus else "") + str(abs(k)).zfill(width)
    return ("-" if sign else "") + mantissa + ("E" if upper else "e") + exp


def inside(d: Decimal, lo: Decimal | None, lo_ex: bool, hi: Decimal | None, hi_ex: bool) -> bool:
    return (lo is None or d > lo or (d == lo and not lo_ex)) and (hi is None or d < hi or (d == hi and not hi_ex))


def test_scientific_helper() -> None:
    assert scientific(Decimal("0.00001")) == "1e-05"
    assert scientific(Decimal("15000000000000000"), plus=True) == "1.5e+16"
    assert scientific(Decimal("-2.5E-7"), upper=True, plus=False, width=1) == "-2.5E-7"
    assert scientific(Decimal("3"), pad=2) == "3.00e+00"


BOUND = st.one_of(st.none(), st.decimals(min_value=-10**6, max_value=10**6, places=4, allow_nan=False))
SAMPLE = st.builds(lambda m, k: m.scaleb(k), st.decimals(min_value=-99999, max_value=99999, places=3,
                                                         allow_nan=False).filter(lambda m: m != 0),
                   st.integers(-12, 12))


@given(lo=BOUND, hi=BOUND, lo_ex=st.booleans(), hi_ex=st.booleans(),
       samples=st.lists(SAMPLE, min_size=1, max_size=12), upper=st.booleans(), plus=st.booleans(),
       width=st.integers(1, 3), pad=st.integers(0, 2))
def test_number_range_matches_bounds(lo: Decimal | None, hi: Decimal | None, lo_ex: bool, hi_ex: bool,
                                     samples: list[Decimal], upper: bool, plus: bool, width: int, pad: int) -> None:
    """A number's plain and normalized scientific spellings are admitted exactly when it lies in range; a
    mantissa not normalized (``10e-1``, ``0.5e1``) never is."""
    try:
        rx = re.compile(dfa_regex(number_range(lo, lo_ex, hi, hi_ex)))
    except ValueError:
        assert lo is not None and hi is not None and (lo > hi or (lo == hi and (lo_ex or hi_ex)))
        return
    for d in samples + [b for b in (lo, hi) if b is not None and b != 0]:
        ok = inside(d, lo, lo_ex, hi, hi_ex)
        spellings = {format(d, "f"), scientific(d, upper, plus, width, pad)} if d != 0 else {format(d, "f")}
        for text in spellings:
            assert bool(rx.fullmatch(text)) == ok, (lo, lo_ex, hi, hi_ex, text)
        sign = "-" if d < 0 else ""
        assert not rx.fullmatch(f"{sign}10e-1")
        assert not rx.fullmatch(f"{sign}0.5e1")


#: bounds near the mantissas too: an exponent spelling is cut short where its mantissa alone lies in range
NEAR = st.one_of(BOUND, st.decimals(min_value=-10, max_value=10, places=2, allow_nan=False))


@settings(max_examples=60, deadline=None)
@given(lo=NEAR, hi=NEAR, lo_ex=st.booleans(), hi_ex=st.booleans(),
       samples=st.lists(SAMPLE, min_size=1, max_size=8), upper=st.booleans(), plus=st.booleans(),
       width=st.integers(1, 3), pad=st.integers(0, 2))
@example(lo=Decimal(0), hi=Decimal(3), lo_ex=False, hi_ex=False, samples=[Decimal("1.192092896E-7")], upper=False,
         plus=True, width=2, pad=0)
def test_the_strict_parser_reads_each_spelling_whole(lo: Decimal | None, hi: Decimal | None, lo_ex: bool,
                                                     hi_ex: bool, samples: list[Decimal], upper: bool, plus: bool,
                                                     width: int, pad: int) -> None:
    """Lark, the strict parser's engine, admits the same spellings: its terminal is a regex that Python matches
    leftmost-first, and an alternative that ends inside a longer spelling (``1e-0`` of ``1e-07``, for
    ``maximum: 3``) must not end the number there (the SchemaStore ``crowdin.yml`` schema's ``escape_quotes``)."""
    bounds = {k: float(v) for k, v in (("exclusiveMinimum" if lo_ex else "minimum", lo),
                                       ("exclusiveMaximum" if hi_ex else "maximum", hi)) if v is not None}
    lo_, hi_ = (None if b is None else Decimal(repr(float(b))) for b in (lo, hi))
    if lo_ is not None and hi_ is not None and (lo_ > hi_ or (lo_ == hi_ and (lo_ex or hi_ex))):
        return
    tools = [tool("f", {"type": "object", "properties": {"x": {"type": "number", **bounds}}, "required": ["x"]})]
    bundle = compile("hermes", tools, dialect="lark", tool_choice="required")
    for d in samples + [b for b in (lo_, hi_) if b is not None and b != 0]:
        ok = inside(d, lo_, lo_ex, hi_, hi_ex)
        for text in {format(d, "f"), scientific(d, upper, plus, width, pad)} if d != 0 else {format(d, "f")}:
            call = '<tool_call>\n{"name": "f", "arguments": {"x": ' + text + "}}\n</tool_call>"
            assert engine_results(bundle, call)["lark"][0] == ok, (bounds, text)


# json.dumps's spellings of floats, each with the bounds it lies within or outside of
CASES = [
    ({"minimum": 0}, [1e-05, 1.6046968347172264e+308, 2.5e+16, 0.5, 5e-324], [-1e-05, -2.5e+16]),
    ({"minimum": -10, "maximum": 10}, [1e-300, -2.5e-05, 10.0, -10.0], [1e+16, -1e+16, 10.000001]),
    ({"exclusiveMinimum": 0, "maximum": 1e-3}, [1e-05, 0.001, 9.99e-05], [0.0, 0.0010001, -1e-05, 1e+16]),
    ({"exclusiveMaximum": -1e+20}, [-1.5e+20, -1e+300], [-1e+20, -9.9e+19, 1e-05]),
    # two-digit exponents within a bound's (a Lark terminal must not stop at ``1e+1`` of ``1e+16``)
    ({"minimum": 0, "maximum": 1e+20}, [1.5e+16, 1e+20, 2e+19, 1.2e-15], [1.5e+20, 1e+21, -1e-05]),
    # "any double": plain spellings reach 40 digits, scientific ones the bound itself
    ({"minimum": 0, "maximum": 1.7976931348623157e+308}, [1e+300, 1.7976931348623157e+308, 12.5], [-1.0]),
]


@pytest.mark.parametrize("fmt", ["hermes", "qwen3_coder"])
@pytest.mark.parametrize("dialect", ["lark", "ebnf", "gbnf"])
@pytest.mark.parametrize(("bounds", "valid", "invalid"), CASES)
def test_engines_and_strict_parser(fmt: str, dialect: str, bounds: dict, valid: list[float],
                                   invalid: list[float]) -> None:
    """Every engine and the strict parser admit the valid values as ``json.dumps`` writes them and refuse the
    rest, in a JSON and an XML call syntax (a raw XML value is the number's text)."""
    tools = [tool("f", {"type": "object", "properties": {"x": {"type": "number", **bounds}}, "required": ["x"]})]
    bundle = compile(fmt, tools, dialect=dialect, tool_choice="required")
    for value, ok in [(v, True) for v in valid] + [(v, False) for v in invalid]:
        text = render_calls(fmt, [("f", {"x": value})])
        results = engine_results(bundle, text)
        assert results, text
        assert {accepted for accepted, _ in results.values()} == {ok}, (json.dumps(value), results)
        msg = parse_strict(fmt, text, tools, tool_choice="required")
        assert bool(msg["tool_calls"]) == ok, (json.dumps(value), msg)
        if ok:
            assert json.loads(msg["tool_calls"][0]["function"]["arguments"]) == {"x": value}


ANY_DOUBLE = 1.7976931348623157e+308


@pytest.mark.parametrize(("schema", "value", "ok"), [
    ({"maximum": ANY_DOUBLE}, 1e+300, True),
    ({"maximum": ANY_DOUBLE}, ANY_DOUBLE, True),
    ({"exclusiveMaximum": ANY_DOUBLE}, ANY_DOUBLE, False),
    ({"minimum": -ANY_DOUBLE}, -1e+300, True),
    ({"type": "integer", "maximum": ANY_DOUBLE}, 10**50, True),
    ({"maximum": 1e+300}, 1e+301, False),
])
def test_a_bound_past_forty_digits_is_read_as_written(schema: dict, value: float, ok: bool) -> None:
    """A bound on the side that admits long numbers is the schema's own: ``enum``/``const`` values are filtered by
    it (:func:`admits`); only the plain spellings the grammar writes stop at 40 whole digits."""
    assert admits(schema, value) is ok


def test_an_enum_keeps_a_value_a_long_bound_admits() -> None:
    params = {"type": "object", "properties": {"x": {"enum": [1e+300, 5, "a"], "maximum": ANY_DOUBLE}},
              "required": ["x"]}
    tools = [tool("f", params)]
    for dialect in ("lark", "ebnf"):
        bundle = compile("hermes", tools, dialect=dialect, tool_choice="required")
        for value in (1e+300, 5, "a"):
            text = render_calls("hermes", [("f", {"x": value})])
            assert {ok for ok, _ in engine_results(bundle, text).values()} == {True}, (dialect, text)
    msg = parse_strict("hermes", render_calls("hermes", [("f", {"x": 1e+300})]), tools, tool_choice="required")
    assert json.loads(msg["tool_calls"][0]["function"]["arguments"]) == {"x": 1e+300}
