"""Every dialect accepts the official chat templates' renderings of tool calls.

The official templates vendored in ``tests/data/templates`` (see ``tests/data/SOURCES.md``) render the
reference conversation (``get_weather`` with string arguments ``location``/``unit``) with 1, 2 and 3
calls (parallel on; Meta's llama3_json templates raise on more than one, so they render one) and 1
call (parallel off). The assistant tool-call text -- from the assistant header to the end-of-turn
token -- must be accepted under ``auto`` and ``required`` by xgrammar (EBNF and structural tag),
llama.cpp (GBNF; lazy in ``auto`` with the bundle's trigger patterns) and Lark (the bundle's parser).

History spelling: the vLLM pythonic templates print values through ``"%s"|format(v)`` --
llama3.2_pythonic leaves strings bare (``location=Paris``), llama4_pythonic quotes every value
(``"Paris"``, ``"True"``). SPEC section 1 says toolgram emits Python literals, so for these two
templates the argument values are re-spelled the SPEC way (``grammars.render.python_literal``);
tags, brackets and separators stay the template's. Seed-OSS prints Python ``str()``, which for the
string arguments used here is SPEC's raw-string spelling, so its text is used unchanged.
"""

from __future__ import annotations

import json
import re
from datetime import datetime
from pathlib import Path
from typing import Any

import jinja2
import pytest
from jinja2.ext import loopcontrols
from jinja2.sandbox import ImmutableSandboxedEnvironment
from strategies import engine_results
from toolgram.compiler.bundle import compile
from toolgram.compiler.dialects import NAMES as DIALECT_NAMES
from toolgram.grammars.render import python_literal

TEMPLATE_DIR = Path(__file__).resolve().parent / "data" / "templates"  # vendored, see tests/data/SOURCES.md

#: template -> (format, bos, eos, assistant header, end of turn, respell values SPEC's way)
TEMPLATES: dict[str, tuple[str, str, str, str, str, bool]] = {
    "ByteDance-Seed-OSS.jinja": ("seed_oss", "<seed:bos>", "<seed:eos>", "<seed:bos>assistant\n",
                                 "<seed:eos>", False),
    "Qwen3-Coder.jinja": ("qwen3_coder", "", "<|im_end|>", "<|im_start|>assistant\n", "<|im_end|>", False),
    "tool_chat_template_qwen3coder.jinja": ("qwen3_coder", "", "<|im_end|>", "<|im_start|>assistant\n",
                                            "<|im_end|>", False),
    "Qwen3.5-4B.jinja": ("qwen3_coder", "", "<|im_end|>", "<|im_start|>assistant\n", "<|im_end|>", False),
    "Qwen-Qwen3-0.6B.jinja": ("hermes", "", "<|im_end|>", "<|im_start|>assistant\n", "<|im_end|>", False),
    "Qwen-Qwen2.5-7B-Instruct.jinja": ("hermes", "", "<|im_end|>", "<|im_start|>assistant\n", "<|im_end|>",
                                       False),
    "NousResearch-Hermes-3-Llama-3.1-8B-tool_use.jinja": ("hermes", "<|begin_of_text|>", "<|im_end|>",
                                                          "<|im_start|>assistant\n", "<|im_end|>", False),
    **{name: ("llama3_json", "<|begin_of_text|>", "<|eot_id|>",
              "<|start_header_id|>assistant<|end_header_id|>\n\n", "<|eot_id|>", False)
       for name in ("meta-llama-Llama-3.1-8B-Instruct.jinja", "meta-llama-Llama-3.2-3B-Instruct.jinja",
                    "meta-llama-Llama-3.3-70B-Instruct.jinja", "tool_chat_template_llama3.1_json.jinja")},
    "tool_chat_template_llama3.2_pythonic.jinja": ("pythonic", "<|begin_of_text|>", "<|eot_id|>",
                                                   "<|start_header_id|>assistant<|end_header_id|>\n\n",
                                                   "<|eot_id|>", True),
    "tool_chat_template_llama4_pythonic.jinja": ("llama4_pythonic", "<|begin_of_text|>", "<|eot|>",
                                                 "<|header_start|>assistant<|header_end|>\n\n", "<|eot|>", True),
}

