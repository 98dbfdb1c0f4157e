"""Unit and property tests for the shared value converter (parsing/values.py, parsing/pyliteral.py)."""

from __future__ import annotations

import ast
import json
import math
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from toolgram.parsing.diagnostics import Diagnostic
from toolgram.parsing.pyliteral import (
    MAX_DEPTH,
    LiteralSyntaxError,
    parse_literal,
    read_identifier,
    read_value,
    skip_whitespace,
    unlimited_int_digits,
)
from toolgram.parsing.values import (
    JSONValueError,
    convert_python_value,
    convert_xml_value,
    dumps_arguments,
    loads_json,
    resolve_ref,
    schema_types,
)

PROPERTY = settings(
    deadline=None,
    derandomize=True,
    database=None,
    max_examples=150,
    suppress_health_check=[HealthCheck.too_slow],
)

json_scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12)
)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=12,
)
json_objects = st.dictionaries(st.text(max_size=6), json_values, max_size=5)


def exact(value: Any) -> str:
    """A spelling that tells 1, 1.0 and True apart (and compares floats exactly)."""
    with unlimited_int_digits():
        return json.dumps(value)


# ---------------------------------------------------------------------------------------------
# pyliteral: the Python literal reader


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1", 1),
        ("-1", -1),
        ("(1)", 1),
        ("(1,)", [1]),
        ("()", []),
        ("(1, 'a', None)", [1, "a", None]),
        ("((1))", 1),
        ("0x1F", 31),
        ("0X1f", 31),
        ("0b101", 5),
        ("0o17", 15),
        ("1_000", 1000),
        ("0x_ff", 255),
        ("007", 7),
        ("00", 0),
        ("+5", 5),
        ("- 5", -5),
        ("--5", 5),
        ("-0", 0),
        ("3.0", 3.0),
        ("1e3", 1000.0),
        ("1.", 1.0),
        (".5", 0.5),
        ("1_0.5e1_0", 10.5e10),
        ("True", True),
        ("False", False),
        ("None", None),
        ("true", True),
        ("false", False),
        ("null", None),
        ("'x'", "x"),
        ('"x"', "x"),
        ("'a' 'b' \"c\"", "abc"),
        ("'a'\n  'b'", "ab"),
        ("'''a\nb'''", "a\nb"),
        ('"""it\'s "q" """', 'it\'s "q" '),
        ("r'a\\b'", "a\\b"),
        ("r'\\''", "\\'"),
        ("u'x'", "x"),
        ("'a\nb'", "a\nb"),
        ("[]", []),
        ("[1, [2, [3]],]", [1, [2, [3]]]),
        ("[\n  1,\n  2\n]", [1, 2]),
        ("{}", {}),
        ("{'a': 1, 'b': {'c': [True, None]}}", {"a": 1, "b": {"c": [True, None]}}),
        ("{'a': 1, 'b': 2, 'a': 3}", {"a": 3, "b": 2}),
        (
            "{1: 'i', True: 'b', None: 'n', 1.5: 'f', False: 'F'}",
            {"1": "i", "true": "b", "null": "n", "1.5": "f", "false": "F"},
        ),
        ("{1, 2, 1, 'a', 'a'}", [1, 2, "a"]),
        ("{'a': 1,}", {"a": 1}),
        ('{"k": true, "n": null}', {"k": True, "n": None}),
    ],
)
def test_literal_lenient(text: str, expected: Any) -> None:
    assert exact(parse_literal(text)) == exact(expected)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (r"'\N{BULLET}'", "\u2022"),
        (r"'\N{LATIN SMALL LETTER E WITH ACUTE}x'", "\u00e9x"),
        (r"'\x41\u00e9\U0001F600'", "A\u00e9\U0001f600"),
        (r"'\ud83d\ude00'", "\U0001f600"),
        (r"'\ud83d'", "\ud83d"),
        (r"'\n\t\r\\\'\"'", "\n\t\r\\'\""),
        (r"'\a\b\f\v'", "\a\b\f\v"),
        (r"'\0'", "\0"),
        (r"'\101\7'", "A\7"),
        (r"'\d\w'", "\\d\\w"),
        ("'a\\\nb'", "ab"),
    ],
)
def test_literal_escapes(text: str, expected: str) -> None:
    assert parse_literal(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("-12", -12),
        ("1.5e-3", 1.5e-3),
        ("-0.0", -0.0),
        ("'it\\'s'", "it's"),
        ('"say \\"hi\\""', 'say "hi"'),
        (r"'\x00\u00e9\U0001F600'", "\x00\u00e9\U0001f600"),
        ("[1, 'a', None, True, False]", [1, "a", None, True, False]),
        ("{'a': {'b': []}, \"c\": 2}", {"a": {"b": []}, "c": 2}),
        ("{'a': 1, 'a': 2}", {"a": 2}),
        ("[\n 1 ,\t2 ]", [1, 2]),
    ],
)
def test_literal_strict_accepts(text: str, expected: Any) -> None:
    assert exact(parse_literal(text, lenient=False)) == exact(expected)


