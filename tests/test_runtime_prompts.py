"""Prompt rendering: toolgram's own templates round-trip assistant calls; the official templates render."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from toolgram.grammars import FORMATS
from toolgram.runtime.detect import detect_format
from toolgram.runtime.prompts import render_prompt, render_template

import toolgram

TEMPLATES = Path(__file__).resolve().parent / "data" / "templates"  # vendored, see tests/data/SOURCES.md

TOOLS: list[dict[str, Any]] = [
    {"type": "function", "function": {"name": "get_weather", "description": "Weather in a city",
     "parameters": {"type": "object", "properties": {
         "location": {"type": "string"}, "days": {"type": "integer"}, "metric": {"type": "boolean"}},
         "required": ["location"]}}},
    {"type": "function", "function": {"name": "search", "description": "Search",
     "parameters": {"type": "object", "properties": {
         "query": {"type": "string"}, "filters": {"type": "object", "properties": {"lang": {"type": "string"}}},
         "tags": {"type": "array", "items": {"type": "string"}}}, "required": ["query"]}}},
    {"type": "function", "function": {"name": "ping", "description": "Ping",
                                      "parameters": {"type": "object", "properties": {}}}},
]

CALLS = [
    ("get_weather", {"location": "São Paulo", "days": 3, "metric": True}),
    ("search", {"query": 'say "hi" it\'s', "filters": {"lang": "fr"}, "tags": ["a", "b c"]}),
    ("ping", {}),
]


def _assistant(calls: list[tuple[str, dict[str, Any]]], content: str | None = None) -> dict[str, Any]:
    return {"role": "assistant", "content": content, "tool_calls": [
        {"id": f"call_{i}", "type": "function",
         "function": {"name": n, "arguments": json.dumps(a, ensure_ascii=False)}}
        for i, (n, a) in enumerate(calls)]}


def _assistant_part(prompt: str, index: int = 0) -> str:
    start = prompt.split("<|im_start|>assistant\n")[index + 1]
    return start[: start.index("<|im_end|>")]


@pytest.mark.parametrize("fmt", list(FORMATS))
@pytest.mark.parametrize("n", [1, 3])
def test_round_trip_through_toolgram_template(fmt: str, n: int) -> None:
    calls = CALLS[:n]
    messages = [{"role": "user", "content": "go"}, _assistant(calls)]
    prompt, kind = render_prompt(fmt, messages, TOOLS, add_generation_prompt=False)
    assert kind == "toolgram"
    text = _assistant_part(prompt)
    msg = toolgram.parse(fmt, text, TOOLS, mode="strict", parallel_tool_calls=True, reasoning="none"
                         if FORMATS[fmt].reasoning else None)
    assert msg["diagnostics"] == []
    got = [(c["function"]["name"], json.loads(c["function"]["arguments"])) for c in msg["tool_calls"]]
    assert got == calls


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_toolgram_template_conversation_continues(fmt: str) -> None:
    messages = [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Weather?"},
        _assistant(CALLS[:2], content="Let me check."),
        {"role": "tool", "tool_call_id": "call_0", "name": "get_weather", "content": "sunny"},
        {"role": "tool", "tool_call_id": "call_1", "name": "search", "content": "[]"},
        {"role": "user", "content": "Thanks"},
    ]
    prompt, _ = render_prompt(fmt, messages, TOOLS)
    assert prompt.startswith("<|im_start|>system\nBe brief.")
    assert prompt.endswith("<|im_start|>assistant\n")
    for tool in TOOLS:
        assert json.dumps(tool["function"], ensure_ascii=False) in prompt
    # the format is taught with its canonical spelling
    assert toolgram.runtime.render.render_calls(fmt, [("function_name", {"param_1": "value", "param_2": 2})]) in prompt
    assert "get_weather: sunny" in prompt and "Let me check." in prompt
    assert prompt.count("<|im_start|>") == prompt.count("<|im_end|>") + 1


@pytest.fixture(scope="module")
def templates() -> Path:
    return TEMPLATES


def test_official_templates_render_tools_and_history(templates: Path) -> None:
    messages = [{"role": "user", "content": "Weather in Paris?"}, _assistant(CALLS[:1]),
                {"role": "tool", "tool_call_id": "call_0", "content": "sunny"}]
    for path in sorted(templates.glob("*.jinja")):
        text = path.read_text()
        fmt = detect_format(text)
        assert fmt is not None
        prompt, kind = render_prompt("hermes", messages, TOOLS, model_template=text)
        assert kind == "model", path.name
        assert "get_weather" in prompt and "search" in prompt, path.name
        assert "Paris" in prompt and "sunny" in prompt, path.name


def test_plain_model_template_falls_back_to_toolgram_template() -> None:
    chatml = "{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}"
    prompt, kind = render_prompt("pythonic", [{"role": "user", "content": "hi"}], TOOLS, model_template=chatml)
    assert kind == "toolgram" and "[function_name(" in prompt
    prompt, kind = render_prompt("pythonic", [{"role": "user", "content": "hi"}], None, model_template=chatml)
    assert kind == "model" and prompt == "<|im_start|>user\nhi<|im_end|>\n"


def test_template_helpers_and_errors() -> None:
    tpl = "{{ x | tojson }}{% for i in [1, 2, 3] %}{% if i == 2 %}{% break %}{% endif %}{{ i }}{% endfor %}"
    assert render_template(tpl, [], x={"é": 1}) == '{"é": 1}1'
    assert len(render_template("{{ strftime_now('%Y') }}", [])) == 4
    with pytest.raises(toolgram.ToolgramError, match="boom"):
        render_template("{{ raise_exception('boom') }}", [])
    with pytest.raises(toolgram.ToolgramError):  # the sandbox refuses mutation
        render_template("{% set l = [] %}{{ l.append(1) }}", [])
    with pytest.raises(toolgram.ToolgramError, match="arguments"):
        render_prompt("hermes", [{"role": "assistant", "content": None, "tool_calls": [
            {"function": {"name": "ping", "arguments": "{not json"}}]}], TOOLS)
