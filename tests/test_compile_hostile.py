"""Hostile tools and schemas at compile time (issue 13 findings 8-11, issue 12 sections 3 and 5):
every reproducer is a one-line ToolgramError naming the JSON path (CLI: exit 2, the file named),
never a traceback, and never a grammar that silently drops a constraint or breaks a round trip."""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import engine_results, format_cases, per_format, tool
from toolgram.compiler.bundle import compile
from toolgram.compiler.dialects import NAMES as DIALECT_NAMES
from toolgram.grammars import FORMATS
from toolgram.grammars.render import render_calls
from toolgram.parsing.strict import parse_strict

import toolgram
from toolgram.cli import main
from toolgram.errors import SchemaError, ToolgramError, UnsupportedSchemaError

DIALECTS = list(DIALECT_NAMES)  # the registry's order (toolgram.compiler.dialects)
XML = ["seed_oss", "qwen3_coder"]


def params(props: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"type": "object", "properties": props, **extra}


def nested_objects(depth: int) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "string"}
    for _ in range(depth):
        schema = params({"a": schema}, required=["a"])
    return schema


def nested_arrays(depth: int) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "integer"}
    for _ in range(depth):
        schema = {"type": "array", "items": schema}
    return params({"a": schema})


def one_line_error(fmt: str, tools: Any, dialect: str, match: str, **opts: Any) -> ToolgramError:
    with pytest.raises(ToolgramError) as info:
        compile(fmt, tools, dialect=dialect, **opts)
    err = info.value
    assert "\n" not in str(err), str(err)
    assert match in str(err), str(err)
    return err


#: name -> (parameters, the path fragment the error must name)
SCHEMAS: dict[str, tuple[dict[str, Any], str]] = {
    "depth_400_objects": (nested_objects(400), "function.parameters"),
    "depth_400_arrays": (nested_arrays(400), "function.parameters"),
    "minLength_abc": (params({"x": {"type": "string", "minLength": "abc"}}), "properties.x.minLength"),
    "minLength_null": (params({"x": {"type": "string", "minLength": None}}), "properties.x.minLength"),
    "minLength_negative": (params({"x": {"type": "string", "minLength": -5}}), "properties.x.minLength"),
    "minLength_gt_maxLength": (params({"x": {"type": "string", "minLength": 10, "maxLength": 2}}),
                               "properties.x.minLength"),
    "minLength_huge": (params({"x": {"type": "string", "minLength": 10**12}}), "properties.x.minLength"),
    "minLength_1e12": (params({"x": {"type": "string", "minLength": 1e12}}), "properties.x.minLength"),
    "maxLength_huge": (params({"x": {"type": "string", "maxLength": 10**12}}), "properties.x.maxLength"),
    "minItems_x": (params({"x": {"type": "array", "minItems": "x"}}), "properties.x.minItems"),
    "maxItems_huge": (params({"x": {"type": "array", "maxItems": 2**31}}), "properties.x.maxItems"),
    "properties_list": (params([]), "function.parameters.properties"),  # type: ignore[arg-type]
    "properties_string": (params("abc"), "function.parameters.properties"),  # type: ignore[arg-type]
    "nested_properties_list": (params({"x": {"type": "object", "properties": [1]}}), "properties.x.properties"),
    "required_int": (params({"x": {"type": "string"}}, required=5), "function.parameters.required"),
    "required_dicts": (params({"x": {"type": "string"}}, required=[{}]), "function.parameters.required"),
    "allOf_5": (params({"x": {"allOf": 5}}), "properties.x.allOf"),
    "allOf_properties_list": (params({"x": {"allOf": [{"properties": [1]}]}}), "properties.x.allOf[0].properties"),
    "enum_5": (params({"x": {"enum": 5}}), "properties.x.enum"),
    "anyOf_5": (params({"x": {"anyOf": 5}}), "properties.x.anyOf"),
    "ref_5": (params({"x": {"$ref": 5}}), "properties.x"),
    "ref_cycle_anyOf": (params({"x": {"$ref": "#/$defs/a"}},
                               **{"$defs": {"a": {"anyOf": [{"$ref": "#/$defs/a"}, {"type": "integer"}]}}}), "$ref"),
    "minimum_huge": (params({"x": {"type": "integer", "minimum": 10**5000}}), "properties.x.minimum"),
    "minimum_inf": (params({"x": {"type": "integer", "minimum": float("inf")}}), "properties.x.minimum"),
    "surrogate_enum": (params({"x": {"enum": ["ok", "\ud800"]}}), "properties.x.enum"),
    "surrogate_key": (params({"\udc00": {"type": "string"}}), "function.parameters.properties"),
    "type_list_foo": (params({"x": {"type": ["string", "foo"]}}), "properties.x.type"),
    # (an optional property whose schema is false is a key that may not appear: JSON Schema's ban)
    "schema_false_required": (params({"x": False}, required=["x"]), "properties.x"),
}


