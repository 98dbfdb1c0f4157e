"""Protocol markup is never text (SPEC section 1, issue 23 section 1): framing tokens, channel
headers, response wrappers and end-of-message tokens described in ``FormatSpec.markup`` are dropped
from ``content`` and ``reasoning_content`` by the whole-output, streaming and strict parsers."""

from __future__ import annotations

import json
import random

import pytest

import toolgram

TOOLS = [
    {"type": "function", "function": {"name": "get_weather", "parameters": {
        "type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
        "required": ["city"]}}},
]

W = '{"city": "Paris"}'

# (format, output, content, reasoning, calls as (name, arguments))
CASES = [
    ("gpt_oss", "<|channel|>final<|message|>Hello", "Hello", None, []),
    ("gpt_oss", "<|channel|>final<|message|>Hello<|return|>", "Hello", None, []),
    ("gpt_oss", "<|channel|>commentary<|message|>Let me check.<|end|><|start|>assistant to=functions.get_weather"
                "<|channel|>commentary json<|message|>" + W + "<|call|>",
     "Let me check.", None, [("get_weather", W)]),
    ("gpt_oss", "<|channel|>analysis<|message|>A<|end|><|start|>assistant<|channel|>analysis<|message|>B<|end|>"
                "<|start|>assistant<|channel|>final<|message|>Hi<|return|>", "Hi", "AB", []),
    # an unsolicited recipient's header is framing; its body stays content (llama.cpp drops the message)
    ("gpt_oss", "<|channel|>analysis<|message|>I will run python<|end|><|start|>assistant to=container.exec"
                "<|channel|>commentary<|message|>print(1)", "print(1)", "I will run python", []),
    ("gpt_oss", " to=python<|channel|>commentary<|message|>print(1)<|call|>", "print(1)", None, []),
    ("gpt_oss", "<|channel|>commentary to=assistant<|message|>ok<|end|>", "ok", None, []),
    ("gpt_oss", "<|channel|>commentary<|message|>Let me check.<|end|><|start|>assistant to=functions.get_weather"
                "<|channel|>commentary json<|message|>" + W, "Let me check.", None, [("get_weather", W)]),
    ("gpt_oss", "<|channel|>analysis<|message|>Thinking<|end|><|start|>assistant<|channel|>commentary "
                "to=functions.get_weather <|constrain|>json<|message|>" + W, None, "Thinking", [("get_weather", W)]),
    ("gpt_oss", "<|start|>assistant<|channel|>final<|message|>Done.<|end|>", "Done.", None, []),
    # a marker in the middle of prose is dropped; the text on its two sides joins as written
    ("gpt_oss", "Hello <|end|>world", "Hello world", None, []),
    ("gpt_oss", "go to=the shop", "go to=the shop", None, []),
    # markup inside reasoning (a stop token after the last analysis message, a stray token)
    ("gpt_oss", "<|channel|>analysis<|message|>think<|constrain|> more<|end|>", None, "think more", []),
    ("gpt_oss", "<|channel|>analysis<|message|>" + "a<|end|>b" * 50 + "<|end|><|start|>assistant<|channel|>final"
                "<|message|>ok", "ok", "ab" * 50, []),
    ("command_r7b", "<|START_THINKING|>hmm<|END_THINKING|><|START_RESPONSE|>Hello there<|END_RESPONSE|>"
                    "<|END_OF_TURN_TOKEN|>", "Hello there", "hmm", []),
    ("command_r7b", "<|START_TEXT|>Hello<|END_TEXT|><|END_OF_TURN_TOKEN|>", "Hello", None, []),
    ("command_r7b", '<|START_ACTION|>[\n    {"tool_call_id": "0", "tool_name": "get_weather", "parameters": '
                    + W + '}\n]<|END_ACTION|><|END_OF_TURN_TOKEN|>', None, None, [("get_weather", W)]),
    ("command_r_plus", "<|CHATBOT_TOKEN|>Hi<|END_OF_TURN_TOKEN|>", "Hi", None, []),
    ("gigachat3_1", 'Sure<|function_call|>{"name": "get_weather", "arguments": ' + W + "}</s>",
     "Sure", None, [("get_weather", W)]),
    ("gigachat3_1", "Bonjour</s>", "Bonjour", None, []),
    # an unknown function's message header is markup; its body stays content
    ("gigachat3", 'Hi<|message_sep|>\n\nfunction call<|role_sep|>\n{"name": "nope", "arguments": {}}',
     'Hi\n{"name": "nope", "arguments": {}}', None, []),
    ("solar_open", "<|content|>Let me see.<|end|><|begin|>assistant<|tool_calls|><|tool_call:begin|>call00001"
                   "<|tool_call:name|>get_weather<|tool_call:args|>" + W + "<|tool_call:end|><|calls|>",
     "Let me see.", None, [("get_weather", W)]),
    ("solar_open", "<|content|>Hello<|end|>", "Hello", None, []),
    ("gemma4", "<|channel>thought\n<channel|>Hello<|channel>thought\n<channel|> world<|tool_call>call:get_weather"
               '{city:<|"|>Paris<|"|>}<tool_call|>', "Hello world", None, [("get_weather", W)]),
]