@pytest.mark.parametrize(
    "text",
    [
        "(1)",
        "(1,)",
        "{1, 2}",
        "0x1F",
        "0b1",
        "0o7",
        "1_000",
        "007",
        "+1",
        "- 1",
        "--1",
        "true",
        "null",
        "'a' 'b'",
        "'''a'''",
        "r'a'",
        "u'a'",
        r"'\N{BULLET}'",
        r"'\101'",
        r"'\d'",
        "'a\\\nb'",
        "'a\nb'",
        "[1,]",
        "{'a': 1,}",
        "{1: 2}",
    ],
)
def test_literal_strict_rejects(text: str) -> None:
    with pytest.raises(LiteralSyntaxError):
        parse_literal(text, lenient=False)
    parse_literal(text)  # ... while lenient mode reads it


@pytest.mark.parametrize(
    ("text", "offset", "incomplete"),
    [
        ("[1, 2", 5, True),
        ("'abc", 4, True),
        ("{'a': ", 6, True),
        ("Tr", 0, True),
        ("'\\u00", 5, True),
        ("", 0, True),
        ("[1 2]", 3, False),
        ("foo", 0, False),
        ("{'a' 1}", 5, False),
        ("b'x'", 0, False),
        ("f'x'", 0, False),
        ("1j", 0, False),
        ("[1] x", 4, False),
        ("{[1]: 2}", 1, False),
        ("'\\N{NO SUCH NAME}'", 1, False),
        ("'\\x4'", 1, False),
        ("...", 0, False),
        ("-True", 1, False),
    ],
)
def test_literal_errors(text: str, offset: int, incomplete: bool) -> None:
    with pytest.raises(LiteralSyntaxError) as info:
        parse_literal(text)
    assert info.value.offset == offset
    assert info.value.incomplete is incomplete


def test_literal_deep_nesting_is_an_error_not_a_crash() -> None:
    with pytest.raises(LiteralSyntaxError, match="too deep"):
        parse_literal("[" * (MAX_DEPTH + 5) + "]" * (MAX_DEPTH + 5))
    assert parse_literal("[" * 50 + "]" * 50) is not None


def test_read_value_at_offset() -> None:
    text = "f(a=1, b='x' 'y', c=[1,\n 2], d={'k': None})"
    value, end = read_value(text, 4)
    assert (value, text[end]) == (1, ",")
    value, end = read_value(text, text.index("b=") + 2)
    assert value == "xy" and text[end] == ","
    value, end = read_value(text, text.index("c=") + 2)
    assert value == [1, 2] and text[end] == ","
    value, end = read_value(text, text.index("d=") + 2)
    assert value == {"k": None} and text[end:] == ")"
    # leading whitespace is skipped, trailing whitespace is not consumed
    value, end = read_value("x=   42   ,", 2)
    assert (value, end) == (42, 7)
    assert skip_whitespace("x=   42   ,", end) == 10


def test_read_identifier() -> None:
    assert read_identifier("  get_weather(", 0) == ("get_weather", 13)
    assert read_identifier("f(ünïcode=1)", 2) == ("ünïcode", 9)
    with pytest.raises(LiteralSyntaxError) as info:
        read_identifier("f(1=2)", 2)
    assert info.value.offset == 2
    with pytest.raises(LiteralSyntaxError) as info:
        read_identifier("f(  ", 2)
    assert info.value.incomplete


def test_literal_non_finite_float() -> None:
    diagnostics: list[Diagnostic] = []
    assert parse_literal("[1, -1e400, 2.5]", diagnostics=diagnostics) == [1, "-1e400", 2.5]
    assert [(d.code, d.offset) for d in diagnostics] == [("non_finite_number", 4)]
    assert parse_literal("1e400") == "1e400"  # no list given: no diagnostics, same value


