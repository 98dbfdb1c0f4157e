"""Issue 22, value side: keywords toolgram now enforces instead of refusing, in every dialect and value syntax.

``$ref`` with sibling keywords (allOf [target, siblings]; the target's other uses unchanged), ``allOf``
over ``$ref``'d objects, types, bounds and enums, ``minimum``/``maximum``/``exclusive*`` on ``number``
(draft 4 boolean ``exclusive*`` too), ``pattern`` with ``minLength``/``maxLength``, ECMAScript anchors
inside an alternation, enum values filtered by their sibling keywords, ``not`` over
``type``/``const``/``enum``, ``multipleOf`` on integers and numbers (with bounds, in ``anyOf`` branches and
``allOf``), draft 7 ``items`` arrays with ``additionalItems``.

Every case is one optional argument of one tool, so a format and dialect compile once; each valid
instance (checked valid by ``jsonschema``, the oracle) is rendered as a call and must be accepted by
the engine, and each invalid one (checked invalid by ``jsonschema``) rejected.  The strict parser (the
Lark grammar) reads every valid call back equal and no invalid one as a call.
"""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

import jsonschema
import pytest
from hypothesis import given
from hypothesis import strategies as st
from strategies import engine_results
from toolgram.compiler.bundle import compile
from toolgram.compiler.values import decimal_range
from toolgram.grammars import FORMATS
from toolgram.grammars.render import render_calls
from toolgram.parsing.strict import parse_strict

from toolgram.errors import SchemaError, UnsupportedSchemaError

DEFS: dict[str, Any] = {
    "L": {"type": "array", "items": {"type": "integer"}},
    "O": {"type": "object", "properties": {"y": {"type": "string"}}, "required": ["y"]},
    "N": {"type": "number"},
    "S": {"type": "string"},
    "U": {"unevaluatedProperties": False},
}

