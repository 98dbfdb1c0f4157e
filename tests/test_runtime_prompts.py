"""Prompt rendering: toolgram's own templates round-trip assistant calls; the official templates render."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from toolgram.grammars import FORMATS
from toolgram.runtime.detect import detect_format
from toolgram.runtime.prompts import _dict_args, render_prompt, render_template, wants_string_arguments

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
        {"id": f"call{i:05d}", "type": "function",  # 9 alphanumerics, as Mistral wants
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
        {"role": "tool", "tool_call_id": "call00000", "name": "get_weather", "content": "sunny"},
        {"role": "tool", "tool_call_id": "call_1", "name": "search", "content": "[]"},
        {"role": "user", "content": "Thanks"},
    ]
    prompt, _ = render_prompt(fmt, messages, TOOLS)
    assert prompt.startswith("<|im_start|>system\nBe brief.")
    assert prompt.endswith("<|im_start|>assistant\n")
    for tool in TOOLS:
        assert json.dumps(tool["function"], ensure_ascii=False) in prompt
    # the format is taught with its canonical spelling
    assert toolgram.grammars.render.render_calls(fmt, [("function_name", {"param_1": "value", "param_2": 2})]) in prompt
    assert "get_weather: sunny" in prompt and "Let me check." in prompt
    assert prompt.count("<|im_start|>") == prompt.count("<|im_end|>") + 1


@pytest.fixture(scope="module")
def templates() -> Path:
    return TEMPLATES


def test_official_templates_render_tools_and_history(templates: Path) -> None:
    messages = [{"role": "user", "content": "Weather in Paris?"}, _assistant(CALLS[:1]),
                {"role": "tool", "tool_call_id": "call00000", "content": "sunny"}]
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


# --------------------------------------------------------------------------- hostile templates (issue 13, finding 15)

HOSTILE_TEMPLATES = {
    "range(10**9)": "{% for i in range(10**9) %}{% endfor %}",
    "range(10**9) | list": "{{ range(10**9) | list | length }}",
    "recursive macro": "{% macro f(n) %}{{ f(n) }}{% endmacro %}{{ f(1) }}",
    "macro doubling a string": "{% macro d(s) %}{{ d(s ~ s) }}{% endmacro %}{{ d('x') }}",
    "namespace doubling with +": ("{% set ns = namespace(s='x') %}{% for i in range(64) %}{% set ns.s = ns.s + ns.s %}"
                                  "{% endfor %}{{ ns.s | length }}"),
    "nested loops over a literal": "{% set s = 'x' * 5000 %}{% for a in s %}{% for b in s %}{% endfor %}{% endfor %}",
    "string times 10**9": "{{ 'x' * 10**9 }}",
    "list times 10**9": "{{ ([1] * 10**9) | length }}",
    "2 ** (10**9)": "{{ 2 ** (10**9) }}",  # jinja's ** is left-associative
    "type error": "{{ 1 + 'a' }}",
    "generator to tojson": "{{ [1] | map('abs') | tojson }}",
    "ljust(10**9)": "{{ 'x'.ljust(10**9) }}",
    "a prompt of 20M characters": "{% for i in range(100000) %}{{ 'x' * 200 }}{% endfor %}",
    "syntax error": "{% for %}",
}


@pytest.mark.parametrize("name", sorted(HOSTILE_TEMPLATES))
def test_hostile_template_is_a_one_line_error(name: str) -> None:
    with pytest.raises(toolgram.ToolgramError) as info:
        render_template(HOSTILE_TEMPLATES[name], [{"role": "user", "content": "hi"}])
    message = str(info.value)
    assert message.startswith("chat template error: ") and "\n" not in message, message


def test_hostile_model_template_through_render_prompt() -> None:
    """A GGUF's template that names a tool format is rendered as the model's: still a one-line error.

    The template must really be detected (else render_prompt uses toolgram's own template and the test
    proves nothing): Hermes' fingerprint is ``<tool_call>`` with a JSON ``"arguments"`` key."""
    template = ('<tool_call>{"name": "f", "arguments": {}}</tool_call>'
                "{% macro f(n) %}{{ f(n) }}{% endmacro %}{{ f(1) }}")
    assert detect_format(template) is not None
    with pytest.raises(toolgram.ToolgramError, match="recursion"):
        render_prompt("hermes", [{"role": "user", "content": "hi"}], TOOLS, model_template=template)


