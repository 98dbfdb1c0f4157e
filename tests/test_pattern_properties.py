"""``patternProperties`` and ``propertyNames`` (issue 22): a key matching a pattern takes its schema (two patterns:
both), a declared name too; the other undeclared keys fall to ``additionalProperties``; every key (declared ones
too) must be a name ``propertyNames`` admits.

Every subset of a few keys is rendered as a call in each call syntax (JSON object, pythonic keywords, XML raw
names, Gemma 4, MiniMax-M3 elements) and checked with xgrammar (EBNF), llama.cpp (GBNF), Lark and the strict
parser against ``jsonschema`` (the keys in the documented order: declared ones in ``properties`` order, then
the others).  Values are integers and booleans, which every syntax types the same way.
"""

from __future__ import annotations

import itertools
import json
from functools import cache

import jsonschema
import pytest
from strategies import engine_results, tool
from test_object_keywords import policy
from toolgram.compiler.bundle import Bundle, compile
from toolgram.compiler.keys import key_classes
from toolgram.compiler.regex import decoded_char, pattern_to_ir
from toolgram.grammars.render import render_calls
from toolgram.parsing.strict import parse_strict

from toolgram.errors import ToolgramError

FORMATS = ("hermes", "pythonic", "qwen3_coder", "gemma4", "minimax_m3")
KEYS = ("a", "b", "x1", "x2", "y9")
INTS = {"type": "integer"}
BOOLS = {"type": "boolean"}
NONPOS = {"type": "integer", "maximum": 0}


@cache
def _bundles(fmt: str, params_json: str) -> tuple[Bundle, ...]:
    tools = [tool("f", json.loads(params_json))]
    return tuple(compile(fmt, tools, dialect=d, tool_choice="required") for d in ("lark", "ebnf", "gbnf"))


def _verdicts(fmt: str, params: dict, args: dict) -> dict[str, bool]:
    text = render_calls(fmt, [("f", args)])
    out = {}
    for b in _bundles(fmt, json.dumps(params)):
        out.update({f"{b.dialect}/{k}": ok for k, (ok, _) in engine_results(b, text).items()})
    msg = parse_strict(fmt, text, [tool("f", params)], tool_choice="required")
    out["strict"] = bool(msg["tool_calls"])
    if msg["tool_calls"]:  # read back with the types the schema gives each key (XML raw values too)
        assert json.loads(msg["tool_calls"][0]["function"]["arguments"]) == args, (text, msg)
    return out


def _args() -> list[dict]:
    """Every subset of KEYS, each value 1 or true."""
    out = []
    for n in range(len(KEYS) + 1):
        for combo in itertools.combinations(KEYS, n):
            out.append(dict.fromkeys(combo, 1))
            if combo:
                out.append({**dict.fromkeys(combo, 1), combo[-1]: True})
    return out


CASES = {
    # a pattern beside closed extra keys: x1, x2 only through the pattern
    "closed": {"properties": {"a": INTS}, "patternProperties": {"^x": INTS}, "additionalProperties": False},
    # two patterns (x2 matches both: an integer at most 0) and an extra-key schema for the rest
    "two_patterns": {"properties": {"a": INTS}, "patternProperties": {"^x": INTS, "[0-9]$": NONPOS},
                     "additionalProperties": BOOLS},
    # a declared name that matches a pattern takes both schemas
    "declared_matches": {"properties": {"x1": INTS, "a": BOOLS}, "patternProperties": {"1$": NONPOS}},
    # a declared name whose schema and pattern share no value: neither a member nor an extra key
    "declared_conflict": {"properties": {"x1": INTS, "a": INTS}, "patternProperties": {"^x": BOOLS},
                          "additionalProperties": True},
    # no properties: any other key, any value
    "open": {"patternProperties": {"^y": BOOLS}},
    # patterns whose schemas share no value: keys matching both cannot appear
    "conflict": {"patternProperties": {"^x": INTS, "2$": BOOLS}, "additionalProperties": False},
    # a pattern with schema false: its keys cannot appear
    "false_schema": {"patternProperties": {"^b": False}, "additionalProperties": True},
    # a required key that properties does not declare, given by a pattern; and counted members
    "required_by_pattern": {"patternProperties": {"^x": INTS}, "required": ["x1"], "additionalProperties": False},
    "counted": {"properties": {"a": INTS}, "patternProperties": {"^x|^y": INTS}, "maxProperties": 2},
    # propertyNames: a pattern beside patternProperties, an enum over declared names, a length
    "names_pattern": {"patternProperties": {"^x": INTS}, "propertyNames": {"pattern": "^[a-x]"},
                      "additionalProperties": BOOLS},
    "names_declared": {"properties": {"a": INTS, "b": INTS}, "required": ["a"],
                       "propertyNames": {"enum": ["a", "x1"]}, "additionalProperties": True},
    "names_length": {"propertyNames": {"maxLength": 1, "type": "string"}},
    # look-arounds: x1 takes the pattern's schema, x2 the extra keys'; every key but b
    "look_ahead": {"patternProperties": {"^x(?!2)": INTS}, "additionalProperties": BOOLS},
    "names_look": {"propertyNames": {"pattern": "^(?!b$)"}, "additionalProperties": True},
    # propertyNames' own allOf, anyOf and not (a key's language is regular); two propertyNames met in an allOf
    "names_not": {"propertyNames": {"pattern": "^[a-x]", "not": {"pattern": "2$"}}, "additionalProperties": True},
    "names_not_names": {"propertyNames": {"not": {"enum": ["b", "y9"]}}, "additionalProperties": True},
    "names_any_of": {"propertyNames": {"maxLength": 1, "anyOf": [{"pattern": "^a"}, {"enum": ["b", "x1"]}]},
                     "additionalProperties": True},
    "names_all_of": {"propertyNames": {"allOf": [{"pattern": "^[a-x]"}, True, {"not": {"const": "x2"}}]},
                     "additionalProperties": True},
    "names_met": {"allOf": [{"propertyNames": {"pattern": "^[abx]"}}, {"propertyNames": {"maxLength": 1}}],
                  "additionalProperties": True},
}