#: argument name -> (schema, valid values, invalid values)
CASES: dict[str, tuple[dict[str, Any], list[Any], list[Any]]] = {
    # $ref with siblings caps only its own use; a plain use of the same definition is unchanged
    "ref_capped": ({"$ref": "#/definitions/L", "maxItems": 1}, [[], [7]], [[1, 2]]),
    "ref_plain": ({"$ref": "#/definitions/L"}, [[1, 2, 3]], [["x"]]),
    "ref_props": ({"$ref": "#/definitions/O", "properties": {"z": {"type": "integer"}}, "required": ["z"]},
                  [{"y": "a", "z": 1}], [{"y": "a"}, {"z": 1}]),
    "ref_bounds": ({"$ref": "#/definitions/N", "minimum": 1, "maximum": 2}, [1, 1.5, 2], [0.5, 3]),
    # a condition on contains (Read the Docs: an install list holding a uv item has one item); not contains
    "if_contains": ({"type": "array", "items": {"type": ["integer", "string"]}, "if": {"contains": {"const": "uv"}},
                     "then": {"maxItems": 1}}, [[], ["uv"], ["a", "b"], [1, 2, 3]], [["uv", "a"], [1, "uv"]]),
    "contains_capped": ({"type": "array", "items": {"type": "integer"}, "contains": {"minimum": 5}, "minItems": 2,
                         "maxItems": 3}, [[5, 1], [1, 1, 7], [5, 5], [1, 6, 1]],
                        [[5], [1, 2], [1, 2, 3, 5], [1, 1, 1]]),
    "not_contains": ({"type": "array", "not": {"contains": {"type": "string", "minLength": 2}}},
                     [[], ["a", 1, None], [[]]], [["ab"], [1, "abc"]]),
    # allOf over a $ref'd plain object, and over types, bounds and enums
    "all_ref": ({"allOf": [{"$ref": "#/definitions/O"}]}, [{"y": "b"}], [{}, {"y": 1}]),
    "all_mix": ({"allOf": [{"$ref": "#/definitions/O"}, {"properties": {"w": {"type": "boolean"}}}]},
                [{"y": "b"}, {"y": "b", "w": True}], [{"w": True}]),
    "all_types": ({"allOf": [{"type": ["integer", "string"]}, {"type": "number", "maximum": 9}]},
                  [3, 9], [10, "a"]),
    # allOf over arrays: prefixItems met position by position, each side's items holding past its own prefix
    # a branch's additionalProperties schema holds for the other branch's names too
    "all_extra_schema": ({"allOf": [{"properties": {"x": {"type": "number"}}},
                                    {"additionalProperties": {"type": "integer"}}]},
                         [{"x": 1}, {"k": 2}, {}], [{"x": 1.5}, {"k": 1.5}]),
    # not over numbers: the ranges around the excluded values; if/then/else over strings (raw XML text too)
    "not_int": ({"type": "integer", "not": {"const": 3}, "maximum": 5}, [2, 4, -3, 5], [3, 6]),
    "not_number": ({"type": "number", "not": {"enum": [1, 2.5]}}, [1.5, 0, 3, -1], [1, 2.5, 1.0]),
    "if_string": ({"type": "string", "if": {"maxLength": 2}, "then": {"enum": ["ab", "x"]}, "else": {"minLength": 4}},
                  ["ab", "x", "abcd"], ["zz", "abc", ""]),
    # contains: the items before the first match are those it rejects; where that cannot be written, any items
    # oneOf: exactly one branch (overlapping branches split by the others' negations)
    "one_of_types": ({"oneOf": [{"type": ["number", "string"]}, {"type": ["string", "boolean"]}]},
                     [1, 2.5, True], ["a", None]),
    "one_of_ranges": ({"oneOf": [{"maximum": 5}, {"minimum": 3}], "type": "integer"}, [2, 6], [3, 4, 5]),
    "one_of_enums": ({"oneOf": [{"enum": ["a", "b"]}, {"enum": ["b", "c"]}]}, ["a", "c"], ["b", "d"]),
    "one_of_lengths": ({"type": "string", "oneOf": [{"maxLength": 2}, {"minLength": 2, "maxLength": 3}]},
                       ["", "a", "abc"], ["ab", "abcd"]),
    "not_one_of": ({"type": "integer", "not": {"oneOf": [{"maximum": 5}, {"minimum": 3}]}}, [3, 4, 5], [2, 6, -1]),
    # uniqueItems where no array can repeat an item: one item at most, or a closed tuple of disjoint positions
    "unique_single": ({"type": "array", "items": {"type": "string"}, "maxItems": 1, "uniqueItems": True},
                      [[], ["a"]], [["a", "b"], [1]]),
    "unique_positions": ({"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}], "items": False,
                      "uniqueItems": True}, [["a", 1], ["a"], []], [["a", "b"], ["a", 1, 2]]),
    # unevaluated* beside disjoint anyOf/oneOf branches: each branch evaluates its own names (items)
    "uneval_one_of": ({"type": "object", "properties": {"kind": {"enum": ["a", "b"]}}, "required": ["kind"],
                       "oneOf": [{"properties": {"kind": {"const": "a"}, "x": {"type": "integer"}}},
                                 {"properties": {"kind": {"const": "b"}, "y": {"type": "string"}}}],
                       "unevaluatedProperties": False},
                      [{"kind": "a"}, {"kind": "a", "x": 1}, {"kind": "b", "y": "s"}],
                      [{"kind": "a", "y": "s"}, {"kind": "b", "x": 1}, {"kind": "a", "z": 1}, {}]),
    "uneval_any_of": ({"type": "array", "minItems": 1, "anyOf": [{"prefixItems": [{"const": 1}]},
                                                                 {"prefixItems": [{"const": 2}, {"type": "string"}]}],
                       "unevaluatedItems": False},
                      [[1], [2, "a"], [2]], [[1, "a"], [2, "a", 3], [3], []]),
    "contains": ({"type": "array", "items": {"type": "integer"}, "contains": {"minimum": 5}},
                 [[7], [1, 7], [7, 1, 9], [1, 2, 5]], [[], [1, 2], ["a", 7]]),
    "contains_pattern": ({"type": "array", "contains": {"type": "string", "pattern": "^a"}, "minItems": 1},
                         [["ab"], [1, "ab"], ["b", "a", 2]], [[], ["b"], [1, 2]]),
    # counted matches: minContains / maxContains (the misses are the values contains rejects)
    "contains_counts": ({"type": "array", "items": {"type": "integer"}, "contains": {"minimum": 5},
                         "minContains": 2, "maxContains": 3},
                        [[5, 6], [1, 5, 2, 6], [5, 6, 7, 1]], [[5], [1, 5], [5, 6, 7, 8], []]),
    "contains_at_most": ({"type": "array", "contains": {"const": "x"}, "minContains": 0, "maxContains": 1},
                         [[], ["a"], ["x"], ["a", "x", 1]], [["x", "x"], ["x", 1, "x"]]),
    "contains_least": ({"type": "array", "contains": {"type": "string", "pattern": "^a"}, "minContains": 2},
                       [["a", "ab"], ["b", "a", 1, "a"]], [["a"], ["a", "b"], []]),
    "all_prefix": ({"allOf": [{"type": "array", "prefixItems": [{"type": "integer"}, {"type": "string"}]},
                              {"prefixItems": [{"minimum": 3}], "items": {"type": "string"}, "maxItems": 3}]},
                   [[3], [5, "a"], [5, "a", "b"], []], [[2], [3, 4], [5, "a", 1], [5, "a", "b", "c"]]),
    "all_prefix_items": ({"allOf": [{"type": "array", "prefixItems": [{"type": "integer"}]},
                                    {"items": {"maximum": 3}}]},
                         [[1], [1, 2, 3], []], [[4], [1, 5], ["x"]]),
    "all_prefix_closed": ({"allOf": [{"type": "array", "prefixItems": [{"type": "integer"}], "items": False},
                                     {"prefixItems": [True, {"type": "string"}]}]},
                          [[1], []], [[1, "a"], ["x"]]),
    # unevaluatedProperties / unevaluatedItems where every in-place part evaluates unconditionally
    "uneval_props": ({"type": "object", "properties": {"a": {"type": "integer"}}, "unevaluatedProperties": False},
                     [{"a": 1}, {}], [{"b": 1}, {"a": 1, "b": 1}]),
    "uneval_all": ({"allOf": [{"properties": {"a": {"type": "integer"}}}], "properties": {"b": {"type": "string"}},
                    "unevaluatedProperties": False}, [{"a": 1, "b": "x"}, {"b": "x"}], [{"c": 1}, {"a": 1, "c": 1}]),
    "uneval_schema": ({"type": "object", "properties": {"a": {"type": "string"}},
                       "unevaluatedProperties": {"type": "integer"}}, [{"a": "s", "z": 1}, {"z": 2}], [{"z": "s"}]),
    # a $ref target's own unevaluatedProperties sees only the target: the sibling properties are unevaluated there
    "uneval_ref_scope": ({"$ref": "#/definitions/U", "properties": {"p": {"type": "string"}}}, [{}], [{"p": "x"}]),
    # ... and an anyOf branch's sees only the branch
    "uneval_branch": ({"type": "object", "properties": {"a": {"type": "integer"}},
                       "anyOf": [{"properties": {"b": {"type": "integer"}}, "unevaluatedProperties": False}]},
                      [{"b": 1}, {}], [{"a": 1}, {"a": 1, "b": 1}]),
    "uneval_items": ({"type": "array", "prefixItems": [{"type": "string"}], "unevaluatedItems": False},
                     [["a"], []], [["a", "b"], [1]]),
    "uneval_items_all": ({"allOf": [{"prefixItems": [{"type": "string"}]}], "prefixItems": [True, {"type": "integer"}],
                          "unevaluatedItems": {"type": "boolean"}}, [["a", 1, True], ["a"]], [["a", 1, 2], [1]]),
    # keywords that constrain nothing where they stand are no reason to refuse a schema
    "unique_false": ({"type": "array", "items": {"type": "integer"}, "uniqueItems": False}, [[1, 1], []], [["a"]]),
    "if_alone": ({"type": "integer", "if": {"minimum": 5}}, [1, 7], ["x", 1.5]),
    "min_contains_alone": ({"type": "array", "items": {"type": "integer"}, "minContains": 2}, [[], [1]], [["x"]]),
    "additional_items_ignored": ({"type": "array", "items": {"type": "integer"}, "additionalItems": False},
                                 [[1, 2]], [["a"]]),
    # uniqueItems over items of listed values: each at most once, in any order
    "unique_enum": ({"type": "array", "items": {"enum": ["r", "w", "x"]}, "uniqueItems": True, "maxItems": 2},
                    [[], ["r"], ["w", "r"], ["x", "w"]], [["r", "r"], ["r", "w", "x"], ["q"]]),
    "unique_bool": ({"type": "array", "items": {"type": "boolean"}, "uniqueItems": True, "minItems": 1},
                    [[True], [False, True]], [[], [True, True], [True, False, True]]),
    "all_enum": ({"allOf": [{"enum": ["a", "b", "c"]}, {"enum": ["b", "c", "d"]}, {"not": {"const": "c"}}]},
                 ["b"], ["a", "c", "d"]),
    "enum_typed": ({"type": "integer", "enum": [1, 2.5, "x", 7], "maximum": 5}, [1], [7, "x"]),
    # number bounds, decimal and exclusive, draft 4 booleans
    "num_range": ({"type": "number", "minimum": 0.5, "maximum": 10}, [0.5, 1, 9.99, 10, 10.0], [0.49, 10.01, -1]),
    "num_excl": ({"type": "number", "exclusiveMinimum": -1.25, "exclusiveMaximum": 0}, [-1.2, -0.001, -1],
                 [-1.25, 0, 0.0, 0.5, -2]),
    "num_draft4": ({"type": "number", "minimum": 1, "exclusiveMinimum": True}, [1.0001, 2], [1, 0.9]),
    "int_draft4": ({"type": "integer", "maximum": 5, "exclusiveMaximum": True}, [4, -3], [5, 6]),
    # multipleOf on integers: spelled out within bounds, trailing zeros, last digit, or trivial
    "mult_bounded": ({"type": "integer", "multipleOf": 3, "minimum": 1, "maximum": 20}, [3, 18], [0, 4, 21]),
    "mult_hundred": ({"type": "integer", "multipleOf": 100}, [0, 300, -1200], [50, 1010]),
    "mult_two": ({"type": "integer", "multipleOf": 2}, [0, 14, -8], [7, -3]),
    "mult_half": ({"type": "integer", "multipleOf": 0.5}, [3, -1], [1.5]),
    # any multiple (a DFA over the remainder), numbers too, met with bounds, anyOf branches and allOf
    "mult_seven": ({"type": "integer", "multipleOf": 7}, [0, 343, -14, 700007], [8, 100, -15]),
    "mult_cents": ({"type": "number", "multipleOf": 0.01}, [3.14, 12, -3.5, 0.1, 99.99], [0.001, 1.005, -0.015]),
    "mult_quarter": ({"type": "number", "multipleOf": 0.25, "minimum": -1, "maximum": 2},
                     [-1, 0.75, 2, 0, 1.5], [2.25, 0.3, -1.25, 1.2]),
    "mult_one_half": ({"type": "number", "multipleOf": 1.5}, [4.5, -3, 0, 1.5], [35, 1, 0.75]),
    "mult_wide": ({"type": "integer", "multipleOf": 3, "minimum": -5000, "maximum": 5000},
                  [-4998, 0, 3, 4998], [-5001, 5001, 4997, 10]),
    "mult_branches": ({"type": "integer", "multipleOf": 2, "anyOf": [{"multipleOf": 3}, {"minimum": 100}]},
                      [6, 102, 0, -12], [3, 4, 101, -4]),
    "mult_all": ({"allOf": [{"type": "integer", "multipleOf": 4}, {"multipleOf": 6}]}, [12, 24, -36], [4, 6, 18]),
    # draft 7 tuple items with additionalItems
    "tuple_closed": ({"type": "array", "items": [{"type": "integer"}, {"type": "string"}], "additionalItems": False},
                     [[1, "a"], [1], []], [[1, "a", 2], ["a"]]),
    "tuple_more": ({"type": "array", "items": [{"type": "integer"}], "additionalItems": {"type": "boolean"}},
                   [[1, True, False], [2]], [[1, 2], [True]]),
    # draft 7 tuples met in allOf: additionalItems follows its own sibling items only, never one in an applicator
    "tuple_applicator": ({"allOf": [{"items": [{"type": "integer"}]}], "additionalItems": {"type": "boolean"}},
                         [[1, None], [1, "x"], []], [["x"], [None, 1]]),
    "tuple_met": ({"allOf": [{"items": [{"type": "integer"}], "additionalItems": {"type": "boolean"}},
                             {"items": [{"minimum": 0}, {}, {"type": "boolean"}]}]},
                  [[1, True, False, True], [0]], [[-1], [1, 2], [1, True, 3]]),
    # 2020-12 prefixItems: a position is never skipped (["a"] was accepted as a skipped integer)
    "prefix": ({"type": "array", "prefixItems": [{"type": "integer"}, {"type": "string"}], "maxItems": 3},
               [[1, "a"], [1], [1, "a", None]], [["a"], [1, "a", 2, 3]]),
    # pattern with lengths; anchors inside an alternation
    "pat_len": ({"type": "string", "pattern": "^[a-z0-9-]+$", "minLength": 2, "maxLength": 4},
                ["ab", "a-1z"], ["a", "abcde", "AB"]),
    "pat_open": ({"type": "string", "pattern": "[0-9]", "maxLength": 3}, ["1", "a1b"], ["abc", "a123"]),
    "pat_anchor": ({"type": "string", "pattern": "^dev|alpha|stable$"},
                   ["dev", "dev-1", "alpha", "x-alpha-y", "stable", "old-stable"], ["xdev", "stable-1", "beta"]),
    # look-arounds in a pattern's top-level sequence (met with the rest of the text, or stripped of it)
    "look_reserved": ({"type": "string", "pattern": "^(?!(dev|test)$)[a-z]+$"},
                      ["devs", "tes", "prod", "testy"], ["dev", "test", "", "Dev"]),
    "look_password": ({"type": "string", "pattern": "^(?=.*[A-Z])(?=.*[0-9]).{4,}$"},
                      ["aB3d", "1234A", "Z9 x"], ["abcd", "AB1", "abc1", "ABCD"]),
    "look_behind": ({"type": "string", "pattern": "(?<!a)b"}, ["b", "cb", "abcb", "bab"], ["ab", "", "aab"]),
    "look_ahead_open": ({"type": "string", "pattern": "v(?=[0-9])"}, ["v1", "xv2.0", "vav9"], ["v", "va", "V1"]),
    # a leading look-ahead that counts (a length), and one whose ^ holds only at the text's start
    "look_length": ({"type": "string", "pattern": "^(?=.{1,12}$)[a-z]+(\\.[a-z]+)*$"},
                    ["a", "ab.cd", "abcdefghijkl", "a.b.c.d.e.fg"], ["abcdefghijklm", "a..b", "", "a.b.c.d.e.fgh"]),
    "look_long": ({"type": "string", "pattern": "(?=^.{1,200}$)[a-z]+(\\.[a-z]+)*$"},
                  ["a" * 200, "ab.c", "a." * 99 + "ab"], ["a" * 201, "a." * 100 + "a", ".a"]),
    "look_start": ({"type": "string", "pattern": "(?!^[0-9]+$)^[a-z0-9]+$"}, ["a1", "12a", "x"], ["123", "", "a-"]),
    "look_search": ({"type": "string", "pattern": "(?!^[0-9]+$)[a-z0-9]+"}, ["a1", "123", "-1"], ["1", "", "--"]),
}
#: JSON, Python literals, Gemma 4, XML raw values
VALUE_FORMATS = ["hermes", "pythonic", "gemma4", "qwen3_coder"]
TOOLS = [{"type": "function", "function": {"name": "f", "parameters": {
    "type": "object", "properties": {k: v[0] for k, v in CASES.items()}, "definitions": DEFS}}}]