ARGS = [{"location": "Paris", "unit": "celsius"}, {"location": "New York"},
        {"location": "Tokyo", "unit": "fahrenheit"}]
DIALECTS = list(DIALECT_NAMES)  # the registry's order (toolgram.compiler.dialects)


@pytest.fixture(scope="module")
def conversation() -> dict[str, Any]:
    path = TEMPLATE_DIR / "rendered" / "conversation.json"
    return json.loads(path.read_text(encoding="utf-8"))


def _raise(message: str) -> None:
    raise jinja2.TemplateError(message)


def _tojson(x: Any, ensure_ascii: bool = False, indent: Any = None, separators: Any = None,
            sort_keys: bool = False) -> str:
    return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)


def render(template: str, conv: dict[str, Any], args: list[dict[str, Any]]) -> str:
    """The full prompt of the conversation with one call per ``args``, rendered like transformers does."""
    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True, extensions=[loopcontrols])
    env.filters["tojson"] = _tojson
    env.globals["raise_exception"] = _raise
    env.globals["strftime_now"] = lambda fmt: datetime(2025, 1, 15).strftime(fmt)
    _, bos, eos, *_ = TEMPLATES[template]
    messages = json.loads(json.dumps(conv["messages"]))
    assistant = next(m for m in messages if m["role"] == "assistant")
    assistant["tool_calls"] = [
        {"id": f"call_{i + 1}", "type": "function", "function": {"name": "get_weather", "arguments": a}}
        for i, a in enumerate(args)
    ]
    src = (TEMPLATE_DIR / template).read_text(encoding="utf-8")
    return env.from_string(src).render(messages=messages, tools=conv["tools"], add_generation_prompt=True,
                                       bos_token=bos, eos_token=eos)


def _respell(text: str) -> str:
    """Template value spellings (``k=Paris`` / ``k="Paris"``) -> SPEC's Python literals (``k='Paris'``)."""
    return re.sub(r'(\w+)=(?:"([^"]*)"|([^,()"\]]*))',
                  lambda m: f"{m.group(1)}={python_literal(m.group(2) if m.group(2) is not None else m.group(3))}",
                  text)


def assistant_text(template: str, conv: dict[str, Any], n_calls: int) -> str:
    """The assistant's tool-call turn: after its header, up to its end-of-turn token."""
    _, _, _, header, end, respell = TEMPLATES[template]
    full = render(template, conv, ARGS[:n_calls])
    user = full.index("What's the weather in Paris?")
    start = full.index(header, user) + len(header)
    text = full[start:full.index(end, start)]
    return _respell(text) if respell else text


CASES = [(t, n, True) for t, spec in TEMPLATES.items() for n in ((1,) if spec[0] == "llama3_json" else (1, 2, 3))]
CASES += [(t, 1, False) for t in TEMPLATES]


def test_extraction_matches_reference(conversation: dict[str, Any]) -> None:
    """Our jinja setup reproduces the reference renders (two calls; one for llama3_json templates)."""
    for template, spec in TEMPLATES.items():
        n = 1 if spec[0] == "llama3_json" else 2
        ref = "onecall.hf.txt" if n == 1 else "hf.txt"
        path = TEMPLATE_DIR / "rendered" / template.replace(".jinja", f".{ref}")
        got = render(template, conversation, [ARGS[0]] * n)  # the reference repeats the first call
        assert got.replace("2025", "") == path.read_text(encoding="utf-8").replace("2025", ""), template


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("choice", ["auto", "required"])
@pytest.mark.parametrize(("template", "n_calls", "parallel"), CASES,
                         ids=[f"{t.removesuffix('.jinja')}-{n}-{'par' if p else 'nopar'}" for t, n, p in CASES])
def test_rendering_accepted(conversation: dict[str, Any], template: str, n_calls: int, parallel: bool,
                            choice: str, dialect: str) -> None:
    fmt = TEMPLATES[template][0]
    text = assistant_text(template, conversation, n_calls)
    assert text.count("get_weather") == n_calls, text
    bundle = compile(fmt, conversation["tools"], dialect=dialect, tool_choice=choice,
                     parallel_tool_calls=parallel)
    for engine, (ok, pos) in engine_results(bundle, text).items():
        assert ok, f"{engine} rejects the {template} rendering at {pos}: {text[pos or 0:][:60]!r}\n{text!r}"
