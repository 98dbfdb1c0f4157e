"""Object keywords (issue 22, part A): ``minProperties``/``maxProperties``, ``required`` naming an undeclared
key, ``type: ["object"]`` parameters, and ``--permissive`` only ever relaxing.

Every subset of a few keys (declared and extra) is rendered as a call and checked, with xgrammar (EBNF),
Lark and the strict parser, against ``jsonschema`` (the keys are written in the documented order:
declared ones in ``properties`` order, then extra ones).
"""

from __future__ import annotations

import itertools
import json
from functools import cache

import jsonschema
import pytest
from strategies import engine_results, tool
from toolgram.compiler.bundle import Bundle, compile
from toolgram.compiler.values import dependency_names
from toolgram.grammars.render import render_calls
from toolgram.parsing.strict import parse_strict

from toolgram.errors import ToolgramError

FORMATS = ("hermes", "pythonic", "qwen3_coder", "gemma4")
KEYS = ("a", "b", "c", "x", "y")
INTS = {"type": "integer"}


@cache
def _bundles(fmt: str, params_json: str, permissive: bool = False) -> tuple[Bundle, ...]:
    tools = [tool("f", json.loads(params_json))]
    return tuple(compile(fmt, tools, dialect=d, tool_choice="required", permissive=permissive)
                 for d in ("lark", "ebnf"))


def _verdicts(fmt: str, params: dict, args: dict, permissive: bool = False) -> dict[str, bool]:
    text = render_calls(fmt, [("f", args)])
    out = {}
    for b in _bundles(fmt, json.dumps(params), permissive):
        out.update({f"{b.dialect}/{k}": ok for k, (ok, _) in engine_results(b, text).items()})
    if not permissive:
        out["strict"] = bool(parse_strict(fmt, text, [tool("f", params)], tool_choice="required")["tool_calls"])
    return out


def _subsets(keys: tuple[str, ...] = KEYS) -> list[dict]:
    return [{k: 1 for k in combo} for n in range(len(keys) + 1) for combo in itertools.combinations(keys, n)]


def policy(params: dict) -> dict:
    """``params`` as toolgram reads it, for jsonschema (docs/schema.md): ``additionalProperties`` absent
    means none when ``properties`` is present, and a required key ``properties`` does not declare is a
    member with any value (or the ``additionalProperties`` one) ..."""
    props = params.get("properties", {})
    value = params.get("additionalProperties", {})
    named = list(params.get("required", []))
    if value is not False and ("properties" not in params or "additionalProperties" in params):
        named += dependency_names(params)  # ... and so is a name dependentRequired mentions, if it may appear
    undeclared = {k: value if isinstance(value, dict) else {} for k in named if k not in props}
    out = {**params, "properties": {**props, **undeclared}}
    if "properties" in params and "additionalProperties" not in params:
        out["additionalProperties"] = False
    return out


def _check_exact(fmt: str, params: dict, order: tuple[str, ...] | None = None) -> None:
    """Every subset of :data:`KEYS` against ``jsonschema``, the keys in ``order`` (default: the declared ones
    in ``properties`` order, then the others)."""
    cls = jsonschema.Draft7Validator if "dependencies" in params else jsonschema.Draft202012Validator
    validator = cls(policy(params))
    declared = list(order or policy(params).get("properties", {}))
    for args in _subsets():
        # the documented order: declared keys in properties order, then extra ones
        args = dict(sorted(args.items(), key=lambda kv: declared.index(kv[0]) if kv[0] in declared else 99))
        verdicts = _verdicts(fmt, params, args)
        assert set(verdicts.values()) == {validator.is_valid(args)}, (args, verdicts, params)


COUNTED = {
    "min_max_extra": {"properties": {"a": INTS, "b": INTS, "c": INTS}, "required": ["b"],
                      "additionalProperties": True, "minProperties": 2, "maxProperties": 3},
    "min_only": {"properties": {"a": INTS, "b": INTS, "c": INTS}, "minProperties": 2},
    "max_only_extra_schema": {"properties": {"a": INTS, "c": INTS}, "additionalProperties": INTS,
                              "maxProperties": 2},
    "free_object": {"minProperties": 1, "maxProperties": 2},
    "exact": {"properties": {"a": INTS, "b": INTS}, "minProperties": 1, "maxProperties": 1},
}


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("name", list(COUNTED))
def test_min_max_properties(fmt: str, name: str) -> None:
    _check_exact(fmt, {"type": "object", **COUNTED[name]})