@pytest.mark.parametrize("case", sorted(SCHEMAS))
@pytest.mark.parametrize("fmt", list(FORMATS))
def test_bad_schema_is_a_one_line_error(fmt: str, case: str) -> None:
    schema, where = SCHEMAS[case]
    for dialect in DIALECTS:
        err = one_line_error(fmt, [tool("t", schema)], dialect, where, tool_choice="required")
        assert err.path and err.path.startswith("$[0]"), err.path


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_lone_surrogate_tool_name(fmt: str) -> None:
    for dialect in DIALECTS:
        one_line_error(fmt, [tool("a\ud800b", params({}))], dialect, "$[0].function.name")


@pytest.mark.parametrize("dialect", DIALECTS)
def test_depth_limit_boundary_compiles(dialect: str) -> None:
    """The deepest schema toolgram takes (63 nested objects: 127 JSON levels) compiles and loads."""
    from strategies import load_in_engine

    for fmt in ("hermes", "qwen3_coder", "pythonic"):
        load_in_engine(compile(fmt, [tool("t", nested_objects(63))], dialect=dialect, tool_choice="required"))
    one_line_error("hermes", [tool("t", nested_objects(64))], dialect, "nested more than 128 levels")


def ref_chain(n: int) -> dict[str, Any]:
    """Parameters whose one property is a chain of ``n`` ``$ref``s, each with a sibling keyword (an allOf each)."""
    defs: dict[str, Any] = {f"d{i}": {"$ref": f"#/$defs/d{i + 1}", "maxLength": 1000 - i % 7} for i in range(n)}
    defs[f"d{n}"] = {"type": "string"}
    return params({"a": {"$ref": "#/$defs/d0"}}, **{"$defs": defs})


def test_a_chain_past_the_recursion_limit_is_an_error() -> None:
    """A $ref chain deeper than Python's recursion (which the 128-level nesting limit does not see, since every
    link stands at one level) is a ToolgramError, never a RecursionError; a long one compiles."""
    compile("hermes", [tool("t", ref_chain(100))], dialect="ebnf")
    err = one_line_error("hermes", [tool("t", ref_chain(3000))], "ebnf", "too deep to compile")
    assert isinstance(err, UnsupportedSchemaError)


#: meets that never close: each level meets ``N`` with keywords that name ``N`` again, so every level is a new schema
#: (``MET_REFS``: a ``$ref`` beside ``properties``, whose ``allOf`` nests one deeper per level; ``MET_VALUES``: nested
#: ``properties`` met into the target's, one level deeper each time).  Both passed Python's recursion limit, refused
#: at "$" with no path; a chain like JetBrains Web-Types' (SchemaStore) was refused even under ``--permissive``.
MET_REFS = params({"a": {"$ref": "#/$defs/N"}}, **{"$defs": {"N": params(
    {"next": {"$ref": "#/$defs/N", "properties": {"next": {"$ref": "#/$defs/N"}}}, "n": {"type": "integer"}})}})
MET_VALUES = params({"a": {"$ref": "#/$defs/N"}}, **{"$defs": {"N": params(
    {"next": {"$ref": "#/$defs/N", "properties": {"next": {"properties": {"next": {"type": "object"}}}}},
     "n": {"type": "integer"}})}})


@pytest.mark.parametrize(("schema", "match", "feature"), [
    (MET_REFS, "the meets do not close", "allOf"), (MET_VALUES, "nest more than 96 deep", "depth")])