@pytest.fixture
def digit_limit() -> Any:
    """Python's default 4300-digit limit, even where conftest lifted it for the whole suite."""
    if not hasattr(sys, "set_int_max_str_digits"):
        pytest.skip("no int digit limit in this Python")
    saved = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(4300)
    yield
    sys.set_int_max_str_digits(saved)


def test_big_ints_beyond_digit_limit(digit_limit: None) -> None:
    big = 10**5000 - 1  # 5000 nines
    with unlimited_int_digits():
        text = str(big)
        json_text = f'{{"n": {big}, "m": [{big}]}}'
    assert sys.get_int_max_str_digits() == 4300
    assert parse_literal(text) == big
    assert parse_literal("-" + text, lenient=False) == -big
    assert parse_literal(hex(big)) == big
    assert parse_literal(f"{{{text}: 1}}") == {text: 1}  # an int key is converted exactly
    assert loads_json(json_text) == ({"n": big, "m": [big]}, [])
    assert convert_xml_value(text, INT) == (big, [])
    assert convert_xml_value(json_text, OBJ) == ({"n": big, "m": [big]}, [])
    assert convert_python_value(f"[{text}]") == ([big], [])
    assert dumps_arguments({"n": big, "m": [big]}) == json_text
    assert sys.get_int_max_str_digits() == 4300  # lifted only while converting


@PROPERTY
@given(json_values)
def test_literal_repr_round_trip(value: Any) -> None:
    """The Python spelling (repr) of any JSON value reads back exactly, in both modes."""
    text = repr(value)
    assert exact(parse_literal(text)) == exact(value)
    assert exact(parse_literal(text, lenient=False)) == exact(value)


@PROPERTY
@given(json_values, st.booleans())
def test_literal_reads_json_spelling_leniently(value: Any, ascii_only: bool) -> None:
    """JSON text is a lenient Python literal with the same value (surrogate pairs joined)."""
    assert exact(parse_literal(json.dumps(value, ensure_ascii=ascii_only))) == exact(value)


@PROPERTY
@given(st.integers(min_value=2**64) | st.integers(max_value=-(2**64)))
def test_big_ints_exact_everywhere(n: int) -> None:
    assert parse_literal(repr(n), lenient=False) == n
    assert loads_json(str(n))[0] == n
    assert convert_xml_value(str(n), {"type": "integer"}) == (n, [])
    assert convert_xml_value(str(n), {"type": "number"}) == (n, [])
    assert convert_python_value(repr([n]))[0] == [n]
    assert dumps_arguments({"n": n}) == '{"n": ' + str(n) + "}"


# ---------------------------------------------------------------------------------------------
# JSON reading and writing


def test_loads_json_rules() -> None:
    value, diagnostics = loads_json('{"a": 1, "b": 3.0, "a": 2, "c": 1e2, "d": -1e400}', offset=7)
    assert list(value) == ["a", "b", "c", "d"]
    assert exact(value) == exact({"a": 2, "b": 3.0, "c": 100.0, "d": "-1e400"})
    assert [(d.code, d.offset) for d in diagnostics] == [("non_finite_number", 7)]
    assert dumps_arguments(value) == '{"a": 2, "b": 3.0, "c": 100.0, "d": "-1e400"}'


def test_loads_json_lenient_vs_strict() -> None:
    assert loads_json('{"x": NaN, "y": -Infinity}')[0] == {"x": "NaN", "y": "-Infinity"}
    with pytest.raises(JSONValueError):
        loads_json('{"x": NaN}', lenient=False)
    assert loads_json('{"s": "a\nb"}')[0] == {"s": "a\nb"}  # raw control character inside a string
    with pytest.raises(JSONValueError):
        loads_json('{"s": "a\nb"}', lenient=False)
    with pytest.raises(JSONValueError) as info:
        loads_json('{"a": tru}')
    assert info.value.offset == 6
    with pytest.raises(JSONValueError):
        loads_json("[" * 100_000 + "]" * 100_000)