def test_render_time_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    from toolgram.runtime import prompts

    monkeypatch.setattr(prompts, "MAX_RENDER_SECONDS", 0.05)
    slow = "{% for i in range(100000) %}{% for j in range(9) %}{{ 'x'.upper() }}{% endfor %}{% endfor %}"
    with pytest.raises(toolgram.ToolgramError, match="took more than"):
        render_template(slow, [])


#: (template, number of calls) that the conversation below cannot render in the plain sandbox either, and why
EXPECTED_FAILURES = {
    **{(name, 2): "Llama 3: raise_exception('This model only supports single tool-calls at once!')" for name in (
        "meta-llama-Llama-3.1-8B-Instruct.jinja", "meta-llama-Llama-3.2-3B-Instruct.jinja",
        "meta-llama-Llama-3.3-70B-Instruct.jinja", "tool_chat_template_llama3.1_json.jinja")},
    **{(name, n): "list.append, which transformers' immutable sandbox refuses too" for n in (1, 2) for name in (
        "Kimi-K2-Instruct.jinja", "Kimi-K2-Thinking.jinja")},
    **{("fireworks-ai-llama-3-firefunction-v2.jinja", n): "reads a `functions` variable, not `tools`" for n in (1, 2)},
    **{("llama-cpp-deepseek-r1.jinja", n): "tojson of a map() generator (llama.cpp's engine makes it a list)"
       for n in (1, 2)},
    **{("meetkai-functionary-medium-v3.2.jinja", n): "concatenates arguments as JSON strings; they are dicts here"
       for n in (1, 2)},
    **{("CohereForAI-c4ai-command-r-plus-tool_use.jinja", n): "reads every parameter's `description`; these have none"
       for n in (1, 2)},
}


def test_bounded_environment_renders_official_templates_unchanged(templates: Path) -> None:
    """The bounds change nothing for real templates: same text as jinja's plain immutable sandbox (set up
    like transformers', with its ``{% generation %}`` tag) for one call, which the Llama 3 templates need,
    and two; where that sandbox fails (:data:`EXPECTED_FAILURES`, e.g. llama.cpp's Kimi-K2-Instruct/Thinking,
    whose ``list.append`` transformers refuses too: see test_templates_needing_list_append_are_refused_as_hf_does),
    the bounded one fails the same way."""
    from jinja2 import nodes
    from jinja2.ext import Extension, loopcontrols
    from jinja2.sandbox import ImmutableSandboxedEnvironment
    from toolgram.runtime import prompts

    class Generation(Extension):  # transformers' AssistantTracker, not tracking
        tags = {"generation"}

        def parse(self, parser: Any) -> nodes.Node:
            lineno = next(parser.stream).lineno
            body = parser.parse_statements(("name:endgeneration",), drop_needle=True)
            return nodes.CallBlock(self.call_method("_body"), [], [], body).set_lineno(lineno)

        def _body(self, caller: Any) -> str:
            return caller()

    plain = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True, extensions=[Generation, loopcontrols])
    plain.filters["tojson"] = prompts._tojson
    plain.globals["raise_exception"] = prompts._raise
    bounded = prompts._environment(False)
    context = {"tools": TOOLS, "custom_tools": TOOLS, "add_generation_prompt": True, "bos_token": "",
               "eos_token": "", "strftime_now": lambda fmt: "2025"}
    llama_cpp = [p for p in sorted((templates / "llama.cpp").glob("*.jinja")) if detect_format(p.read_text())]
    failed = set()
    for path in sorted(templates.glob("*.jinja")) + llama_cpp:
        text = path.read_text(encoding="utf-8")
        want_tpl = plain.from_string(text)
        got_tpl = bounded.from_string(text)
        for n in (1, 2):
            messages = prompts._dict_args([{"role": "user", "content": "Weather in Paris?"}, _assistant(CALLS[:n]),
                                           {"role": "tool", "tool_call_id": "call00000", "content": "sunny"}])
            try:
                want = want_tpl.render(messages=messages, **context)
            except Exception as exc:  # noqa: BLE001 - both must fail the same way (_render lets jinja's errors pass)
                with pytest.raises(type(exc)):
                    prompts._render(got_tpl, messages=messages, **context)
                failed.add((path.name, n))
                continue
            assert prompts._render(got_tpl, messages=messages, **context) == want, (path.name, n)
    assert failed == set(EXPECTED_FAILURES)