def test_min_max_properties_nested_and_impossible() -> None:
    nested = {"type": "object", "properties": {"o": {"type": "object", "properties": {"a": INTS, "b": INTS},
                                                     "minProperties": 1}}}
    validator = jsonschema.Draft202012Validator({**nested, "additionalProperties": False})
    for inner in _subsets(("a", "b")):
        args = {"o": inner}
        assert set(_verdicts("hermes", nested, args).values()) == {validator.is_valid(args)}, args
    impossible = {"type": "object", "properties": {"a": INTS}, "minProperties": 2}
    with pytest.raises(ToolgramError, match=r"parameters\.minProperties"):
        compile("hermes", [tool("f", impossible)], dialect="lark")
    with pytest.raises(ToolgramError, match=r"parameters\.maxProperties"):
        compile("hermes", [tool("f", {"type": "object", "minProperties": 3, "maxProperties": 2})], dialect="lark")


@pytest.mark.parametrize("fmt", ("hermes", "qwen3_coder"))
def test_large_property_counts(fmt: str) -> None:
    """Counts past 100 (CloudFormation's tag and table maps write ``maxProperties`` 200, 256, 1000): every
    dialect and the strict parser admit exactly ``minProperties`` to ``maxProperties`` members, counted across
    declared and extra ones."""
    maps = {"type": "object", "properties": {"a": {"type": "string"}}, "patternProperties": {"^k[0-9]+$": INTS},
            "additionalProperties": False, "minProperties": 101, "maxProperties": 230}
    params = {"type": "object", "properties": {"m": maps}, "required": ["m"]}
    bundles = [compile(fmt, [tool("f", params)], dialect=d, tool_choice="required")
               for d in ("lark", "ebnf", "gbnf")]
    for n, with_a in itertools.product((100, 101, 229, 230, 231), (False, True)):
        inner = {"a": "x"} if with_a else {}
        inner.update({f"k{i}": i for i in range(n - with_a)})
        text = render_calls(fmt, [("f", {"m": inner})])
        verdicts = {k: ok for b in bundles for k, (ok, _) in engine_results(b, text).items()}
        verdicts["strict"] = bool(parse_strict(fmt, text, [tool("f", params)], tool_choice="required")["tool_calls"])
        assert set(verdicts.values()) == {101 <= n <= 230}, (n, with_a, verdicts)


def test_member_states_past_the_limit_name_the_path() -> None:
    """The count is tracked across declared members: 120 optional ones under ``maxProperties: 60`` need more
    states than toolgram writes, refused at the object's path."""
    inner = {"type": "object", "properties": {f"p{i}": INTS for i in range(120)}, "maxProperties": 60}
    with pytest.raises(ToolgramError, match=r"member states.*parameters\.properties\.o"):
        compile("hermes", [tool("f", {"type": "object", "properties": {"o": inner}})], dialect="ebnf")


UNDECLARED = {
    "any_value": {"properties": {"a": INTS}, "required": ["a", "b"]},
    "extra_schema": {"properties": {"a": INTS}, "required": ["c"], "additionalProperties": INTS},
    "no_properties": {"required": ["b"]},
}


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("name", list(UNDECLARED))
def test_required_undeclared_key(fmt: str, name: str) -> None:
    """A required key that ``properties`` does not declare must appear (before: refused, or relaxed)."""
    _check_exact(fmt, {"type": "object", **UNDECLARED[name]})


def test_required_undeclared_values() -> None:
    params = {"type": "object", "properties": {"a": INTS}, "required": ["c"], "additionalProperties": INTS}
    assert set(_verdicts("hermes", params, {"c": "text"}).values()) == {False}
    assert set(_verdicts("hermes", {"type": "object", "required": ["c"]}, {"c": {"k": [1]}}).values()) == {True}
    with pytest.raises(ToolgramError, match=r"parameters\.required"):
        compile("hermes", [tool("f", {"type": "object", "properties": {}, "required": ["c"],
                                      "additionalProperties": False})], dialect="lark")


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("types", [["object"], ["object", "null"], ["boolean", "object"]])
def test_type_object_list(fmt: str, types: list[str]) -> None:
    """A type list with ``object`` is read as ``object``: arguments are always objects (SchemaStore's
    ``["object", "null"]``)."""
    _check_exact(fmt, {"type": types, "properties": {"a": INTS, "b": INTS}, "required": ["a"]})


