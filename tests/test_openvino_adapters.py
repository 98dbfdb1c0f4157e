"""toolgram.openvino: toolgram's parsers inside a real OpenVINO GenAI LLMPipeline (SmolLM2 on CPU)."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import jsonschema
import pytest
from weather import TOOLS as WEATHER_TOOLS

import toolgram

ov = pytest.importorskip("openvino_genai")

TOOLS = WEATHER_TOOLS[:1]  # get_weather
SCHEMA = TOOLS[0]["function"]["parameters"]
QUESTION = [{"role": "user", "content": "What's the weather like in Paris right now?"}]


def test_importing_toolgram_does_not_import_openvino() -> None:
    code = "import sys, toolgram; toolgram.parse('hermes', 'hi', []); print('openvino_genai' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_parser_for_maps_protocol_names() -> None:
    from toolgram.openvino import IncrementalToolParser, ToolParser, parser_for

    assert isinstance(parser_for("toolgram:hermes", TOOLS), ToolParser)
    assert isinstance(parser_for("toolgram:qwen3_coder", TOOLS, incremental=True), IncrementalToolParser)
    assert isinstance(parser_for("toolgram:seed_oss", TOOLS), ov.Parser)
    assert isinstance(parser_for("toolgram:pythonic", TOOLS, incremental=True), ov.IncrementalParser)
    for bad in ("hermes", "vllm:hermes", "toolgram:nope"):
        with pytest.raises(toolgram.ToolgramError):
            parser_for(bad, TOOLS)
    with pytest.raises(toolgram.ToolgramError):
        parser_for("toolgram:hermes", TOOLS, tool_choice="no_such_tool")


@pytest.mark.parametrize("fmt", ["hermes", "qwen3_coder", "seed_oss", "llama3_json"])
def test_parsers_without_a_model_match_toolgram_parse(fmt: str) -> None:
    from toolgram.openvino import merge_delta, message_from_parsed, openai_delta, parser_for

    calls = [("get_weather", {"location": "Paris", "unit": "celsius"}), ("get_weather", {"location": "Rome"})]
    from toolgram.grammars.render import render_calls

    text = "Let me check. " + render_calls(fmt, calls) if fmt != "llama3_json" else \
        render_calls(fmt, calls[:1])
    expected = toolgram.parse(fmt, text, TOOLS)
    msg: dict[str, Any] = {"content": text}
    parser_for(f"toolgram:{fmt}", TOOLS).parse(msg)
    assert msg == expected
    inc = parser_for(f"toolgram:{fmt}", TOOLS, incremental=True)
    inc.reset()
    acc: dict[str, Any] = {}
    deltas = []
    for i in range(0, len(text), 3):
        d: dict[str, Any] = {}
        d["content"] = inc.parse(d, text[i: i + 3])
        deltas.append(openai_delta(d))
        merge_delta(acc, d)
    merge_delta(acc, inc.finish())
    assert inc.message == expected
    got = message_from_parsed(acc)
    assert got["content"] == expected["content"] and got["tool_calls"] == expected["tool_calls"]


@pytest.fixture(scope="module")
def pipe() -> Any:
    from toolgram.runtime.models import ModelUnavailable, smollm2_gguf_path

    try:
        return ov.LLMPipeline(smollm2_gguf_path(), "CPU")
    except ModelUnavailable as e:
        pytest.skip(str(e))


def _request(fmt: str) -> tuple[str, Any]:
    from toolgram.runtime.prompts import render_prompt

    prompt, _ = render_prompt(fmt, QUESTION, TOOLS)
    grammar = toolgram.compile(fmt, TOOLS, dialect="ebnf", tool_choice="required", parallel_tool_calls=False,
                               reasoning="none").grammar
    config = ov.GenerationConfig()
    config.max_new_tokens = 80
    config.apply_chat_template = False
    config.structured_output_config = ov.StructuredOutputConfig(grammar=grammar)
    return prompt, config


OPTS = {"parallel_tool_calls": False, "reasoning": "none"}


@pytest.mark.model
@pytest.mark.parametrize("fmt", ["hermes", "qwen3_coder"])
def test_tool_parser_in_generation_config(pipe: Any, fmt: str) -> None:
    from toolgram.openvino import ToolParser

    prompt, config = _request(fmt)
    parser = ToolParser(fmt, TOOLS, **OPTS)
    config.parsers = [parser]
    result = pipe.generate([prompt], config)
    text = result.texts[0]
    parsed = result.parsed[0]
    assert parsed == toolgram.parse(fmt, text, TOOLS, **OPTS)
    assert parsed["tool_calls"], text
    for call in parsed["tool_calls"]:
        jsonschema.validate(json.loads(call["function"]["arguments"]), SCHEMA)


@pytest.mark.model
@pytest.mark.parametrize("fmt", ["hermes", "seed_oss"])
def test_incremental_parser_in_text_parser_streamer(pipe: Any, fmt: str) -> None:
    from toolgram.openvino import IncrementalToolParser, merge_delta, message_from_parsed, openai_delta

    class Collect(ov.TextParserStreamer):
        def __init__(self, tokenizer: Any, parsers: list[Any]) -> None:
            super().__init__(tokenizer, parsers)
            self.deltas: list[dict[str, Any]] = []

        def write(self, message: Any) -> Any:
            if isinstance(message, dict):
                self.deltas.append(openai_delta(message))
            return ov.StreamingStatus.RUNNING

    prompt, config = _request(fmt)
    parser = IncrementalToolParser(fmt, TOOLS, **OPTS)
    streamer = Collect(pipe.get_tokenizer(), [parser])
    text = pipe.generate([prompt], config, streamer).texts[0]
    tail = parser.finish()
    streamer.deltas.append(openai_delta(tail))
    expected = toolgram.parse(fmt, text, TOOLS, **OPTS)
    assert parser.message == expected
    assert expected["tool_calls"], text
    got = message_from_parsed(merge_delta(streamer.get_parsed_message(), tail))
    assert got["tool_calls"] == expected["tool_calls"]
    assert [d for d in streamer.deltas if d.get("tool_calls")]
    streamed_args = "".join(tc["function"].get("arguments") or "" for d in streamer.deltas
                            for tc in d.get("tool_calls") or [])
    assert streamed_args == "".join(c["function"]["arguments"] for c in expected["tool_calls"])
    for call in expected["tool_calls"]:
        jsonschema.validate(json.loads(call["function"]["arguments"]), SCHEMA)