def test_meets_that_never_close_name_their_path(schema: dict[str, Any], match: str, feature: str) -> None:
    """Strict: an UnsupportedSchemaError at the level where the meets stopped (under ``$defs.N.properties.next``);
    permissive: a grammar, that level relaxed (a superset), every level above it enforced in every dialect."""
    tools = [tool("t", schema)]
    err = one_line_error("hermes", tools, "ebnf", match)
    assert isinstance(err, UnsupportedSchemaError) and ".$defs.N.properties.next.properties.next" in err.path
    deep: dict[str, Any] = {"n": 1}
    for _ in range(120):
        deep = {"next": deep, "n": 1}
    for dialect in DIALECTS:
        bundle = compile("hermes", tools, dialect=dialect, tool_choice="required", permissive=True)
        assert {r["feature"] for r in bundle.relaxed} == {feature}, bundle.relaxed
        for args, ok in (({"a": deep}, True), ({"a": {"next": {"next": {"n": "x"}}}}, False),
                         ({"a": {"next": {"n": 1.5}}}, False)):
            text = render_calls("hermes", [("t", args)])
            assert [got for got, _ in engine_results(bundle, text).values()] == [ok], (dialect, args)
    calls = parse_strict("hermes", render_calls("hermes", [("t", {"a": deep})]), tools, tool_choice="required",
                         permissive=True)["tool_calls"]
    assert calls and json.loads(calls[0]["function"]["arguments"]) == {"a": deep}


#: the Serverless Framework schema's ``Fn::Sub`` (SchemaStore): a key of up to 255 characters, from its DFA, is an
#: expression 500 levels deep; grammar walks that recursed per level passed Python's recursion limit
COUNTED_KEY = params({"Fn::Sub": {"type": "array", "minItems": 1, "items": [{"type": "string"}, {
    "type": "object", "minProperties": 1, "patternProperties": {"^[a-zA-Z0-9._-]{1,255}$": {"type": "string"}}}]}},
    additionalProperties=False)


@pytest.mark.parametrize("dialect", DIALECTS)
def test_a_deeply_nested_key_pattern_compiles(dialect: str) -> None:
    """A counted key pattern nests as deep as its count, and so does the class of the other keys (any value: no
    ``additionalProperties``); every dialect writes both, and the strict parser reads them."""
    tools = [tool("t", COUNTED_KEY)]
    bundle = compile("hermes", tools, dialect=dialect, tool_choice="required")
    for key, value, ok in (("v" * 255, "1", True), ("v" * 255, 1, False), ("v" * 256, 1, True), ("a.b", 1, False),
                           ("a b", 1, True)):
        args = {"Fn::Sub": ["x${a}", {key: value}]}
        text = render_calls("hermes", [("t", args)])
        assert [got for got, _ in engine_results(bundle, text).values()] == [ok], (key, dialect)
        if dialect == "lark":
            calls = parse_strict("hermes", text, tools, tool_choice="required")["tool_calls"] or []
            assert [json.loads(c["function"]["arguments"]) for c in calls] == ([args] if ok else []), key

#: patterns under lengths: their meets and spellings fill the tables of shared parts (``regex.shared_parts``)
ARN = "^arn:[\\w+=/,.@-]+:[\\w+=/,.@-]+:([\\w+=/,.@-]*)?:[0-9]+:[\\w+=/,.@-]+(:[\\w+=/,.@-]+)?$"
SHARED_PARTS = [params({"a": {"type": "string", "pattern": ARN, "minLength": 20, "maxLength": n},
                        "k": {"type": "object", "patternProperties": {f"^[a-z]{{1,{n // 8}}}$": {"type": "integer"}}}})
                for n in (256, 512, 1024, 2048)]


