"""``$ref`` within a tool's schema (issue 22): JSON pointers percent-decoded, ``$anchor`` names, schemas named
by ``$id``, each resolved against the ``$id`` around the reference; a reference to another document refused
with its path.  The grammar and the strict parser enforce the resolved schema; the lenient parser types values
by it.  Permissive, a reference to another document names any value."""

from __future__ import annotations

import json
from typing import Any

import pytest
from strategies import engine_results, tool
from toolgram.compiler.bundle import compile
from toolgram.compiler.refs import follow_pointer, local_refs
from toolgram.grammars.render import render_calls
from toolgram.parsing import parse
from toolgram.parsing.strict import parse_strict

from toolgram.errors import UnsupportedSchemaError

DOC: dict[str, Any] = {
    "$id": "https://example.com/tools/root.json",
    "type": "object",
    "$defs": {
        "percent%field": {"type": "integer", "maximum": 5},
        "with space": {"enum": ["x", "y"]},
        "anchored": {"$anchor": "small", "type": "integer", "maximum": 3},
        "nested": {"$id": "sub/nested.json", "$defs": {"inner": {"type": "boolean"}},
                   "type": "object", "properties": {"flag": {"$ref": "#/$defs/inner"},
                                                    "back": {"$ref": "../root.json#/$defs/with%20space"}}},
        "inner": {"type": "string"},  # the root's own: a pointer inside "nested" must not land here
    },
    "properties": {
        "pct": {"$ref": "#/$defs/percent%25field"},
        "spaced": {"$ref": "#/$defs/with%20space"},
        "anchor": {"$ref": "#small"},
        "by_id": {"$ref": "https://example.com/tools/sub/nested.json"},
        "relative": {"$ref": "sub/nested.json#/$defs/inner"},
    },
}


def test_local_refs_are_pointers_from_the_root() -> None:
    out = local_refs(DOC)
    props = out["properties"]
    assert follow_pointer(out, props["pct"]["$ref"])[0] == {"type": "integer", "maximum": 5}
    assert follow_pointer(out, props["anchor"]["$ref"])[0]["$anchor"] == "small"
    nested = follow_pointer(out, props["by_id"]["$ref"])[0]
    assert nested["$id"] == "sub/nested.json"
    assert follow_pointer(out, nested["properties"]["flag"]["$ref"])[0] == {"type": "boolean"}
    assert follow_pointer(out, nested["properties"]["back"]["$ref"])[0] == {"enum": ["x", "y"]}
    assert follow_pointer(out, props["relative"]["$ref"])[0] == {"type": "boolean"}
    plain = {"type": "object", "properties": {"a": {"$ref": "#/$defs/a"}}, "$defs": {"a": {"type": "integer"}}}
    assert local_refs(plain) is plain  # pointers only: nothing to rewrite


CALLS = [({"pct": 5, "spaced": "x", "anchor": 3, "by_id": {"flag": True, "back": "y"}, "relative": False}, True),
         ({"pct": 6}, False), ({"spaced": "z"}, False), ({"anchor": 4}, False),
         ({"by_id": {"flag": "s"}}, False),  # the nested resource's own inner (boolean), not the root's (string)
         ({"by_id": {"back": "z"}}, False), ({"relative": "s"}, False)]


@pytest.mark.parametrize("fmt", ["hermes", "qwen3_coder"])
def test_grammar_and_strict_parser_enforce_the_resolved_schema(fmt: str) -> None:
    tools = [tool("f", DOC)]
    bundles = [compile(fmt, tools, dialect=d, tool_choice="required") for d in ("lark", "ebnf")]
    for args, ok in CALLS:
        text = render_calls(fmt, [("f", args)])
        verdicts = {f"{b.dialect}/{k}": v for b in bundles for k, (v, _) in engine_results(b, text).items()}
        verdicts["strict"] = bool(parse_strict(fmt, text, tools, tool_choice="required")["tool_calls"])
        assert set(verdicts.values()) == {ok}, (args, verdicts)


