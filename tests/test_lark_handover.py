"""The LALR parser the compiler builds to choose LALR or Earley is the strict parser's: strict parsing
right after a ``compile`` builds it once, and a grammar with a conflict still means Earley."""

from __future__ import annotations

import uuid

import pytest
from toolgram.compiler.emit import lark as lark_emit
from toolgram.parsing import strict

import toolgram


def _tools(name: str) -> list[dict]:
    return [{"type": "function", "function": {"name": name, "parameters": {
        "type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}]


def test_the_check_hands_its_parser_over_once() -> None:
    bundle = toolgram.compile("hermes", _tools(f"f{uuid.uuid4().hex[:8]}"), dialect="lark")
    assert bundle.lark_parser == "lalr"
    built = lark_emit.take_lalr(bundle.grammar)
    assert built is not None
    assert built.options.parser == "lalr" and built.options.propagate_positions
    assert not built.options.debug  # a debug parser prints a state dump on every error
    assert lark_emit.take_lalr(bundle.grammar) is None  # taken: not held twice


def test_strict_parsing_after_compile_builds_no_second_parser(monkeypatch: pytest.MonkeyPatch) -> None:
    name = f"f{uuid.uuid4().hex[:8]}"
    tools = _tools(name)
    toolgram.compile("hermes", tools, dialect="lark")
    builds: list[str] = []
    real = strict.new_lark

    def counting(text: str, parser: str = "lalr", **options: object) -> object:
        builds.append(parser)
        return real(text, parser, **options)

    monkeypatch.setattr(strict, "new_lark", counting)
    text = f'<tool_call>\n{{"name": "{name}", "arguments": {{"city": "Paris"}}}}\n</tool_call>'
    msg = toolgram.parse("hermes", text, tools, mode="strict")
    assert [c["function"]["arguments"] for c in msg["tool_calls"]] == ['{"city": "Paris"}']
    assert builds == []
    bad = toolgram.parse("hermes", text.replace('"Paris"', "7"), tools, mode="strict")
    assert bad["tool_calls"] == [] and bad["diagnostics"]


def test_a_conflict_still_means_earley_and_nothing_is_kept() -> None:
    # the dangling else: LALR(1) has a shift/reduce conflict, which Lark would resolve silently as a shift
    text = f'start: s\ns: "if" s | "if" s "e" s | "x{uuid.uuid4().hex[:8]}"\n'
    assert lark_emit.lark_parser_kind(text) == "earley"
    assert lark_emit.take_lalr(text) is None
    assert lark_emit.lark_parser_kind('start: "x" "y"\n') == "lalr"


def test_only_a_few_parsers_are_kept() -> None:
    texts = [f'start: "{uuid.uuid4().hex}"\n' for _ in range(lark_emit._BUILT_MAX + 2)]
    for t in texts:
        assert lark_emit.lark_parser_kind(t) == "lalr"
    assert lark_emit.take_lalr(texts[0]) is None  # the oldest were let go
    assert lark_emit.take_lalr(texts[-1]) is not None