def test_no_table_of_shared_parts_outlives_its_grammar(monkeypatch: pytest.MonkeyPatch) -> None:
    """Equal parts are one object within a grammar only: a table kept from an earlier grammar holds parts equal to
    the new grammar's but not the same objects, and one look-up compared them node by node (30 s for a CloudFormation
    schema after the corpus before it, 0.3 s alone)."""
    from toolgram.compiler import bundle as bundle_module
    from toolgram.compiler import lengths, regex

    seen: list[tuple[object, object]] = []
    build = bundle_module.GrammarBuilder.build

    def noting(self: Any, *args: Any) -> Any:
        out = build(self, *args)
        seen.append((regex._SPELLED.get(), lengths._CANON.get()))
        return out

    monkeypatch.setattr(bundle_module.GrammarBuilder, "build", noting)
    for schema in SHARED_PARTS:
        compile("hermes", [tool("t", schema)], dialect="ebnf")
    assert len(seen) == len(SHARED_PARTS)
    for spelled, canon in seen:
        assert spelled and canon  # (the schemas do fill both tables)
    assert len({id(t) for pair in seen for t in pair}) == 2 * len(seen)  # a fresh pair per grammar
    assert regex._SPELLED.get() is None and lengths._CANON.get() is None


def test_grammars_built_at_once_in_threads_are_the_serial_ones() -> None:
    """The tables of shared parts belong to a context: a server compiling in several threads at once (``toolgram
    serve --engine batch``) writes the grammars one thread writes."""
    from concurrent.futures import ThreadPoolExecutor

    def build(schema: dict[str, Any]) -> str:
        return compile("hermes", [tool("t", schema)], dialect="gbnf", tool_choice="required").grammar

    serial = [build(s) for s in SHARED_PARTS]
    with ThreadPoolExecutor(4) as pool:
        assert list(pool.map(build, SHARED_PARTS * 2)) == serial * 2


@pytest.mark.parametrize(("keyword", "relaxed"), [
    ({"not": {"pattern": "^(a)\\1"}}, ["not"]), ({"if": {"pattern": "^(a)\\1"}, "then": {"maxLength": 3}}, ["if"]),
    ({"$dynamicRef": "#meta"}, ["$dynamicRef"]), ({"type": ["string", "foo"]}, None)])
@pytest.mark.parametrize("fmt", list(FORMATS))
def test_xml_raw_strings_keep_the_keyword_rules(fmt: str, keyword: Any, relaxed: list[str] | None) -> None:
    """Finding 10: every format applies the same rules to a string property (XML ones used to drop them)."""
    schema = {"type": "string", **keyword} if "type" not in keyword else keyword
    tools = [tool("t", params({"x": schema}))]
    with pytest.raises(ToolgramError):
        compile(fmt, tools, dialect="gbnf", tool_choice="required")
    if relaxed is not None:
        bundle = compile(fmt, tools, dialect="gbnf", tool_choice="required", permissive=True)
        assert [r["feature"] for r in bundle.relaxed] == relaxed


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_negated_pattern_in_every_format(fmt: str) -> None:
    """A negated pattern (``not``, an ``if`` test's else) holds in every format, raw XML text and Gemma 4 too."""
    schema = {"type": "string", "not": {"pattern": "^a"}, "if": {"pattern": "b$"}, "then": {"maxLength": 2}}
    tools = [tool("t", params({"x": schema}))]
    bundle = compile(fmt, tools, dialect="lark", tool_choice="required")
    for value, ok in [("b", True), ("xyz", True), ("xb", True), ("ab", False), ("xyb", False)]:
        results = engine_results(bundle, render_calls(fmt, [("t", {"x": value})]))
        assert {accepted for accepted, _ in results.values()} == {ok}, (value, results)


# -- names (finding 11) ------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["a\\b", "a\\", "ab\\u0041"])
@pytest.mark.parametrize("fmt", ["hermes", "llama3_json"])
def test_json_tool_names_are_escaped(fmt: str, name: str) -> None:
    tools = [tool(name, params({"x": {"type": "string"}}))]
    text = render_calls(fmt, [(name, {"x": "v"})])
    for dialect in DIALECTS:
        bundle = compile(fmt, tools, dialect=dialect, tool_choice="required")
        for engine, (ok, pos) in engine_results(bundle, text).items():
            assert ok, f"{dialect}/{engine} rejects at {pos}: {text!r}"


@pytest.mark.parametrize("name", ["a\rb", "a\x00b", "a\x0bb", "a\x0cb", "a\x7fb", "a\x85b"])
@pytest.mark.parametrize("fmt", list(FORMATS))
def test_control_characters_in_tool_names_are_rejected(fmt: str, name: str) -> None:
    one_line_error(fmt, [tool(name, params({}))], "gbnf", "$[0].function.name")