def test_lenient_parser_types_by_the_resolved_schema() -> None:
    """qwen3_coder writes raw values: the parser reads them by the resolved schema (an anchored integer)."""
    tools = [tool("f", DOC)]
    text = render_calls("qwen3_coder", [("f", {"anchor": 2, "by_id": {"flag": True}})])
    msg = parse("qwen3_coder", text, tools)
    assert json.loads(msg["tool_calls"][0]["function"]["arguments"]) == {"anchor": 2, "by_id": {"flag": True}}


@pytest.mark.parametrize("ref", ["other.json", "https://example.com/elsewhere.json#/$defs/x", "/abs/path.json"])
def test_another_document_is_refused_with_the_path(ref: str) -> None:
    params = {"$id": "https://example.com/tools/root.json", "type": "object", "properties": {"a": {"$ref": ref}}}
    with pytest.raises(UnsupportedSchemaError, match=r"properties\.a\.\$ref"):
        compile("hermes", [tool("f", params)], dialect="ebnf")


@pytest.mark.parametrize("fmt", ["hermes", "qwen3_coder"])
def test_another_document_is_any_value_when_permissive(fmt: str) -> None:
    """Under ``--permissive`` a reference to another document names any value (a superset, listed as relaxed);
    the keywords beside it still hold, in the grammar and in the strict parser of the same relaxed grammar."""
    params = {"type": "object", "properties": {"a": {"$ref": "https://example.com/x.json", "type": "integer"},
                                               "b": {"type": "array", "items": {"$ref": "other.json#/$defs/b"}}}}
    tools = [tool("f", params)]
    bundle = compile(fmt, tools, dialect="lark", tool_choice="required", permissive=True)
    assert bundle.relaxed == [{"path": f"$[0].function.parameters.properties.{k}.$ref", "feature": "$ref"}
                              for k in ("a", "b.items")]
    for args, ok in [({"a": 3}, True), ({"b": [1, "s", {"k": None}]}, True), ({"a": "x"}, False)]:
        text = render_calls(fmt, [("f", args)])
        verdicts = {k: v for k, (v, _) in engine_results(bundle, text).items()}
        msg = parse_strict(fmt, text, tools, tool_choice="required", permissive=True)
        verdicts["strict"] = bool(msg["tool_calls"])
        assert set(verdicts.values()) == {ok}, (args, verdicts)


def test_relative_reference_under_an_inner_id_resolves_there() -> None:
    """A relative reference is resolved against the ``$id`` around it, not the document's."""
    params = {"type": "object", "$defs": {
        "a": {"$id": "https://example.com/a/", "$defs": {"t": {"$id": "t.json", "type": "integer"}},
              "properties": {"v": {"$ref": "t.json"}}},
        "t": {"$id": "https://example.com/t.json", "type": "string"}},
        "properties": {"x": {"$ref": "https://example.com/a/"}}}
    out = local_refs(params)
    inner = follow_pointer(out, out["$defs"]["a"]["properties"]["v"]["$ref"])[0]
    assert inner["type"] == "integer"


@pytest.mark.parametrize(("draft", "expected"), [("http://json-schema.org/draft-07/schema#", "integer"),
                                                 ("http://json-schema.org/draft-04/schema#", "string")])
def test_id_is_a_base_in_draft_4_only(draft: str, expected: str) -> None:
    """Draft 4 names a base ``id``; later drafts have no such keyword, so a schema's ``id`` member (common in
    tool schemas as an unknown key) does not move where its references point."""
    params = {"$schema": draft, "type": "object", "definitions": {"X": {"type": "integer"}},
              "properties": {"a": {"id": "http://example.com/thing.json", "type": "object",
                                   "definitions": {"X": {"type": "string"}},
                                   "properties": {"b": {"$ref": "#/definitions/X"}}},
                             "c": {"$anchor": "c", "type": "null"}}}
    out = local_refs(params)
    ref = out["properties"]["a"]["properties"]["b"]["$ref"]
    assert follow_pointer(out, ref)[0] == {"type": expected}


OVERRIDDEN = {"type": "object", "definitions": {"L": {"type": "array", "items": {"type": "integer"}}},
              "properties": {"a": {"$ref": "#/definitions/L", "maxItems": 1, "description": "kept"}}}