def _instances(fmt: str) -> list[tuple[str, Any, bool]]:
    out = []
    for key, (_, good, bad) in CASES.items():
        for v in good:
            out.append((key, v, True))
        for v in bad:
            out.append((key, v, False))
    if FORMATS[fmt].values == "xml":
        # XML raw text: a string holding digits reads as the number; keep the unambiguous instances
        out = [(k, v, ok) for k, v, ok in out if not (isinstance(v, str) and CASES[k][0].get("type") != "string"
                                                     and "enum" not in json.dumps(CASES[k][0]))]
    return out


def _validator(key: str, schema: dict[str, Any]) -> Any:
    """JSON Schema 2020-12 (a $ref's siblings apply); draft 4 for boolean exclusive bounds; draft 7 for tuple items."""
    cls = (jsonschema.Draft4Validator if "draft4" in key else jsonschema.Draft7Validator if "tuple" in key
           else jsonschema.Draft202012Validator)
    return cls({**schema, "definitions": DEFS})


def test_instances_agree_with_jsonschema() -> None:
    """The oracle: every valid instance is valid and every invalid one invalid under JSON Schema."""
    for key, (schema, good, bad) in CASES.items():
        check = _validator(key, schema)
        assert all(check.is_valid(v) for v in good), key
        assert not any(check.is_valid(v) for v in bad), key


