"""``any_order`` (``--any-order``, SPEC "Argument order"): object members in any order, each at most once, extra
members anywhere among them, in every dialect and the strict parser; objects past ``MAX_ANY_ORDER`` members, and
those with ``minProperties``/``maxProperties``/``dependentRequired``, keep the ``properties`` order.

Every ordering of every subset of a few keys (declared and extra), with a key written twice too, is rendered as
a call and checked with xgrammar (EBNF), Lark and the strict parser against ``jsonschema`` (which reads any
order; a key written twice is never valid here)."""

from __future__ import annotations

import io
import itertools
import json
from functools import cache
from pathlib import Path

import jsonschema
import pytest
from strategies import engine_results, tool
from test_object_keywords import policy
from toolgram.compiler.bundle import Bundle, compile
from toolgram.compiler.values import MAX_ANY_ORDER
from toolgram.grammars.render import render_calls
from toolgram.parsing.strict import parse_strict

from toolgram.cli import main
from toolgram.errors import OptionError

FORMATS = ("hermes", "pythonic", "qwen3_coder", "gemma4")
INTS = {"type": "integer"}
SCHEMAS = {
    "closed": {"type": "object", "properties": {"a": INTS, "b": INTS, "c": INTS}, "required": ["b"]},
    "extra": {"type": "object", "properties": {"a": INTS, "b": INTS}, "required": ["a"], "additionalProperties": INTS},
    "nested": {"type": "object", "properties": {"o": {"type": "object", "properties": {"a": INTS, "b": INTS},
                                                      "required": ["a", "b"]}, "c": INTS}},
}


@cache
def _bundles(fmt: str, params_json: str) -> tuple[Bundle, ...]:
    tools = [tool("f", json.loads(params_json))]
    return tuple(compile(fmt, tools, dialect=d, tool_choice="required", any_order=True) for d in ("lark", "ebnf"))


def _verdicts(fmt: str, params: dict, text: str) -> dict[str, bool]:
    out = {}
    for b in _bundles(fmt, json.dumps(params)):
        out.update({f"{b.dialect}/{k}": ok for k, (ok, _) in engine_results(b, text).items()})
    out["strict"] = bool(parse_strict(fmt, text, [tool("f", params)], tool_choice="required",
                                      any_order=True)["tool_calls"])
    return out


def _orderings(keys: tuple[str, ...]) -> list[list[str]]:
    return [list(p) for n in range(len(keys) + 1) for combo in itertools.combinations(keys, n)
            for p in itertools.permutations(combo)]


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("name", ["closed", "extra"])
def test_every_order(fmt: str, name: str) -> None:
    params = SCHEMAS[name]
    validator = jsonschema.Draft202012Validator(policy(params))
    for keys in _orderings(("a", "b", "c", "x")):
        args = {k: 1 for k in keys}
        assert list(args) == keys
        verdicts = _verdicts(fmt, params, render_calls(fmt, [("f", args)]))
        assert set(verdicts.values()) == {validator.is_valid(args)}, (keys, verdicts)


@pytest.mark.parametrize("fmt", FORMATS)
def test_nested_objects_and_repeated_keys(fmt: str) -> None:
    params = SCHEMAS["nested"]
    good = render_calls(fmt, [("f", {"c": 1, "o": {"b": 2, "a": 3}})])
    assert set(_verdicts(fmt, params, good).values()) == {True}
    once = render_calls(fmt, [("f", {"a": 1, "b": 2})])
    twice = once.replace("1", "1, " + ('"a": 5' if fmt == "hermes" else "a=5"), 1) if fmt in ("hermes", "pythonic") \
        else None
    if twice is not None:  # a key written twice: never valid
        assert set(_verdicts(fmt, SCHEMAS["closed"], twice).values()) == {False}, twice


def test_the_order_holds_without_the_option_and_past_the_limit() -> None:
    args = {"b": 1, "a": 2}
    text = render_calls("hermes", [("f", args)])
    ordered = compile("hermes", [tool("f", SCHEMAS["closed"])], dialect="ebnf", tool_choice="required")
    assert not engine_results(ordered, text)["xgrammar"][0]
    many = {"type": "object", "properties": {f"p{i}": INTS for i in range(MAX_ANY_ORDER + 1)}}
    bundle = compile("hermes", [tool("f", many)], dialect="ebnf", tool_choice="required", any_order=True)
    assert not engine_results(bundle, render_calls("hermes", [("f", {"p1": 1, "p0": 2})]))["xgrammar"][0]
    with pytest.raises(OptionError, match="any_order"):
        compile("hermes", [tool("f", many)], any_order="yes")  # type: ignore[arg-type]


def test_cli_flag(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps([tool("f", SCHEMAS["closed"])]))
    text = render_calls("hermes", [("f", {"b": 1, "a": 2})])
    calls = []
    for flag in ([], ["--any-order"]):
        monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(text.encode())))
        assert main(["parse", "hermes", "--tools", str(tools), "--mode", "strict", "--tool-choice", "required",
                     *flag]) == 0
        calls.append(json.loads(capsys.readouterr().out)["tool_calls"])
    assert calls[0] == [] and calls[1][0]["function"]["arguments"] == '{"b": 1, "a": 2}'
    for flag in ([], ["--any-order"]):
        assert main(["compile", "hermes", "--tools", str(tools), "--dialect", "ebnf", *flag]) == 0
        calls.append(capsys.readouterr().out)
    assert calls[2] != calls[3]  # the grammar says so
    # streamed (lenient: any order either way), the flag is taken as it is by the strict reading
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(text.encode())))
    assert main(["parse", "hermes", "--tools", str(tools), "--chunk-size", "7", "--any-order"]) == 0
    *deltas, message = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert "".join(tc["function"].get("arguments") or "" for d in deltas for tc in d["tool_calls"]) \
        == message["tool_calls"][0]["function"]["arguments"] == '{"b": 1, "a": 2}'


@pytest.mark.parametrize("dialect", ["gbnf", "ebnf", "lark", "structural-tag"])
def test_every_format_loads(dialect: str) -> None:
    """Every format's grammar with ``any_order`` loads in its dialect's engine, and takes a call whose members
    are out of order (where the format writes them one by one or as an object)."""
    from strategies import load_in_engine
    from toolgram.grammars import FORMATS as ALL

    for fmt in ALL:
        bundle = compile(fmt, [tool("f", SCHEMAS["extra"])], dialect=dialect, tool_choice="required", any_order=True)
        load_in_engine(bundle)
        if dialect in ("ebnf", "lark"):
            text = render_calls(fmt, [("f", {"x": 3, "b": 1, "a": 2})])
            assert all(ok for ok, _ in engine_results(bundle, text).values()), (fmt, text)
