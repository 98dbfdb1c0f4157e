"""Issue 22: ``format`` values enforced from RFC grammars (compiler/formats.py) in every engine and value syntax.

Instances are the JSON-Schema-Test-Suite's kind, written here; each is checked against the format's
pattern with Python's ``re`` (the oracle for the pattern), then as one optional argument of one tool:
accepted (valid) or rejected (invalid) by every engine, and read back by the strict parser.
An unknown format stays an annotation; a format beside a ``pattern`` admits what both admit (refused past the
size caps; permissive: the pattern alone).
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from strategies import engine_results
from toolgram.compiler.bundle import compile
from toolgram.compiler.formats import FORMATS as RFC
from toolgram.grammars.render import render_calls
from toolgram.parsing.strict import parse_strict

from toolgram.errors import UnsupportedSchemaError

#: format -> (valid, invalid)
CASES: dict[str, tuple[list[str], list[str]]] = {
    "date-time": (["1963-06-19T08:30:06.283185Z", "1937-01-01T12:00:27.87+00:20", "1998-12-31T23:59:60Z",
                   "2000-02-29t00:00:00z"],
                  ["1998-12-31T23:59:61Z", "1990-02-31T15:59:59.123-08:00", "1990-12-31T15:59:59-24:00",
                   "1963-06-19T08:30:06", "2013-350T01:01:01"]),
    "date": (["1963-06-19", "2020-02-29", "2000-02-29", "2021-04-30"],
             ["2020-02-30", "2021-02-29", "1900-02-29", "2020-13-01", "2020-04-31", "06/19/1963", "1998-1-20"]),
    "time": (["08:30:06Z", "23:59:60Z", "08:30:06.283185Z", "08:30:06+01:30"],
             ["22:59:60Z", "08:30:06", "8:3:6Z", "24:00:00Z", "01:02:03+24:00"]),
    "duration": (["P4DT12H30M5S", "P4Y", "PT0S", "P1M", "PT36H", "P2W", "P1Y2M3DT4H5M6S"],
                 ["PT1D", "P", "P1YT", "PT", "P2D1Y", "P1D2H", "1Y", "P1Y2W"]),
    "email": (["joe.bloggs@example.com", "te~st@example.com", '"joe bloggs"@example.com', "joe.bloggs@[127.0.0.1]",
               "joe.bloggs@[IPv6:::1]"],
              ["2962", ".test@example.com", "te.@example.com", "te..st@example.com", "joe.bloggs@invalid=domain.com"]),
    "hostname": (["www.example.com", "xn--4gbwdl.xn--wgbh1c", "h0stn4me", "a" * 63],
                 ["-a-host-name", "not_a_valid_host_name", "a" * 64, "hostname-", ".", "hostname..com"]),
    "ipv4": (["192.168.0.1", "0.0.0.0", "255.255.255.255"],
             ["127.0.0.0.1", "256.256.256.256", "127.0", "0x7f000001", "087.10.0.1"]),
    "ipv6": (["::1", "::", "1:d6::42", "1::d6:192.168.0.1", "::ffff:192.168.0.1", "1:2:3:4:5:6:7:8", "fe80::"],
             ["12345::", "::abcef", "1:1:1:1:1:1:1:1:1", "::laptop", "1::2::3", "fe80::a%eth1",
              "1:2:3:4:5:6:7:1.2.3.4"]),
    "uuid": (["2EB8AA08-AA98-11EA-B4AA-73B441D16380", "2eb8aa08-aa98-11ea-b4aa-73b441d16380"],
             ["2eb8aa08-aa98-11ea-b4aa-73b441d1638", "2eb8aa08aa9811eab4aa73b441d16380",
              "2eb8aa08-aa98-11ea-b4ga-73b441d16380"]),
    "uri": (["http://foo.bar/?baz=qux#quux", "mailto:John.Doe@example.com", "urn:oasis:names:specification:docbook",
             "ldap://[2001:db8::7]/c=GB?objectClass?one", "file:///etc/hosts", "tel:+1-816-555-1212"],
            ["//foo.bar/?baz=qux#quux", "abc", "http:// shouldfail.com", ":// should fail", "http://example.com/a b"]),
}
KEYS = {name: name.replace("-", "_") for name in CASES}
TOOLS = [{"type": "function", "function": {"name": "f", "parameters": {
    "type": "object", "properties": {KEYS[n]: {"type": "string", "format": n} for n in CASES}}}}]
#: JSON, Python literals, Gemma 4, XML raw values
VALUE_FORMATS = ["hermes", "pythonic", "gemma4", "qwen3_coder"]


def _instances(fmt: str) -> list[tuple[str, str, bool]]:
    out = [(KEYS[n], v, True) for n, (good, _) in CASES.items() for v in good]
    out += [(KEYS[n], v, False) for n, (_, bad) in CASES.items() for v in bad]
    if fmt == "gemma4" or fmt == "qwen3_coder":
        # raw text: a value that reads as a number or holds '<' is another case
        out = [(k, v, ok) for k, v, ok in out if not re.fullmatch(r"[0-9.]+", v)]
    return out


def test_every_format_has_cases() -> None:
    assert set(CASES) == set(RFC)


@pytest.mark.parametrize("name", list(CASES))
def test_patterns_are_the_oracle(name: str) -> None:
    good, bad = CASES[name]
    rx = re.compile(RFC[name].rstrip("$") + r"\Z")
    assert all(rx.match(v) for v in good), [v for v in good if not rx.match(v)]
    assert not any(rx.match(v) for v in bad), [v for v in bad if rx.match(v)]


def _check(fmt: str, dialect: str) -> None:
    bundle = compile(fmt, TOOLS, dialect=dialect, tool_choice="required", parallel_tool_calls=False)
    for key, v, ok in _instances(fmt):
        text = render_calls(fmt, [("f", {key: v})])
        for engine, (accepted, pos) in engine_results(bundle, text).items():
            assert accepted == ok, f"{engine} {'rejects' if ok else 'accepts'} {key}={v!r} ({pos})"


@pytest.mark.parametrize("dialect", ["lark", "gbnf"])
def test_engines_json(dialect: str) -> None:
    _check("hermes", dialect)


@pytest.mark.parametrize("fmt", VALUE_FORMATS[1:])
def test_other_syntaxes_lark(fmt: str) -> None:
    _check(fmt, "lark")


@pytest.mark.slow
@pytest.mark.parametrize("dialect", ["gbnf", "ebnf", "structural-tag"])
@pytest.mark.parametrize("fmt", VALUE_FORMATS)
def test_engines_matrix(fmt: str, dialect: str) -> None:
    _check(fmt, dialect)


@pytest.mark.parametrize("fmt", VALUE_FORMATS)
def test_strict_parser_agrees(fmt: str) -> None:
    for key, v, ok in _instances(fmt):
        msg = parse_strict(fmt, render_calls(fmt, [("f", {key: v})]), TOOLS, tool_choice="required",
                           parallel_tool_calls=False)
        if ok:
            assert [json.loads(c["function"]["arguments"]) for c in msg["tool_calls"]] == [{key: v}], msg
        else:
            assert not msg["tool_calls"], (key, v)


def test_unknown_format_is_an_annotation() -> None:
    tools: list[dict[str, Any]] = [{"name": "f", "parameters": {
        "type": "object", "properties": {"x": {"type": "string", "format": "color"}}}}]
    bundle = compile("hermes", tools, dialect="lark")
    assert engine_results(bundle, render_calls("hermes", [("f", {"x": "anything"})]))["lark"][0]


#: (format, pattern) -> candidate values: valid exactly when the format's pattern and ``pattern`` both match
BESIDE: dict[tuple[str, str], list[str]] = {
    ("date", r"^20"): ["2024-02-29", "2001-12-31", "1999-01-01", "2023-02-29", "20", "2024-1-01"],
    ("date", r"^\d{4}-\d{2}-\d{2}$"): ["2020-02-29", "2021-02-29", "2020-13-01", "1963-06-19"],
    ("uuid", r"^a"): ["a2b8aa08-aa98-11ea-b4aa-73b441d16380", "2eb8aa08-aa98-11ea-b4aa-73b441d16380", "abc"],
    ("email", r"@example\.com$"): ["joe@example.com", "joe@example.org", "te..st@example.com", "@example.com"],
    ("ipv4", r"^10\."): ["10.0.0.1", "10.256.0.1", "192.168.0.1", "10."],
}


@pytest.mark.parametrize(("name", "pattern"), list(BESIDE))
@pytest.mark.parametrize("fmt", ["hermes", "pythonic"])
def test_format_beside_pattern(name: str, pattern: str, fmt: str) -> None:
    """A format beside a ``pattern``: the strings both admit (the product of their automata), in every engine
    and the strict parser."""
    tools: list[dict[str, Any]] = [{"name": "f", "parameters": {
        "type": "object", "properties": {"x": {"type": "string", "format": name, "pattern": pattern}}}}]
    rx = re.compile(RFC[name].rstrip("$") + r"\Z")
    values = BESIDE[(name, pattern)]
    expected = {v: bool(rx.match(v) and re.search(pattern, v)) for v in values}
    assert set(expected.values()) == {True, False}  # each row tells both ways
    for dialect in ("lark", "gbnf"):
        bundle = compile(fmt, tools, dialect=dialect, tool_choice="required")
        for v, ok in expected.items():
            results = engine_results(bundle, render_calls(fmt, [("f", {"x": v})]))
            assert {accepted for accepted, _ in results.values()} == {ok}, (dialect, v, results)
    for v, ok in expected.items():
        msg = parse_strict(fmt, render_calls(fmt, [("f", {"x": v})]), tools, tool_choice="required")
        assert bool(msg["tool_calls"]) == ok, v


@pytest.mark.parametrize("fmt", ["hermes", "pythonic", "gemma4", "qwen3_coder", "glm4", "minimax_m3"])
def test_format_beside_pattern_past_the_caps(fmt: str) -> None:
    """An intersection too large to write (uri's automaton and a prefix) is refused at the format's path; --permissive
    keeps the pattern alone (a superset) and lists the format as relaxed. The same in every syntax: JSON strings,
    Python and Gemma 4 strings, raw XML values and elements (one home: ``values.string_spec``)."""
    tools: list[dict[str, Any]] = [{"name": "f", "parameters": {
        "type": "object", "properties": {"x": {"type": "string", "format": "uri", "pattern": "^https://"}}}}]
    with pytest.raises(UnsupportedSchemaError, match=r"properties\.x\.format"):
        compile(fmt, tools, dialect="lark")
    bundle = compile(fmt, tools, dialect="lark", permissive=True)
    assert bundle.relaxed == [{"path": "$[0].function.parameters.properties.x.format", "feature": "format"}]
    assert engine_results(bundle, render_calls(fmt, [("f", {"x": "https://a b"})]))["lark"][0]  # not a URI
    assert not engine_results(bundle, render_calls(fmt, [("f", {"x": "ftp://a.b"})]))["lark"][0]  # the pattern holds