def _check(fmt: str, dialect: str) -> None:
    bundle = compile(fmt, TOOLS, dialect=dialect, tool_choice="required", parallel_tool_calls=False)
    for key, v, ok in _instances(fmt):
        text = render_calls(fmt, [("f", {key: v})])
        for engine, (accepted, pos) in engine_results(bundle, text).items():
            assert accepted == ok, f"{engine} {'rejects' if ok else 'accepts'} {key}={v!r} ({pos}): {text!r}"


@pytest.mark.parametrize("dialect", ["lark", "ebnf", "gbnf", "structural-tag"])
def test_engines_json(dialect: str) -> None:
    _check("hermes", dialect)


# default run: the XML syntax; Python's and Gemma's Lark grammars are read by test_strict_parser_agrees there too
@pytest.mark.parametrize("fmt", [f if f == "qwen3_coder" else pytest.param(f, marks=pytest.mark.slow)
                                 for f in VALUE_FORMATS[1:]])
def test_engines_other_syntaxes_lark(fmt: str) -> None:
    _check(fmt, "lark")


@pytest.mark.slow
@pytest.mark.parametrize("dialect", ["ebnf", "gbnf", "structural-tag"])
@pytest.mark.parametrize("fmt", VALUE_FORMATS[1:])
def test_engines_other_syntaxes(fmt: str, dialect: str) -> None:
    _check(fmt, dialect)