def test_type_list_without_object() -> None:
    with pytest.raises(ToolgramError, match=r"parameters\.type"):
        compile("hermes", [tool("f", {"type": ["array", "null"]})], dialect="lark")


NOTHING = {"allOf": [{"type": "string"}, {"type": "integer"}]}  # admits no value, though not written `false`
EMPTY_MEMBERS = {
    "optional_member": {"properties": {"a": NOTHING, "b": INTS}},
    "extra_value": {"properties": {"a": INTS}, "additionalProperties": NOTHING},
    "pattern_value": {"properties": {"a": INTS}, "patternProperties": {"^x$": NOTHING},
                      "additionalProperties": INTS},
}


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("name", list(EMPTY_MEMBERS))
def test_members_without_a_value(fmt: str, name: str) -> None:
    """A member whose schema admits no value cannot appear, and the object stays valid without it (as JSON
    Schema reads it); before, the whole tool was refused."""
    _check_exact(fmt, {"type": "object", **EMPTY_MEMBERS[name]})


def test_required_member_without_a_value() -> None:
    with pytest.raises(ToolgramError, match=r"parameters\.properties\.a\.allOf"):
        compile("hermes", [tool("f", {"type": "object", "properties": {"a": NOTHING}, "required": ["a"]})])


RELAXED = {
    # dropping patternProperties (a pattern no grammar holds: a lookahead) under additionalProperties false
    # must admit the keys it allowed
    "pattern_properties": ({"type": "object", "properties": {"a": INTS}, "patternProperties": {"^(x)\\1": INTS},
                            "additionalProperties": False}, "patternProperties"),
    # without additionalProperties a relaxed keyword that could admit keys leaves them admitted (an if whose
    # test toolgram cannot negate: items)
    "if_then": ({"type": "object", "properties": {"a": INTS}, "if": {"properties": {"a": {"items": INTS}}},
                 "then": {"properties": {"y": INTS}}}, "if"),
    # unevaluatedProperties under anyOf (which members are evaluated depends on the branch): relaxed
    "unevaluated": ({"type": "object", "properties": {"a": INTS}, "anyOf": [{"properties": {"b": INTS}}, {}],
                     "unevaluatedProperties": INTS}, "unevaluatedProperties"),
}


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("name", list(RELAXED))
def test_permissive_only_relaxes(fmt: str, name: str) -> None:
    """Every valid instance is accepted by the relaxed grammar, and ``relaxed`` names the keyword's path."""
    params, keyword = RELAXED[name]
    bundle = compile(fmt, [tool("f", params)], dialect="lark", tool_choice="required", permissive=True)
    assert {"path": f"$[0].function.parameters.{keyword}", "feature": keyword} in bundle.relaxed
    with pytest.raises(ToolgramError, match=keyword):
        compile(fmt, [tool("f", params)], dialect="lark", tool_choice="required")
    validator = jsonschema.Draft202012Validator(params)
    for args in _subsets():
        if validator.is_valid(args):
            verdicts = _verdicts(fmt, params, args, permissive=True)
            assert set(verdicts.values()) == {True}, (args, verdicts)


DEPENDENT = {
    "forward": {"properties": {"a": INTS, "b": INTS, "c": INTS}, "dependentRequired": {"a": ["c"]}},
    "backward": {"properties": {"a": INTS, "b": INTS, "c": INTS}, "dependentRequired": {"c": ["a", "b"]}},
    "both_ways_extra": {"properties": {"a": INTS, "b": INTS}, "dependentRequired": {"a": ["b"], "b": ["a"]},
                        "additionalProperties": True, "maxProperties": 3},
    "draft7_dependencies": {"properties": {"a": INTS, "b": INTS, "c": INTS}, "dependencies": {"b": ["a"]}},
    # names properties does not declare: members (after the declared ones) where they may appear as extra keys
    "undeclared_with_extras": {"properties": {"a": INTS}, "additionalProperties": True,
                               "dependentRequired": {"x": ["y"], "a": ["b"]}},
    "undeclared_free_object": {"dependentRequired": {"x": ["y"], "b": ["a"]}},
    "undeclared_extra_schema": {"properties": {"c": INTS}, "additionalProperties": INTS, "maxProperties": 3,
                                "dependentRequired": {"y": ["x", "c"]}},
    # ... and where they cannot: a key requiring one cannot appear either
    "need_cannot_appear": {"properties": {"a": INTS, "b": INTS}, "dependentRequired": {"a": ["x"], "y": ["b"]}},
    # keys from patternProperties only (additionalProperties false): x and y may appear, a and b may not
    "pattern_keys": {"patternProperties": {"^[xy]$": INTS}, "additionalProperties": False,
                     "dependentRequired": {"x": ["y"], "a": ["b"], "y": ["b"]}},
    # a declared name propertyNames leaves out is no member: the dependencies count the members that are
    "property_names_drop": {"properties": {"c": INTS, "a": INTS, "b": INTS}, "propertyNames": {"pattern": "^[ab]$"},
                            "dependentRequired": {"b": ["a"]}},
}