@pytest.mark.parametrize(("declared", "two_items"), [
    ("http://json-schema.org/draft-07/schema#", True), ("http://json-schema.org/draft-06/schema#", True),
    ("http://json-schema.org/draft-04/schema#", True), ("https://json-schema.org/draft/2019-09/schema", False),
    ("https://json-schema.org/draft/2020-12/schema", False), (None, False)])
def test_a_refs_siblings_apply_from_draft_2019_09_on(declared: str | None, two_items: bool) -> None:
    """Up to draft 7 a ``$ref`` overrides its sibling keywords (``maxItems`` is ignored); from 2019-09 on, and in
    a document that declares no draft, they apply beside it.  Grammar and strict parser read it alike."""
    params = {"$schema": declared, **OVERRIDDEN} if declared else OVERRIDDEN
    tools = [tool("f", params)]
    assert local_refs(params)["properties"]["a"].get("description") == "kept"  # annotations stay
    bundles = [compile("hermes", tools, dialect=d, tool_choice="required") for d in ("lark", "ebnf")]
    for args, ok in [({"a": [1]}, True), ({"a": [1, 2]}, two_items), ({"a": ["x"]}, False)]:
        text = render_calls("hermes", [("f", args)])
        verdicts = {f"{b.dialect}/{k}": v for b in bundles for k, (v, _) in engine_results(b, text).items()}
        verdicts["strict"] = bool(parse_strict("hermes", text, tools, tool_choice="required")["tool_calls"])
        assert set(verdicts.values()) == {ok}, (args, verdicts)


def test_an_overriding_ref_keeps_the_definitions_beside_it() -> None:
    """A draft 7 document's root ``$ref`` beside its ``definitions`` (a common layout): the ``definitions`` stay,
    so the reference still resolves, while a validating sibling (``type``) goes; a sibling ``$id`` does not move
    the base its reference resolves against."""
    params = {"$schema": "http://json-schema.org/draft-07/schema#", "$id": "https://example.com/root/",
              "$ref": "#/definitions/Args", "type": "object",
              "definitions": {"Args": {"type": "object", "properties": {
                  "x": {"$ref": "t.json"}, "z": {"$id": "https://example.com/", "$ref": "t.json"}}},
                  "t": {"$id": "t.json", "type": "integer"},
                  "u": {"$id": "https://example.com/t.json", "type": "string"}},
              "properties": {"y": {"type": "string"}}}
    out = local_refs(params)
    assert "type" not in out and "properties" not in out and "definitions" in out
    args = follow_pointer(out, out["$ref"])[0]
    assert args["properties"]["x"]["$ref"] == args["properties"]["z"]["$ref"] == "#/definitions/t"


#: a draft 7 document whose properties are named like keywords, as the draft 7 meta-schema's are: ``$ref``, ``$id``,
#: ``enum`` and ``default`` are names in ``properties``, each a schema of its own; ``#pos`` is a draft 7 anchor
KEYWORD_NAMES = {
    "$schema": "http://json-schema.org/draft-07/schema#", "$id": "https://example.com/meta.json", "type": "object",
    "definitions": {"pos": {"$id": "#pos", "type": "integer", "minimum": 1}},
    "properties": {"$ref": {"type": "string"}, "$id": {"type": "string", "maxLength": 3},
                   "enum": {"$ref": "#pos"}, "default": {"$ref": "#pos"}, "n": {"type": "integer"}}}


@pytest.mark.parametrize("dialect", ["lark", "ebnf", "gbnf"])
def test_properties_named_like_keywords_are_names(dialect: str) -> None:
    """A ``properties`` map is no schema: its ``$ref`` member did not make the map an overriding ``$ref`` (which
    dropped every member not named like an annotation: ``enum``, ``n``, and the draft 7 meta-schema's
    ``multipleOf`` to ``not``), and the members named like data (``enum``, ``default``) are schemas whose
    references resolve."""
    tools = [tool("f", KEYWORD_NAMES)]
    props = local_refs(KEYWORD_NAMES)["properties"]
    assert list(props) == ["$ref", "$id", "enum", "default", "n"]
    assert props["enum"]["$ref"] == props["default"]["$ref"] == "#/definitions/pos"
    bundle = compile("hermes", tools, dialect=dialect, tool_choice="required")
    for args, ok in [({"$ref": "x", "$id": "abc", "enum": 2, "default": 1, "n": -4}, True), ({"n": 1.5}, False),
                     ({"enum": 0}, False), ({"default": 0}, False), ({"$id": "abcd"}, False)]:
        text = render_calls("hermes", [("f", args)])
        assert [v for v, _ in engine_results(bundle, text).values()] == [ok], args
        if dialect == "lark":
            calls = parse_strict("hermes", text, tools, tool_choice="required")["tool_calls"]
            assert bool(calls) == ok, args