@pytest.mark.parametrize("fmt", VALUE_FORMATS)
def test_strict_parser_agrees(fmt: str) -> None:
    for key, v, ok in _instances(fmt):
        text = render_calls(fmt, [("f", {key: v})])
        msg = parse_strict(fmt, text, TOOLS, tool_choice="required", parallel_tool_calls=False)
        if ok:
            assert len(msg["tool_calls"]) == 1, (key, v, msg["diagnostics"])
            assert json.loads(msg["tool_calls"][0]["function"]["arguments"]) == {key: v}
        else:
            assert not msg["tool_calls"], (key, v)


def test_openvino_loads() -> None:
    ov = pytest.importorskip("toolgram.engines.openvino_engine")
    ov.check_ebnf(compile("hermes", TOOLS, dialect="ebnf", tool_choice="required").grammar)


@pytest.mark.parametrize(("schema", "where"), [
    ({"allOf": [{"type": "string", "format": "email"}, {"format": "uuid"}]}, "allOf[1].format"),
    ({"allOf": [{"type": "string"}, {"type": "integer"}]}, "allOf[1].type"),
    ({"allOf": [{"enum": [1]}, {"enum": [2]}]}, "allOf[1]"),
    ({"type": "number", "minimum": 3, "maximum": 2}, "properties.v"),
    ({"type": "string", "pattern": "^[a-z0-9.]+@[a-z0-9-]{1,70}\\.[a-z]{2,}$", "maxLength": 300},
     "properties.v.pattern"),
    ({"type": "array", "items": {"type": "string"}, "uniqueItems": True}, "properties.v.uniqueItems"),
])
def test_refusals_name_the_path(schema: dict[str, Any], where: str) -> None:
    """(``v`` is required: an optional member whose schema admits no value is left out, and the object holds.)"""
    with pytest.raises((SchemaError, UnsupportedSchemaError)) as err:
        compile("hermes", [{"name": "f", "parameters": {"type": "object", "properties": {"v": schema},
                                                        "required": ["v"]}}])
    assert f"$[0].function.parameters.properties.v.{where}".replace("v.properties.v", "v") in str(err.value)