@pytest.mark.parametrize("fmt", ("hermes", "qwen3_coder"))  # the member expansion is shared by the syntaxes
@pytest.mark.parametrize("name", list(DEPENDENT))
def test_dependent_required(fmt: str, name: str) -> None:
    _check_exact(fmt, {"type": "object", **DEPENDENT[name]})


def test_dependent_schemas_malformed() -> None:
    """dependentSchemas and dependencies must map names to schemas (or, for dependencies, to name arrays)."""
    for params, where in [
        ({"type": "object", "properties": {"a": INTS}, "dependentSchemas": ["a"]}, r"parameters\.dependentSchemas"),
        ({"type": "object", "properties": {"a": INTS}, "dependencies": {"a": 5}}, r"parameters"),
    ]:
        with pytest.raises(ToolgramError, match=where):
            compile("hermes", [tool("f", params)], dialect="lark")


#: anyOf/oneOf at the top of parameters: every format writes one arguments object per branch (the XML and
#: keyword-argument formats wrote the outer members alone and let any branch's constraint go unchecked)
BRANCHED = {
    "any_of_required": {"properties": {"a": INTS, "b": INTS, "c": INTS},
                        "anyOf": [{"required": ["a"]}, {"required": ["b"]}]},
    "one_of_exclusive": {"properties": {"a": INTS, "b": INTS, "c": INTS},
                         "oneOf": [{"required": ["a"], "properties": {"b": False}},
                                   {"required": ["b"], "properties": {"a": False}}]},
    # oneOf: exactly one branch; overlapping branches are split by the others' negations
    "one_of_required": {"properties": {"a": INTS, "b": INTS, "c": INTS},
                        "oneOf": [{"required": ["a"]}, {"required": ["b"]}]},
    "one_of_three": {"properties": {"a": INTS, "b": INTS, "c": INTS}, "additionalProperties": True,
                     "oneOf": [{"required": ["a", "b"]}, {"required": ["b", "c"]}, {"maxProperties": 1}]},
    "one_of_open": {"oneOf": [{"required": ["x"]}, {"not": {"required": ["y"]}}]},
    "any_of_counted": {"properties": {"a": INTS, "b": INTS}, "additionalProperties": True,
                       "anyOf": [{"maxProperties": 1}, {"required": ["a", "b"], "minProperties": 3}]},
    "any_of_nested": {"properties": {"a": INTS, "b": INTS, "c": INTS},
                      "allOf": [{"anyOf": [{"required": ["a"]}, {"required": ["c"]}]}],
                      "anyOf": [{"required": ["b"]}, {"required": ["c"]}]},
}


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("name", list(BRANCHED))
def test_top_level_branches(fmt: str, name: str) -> None:
    _check_exact(fmt, {"type": "object", **BRANCHED[name]}, ORDER.get(name))