@pytest.mark.parametrize("name", ["天气", "a:b", "1abc", "a-b", "a.b"])
@pytest.mark.parametrize("fmt", ["pythonic", "llama4_pythonic"])
def test_pythonic_names_are_ascii_identifiers(fmt: str, name: str) -> None:
    if name != "a.b":  # a dotted tool name is a Python call expression (issue 25): see test_redteam_new_formats
        one_line_error(fmt, [tool(name, params({}))], "gbnf", "$[0].function.name")
    one_line_error(fmt, [tool("f", params({name: {"type": "string"}}))], "gbnf", "$[0].function.parameters.properties")


@pytest.mark.parametrize("name", ["a..b", "a.", ".a", "a.1b", "math.fac-torial"])
@pytest.mark.parametrize("fmt", ["pythonic", "llama4_pythonic", "lfm2"])
def test_pythonic_dotted_names_are_dotted_identifiers(fmt: str, name: str) -> None:
    one_line_error(fmt, [tool(name, params({}))], "gbnf", "$[0].function.name")


@pytest.mark.parametrize("key", ["a>b", "</parameter>", "</function>", "a<b", "a\nb", ""])
@pytest.mark.parametrize("fmt", XML)
def test_xml_property_names_that_break_the_tag(fmt: str, key: str) -> None:
    one_line_error(fmt, [tool("f", params({key: {"type": "string"}}))], "gbnf", "$[0].function.parameters.properties")


#: any assigned character (unassigned code points such as U+40000 lose bytes in the test GGUF's tokenizer)
NAME_CHARS = st.characters(codec="utf-8", exclude_categories=("Cs", "Cn", "Co"))


#: every character Unicode calls whitespace or a separator (Zs, Zl, Zp; NBSP, U+2028, U+3000 ...):
#: drawn often, since a parser that ends a name at whitespace must never meet one in a name that compiled
SPACES = [chr(c) for c in range(0x110000) if chr(c).isspace() or unicodedata.category(chr(c)) in ("Zs", "Zl", "Zp")]
_NAME = st.text(st.one_of(NAME_CHARS, st.sampled_from(SPACES)), min_size=1, max_size=6)


@pytest.mark.parametrize("fmt", list(FORMATS))
@settings(max_examples=per_format(25, minimum=10))  # the slow twin: ..._full
@given(name=_NAME, key=_NAME)
def test_any_name_compiles_and_round_trips_or_is_rejected(fmt: str, name: str, key: str) -> None:
    _any_name(fmt, name, key)


@pytest.mark.slow
@pytest.mark.parametrize("fmt", list(FORMATS))
@settings(max_examples=25)
@given(name=_NAME, key=_NAME)
def test_any_name_compiles_and_round_trips_or_is_rejected_full(fmt: str, name: str, key: str) -> None:
    _any_name(fmt, name, key)


def _any_name(fmt: str, name: str, key: str) -> None:
    """Issue 13's property: a random tool name and property name either compile in every dialect and
    the rendered call is accepted, or compile rejects them with a ToolgramError naming the path."""
    tools = [tool(name, params({key: {"type": "string"}}, required=[key]))]
    try:
        text = render_calls(fmt, [(name, {key: "v"})])
    except ValueError:  # the renderer refuses what the format cannot carry: so does the compiler
        with pytest.raises(ToolgramError):
            compile(fmt, tools, dialect="gbnf", tool_choice="required")
        return
    compiled = False
    for dialect in DIALECTS:
        try:
            bundle = compile(fmt, tools, dialect=dialect, tool_choice="required")
        except ToolgramError as err:
            assert err.path and err.path.startswith("$[0]"), err
            assert "\n" not in str(err)
            continue
        for engine, (ok, pos) in engine_results(bundle, text).items():
            assert ok, f"{dialect}/{engine} rejects {name!r}/{key!r} at {pos}: {text!r}"
        compiled = True
    if compiled:  # the name can be carried: both parsers return the call
        want = [(name, json.dumps({key: "v"}, ensure_ascii=False))]
        for mode in ("strict", "lenient"):
            msg = toolgram.parse(fmt, text, tools, mode=mode, tool_choice="required")
            got = [(c["function"]["name"], c["function"]["arguments"]) for c in msg["tool_calls"]]
            assert got == want, (mode, name, key, text, msg)