def test_unique_items_as_elements_refused() -> None:
    """minimax_m3 writes array items as elements, not counted value by value: uniqueItems is refused there."""
    unique = {"type": "array", "items": {"enum": ["r", "w"]}, "uniqueItems": True}
    params = {"type": "object", "properties": {"v": unique}}
    with pytest.raises(UnsupportedSchemaError, match=r"properties\.v\.uniqueItems"):
        compile("minimax_m3", [{"name": "f", "parameters": params}])


def test_permissive_meet_keeps_a_superset() -> None:
    """Under ``--permissive`` allOf branches that cannot be merged keep the first one's keyword (the path of the
    other is listed as relaxed): every value the schema admits is admitted, and the first branch still holds."""
    schema = {"allOf": [{"type": "string", "format": "uuid"}, {"format": "email"}]}
    tools = [{"name": "f", "parameters": {"type": "object", "properties": {"v": schema}}}]
    bundle = compile("hermes", tools, dialect="lark", tool_choice="required", permissive=True)
    assert bundle.relaxed == [{"path": "$[0].function.parameters.properties.v.allOf[1].format", "feature": "format"}]
    for value, ok in [("123e4567-e89b-12d3-a456-426614174000", True), ("a@b.co", False), ("x", False)]:
        text = render_calls("hermes", [("f", {"v": value})])
        assert {accepted for accepted, _ in engine_results(bundle, text).values()} == {ok}, value


@pytest.mark.parametrize("fmt", VALUE_FORMATS)
def test_patterns_meet_and_negate(fmt: str) -> None:
    """Two ``pattern``s (``allOf``), a negated one (``not``, an ``if`` test's else, a ``oneOf`` branch against the
    other) and excluded values beside a length are met exactly, by the product of their automata: in every value
    syntax (raw XML text too), every engine and the strict parser, against ``jsonschema``."""
    schemas = {
        "both": ({"allOf": [{"type": "string", "pattern": "^a"}, {"pattern": "b$"}]}, ["ab", "axb"], ["a", "ba", "ac"]),
        "not": ({"type": "string", "not": {"pattern": "^x"}}, ["a", "", "yx"], ["x", "xa"]),
        "not_len": ({"type": "string", "minLength": 1, "not": {"enum": ["a", "b"]}}, ["c", "ab"], ["a", "b", ""]),
        "one": ({"oneOf": [{"type": "string", "pattern": "^a"}, {"type": "string", "pattern": "b$"}]},
                ["ax", "xb"], ["ab", "x"]),
        "fmt_not": ({"type": "string", "format": "ipv4", "not": {"pattern": "^127\\."}},
                    ["10.0.0.1"], ["127.0.0.1", "x"]),
        "fmt_pat": ({"type": "string", "format": "ipv4", "pattern": "^10\\."}, ["10.0.0.1"], ["11.0.0.1", "10.x"]),
    }
    cond = {"type": "object", "properties": {"k": {"type": "string"}, "v": {"type": "string"}}, "required": ["k", "v"],
            "if": {"properties": {"k": {"pattern": "^num"}}}, "then": {"properties": {"v": {"pattern": "^[0-9]+$"}}}}
    params = {"type": "object", "properties": {**{k: v[0] for k, v in schemas.items()}, "c": cond}}
    tools = [{"name": "f", "parameters": params}]
    cases = [({k: v}, True) for k, (_, good, _) in schemas.items() for v in good]
    cases += [({k: v}, False) for k, (_, _, bad) in schemas.items() for v in bad]
    cases += [({"c": {"k": "numx", "v": "12"}}, True), ({"c": {"k": "s", "v": "ab"}}, True),
              ({"c": {"k": "num", "v": "ab"}}, False)]
    check = jsonschema.Draft202012Validator(params, format_checker=jsonschema.FormatChecker())
    bundles = [compile(fmt, tools, dialect=d, tool_choice="required") for d in ("lark", "ebnf", "gbnf")]
    assert all(b.relaxed == [] for b in bundles)
    for args, ok in cases:
        assert check.is_valid(args) == ok, args
        text = render_calls(fmt, [("f", args)])
        for b in bundles:
            for engine, (accepted, pos) in engine_results(b, text).items():
                assert accepted == ok, f"{engine} {'rejects' if ok else 'accepts'} {args} ({pos}): {text!r}"
        assert bool(parse_strict(fmt, text, tools, tool_choice="required")["tool_calls"]) == ok, args