@pytest.mark.parametrize("fmt", FORMATS)
def test_one_of_told_apart_by_names(fmt: str) -> None:
    """Branches that declare names the keywords beside ``oneOf`` do not (here through ``$ref``) are closed by
    toolgram's policy, so a value one branch's names admit is valid even where the other branch's tests hold:
    such a ``oneOf`` is not split (read as any-of), and no valid value is refused."""
    params = {"type": "object", "$defs": {"A": {"properties": {"x": INTS}}, "B": {"properties": {"y": INTS}}},
              "oneOf": [{"$ref": "#/$defs/A"}, {"$ref": "#/$defs/B"}]}
    for args, ok in (({"x": 1}, True), ({"y": 2}, True), ({"x": 1, "y": 2}, False)):
        assert set(_verdicts(fmt, params, args).values()) == {ok}, args


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("nested", ["oneOf", "anyOf", "$ref"])
def test_one_of_names_declared_in_nested_branches(fmt: str, nested: str) -> None:
    """A ``oneOf`` branch that is itself a ``oneOf``/``anyOf`` of objects (or a ``$ref`` to one) declares their
    names: such a ``oneOf`` is read as any-of, as one whose branches declare them directly. It was split, and the
    split closed the branch on the outer's names, so ``route`` was refused (SchemaStore's Azure Functions
    bindings: ``oneOf: [dynamic, {oneOf: [http, ...]}]``)."""
    http = {"properties": {"t": {"const": "h"}, "route": INTS}}
    inner = {"$ref": "#/$defs/http"} if nested == "$ref" else {nested: [http]}
    params = {"type": "object", "properties": {"t": {"type": "string"}}, "required": ["t"], "$defs": {"http": http},
              "oneOf": [{"properties": {"t": {"const": "x"}}}, inner if nested == "$ref" else {"oneOf": [inner]}]}
    for args, ok in (({"t": "h", "route": 1}, True), ({"t": "x"}, True), ({"t": "h"}, True),
                     ({"t": "x", "route": 1}, False), ({"t": "y"}, False)):
        assert set(_verdicts(fmt, params, args).values()) == {ok}, args


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("branch", ["inline", "$ref", "allOf"])
def test_a_branch_met_with_the_outer_keeps_the_outer_members_first(fmt: str, branch: str) -> None:
    """An ``anyOf``/``oneOf`` branch is met with the keywords beside it, the outer's members first, whether it is
    written inline, as a ``$ref`` or as an ``allOf``: the order was the target's first for the last two, so the
    same arguments were valid or not by how the branch was written."""
    dyn = {"properties": {"type": {"type": "string"}, "dir": {"enum": ["in", "out"]}}}
    written = {"inline": dyn, "$ref": {"$ref": "#/$defs/dyn"}, "allOf": {"allOf": [{"$ref": "#/$defs/dyn"}]}}
    params = {"type": "object", "$defs": {"dyn": dyn}, "required": ["name", "type"],
              "properties": {"name": {"type": "string"}, "type": {"type": "string"}},
              "anyOf": [written[branch], {"properties": {"type": {"const": "http"}, "route": INTS}}]}
    for args, ok in (({"name": "", "type": "x", "dir": "in"}, True), ({"name": "", "type": "http", "route": 1}, True),
                     ({"type": "x", "name": ""}, False), ({"name": "", "type": "x", "dir": "up"}, False)):
        assert set(_verdicts(fmt, params, args).values()) == {ok}, args


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("required", [(), ("D",)])
def test_one_of_closed_branches_apart_by_names(fmt: str, required: tuple[str, ...]) -> None:
    """Closed objects with no name in common (CloudFormation's ``oneOf`` of one-member messages) share only
    ``{}``: valid under none where two branches admit it (it was accepted, the oneOf read as anyOf); every
    other subset of names as jsonschema says."""
    closed = [{"type": "object", "properties": {"A": INTS}, "additionalProperties": False},
              {"type": "object", "properties": {"B": INTS, "C": INTS}, "additionalProperties": False},
              {"type": "object", "properties": {"D": INTS}, "required": list(required), "additionalProperties": False}]
    params = {"type": "object", "properties": {"o": {"oneOf": closed}}, "required": ["o"],
              "additionalProperties": False}
    validator = jsonschema.Draft202012Validator(params)
    for inner in _subsets(("A", "B", "C", "D")):
        args = {"o": inner}
        assert set(_verdicts(fmt, params, args).values()) == {validator.is_valid(args)}, args


@pytest.mark.parametrize("fmt", FORMATS)
def test_top_level_not_refused_alike(fmt: str) -> None:
    """A ``not`` toolgram cannot write is refused with its path in every format (the member formats ignored it)."""
    params = {"type": "object", "properties": {"a": INTS},
              "not": {"properties": {"a": {"items": INTS}}}}
    with pytest.raises(ToolgramError, match=r"parameters\.not"):
        compile(fmt, [tool("f", params)], dialect="lark")