@pytest.mark.parametrize("fmt", [f if f in ("hermes", "qwen3_coder") else pytest.param(f, marks=pytest.mark.slow)
                                 for f in FORMATS])  # default run: a JSON and an XML syntax; -m slow: all five
@pytest.mark.parametrize("name", list(CASES))
def test_pattern_properties_exact(fmt: str, name: str) -> None:
    params = {"type": "object", **CASES[name]}
    validator = jsonschema.Draft202012Validator(policy(params))
    declared = list(policy(params).get("properties", {}))
    for args in _args():
        args = dict(sorted(args.items(), key=lambda kv: declared.index(kv[0]) if kv[0] in declared else 99))
        verdicts = _verdicts(fmt, params, args)
        assert set(verdicts.values()) == {validator.is_valid(args)}, (args, verdicts, params)


def test_nested_object_with_pattern_properties() -> None:
    inner = {"type": "object", "patternProperties": {"^[a-z]+$": INTS}, "additionalProperties": False}
    params = {"type": "object", "properties": {"env": inner}, "required": ["env"]}
    for fmt in ("hermes", "qwen3_coder", "gemma4", "minimax_m3", "pythonic"):
        for env, ok in [({}, True), ({"path": 1, "home": 2}, True), ({"PATH": 1}, False), ({"path": True}, False)]:
            verdicts = _verdicts(fmt, params, {"env": env})
            assert set(verdicts.values()) == {ok}, (fmt, env, verdicts)


def test_unenforceable_pattern_is_refused_with_its_path() -> None:
    params = {"type": "object", "patternProperties": {"^(x)\\1": INTS}, "additionalProperties": False}
    with pytest.raises(ToolgramError, match=r"parameters\.patternProperties"):
        compile("hermes", [tool("f", params)], dialect="lark")
    bundle = compile("hermes", [tool("f", params)], dialect="lark", permissive=True)
    assert bundle.relaxed == [{"path": "$[0].function.parameters.patternProperties",
                               "feature": "patternProperties"}]


@pytest.mark.parametrize("names", [{"format": "email"}, {"allOf": [{"format": "email"}]},
                                   {"$ref": "#/$defs/email"}, {"anyOf": [{"pattern": "^a"}, {"format": "email"}]}])
def test_property_names_unsupported_keyword(names: dict) -> None:
    """A keyword no name language holds is refused wherever it stands: in the schema, an allOf branch, a $ref's
    target or an anyOf branch (``--permissive``: propertyNames relaxed whole)."""
    params = {"type": "object", "$defs": {"email": {"format": "email"}}, "propertyNames": names}
    with pytest.raises(ToolgramError, match=r"parameters\.propertyNames\.(anyOf\[1\]\.)?format"):
        compile("hermes", [tool("f", params)], dialect="lark")
    bundle = compile("hermes", [tool("f", params)], dialect="lark", permissive=True)
    assert bundle.relaxed == [{"path": "$[0].function.parameters.propertyNames", "feature": "propertyNames"}]


def test_property_names_ref_cycle_is_named() -> None:
    params = {"type": "object", "$defs": {"n": {"allOf": [{"$ref": "#/$defs/n"}]}},
              "propertyNames": {"$ref": "#/$defs/n"}}
    with pytest.raises(ToolgramError, match=r"\$ref cycle .*parameters\.propertyNames"):
        compile("hermes", [tool("f", params)], dialect="lark")