@pytest.mark.parametrize("fmt", ["hermes", "qwen3_coder"])
@pytest.mark.parametrize("pattern", ["^(a)\\1"])
def test_permissive_relaxes_an_unwritable_pattern(fmt: str, pattern: str) -> None:
    """A pattern no grammar can hold (a back-reference) is refused with its path; under ``--permissive`` it is
    relaxed to the strings of its lengths (a superset), in the JSON and the XML raw-value builders alike, and the
    strict parser reads what the grammar admits."""
    schema = {"type": "string", "pattern": pattern, "minLength": 2, "maxLength": 5}
    tools = [{"name": "f", "parameters": {"type": "object", "properties": {"v": schema}}}]
    with pytest.raises(UnsupportedSchemaError, match=r"properties\.v\.pattern"):
        compile(fmt, tools, dialect="lark")
    bundle = compile(fmt, tools, dialect="lark", tool_choice="required", permissive=True)
    assert bundle.relaxed == [{"path": "$[0].function.parameters.properties.v.pattern", "feature": "pattern"}]
    for value, ok in [("aa", True), ("abab", True), ("xyz", True), ("a", False), ("abcdef", False)]:
        text = render_calls(fmt, [("f", {"v": value})])
        assert {accepted for accepted, _ in engine_results(bundle, text).values()} == {ok}, value
        msg = parse_strict(fmt, text, tools, tool_choice="required", permissive=True)
        assert bool(msg["tool_calls"]) == ok, (value, msg)


@pytest.mark.parametrize("fmt", ["hermes", "qwen3_coder"])
@pytest.mark.parametrize(("schema", "cases"), [
    ({"pattern": "^[a-z0-9.]+@[a-z0-9-]{1,70}\\.[a-z]{2,}$", "minLength": 8, "maxLength": 200},
     [("a@b.co", True), ("averylongname@example.com", True), ("ab.cd", False), ("a@b", False)]),
    ({"format": "email", "maxLength": 12},
     [("a@b.co", True), ("averylongname@example.com", True), ("not an email", False), ("a@", False)]),
    ({"pattern": "^[a-z0-9.]+@[a-z0-9-]{1,70}\\.[a-z]{2,}$", "maxLength": 300},
     [("a@b.co", True), ("a" * 301 + "@b.co", True), ("a@b", False), ("", False)]),
])
def test_permissive_relaxes_lengths_a_pattern_cannot_meet(fmt: str, schema: dict, cases: list) -> None:
    """A pattern or format whose meet with ``minLength``/``maxLength`` cannot be written is refused with the
    pattern's (or format's) path; under ``--permissive`` the lengths are relaxed and the pattern kept, since it can
    be written alone (an email stays an email, at any length): a superset, listed under ``relaxed``, in the JSON
    and the XML raw-value builders alike, and the strict parser reads what the grammar admits."""
    keyword = "format" if "format" in schema else "pattern"
    tools = [{"name": "f", "parameters": {"type": "object", "properties": {"v": {"type": "string", **schema}}}}]
    with pytest.raises(UnsupportedSchemaError, match=rf"properties\.v\.{keyword}"):
        compile(fmt, tools, dialect="lark")
    bundle = compile(fmt, tools, dialect="lark", tool_choice="required", permissive=True)
    assert bundle.relaxed == [{"path": f"$[0].function.parameters.properties.v.{k}", "feature": k}
                              for k in ("minLength", "maxLength") if k in schema]
    for value, ok in cases:
        text = render_calls(fmt, [("f", {"v": value})])
        assert {accepted for accepted, _ in engine_results(bundle, text).values()} == {ok}, value
        msg = parse_strict(fmt, text, tools, tool_choice="required", permissive=True)
        assert bool(msg["tool_calls"]) == ok, (value, msg)


BOUND = st.one_of(st.none(), st.decimals(min_value=-50, max_value=50, places=3, allow_nan=False))


@given(lo=BOUND, hi=BOUND, lo_ex=st.booleans(), hi_ex=st.booleans(),
       samples=st.lists(st.decimals(min_value=-60, max_value=60, places=4, allow_nan=False), min_size=1, max_size=20))