# outputs whose whole text the format's grammar admits: strict parsing drops the markup too
STRICT = {
    "<|channel|>commentary<|message|>Let me check.<|end|><|start|>assistant to=functions.get_weather"
    "<|channel|>commentary json<|message|>" + W,
    "<|channel|>final<|message|>Hello", "<|channel|>commentary to=assistant<|message|>ok<|end|>",
    " to=python<|channel|>commentary<|message|>print(1)<|call|>", "Hello <|end|>world",
    "<|START_TEXT|>Hello<|END_TEXT|><|END_OF_TURN_TOKEN|>", "<|CHATBOT_TOKEN|>Hi<|END_OF_TURN_TOKEN|>",
    "Bonjour</s>", "<|content|>Hello<|end|>",
}


def _stream(fmt: str, text: str, size: int) -> tuple[dict, list]:
    p = toolgram.StreamParser(fmt, TOOLS)
    rnd = random.Random(len(text))
    deltas, i = [], 0
    while i < len(text):
        k = size or rnd.randint(1, 9)
        deltas += p.feed(text[i:i + k])
        i += k
    deltas += p.finish()
    return p.message, deltas


def _brief(m: dict) -> tuple:
    return (m["content"], m["reasoning_content"],
            [(c["function"]["name"], c["function"]["arguments"]) for c in m["tool_calls"]])


@pytest.mark.parametrize(("fmt", "text", "content", "reasoning", "calls"), CASES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_markup_is_never_text(fmt, text, content, reasoning, calls):
    whole = toolgram.parse(fmt, text, TOOLS)
    assert _brief(whole) == (content, reasoning, calls), whole
    for size in (1, 3, 0):
        msg, deltas = _stream(fmt, text, size)
        assert msg == whole, size
        for d in deltas:  # no delta carries markup (a partial marker is held back)
            for key in ("content", "reasoning_content"):
                assert "<|" not in d.get(key, ""), (size, d)
    if text in STRICT:
        strict = toolgram.parse(fmt, text, TOOLS, mode="strict")
        assert _brief(strict) == (content, reasoning, calls), strict
        assert not strict["diagnostics"]


def test_markup_is_data_not_code():
    """The rule lives in the description: a format without markup keeps such text as content."""
    m = toolgram.parse("hermes", "<|channel|>final<|message|>Hello</s>", TOOLS)
    assert m["content"] == "<|channel|>final<|message|>Hello</s>"
    from toolgram.grammars import get_format

    spec = get_format("gpt_oss")
    assert ("<|channel|>", "<|message|>") in spec.markup.headers
    assert json.dumps(list(spec.markup.tokens))


def test_header_wait_is_bounded():
    """A header opening without its close in reach is text: the stream does not hold it forever."""
    p = toolgram.StreamParser("gpt_oss", TOOLS)
    out = p.feed("go to=" + "x" * 200)
    assert "".join(d.get("content", "") for d in out).startswith("go to=")


def _fixture_turns():
    from pathlib import Path

    from toolgram.grammars import FORMATS

    for path in sorted((Path(__file__).parent / "data" / "families").glob("*.json")):
        fam = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(fam, dict) or fam.get("format") not in FORMATS:
            continue
        for key in ("one_call", "two_calls"):
            case = fam.get(key)
            eot = (case or {}).get("end_of_turn")
            if eot and eot in FORMATS[fam["format"]].markup.tokens:
                yield pytest.param(fam["format"], case["turn"], eot, id=f"{path.stem}-{key}")


FIXTURE_TOOLS = [{"type": "function", "function": {"name": n, "parameters": {"type": "object"}}}
                 for n in ("get_weather", "get_time")]


@pytest.mark.parametrize(("fmt", "turn", "eot"), list(_fixture_turns()))
def test_end_of_turn_token_is_markup(fmt, turn, eot):
    """The vendored templates' own turns: the end-of-turn token an engine may pass through after the
    calls changes nothing (no content, no trailing_text), whole and streamed."""
    want = toolgram.parse(fmt, turn, FIXTURE_TOOLS)
    text = turn + eot
    assert toolgram.parse(fmt, text, FIXTURE_TOOLS) == want
    for size in (1, 3, 0):
        p = toolgram.StreamParser(fmt, FIXTURE_TOOLS)
        rnd = random.Random(size)
        i = 0
        while i < len(text):
            k = size or rnd.randint(1, 9)
            p.feed(text[i:i + k])
            i += k
        p.finish()
        assert p.message == want, size
