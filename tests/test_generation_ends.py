"""Generation ends where the calls end (issue 24 item 2, SPEC section 1): after the last call a grammar
allows at most one newline, so every engine's matcher completes and only end-of-sequence can follow.

SmolLM2-135M, greedy, ``tool_choice`` required with one call, in each engine without toolgram's
``stop_after_whitespace`` guard: toolgram's ``Generator`` (OpenVINO), plain ``openvino_genai`` with the
EBNF and the structural tag, llama-cpp-python with the GBNF, and xgrammar's ``GrammarMatcher`` over the
SmolLM2 vocabulary (only the newline and EOS may follow the call; after the newline only EOS).
Generation must stop well before ``max_new_tokens``. The format matrix is under ``slow``.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import pytest
from toolgram.grammars import FORMATS, get_format
from toolgram.grammars.render import render_calls
from weather import TOOLS

import toolgram

pytestmark = pytest.mark.model

QUESTION = [{"role": "user", "content": "What is the weather in Paris?"}]
MAX_NEW = 200  # DSML's full-width tags take ~40 tokens per call in SmolLM2's vocabulary
CALL = [("get_weather", {"location": "Paris"})]


def _opts(fmt: str) -> dict[str, Any]:
    return {"tool_choice": "required", "parallel_tool_calls": False,
            "reasoning": "none" if FORMATS[fmt].reasoning else None}


def after_last_call(fmt: str, text: str) -> str:
    """What follows the last call in ``text``: the calls end with the last character the format's rendering ends
    with (the model may write other arguments, and whitespace may stand before a list's closing bracket); the
    callers parse ``text`` too, so it is a whole turn of calls."""
    last = render_calls(fmt, CALL).rstrip()[-1]
    body = text.rstrip()
    assert body.endswith(last), (fmt, text)
    return text[len(body):]


@pytest.fixture(scope="module")
def gen() -> Any:
    from toolgram.runtime.generator import Generator

    return Generator()


def _prompt(gen: Any, fmt: str) -> str:
    from toolgram.runtime.prompts import render_prompt

    return render_prompt(fmt, QUESTION, TOOLS, model_template=gen.chat_template)[0]


def check_generator(gen: Any, fmt: str, **extra: Any) -> None:
    out = gen.chat(QUESTION, TOOLS, format=fmt, max_new_tokens=MAX_NEW, stop_after_whitespace=None,
                   **_opts(fmt), **extra)
    msg = out["message"]
    assert not out["stopped"] and msg["finish_reason"] == "tool_calls" and not msg["diagnostics"], out
    assert out["usage"]["completion_tokens"] < MAX_NEW
    assert after_last_call(fmt, out["text"]) in ("", "\n"), out["text"]


def test_generator_ends_without_the_whitespace_guard(gen: Any) -> None:
    check_generator(gen, "hermes")
    check_generator(gen, "hermes", whitespace="flexible", xml_values="lookahead")


@pytest.mark.parametrize("dialect", ["ebnf", "structural-tag"])
def test_plain_openvino_genai_ends(gen: Any, dialect: str) -> None:
    import openvino_genai as ov

    bundle = toolgram.compile("hermes", TOOLS, dialect=dialect, **_opts("hermes"))
    config = ov.GenerationConfig()
    config.max_new_tokens = MAX_NEW
    config.do_sample = False
    structured = ov.StructuredOutputConfig()
    if dialect == "ebnf":
        structured.grammar = bundle.grammar
    else:
        structured.structural_tags_config = bundle.grammar
    config.structured_output_config = structured
    result = gen.pipeline.generate([_prompt(gen, "hermes")], config)
    text = result.texts[0]
    assert result.perf_metrics.get_num_generated_tokens() < MAX_NEW, text
    assert after_last_call("hermes", text) in ("", "\n"), text
    assert toolgram.parse("hermes", text, TOOLS, mode="strict", **_opts("hermes"))["tool_calls"]


@pytest.fixture(scope="module")
def llama() -> Any:
    import llama_cpp

    from toolgram.engines import smollm2_gguf_path

    llm = llama_cpp.Llama(smollm2_gguf_path(), n_ctx=1024, n_threads=1, verbose=False)
    yield llm
    llm.close()


def check_llama_cpp(llm: Any, fmt: str) -> None:
    import llama_cpp
    from toolgram.runtime.prompts import render_prompt

    bundle = toolgram.compile(fmt, TOOLS, dialect="gbnf", **_opts(fmt))
    grammar = llama_cpp.LlamaGrammar.from_string(bundle.grammar, verbose=False)
    prompt = render_prompt(fmt, QUESTION, TOOLS)[0]
    out = llm.create_completion(prompt, max_tokens=MAX_NEW, temperature=0.0, grammar=grammar)
    choice = out["choices"][0]
    assert choice["finish_reason"] == "stop" and out["usage"]["completion_tokens"] < MAX_NEW, out
    assert after_last_call(fmt, choice["text"]) in ("", "\n"), choice["text"]


def test_llama_cpp_ends(llama: Any) -> None:
    check_llama_cpp(llama, "hermes")


@cache
def _xgrammar() -> tuple[Any, Any, list[bytes], int]:
    import xgrammar as xgr

    from toolgram.engines import llamacpp_engine

    llm = llamacpp_engine._llama()  # vocabulary only
    vocab = [llm.detokenize([i], special=True) for i in range(llm.n_vocab())]
    info = xgr.TokenizerInfo(vocab, vocab_type=xgr.VocabType.RAW, stop_token_ids=[llm.token_eos()])
    return xgr.GrammarCompiler(info, max_threads=1, cache_enabled=False), info, vocab, llm.token_eos()


def _allowed(matcher: Any, info: Any) -> set[int]:
    import numpy as np
    import xgrammar as xgr

    mask = xgr.allocate_token_bitmask(1, info.vocab_size)
    matcher.fill_next_token_bitmask(mask)
    bits = np.unpackbits(mask.numpy().view(np.uint8), bitorder="little")[: info.vocab_size]
    return set(np.flatnonzero(bits).tolist())


def check_xgrammar_matcher(fmt: str, dialect: str = "ebnf") -> None:
    import xgrammar as xgr

    from toolgram.engines import llamacpp_engine

    compiler, info, vocab, eos = _xgrammar()
    bundle = toolgram.compile(fmt, TOOLS, dialect=dialect, **_opts(fmt))
    if dialect == "ebnf":
        compiled = compiler.compile_grammar(xgr.Grammar.from_ebnf(bundle.grammar))
    else:
        compiled = compiler.compile_grammar(xgr.Grammar.from_structural_tag(bundle.grammar))
    matcher = xgr.GrammarMatcher(compiled)
    text = render_calls(fmt, CALL)
    for token in llamacpp_engine.tokenize(text):
        assert matcher.accept_token(token), (fmt, text)
    after_call = _allowed(matcher, info)
    assert eos in after_call and {vocab[t] for t in after_call - {eos}} == {b"\n"}, (fmt, dialect)
    assert matcher.accept_string("\n")
    assert _allowed(matcher, info) == {eos}
    assert matcher.accept_token(eos) and matcher.is_terminated()


def test_xgrammar_matcher_completes() -> None:
    check_xgrammar_matcher("hermes")
    check_xgrammar_matcher("pythonic", "structural-tag")


#: formats the slow matrix runs (every format whose required grammar the model can finish in MAX_NEW)
MATRIX = sorted(f for f in FORMATS if get_format(f).call.values != "gemma")


@pytest.mark.slow
@pytest.mark.parametrize("fmt", MATRIX)
def test_every_format_ends(gen: Any, llama: Any, fmt: str) -> None:
    check_xgrammar_matcher(fmt)
    check_generator(gen, fmt)
    check_llama_cpp(llama, fmt)