NODE = {"type": "object", "properties": {"v": {"type": "integer"}, "next": {
    # a recursive definition reached through allOf, with only a description beside it (SchemaStore's style)
    "allOf": [{"$ref": "#/$defs/node"}, {"description": "the next node"}]}}}
RECURSIVE = {
    "type": "object", "$defs": {"node": NODE},
    "properties": {
        "list": {"$ref": "#/$defs/node"},
        # one of a recursive definition and another object: telling them apart negates the recursion
        "either": {"oneOf": [{"$ref": "#/$defs/node"}, {"type": "object", "properties": {"w": {"type": "string"}},
                                                        "required": ["w"]}]},
    },
}


@pytest.mark.parametrize("fmt", ["hermes", "qwen3_coder"])
def test_recursion_through_all_of_and_negation(fmt: str) -> None:
    """A recursive definition reached through ``allOf`` is a recursive rule (it was inlined without end: "too
    deep to compile"), and a ``oneOf`` branch that is one is read as any-of (its negation has no end), in the
    grammar and the strict parser alike."""
    tools = [tool("f", RECURSIVE)]
    bundles = [compile(fmt, tools, dialect=d, tool_choice="required") for d in ("lark", "ebnf")]
    deep = {"v": 1, "next": {"v": 2, "next": {"next": {"v": 4}}}}
    for args, want in (({"list": deep}, True), ({"either": {"w": "s"}}, True), ({"either": deep}, True),
                       ({"list": {"next": {"next": {"v": "x"}}}}, False), ({"either": {"w": 1}}, False)):
        text = render_calls(fmt, [("f", args)])
        for b in bundles:
            assert all(ok == want for ok, _ in engine_results(b, text).values()), (args, b.dialect)
        assert bool(parse_strict(fmt, text, tools, tool_choice="required")["tool_calls"]) == want, args


EXPORTS = {  # package.json's "exports" (SchemaStore): a oneOf whose branches lead back to it through an object
    "type": "object",
    "$defs": {"entry": {"oneOf": [{"type": "string"}, {"$ref": "#/$defs/object"}]},
              "object": {"type": "object", "properties": {"require": {"$ref": "#/$defs/either"}}},
              "either": {"oneOf": [{"$ref": "#/$defs/entry"}, {"type": "array", "items": {"$ref": "#/$defs/entry"}}]}},
    "properties": {"exports": {"$ref": "#/$defs/either"}},
}


@pytest.mark.parametrize("fmt", ["hermes", "pythonic"])  # (XML formats write this union as raw text)
def test_one_of_over_a_recursive_definition(fmt: str) -> None:
    """Telling a ``oneOf``'s branches apart negates each; a branch that leads back to the ``oneOf`` has a negation
    without end (Python's recursion limit: "too deep to compile"), so it is read as any-of."""
    tools = [tool("f", EXPORTS)]
    bundles = [compile(fmt, tools, dialect=d, tool_choice="required") for d in ("lark", "ebnf")]
    for args, want in (({"exports": "./a.js"}, True), ({"exports": {"require": ["./b.js", {"require": "c"}]}}, True),
                       ({"exports": {"require": [1]}}, False), ({"exports": 2}, False)):
        text = render_calls(fmt, [("f", args)])
        for b in bundles:
            assert all(ok == want for ok, _ in engine_results(b, text).values()), (args, b.dialect)
        assert bool(parse_strict(fmt, text, tools, tool_choice="required")["tool_calls"]) == want, args