def test_dumps_arguments() -> None:
    assert dumps_arguments({"city": "Zürich", "n": [1, 2.5, None, True]}) == (
        '{"city": "Zürich", "n": [1, 2.5, null, true]}'
    )
    # a lone surrogate is escaped, so the text is encodable and decodes to the same value
    text = dumps_arguments({"s": "a\ud800b"})
    assert text == '{"s": "a\\ud800b"}'
    text.encode("utf-8")
    assert json.loads(text) == {"s": "a\ud800b"}


# ---------------------------------------------------------------------------------------------
# XML parameter values

STR = {"type": "string"}
INT = {"type": "integer"}
NUM = {"type": "number"}
BOOL = {"type": "boolean"}
OBJ = {"type": "object"}
ARR = {"type": "array"}
ALL_UNION = {"anyOf": [STR, INT, NUM, BOOL, OBJ, ARR, {"type": "null"}]}


@pytest.mark.parametrize(
    ("raw", "schema", "expected"),
    [
        ("Paris", STR, "Paris"),
        ("\n  x\n", STR, "\n  x\n"),
        ("null", STR, "null"),
        ("42", STR, "42"),
        ("celsius", {"enum": ["celsius", "fahrenheit"]}, "celsius"),
        ("null", {"const": "x"}, "null"),
        ("null", {"type": ["integer", "null"]}, None),
        ("null", {"anyOf": [INT, {"type": "null"}]}, None),
        ("null", {"type": ["string", "null"]}, None),
        ("null", INT, None),
        ("null", OBJ, None),
        ("42", INT, 42),
        ("-7", INT, -7),
        (" 42\n", INT, 42),
        ("3.0", NUM, 3.0),
        ("3.0", INT, 3.0),
        ("2", NUM, 2),
        ("2.5e3", NUM, 2500.0),
        ("true", BOOL, True),
        ("false", BOOL, False),
        ('{"k": "v", "k": "w"}', OBJ, {"k": "w"}),
        ("[1, 2]", ARR, [1, 2]),
        ("true", {"type": "bool"}, True),
        ("5", {"type": "int"}, 5),
        ("5", {"type": "weird"}, 5),
        ("5", {"$ref": "#/$defs/n", "$defs": {"n": INT}}, 5),
        ("5", {"allOf": [INT, {"minimum": 0}]}, 5),
        ("1", {"enum": [1, 2, 3]}, 1),
        # untyped: JSON, then (lenient) Python spellings, else the raw string
        ('{"x": 1}', {}, {"x": 1}),
        ("plain text", {}, "plain text"),
        ("{not valid json", None, "{not valid json"),
        ('"quoted"', None, '"quoted"'),
        ("null", None, None),
        ("True", None, True),
    ],
)
def test_xml_value(raw: str, schema: dict[str, Any] | None, expected: Any) -> None:
    value, diagnostics = convert_xml_value(raw, schema)
    assert exact(value) == exact(expected)
    assert diagnostics == []


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("null", None),
        ("1", 1),
        ("1.5", 1.5),
        ("3.0", 3.0),
        ("true", True),
        ('{"a": 1}', {"a": 1}),
        ("[1]", [1]),
        ("x", "x"),
        ("2 dollars", "2 dollars"),
        ("1e400", "1e400"),
        ("", ""),
    ],
)
def test_xml_union_order(raw: str, expected: Any) -> None:
    """A union with string reads the first non-string type that fits, else the raw string."""
    type_list = {"type": ["string", "null", "integer", "number", "boolean", "object", "array"]}
    for schema in (ALL_UNION, type_list, {}):
        value, diagnostics = convert_xml_value(raw, schema)
        assert exact(value) == exact(expected) and diagnostics == []


def test_xml_union_with_string_does_not_read_null_unless_allowed() -> None:
    schema = {"anyOf": [STR, INT]}
    assert convert_xml_value("null", schema) == ("null", [])
    assert convert_xml_value("42", schema) == (42, [])
    assert convert_xml_value("True", schema) == ("True", [])
    assert convert_xml_value("None", {"anyOf": [STR, {"type": "null"}]}) == (None, [])