def test_property_names_required_outside_them() -> None:
    with pytest.raises(ToolgramError, match=r"parameters\.required"):
        compile("hermes", [tool("f", {"type": "object", "properties": {"ab": INTS}, "required": ["ab"],
                                      "propertyNames": {"maxLength": 1}})], dialect="lark")


def test_key_classes_are_disjoint_and_exact() -> None:
    """Each key falls in exactly one class, the one of the patterns it matches (and declared names in none)."""
    import re

    patterns = ("^x", "[0-9]$", "^x-[a-z]+$")
    exprs = tuple(pattern_to_ir(p, decoded_char, "$") for p in patterns)
    classes, matched = key_classes(("a", "x1"), exprs, True)
    from toolgram.compiler.dfa import dfa_regex

    regexes = [(c.matches, re.compile(dfa_regex(c.decoded))) for c in classes]
    for key in ["", "a", "b", "x1", "x", "x9", "x-ab", "x-a1", "q5", "ax", "é", "x-é"]:
        hits = [m for m, rx in regexes if rx.fullmatch(key)]
        if key in ("a", "x1"):
            assert hits == [], key
            continue
        want = tuple(i for i, p in enumerate(patterns) if re.search(p, key))
        assert hits == [want], (key, hits)
    assert matched == {"a": (), "x1": (0, 1)}


def test_unmergeable_schemas_refused_or_relaxed_to_a_superset() -> None:
    """A declared name whose pattern brings a second ``format``: no one grammar holds both (strict: refused
    with the path); ``--permissive`` keeps the property's schema alone, a superset, and says so."""
    params = {"type": "object", "properties": {"ab": {"type": "string", "format": "uuid"}},
              "patternProperties": {"b$": {"type": "string", "format": "email"}}}
    with pytest.raises(ToolgramError, match=r"parameters\.properties\.ab"):
        compile("hermes", [tool("f", params)], dialect="lark")
    bundle = compile("hermes", [tool("f", params)], dialect="ebnf", permissive=True, tool_choice="required")
    assert {"path": "$[0].function.parameters.patternProperties", "feature": "patternProperties"} in bundle.relaxed
    results = engine_results(bundle, render_calls("hermes", [("f", {"ab": "123e4567-e89b-12d3-a456-426614174000"})]))
    assert all(ok for ok, _ in results.values()), results


def test_two_patterns_meet() -> None:
    """A declared name whose pattern brings a second ``pattern``: the value matches both (their automata's
    product), in every engine and the strict parser."""
    params = {"type": "object", "properties": {"ab": {"type": "string", "pattern": "^a"}},
              "patternProperties": {"b$": {"type": "string", "pattern": "b$"}}}
    for value, ok in [("a-b", True), ("ab", True), ("a-c", False), ("b", False)]:
        assert set(_verdicts("hermes", params, {"ab": value}).values()) == {ok}, value



@pytest.mark.parametrize("fmt", FORMATS)
def test_met_schema_without_a_value(fmt: str) -> None:
    """A property whose schema, met with its name's pattern, admits no value (here only deep inside: a required
    member of two types) cannot appear; when it is required no object is valid: an error with its path, in
    every call syntax (MiniMax-M3's element objects dropped the key and let the object through without it)."""
    inner = {"type": "object", "properties": {"x": {"type": "string"}}, "required": ["x"]}
    params = {"type": "object", "properties": {"a": inner, "b": {"type": "integer"}},
              "patternProperties": {"^a$": {"properties": {"x": {"type": "integer"}}}}}
    with pytest.raises(ToolgramError, match=r"parameters\.properties\.a\b"):
        compile(fmt, [tool("f", {**params, "required": ["a"]})], dialect="lark")
    bundle = compile(fmt, [tool("f", params)], dialect="lark", tool_choice="required")
    for args, want in (({"b": 1}, True), ({"a": {"x": "s"}, "b": 1}, False)):
        results = engine_results(bundle, render_calls(fmt, [("f", args)]))
        assert all(ok == want for ok, _ in results.values()), (args, results)

@pytest.mark.model
@pytest.mark.parametrize("fmt", ["hermes", pytest.param("qwen3_coder", marks=pytest.mark.slow),
                                 pytest.param("gemma4", marks=pytest.mark.slow)])
def test_openvino_loads_pattern_grammars(fmt: str) -> None:
    """OpenVINO GenAI's embedded (older) xgrammar loads every case's EBNF and structural tag (default run: a JSON
    syntax; ``-m slow``: the XML and Gemma ones too)."""
    from toolgram.engines import import_engine

    checker = import_engine("openvino")
    for case in CASES.values():
        tools = [tool("f", {"type": "object", **case})]
        checker.check_ebnf(compile(fmt, tools, dialect="ebnf", tool_choice="required").grammar)
        checker.check_structural_tag(compile(fmt, tools, dialect="structural-tag").grammar)