# -- tools files (finding 8; issue 12 section 5) ----------------------------------------------------

TOOLS_FILES: dict[str, bytes] = {
    "latin1": '[{"type": "function", "function": {"name": "caf\xe9"}}]'.encode("latin-1"),
    "utf16": json.dumps([tool("a")]).encode("utf-16"),
    "digits_5000": b'[{"type": "function", "function": {"name": "a", "parameters": {"type": "object", "properties": '
                   b'{"x": {"type": "integer", "minimum": ' + b"9" * 5000 + b"}}}}}]",
    "nan": b'[{"type": "function", "function": {"name": "a", "parameters": {"type": "object", "properties": '
           b'{"x": {"type": "integer", "minimum": NaN}}}}}]',
    "infinity": b'[{"type": "function", "function": {"name": "a", "x": -Infinity}}]',
    "brackets_100k": b"[" * 100_000,
    "not_a_list": b'{"type": "function"}',
    "no_name": b'[{"type": "function", "function": {}}]',
    "deep_schema": json.dumps([tool("a", nested_objects(400))]).encode(),
}


@pytest.mark.parametrize("case", sorted(TOOLS_FILES))
@pytest.mark.parametrize("command", ["compile", "parse"])
def test_bad_tools_file_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str], case: str, command: str,
                               monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "tools.json"
    path.write_bytes(TOOLS_FILES[case])
    if command == "parse":
        import io
        monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"hello")))
    code = main([command, "hermes", "--tools", str(path)])
    out, err = capsys.readouterr()
    if command == "parse" and case == "digits_5000":
        # this process lifts Python's digit limit (conftest), and lenient parse needs no grammar
        assert code == 0, err
        return
    assert code == 2, (out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and str(path) in lines[0], err


def test_huge_integer_in_a_real_process(tmp_path: Path) -> None:
    """Outside the test process Python's 4300-digit limit applies: one line, exit 2."""
    import subprocess
    import sys

    path = tmp_path / "tools.json"
    path.write_bytes(b'[{"type": "function", "function": {"name": "a", "x": ' + b"9" * 5000 + b"}}]")
    proc = subprocess.run([sys.executable, "-m", "toolgram.cli",
                           "compile", "hermes", "--tools", str(path)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2, proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and "too many digits" in proc.stderr


def test_tools_shape_errors_are_worded_the_same(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    path = tmp_path / "tools.json"
    path.write_text('[{"type": "function", "function": {"name": "a b"}}]', encoding="utf-8")
    errors = []
    for command in ("compile", "parse"):
        monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"hello")))
        assert main([command, "hermes", "--tools", str(path)]) == 2
        errors.append(capsys.readouterr().err.strip())
    assert errors[0] == errors[1] and "$[0].function.name" in errors[0], errors


def test_bare_function_objects_are_accepted(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A tools entry without the {"type": "function"} wrapper is accepted (documented)."""
    path = tmp_path / "tools.json"
    path.write_text('[{"name": "a", "parameters": {"type": "object", "properties": {}}}]', encoding="utf-8")
    assert main(["compile", "hermes", "--tools", str(path)]) == 0
    bare = compile("hermes", [{"name": "a"}], dialect="ebnf")
    wrapped = compile("hermes", [tool("a")], dialect="ebnf")
    assert bare.grammar == wrapped.grammar


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_schema_errors_are_unsupported_or_schema_errors(fmt: str) -> None:
    """The limit errors are UnsupportedSchemaError (a grammar limit); malformed values SchemaError."""
    big = [tool("t", params({"x": {"type": "string", "maxLength": 10**12}}))]
    with pytest.raises(UnsupportedSchemaError, match="limit of 2147483647"):
        compile(fmt, big, dialect="lark")
    bad = [tool("t", params({"x": {"type": "string", "minLength": 10, "maxLength": 2}}))]
    with pytest.raises(SchemaError):
        compile(fmt, bad, dialect="gbnf")


BEYOND = {  # counts past toolgram's limits (past xgrammar's 32-bit counts: UINT32_MAX, JavaScript's largest integer)
    "s": {"type": "string", "maxLength": 4294967295},
    "m": {"type": "string", "minLength": 2**31, "pattern": "^[a-z]*$"},
    "a": {"type": "array", "items": {"type": "integer"}, "maxItems": 9007199254740991},
    "o": {"type": "object", "additionalProperties": {"type": "string"}, "maxProperties": 2**31},
}


@pytest.mark.parametrize("dialect", ["ebnf", "lark"])
def test_permissive_drops_counts_past_the_limits(dialect: str) -> None:
    """Strict: each count past its limit is refused at its path.  ``--permissive`` only relaxes: the bound is dropped
    (a superset) and listed under ``relaxed``, the rest of the schema still enforced (cfn-lint's CloudFormation
    schemas: 15 of 312 did not compile even permissively, ``maxLength: 2147483647`` and such, now within the limits)."""
    for key, schema in BEYOND.items():
        with pytest.raises(UnsupportedSchemaError, match="limit of") as err:
            compile("hermes", [tool("t", params({key: schema}))], dialect=dialect)
        assert err.value.path.startswith(f"$[0].function.parameters.properties.{key}."), err.value.path
    tools = [tool("t", params(BEYOND))]
    bundle = compile("hermes", tools, dialect=dialect, permissive=True, tool_choice="required")
    assert sorted(r["path"] for r in bundle.relaxed) == sorted(
        f"$[0].function.parameters.properties.{k}.{kw}" for k, kw in
        [("s", "maxLength"), ("m", "minLength"), ("a", "maxItems"), ("o", "maxProperties")])
    valid = {"s": "x" * 300, "m": "abc", "a": list(range(300)), "o": {f"k{i}": "v" for i in range(150)}}
    for args, ok in [(valid, True), ({**valid, "m": "ABC"}, False), ({**valid, "a": ["x"]}, False),
                     ({**valid, "o": {"k": 1}}, False)]:
        text = render_calls("hermes", [("t", args)])
        for engine, (accepted, pos) in engine_results(bundle, text).items():
            assert accepted == ok, (engine, args if len(str(args)) < 200 else list(args), pos)


# -- linear-time patterns in Lark (finding 1) --------------------------------------------------------

EVIL = ["^(a+)+$", "^(a|aa)+$", "^(\\w+\\s?)+$", "^(a|a?)+b$", "^(.+)+$"]


@pytest.mark.parametrize(("fmt", "pattern"), format_cases(EVIL))  # 1 of 5 per format; the rest slow
def test_lark_patterns_are_linear(fmt: str, pattern: str) -> None:
    """``"pattern": "^(a+)+$"`` was the Lark terminal /"(?:[a]+)+"/: 28 a's and a b took 67 s in
    strict parsing. Such patterns are printed from their DFA; the language stays the same."""
    import re
    import time

    import toolgram

    tools = [tool("f", params({"x": {"type": "string", "pattern": pattern}}, required=["x"]))]
    bundle = compile(fmt, tools, dialect="lark", tool_choice="required")
    good_value = "aaa" if "b$" not in pattern else "aab"
    assert re.fullmatch(pattern.strip("^$"), good_value)
    good = render_calls(fmt, [("f", {"x": good_value})])
    assert engine_results(bundle, good)["lark"][0], bundle.grammar
    bad_value = "a" * 40 + ("\n" if pattern == "^(.+)+$" else "!")
    assert not re.fullmatch(pattern.strip("^$"), bad_value[-8:])  # Python's re itself is exponential here
    bad = render_calls(fmt, [("f", {"x": bad_value})])
    t = time.perf_counter()
    assert not engine_results(bundle, bad)["lark"][0]
    msg = toolgram.parse(fmt, bad, tools, mode="strict", tool_choice="required")
    assert msg["tool_calls"] == []
    assert time.perf_counter() - t < 5


@pytest.mark.parametrize("dialect", ["gbnf", "ebnf"])
def test_dfa_pattern_agrees_with_the_other_dialects(dialect: str) -> None:
    """The DFA-printed Lark terminal accepts exactly what GBNF/EBNF accept on a small corpus."""
    pattern = "^(a|ab|b)+c?$"
    tools = [tool("f", params({"x": {"type": "string", "pattern": pattern}}, required=["x"]))]
    lark_b = compile("hermes", tools, dialect="lark", tool_choice="required")
    other = compile("hermes", tools, dialect=dialect, tool_choice="required")
    for value in ["a", "ab", "abba", "bc", "c", "", "abcc", "ba", "aab\\n", "abc", "b" * 30 + "d"]:
        text = render_calls("hermes", [("f", {"x": value})])
        got = {e: r[0] for e, r in {**engine_results(lark_b, text), **engine_results(other, text)}.items()}
        assert len(set(got.values())) == 1, (value, got)


#: a cron expression (Meltano's schema in SchemaStore): ambiguous ("12" is one field or two), so Lark's terminal
#: must come from its DFA, whose regex passes the caps (151 states, ~2 million nodes written out)
CRON = r"^((@(hourly|daily|weekly|monthly|yearly|once))|((((\d+,)+\d+|(\d+|\*)(\/|-)\d+|\d+|\*) ?){5,6}))$"
CRON_VALUES = ["@daily", "0 0 * * *", "0 0 * * * 1", "1,2 */5 3-4 * *", "0 0 * *", "x", "1 1 1 1 1 ", "12345",
               "1 2 3 4 5 6 7", "@dailyx", "*/5 * * * *", ""]


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_a_pattern_past_the_regex_caps_is_an_automaton(fmt: str) -> None:
    """Past the caps of a linear-time Lark regex, the pattern's DFA is written as rules: the strict parser exists
    (LALR, one pass), in every format (raw XML values too), and agrees with Python's ``re`` on the pattern."""
    import re

    tools = [tool("f", params({"x": {"type": "string", "pattern": CRON}}, required=["x"]))]
    bundle = compile(fmt, tools, dialect="lark", tool_choice="required")
    assert bundle.lark_parser == "lalr" and "_pat1_" in (bundle.grammar or "")
    for value in CRON_VALUES:
        msg = parse_strict(fmt, render_calls(fmt, [("f", {"x": value})]), tools, tool_choice="required")
        assert bool(msg["tool_calls"]) == bool(re.search(CRON, value)), value


@pytest.mark.parametrize("fmt", ["hermes", "qwen3_coder"])
def test_the_automaton_agrees_with_the_engines(fmt: str) -> None:
    """Lark's automaton, xgrammar's EBNF and llama.cpp's GBNF accept the same values."""
    tools = [tool("f", params({"x": {"type": "string", "pattern": CRON}}, required=["x"]))]
    bundles = [compile(fmt, tools, dialect=d, tool_choice="required") for d in ("lark", "ebnf", "gbnf")]
    for value in CRON_VALUES:
        text = render_calls(fmt, [("f", {"x": value})])
        got = {e: r[0] for b in bundles for e, r in engine_results(b, text).items()}
        assert len(set(got.values())) == 1, (value, got)


@pytest.mark.parametrize("parser", ["lalr", "earley"])
def test_a_counted_choice_builds_in_lark(parser: str) -> None:
    """A bounded array of a choice (``maxItems: 16`` over a type list of four) builds in Lark at once: Lark spells
    ``(a | b | c | d)~1..15`` as every sequence of choices (4**15 expansions) unless the choice is a rule of its
    own (Woodpecker CI's matrix did this).  Both parsers: overlapping object alternatives make the grammar Earley."""
    item = {"type": ["boolean", "string", "number", "null"]}
    x: dict[str, Any] = {"type": "array", "items": item, "maxItems": 16}
    if parser == "earley":
        x = {"anyOf": [params({"a": x}), params({"a": x, "b": {"type": "integer"}})]}
    tools = [tool("f", params({"x": x}, required=["x"]))]
    bundle = compile("hermes", tools, dialect="lark", tool_choice="required")
    assert bundle.lark_parser == parser
    arg = [True, "s", 1.5, None] * 4
    value = arg if parser == "lalr" else {"a": arg}
    for v, ok in [(value, True), (arg + [1] if parser == "lalr" else {"a": arg + [1]}, False)]:
        msg = parse_strict("hermes", render_calls("hermes", [("f", {"x": v})]), tools, tool_choice="required")
        assert bool(msg["tool_calls"]) == ok, v