@pytest.mark.parametrize(
    ("raw", "schema", "expected"),
    [
        ("True", BOOL, True),
        ("False", BOOL, False),
        ("None", {"type": ["integer", "null"]}, None),
        ("None", INT, None),
        ("{'k': 'v', 'n': None}", OBJ, {"k": "v", "n": None}),
        ("{'k': True}", OBJ, {"k": True}),
        ('{"k": True}', OBJ, {"k": True}),
        ("['a', None]", ARR, ["a", None]),
        ("(1, 2)", ARR, [1, 2]),
        ("{'a': 1}", {}, {"a": 1}),
    ],
)
def test_xml_python_spellings_lenient_only(raw: str, schema: dict[str, Any], expected: Any) -> None:
    assert convert_xml_value(raw, schema) == (expected, [])
    value, diagnostics = convert_xml_value(raw, schema, lenient=False)
    if schema:
        assert value == raw
        assert [d.code for d in diagnostics] == ["value_type_mismatch"]
    else:
        assert (value, diagnostics) == (raw, [])  # untyped: the string fallback


@pytest.mark.parametrize(
    ("raw", "schema", "type_name"),
    [
        ("abc", INT, "integer"),
        ("7.5", INT, "integer"),
        ("1,000", NUM, "number"),
        ("yes", BOOL, "boolean"),
        ("TRUE", BOOL, "boolean"),
        ("1", BOOL, "boolean"),
        ("[1]", OBJ, "object"),
        ('{"a": 1}', ARR, "array"),
        ("{'a': }", OBJ, "object"),
        ("", INT, "integer"),
        ("+5", INT, "integer"),
        ("05", INT, "integer"),
        ("NaN", NUM, "number"),
        ("x", {"type": ["integer", "boolean"]}, "integer or boolean"),
    ],
)
def test_xml_type_mismatch(raw: str, schema: dict[str, Any], type_name: str) -> None:
    value, diagnostics = convert_xml_value(raw, schema, name="count", offset=40)
    assert value == raw
    assert len(diagnostics) == 1
    assert diagnostics[0].code == "value_type_mismatch"
    assert f"expects {type_name};" in diagnostics[0].message and "'count'" in diagnostics[0].message
    assert diagnostics[0].offset == 40


def test_xml_non_finite() -> None:
    value, diagnostics = convert_xml_value(" 1e400\n", NUM, offset=10)
    assert value == "1e400"
    assert [(d.code, d.offset) for d in diagnostics] == [("non_finite_number", 11)]
    assert convert_xml_value("-1e400", INT)[1][0].code == "non_finite_number"
    assert convert_xml_value("1e400", {"type": ["number", "string"]}) == ("1e400", [])
    value, diagnostics = convert_xml_value('{"x": 1e400}', OBJ, offset=3)
    assert value == {"x": "1e400"}
    assert [(d.code, d.offset) for d in diagnostics] == [("non_finite_number", 3)]
    value, diagnostics = convert_xml_value("[1, 1e400]", ARR, offset=3)
    assert value == [1, "1e400"] and diagnostics[0].offset == 3


def test_xml_ref_against_root() -> None:
    root = {"$defs": {"n": INT, "s": STR, "loop": {"$ref": "#/$defs/loop"}}, "definitions": {"b": BOOL}}
    assert convert_xml_value("5", {"$ref": "#/$defs/n"}, root=root) == (5, [])
    assert convert_xml_value("5", {"$ref": "#/$defs/s"}, root=root) == ("5", [])
    assert convert_xml_value("true", {"$ref": "#/definitions/b"}, root=root) == (True, [])
    assert convert_xml_value("5", {"$ref": "#/$defs/loop"}, root=root) == (5, [])
    assert convert_xml_value("5", {"$ref": "#/$defs/missing"}, root=root) == (5, [])
    assert convert_xml_value("5", {"$ref": "other.json#/x"}, root=root) == (5, [])
    assert convert_xml_value("5", {"anyOf": [{"$ref": "#/$defs/s"}, {"$ref": "#/$defs/n"}]}, root=root) == (
        5,
        [],
    )
    assert resolve_ref({"$ref": "#/a~1b/0"}, {"a/b": [INT]}) == INT


@pytest.mark.parametrize(
    ("schema", "expected"),
    [
        (None, None),
        ({}, None),
        (True, None),
        (STR, {"string"}),
        ({"type": ["integer", "null"]}, {"integer", "null"}),
        ({"type": ["integer", "number"]}, {"number"}),
        ({"enum": ["a", 1, None]}, {"string", "integer", "null"}),
        ({"const": 2.5}, {"number"}),
        ({"anyOf": [STR, {"type": "null"}]}, {"string", "null"}),
        ({"oneOf": [INT, {}]}, None),
        ({"allOf": [{"type": ["integer", "string"]}, INT]}, {"integer"}),
        ({"allOf": [STR, INT]}, None),
        ({"type": "string", "enum": ["a", "b"]}, {"string"}),
        ({"type": "dict"}, {"object"}),
        ({"type": "unknown"}, None),
        ({"type": "integer", "nullable": True}, {"integer", "null"}),
        ({"type": ["string", "null", "integer", "number", "boolean", "object", "array"]}, None),
    ],
)
def test_schema_types(schema: Any, expected: set[str] | None) -> None:
    assert schema_types(schema) == (None if expected is None else frozenset(expected))