def test_renders_as_transformers_does(templates: Path) -> None:
    """Where transformers is installed: ``render_template`` gives transformers' own text for every
    detected template, and fails exactly where transformers fails (list.append included)."""
    chat_template_utils = pytest.importorskip("transformers.utils.chat_template_utils")
    context = {"tools": TOOLS, "custom_tools": TOOLS, "add_generation_prompt": True, "bos_token": "",
               "eos_token": "", "strftime_now": lambda fmt: "2025"}
    paths = sorted(templates.glob("*.jinja")) + sorted((templates / "llama.cpp").glob("*.jinja"))
    for path in [p for p in paths if detect_format(p.read_text())]:
        text = path.read_text(encoding="utf-8")
        hf = chat_template_utils._compile_jinja_template(text)
        for n in (1, 2):
            messages = [{"role": "user", "content": "Weather in Paris?"}, _assistant(CALLS[:n]),
                        {"role": "tool", "tool_call_id": "call00000", "content": "sunny"}]
            try:
                want = hf.render(messages=_dict_args(messages, wants_string_arguments(text)), **context)
            except Exception:  # noqa: BLE001
                with pytest.raises(toolgram.ToolgramError):
                    render_template(text, messages, TOOLS, strftime_now=context["strftime_now"])
                continue
            assert render_template(text, messages, TOOLS, strftime_now=context["strftime_now"]) == want, (path.name, n)


@pytest.mark.parametrize("name", ["Kimi-K2-Instruct", "Kimi-K2-Thinking"])
def test_templates_needing_list_append_are_refused_as_hf_does(templates: Path, name: str) -> None:
    """llama.cpp's Kimi-K2-Instruct/Thinking templates queue call ids with ``list.append``. HF transformers
    renders in an ``ImmutableSandboxedEnvironment``, which refuses that (tests/data/families/<name>.json
    "render" -> "environment" says the fixtures needed the mutable sandbox), so toolgram refuses it too:
    the sandbox stays immutable, and a history with tool calls is a one-line error. Without calls the
    template renders (the append sits in the tool-call branch); moonshotai-Kimi-K2 (ids from
    ``loop.index0``) renders calls fine."""
    text = (templates / "llama.cpp" / f"{name}.jinja").read_text(encoding="utf-8")
    assert detect_format(text) is not None  # so render_prompt takes the model's template
    history = [{"role": "user", "content": "Weather in Paris?"}, _assistant(CALLS[:1])]
    with pytest.raises(toolgram.ToolgramError, match="unsafe") as info:
        render_prompt("hermes", history, TOOLS, model_template=text)
    assert str(info.value).startswith("chat template error: ") and "\n" not in str(info.value)
    prompt, kind = render_prompt("hermes", history[:1], TOOLS, model_template=text)
    assert kind == "model" and "get_weather" in prompt and "Paris" in prompt
    official = (templates / "llama.cpp" / "moonshotai-Kimi-K2.jinja").read_text(encoding="utf-8")
    prompt, kind = render_prompt("hermes", history, TOOLS, model_template=official)
    assert kind == "model" and "functions.get_weather:0" in prompt


def test_templates_that_take_arguments_as_text_get_text(templates: Path) -> None:
    """Functionary v3.2 concatenates a call's arguments as a string (a dict fails there), as llama.cpp's
    template probe finds: the history's calls reach it as JSON text and read back as the same calls.
    Every other detected template of the collection takes dicts (transformers' and vLLM's convention)."""
    paths = sorted(templates.glob("*.jinja")) + sorted((templates / "llama.cpp").glob("*.jinja"))
    texts = {p.name: p.read_text(encoding="utf-8") for p in paths}
    takes_text = {name for name, text in texts.items() if detect_format(text) and wants_string_arguments(text)}
    assert takes_text == {"meetkai-functionary-medium-v3.2.jinja"}
    text = texts["meetkai-functionary-medium-v3.2.jinja"]
    messages = [{"role": "user", "content": "Weather in Paris?"}, _assistant(CALLS[:2])]
    prompt = render_template(text, messages, TOOLS)
    for name, args in CALLS[:2]:
        assert f">>>{name}\n{json.dumps(args, ensure_ascii=False)}" in prompt
    # dict arguments given by the caller are written as JSON text too
    as_dicts = [messages[0], {**messages[1], "tool_calls": [
        {**c, "function": {**c["function"], "arguments": json.loads(c["function"]["arguments"])}}
        for c in messages[1]["tool_calls"]]}]
    assert render_template(text, as_dicts, TOOLS) == prompt