def test_decimal_range_matches_bounds(lo: Decimal | None, hi: Decimal | None, lo_ex: bool, hi_ex: bool,
                                      samples: list[Decimal]) -> None:
    """The decimal range automaton admits a number's plain spellings exactly when it lies in range."""
    import re

    from toolgram.compiler.dfa import dfa_regex

    try:
        rx = re.compile(dfa_regex(decimal_range(lo, lo_ex, hi, hi_ex)))
    except ValueError:
        assert lo is not None and hi is not None and (lo > hi or (lo == hi and (lo_ex or hi_ex)))
        return
    for d in samples + [b for b in (lo, hi) if b is not None]:
        inside = (lo is None or d > lo or (d == lo and not lo_ex)) and (hi is None or d < hi or (d == hi and not hi_ex))
        for text in {format(d, "f"), format(d.normalize(), "f"), format(d, "f") + "0"}:
            if text.startswith("-") and d == 0:
                continue  # "-0": admitted only where negative numbers are
            assert bool(rx.fullmatch(text)) == inside, (lo, lo_ex, hi, hi_ex, text)


@pytest.mark.parametrize("dialect", ["lark", "ebnf"])
def test_xml_untyped_schemas_read_as_json_does(dialect: str) -> None:
    """An untyped schema whose keywords imply a type (``pattern``: a string, ``minimum``/``multipleOf``: a
    number) is held to them in XML raw values too (it was free text there), and an ``anyOf`` branch is
    raw text only when, met with the keywords beside it, it admits strings."""
    cases = [({"pattern": "^[a-z]+$"}, ["abc"], ["ABC", "a1"]),
             ({"minimum": 1}, ["5", "1.5"], ["abc", "0"]),
             ({"multipleOf": 0.5}, ["1.5", "-2"], ["1.25", "x"]),
             ({"type": "integer", "anyOf": [{"multipleOf": 3}, {"minimum": 100}]}, ["6", "101"], ["4", "six"])]
    for schema, good, bad in cases:
        tools = [{"type": "function", "function": {"name": "f", "parameters": {
            "type": "object", "properties": {"v": schema}, "required": ["v"]}}}]
        bundle = compile("qwen3_coder", tools, dialect=dialect, tool_choice="required")
        for text, want in [(t, True) for t in good] + [(t, False) for t in bad]:
            call = f"<tool_call>\n<function=f>\n<parameter=v>\n{text}\n</parameter>\n</function>\n</tool_call>"
            for engine, (ok, pos) in engine_results(bundle, call).items():
                assert ok == want, (engine, schema, text, pos)


#: not over strings: the excluded-name rule of extra keys, in JSON and Python syntax; in Gemma 4 and raw XML text
#: each excluded value is a pattern the text must not match (raw XML text cannot keep a string that is none of
#: some values apart from the other types: ``u`` is refused there, with the path)
NOT_STRINGS = {"type": "object", "properties": {"s": {"type": "string", "not": {"enum": ["a", "b\"c"]}},
                                                "u": {"not": {"const": "x"}}}}


@pytest.mark.parametrize("fmt", ["hermes", "pythonic", "gemma4", "qwen3_coder"])
def test_not_strings(fmt: str) -> None:
    raw = FORMATS[fmt].values == "xml"
    params = {**NOT_STRINGS, "properties": {"s": NOT_STRINGS["properties"]["s"]}} if raw else NOT_STRINGS
    tools = [{"type": "function", "function": {"name": "f", "parameters": params}}]
    check = jsonschema.Draft202012Validator(NOTS := params)
    cases = [{"s": "c"}, {"s": ""}, {"s": "ab"}, {"s": "a"}, {"s": "b\"c"}]
    cases += [] if raw else [{"u": "xx"}, {"u": 1}, {"u": "x"}, {"u": None}, {"u": [1]}]
    bundles = [compile(fmt, tools, dialect=d, tool_choice="required") for d in ("lark", "ebnf", "gbnf")]
    for args in cases:
        ok = check.is_valid(args)
        assert ok == (args not in ({"s": "a"}, {"s": "b\"c"}, {"u": "x"})), (args, NOTS)
        text = render_calls(fmt, [("f", args)])
        for b in bundles:
            for engine, (accepted, pos) in engine_results(b, text).items():
                assert accepted == ok, f"{engine} {'rejects' if ok else 'accepts'} {args} ({pos}): {text!r}"
        calls = parse_strict(fmt, text, tools, tool_choice="required")["tool_calls"]
        assert [json.loads(c["function"]["arguments"]) for c in calls] == ([args] if ok else [])


def test_not_strings_refused_in_raw_text() -> None:
    tools = [{"type": "function", "function": {"name": "f", "parameters": NOT_STRINGS}}]
    with pytest.raises(UnsupportedSchemaError, match=r"properties\.u\.not"):
        compile("qwen3_coder", tools, dialect="lark", tool_choice="required")