#: if/then/else, dependentSchemas and the schema form of dependencies, written as anyOf branches (every key
#: holds 1: the tests are on presence and on that value)
CONDITIONAL = {
    "if_then_else": {"properties": {"a": INTS, "b": INTS, "c": INTS},
                     "if": {"properties": {"a": {"const": 1}}, "required": ["a"]},
                     "then": {"required": ["b"]}, "else": {"required": ["c"]}},
    "if_value_test": {"properties": {"a": INTS, "b": INTS, "c": INTS},
                      "if": {"properties": {"a": {"minimum": 2}}}, "then": {"required": ["b"]},
                      "else": {"maxProperties": 2}},
    "if_not_required": {"properties": {"a": INTS, "b": INTS, "c": INTS},
                        "if": {"not": {"required": ["a"]}}, "then": {"required": ["c"]}},
    "all_of_ifs": {"properties": {"a": INTS, "b": INTS, "c": INTS},
                   "allOf": [{"if": {"required": ["a"]}, "then": {"required": ["b"]}},
                             {"if": {"required": ["b"]}, "then": {"required": ["c"]}}]},
    "dependent_schemas": {"properties": {"a": INTS, "b": INTS, "c": INTS}, "additionalProperties": True,
                          "dependentSchemas": {"a": {"required": ["b"]}, "x": {"required": ["y"],
                                                                             "maxProperties": 3}}},
    "dependencies_schema_form": {"properties": {"a": INTS, "b": INTS, "c": INTS},
                                 "dependencies": {"a": {"required": ["c"]}, "b": ["a"]}},
    # a discriminator's conditions in allOf (the else parts meet: not 1 and not 2 is none of them)
    "discriminator_chain": {"properties": {"a": {"enum": [1, 2, 3]}, "b": INTS, "c": INTS}, "allOf": [
        {"if": {"properties": {"a": {"const": 1}}}, "then": {"required": ["b"]}},
        {"if": {"properties": {"a": {"const": 2}}}, "then": {"required": ["c"]}},
        {"if": {"properties": {"a": {"const": 3}}, "required": ["a"]}, "then": {"maxProperties": 1}}]},
    # not over a test toolgram can negate: the values it rejects (neither a and b together, nor a or c)
    "not_required_pair": {"properties": {"a": INTS, "b": INTS, "c": INTS}, "not": {"required": ["a", "b"]}},
    "not_any_of": {"properties": {"a": INTS, "b": INTS, "c": INTS}, "additionalProperties": True,
                   "not": {"anyOf": [{"required": ["a"]}, {"required": ["c"]}]}},
    "open_object": {"if": {"required": ["x"]}, "then": {"required": ["y"]}, "else": {"minProperties": 2}},
    "if_on_extra_names": {"properties": {"a": INTS}, "additionalProperties": INTS,
                          "if": {"required": ["x"], "properties": {"x": {"maximum": 0}}},
                          "then": False, "else": {"required": ["a"]}},
}


#: a branch makes the names its conditions require members (SPEC: after the declared ones, before any extra
#: key), the names a test requires first: where such a name is not declared, the keys come in this order
ORDER = {"dependent_schemas": ("a", "b", "c", "x", "y"), "open_object": ("x", "y"), "one_of_open": ("x", "y"),
         "if_on_extra_names": ("a", "x")}


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("name", list(CONDITIONAL))
def test_conditionals(fmt: str, name: str) -> None:
    _check_exact(fmt, {"type": "object", **CONDITIONAL[name]}, ORDER.get(name))


def test_conditional_refusals() -> None:
    """A test toolgram cannot negate (a pattern no grammar holds) is refused with the path of its keyword;
    permissive, it is dropped (a superset: every extra key admitted) and listed."""
    params = {"type": "object", "properties": {"a": {"type": "string"}, "b": INTS},
              "if": {"properties": {"a": {"pattern": "^(x)\\1"}}}, "then": {"required": ["b"]}}
    with pytest.raises(ToolgramError, match=r"parameters\.if"):
        compile("hermes", [tool("f", params)], dialect="lark")
    bundle = compile("hermes", [tool("f", params)], dialect="lark", permissive=True)
    assert bundle.relaxed == [{"path": "$[0].function.parameters.if", "feature": "if"}]