# ---------------------------------------------------------------------------------------------
# pythonic values


def test_python_value_lenient_and_strict() -> None:
    assert convert_python_value("'Paris'") == ("Paris", [])
    assert convert_python_value("{'a': [1, 2.0, None]}", lenient=False) == ({"a": [1, 2.0, None]}, [])
    assert convert_python_value("(1, 2)") == ([1, 2], [])
    value, diagnostics = convert_python_value("(1, 2)", lenient=False)
    assert value == "(1, 2)" and [d.code for d in diagnostics] == ["invalid_literal"]


def test_python_value_invalid_keeps_source() -> None:
    value, diagnostics = convert_python_value("  Paris France ", offset=100)
    assert value == "Paris France"
    assert diagnostics[0].code == "invalid_literal" and diagnostics[0].offset == 102
    value, diagnostics = convert_python_value("[1, 2", offset=10)
    assert value == "[1, 2" and diagnostics[0].offset == 15


def test_python_value_non_finite_offsets() -> None:
    value, diagnostics = convert_python_value("[1, 1e400]", offset=20)
    assert value == [1, "1e400"]
    assert diagnostics == [Diagnostic("non_finite_number", diagnostics[0].message, 24)]
    assert dumps_arguments({"x": value}) == '{"x": [1, "1e400"]}'


def test_diagnostic_to_json() -> None:
    assert Diagnostic("trailing_text", "m", 3).to_json() == {
        "code": "trailing_text",
        "message": "m",
        "offset": 3,
    }


# ---------------------------------------------------------------------------------------------
# hygiene


def test_modules_import_nothing_heavy() -> None:
    root = Path(__file__).resolve().parent.parent / "parsing"
    for name in ("values.py", "pyliteral.py", "diagnostics.py"):
        tree = ast.parse((root / name).read_text())
        imported = {
            alias.name.split(".")[0]
            for node in ast.walk(tree)
            if isinstance(node, ast.Import)
            for alias in node.names
        } | {
            (node.module or "").split(".")[0]
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and node.level == 0
        }
        assert not imported & {"torch", "openvino", "openvino_genai", "xgrammar", "numpy"}, name


def test_float_spelling_is_kept_as_float() -> None:
    for text in ("3.0", "1e2", "-0.0"):
        assert isinstance(parse_literal(text), float)
        assert isinstance(loads_json(text)[0], float)
        assert isinstance(convert_xml_value(text, NUM)[0], float)
    assert dumps_arguments([parse_literal("3.0"), loads_json("3.0")[0]]) == "[3.0, 3.0]"
    assert math.copysign(1, parse_literal("-0.0")) == -1


FUZZ_ALPHABET = st.sampled_from(list("[]{}(),:'\"\\ \n0123456789.eE+-_xobjNTruFalsenl{}u\u00e9\ud83d"))


@PROPERTY
@given(st.text(FUZZ_ALPHABET, max_size=25))
def test_no_crash_on_arbitrary_text(text: str) -> None:
    """Model output never raises: the readers fail only with their own error types."""
    for lenient in (True, False):
        try:
            value = parse_literal(text, lenient=lenient)
        except LiteralSyntaxError as exc:
            assert 0 <= exc.offset <= len(text)
        else:
            dumps_arguments(value)
            try:  # where Python itself reads the text, it agrees (up to tuple/set -> list)
                expected = ast.literal_eval(text)
            except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
                continue
            if isinstance(expected, (bool, int, float, str)) and not isinstance(expected, complex):
                if not (isinstance(expected, float) and math.isinf(expected)):
                    assert exact(value) == exact(expected)
        convert_python_value(text, lenient=lenient)
        for schema in (None, INT, NUM, BOOL, OBJ, ARR, ALL_UNION):
            dumps_arguments(convert_xml_value(text, schema, lenient=lenient)[0])

