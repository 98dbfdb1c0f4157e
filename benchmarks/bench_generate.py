"""Benchmark: constrained generation with OpenVINO GenAI (and llama.cpp for comparison).

Not a test. One run prints, with medians over interleaved pairs (``--pairs``, at least 10):

1. decode tok/s with the tool grammar against without it: same prompt, same length
   (``ignore_eos``), a ``hermes`` grammar whose argument is an unbounded string, so neither run
   can finish early;
2. grammar compile ms inside OpenVINO (``perf_metrics.get_grammar_compile_time()``) for 1, 10
   and 100 tools (fresh tool names each run, so no cache hit);
3. tool-call generation tok/s, OpenVINO against llama.cpp (llama-cpp-python with
   ``LlamaGrammar.from_string`` of toolgram's GBNF), same GGUF, same prompt, same grammar,
   greedy. Both are timed the same way: tokens after the first / time from first to last token.

Usage: ``python benchmarks/bench_generate.py [--pairs 10] [--tokens 64] [--threads 2]``
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
import uuid
from typing import Any

from toolgram.runtime.generator import Generator
from toolgram.runtime.prompts import render_prompt

import toolgram
from toolgram.engines import smollm2_gguf_path

UNBOUNDED = [{"type": "function", "function": {
    "name": "write_note", "description": "Write a long note",
    "parameters": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}}}]
WEATHER = [{"type": "function", "function": {
    "name": "get_weather", "description": "Get the current weather in a city",
    "parameters": {"type": "object", "properties": {
        "location": {"type": "string", "maxLength": 40},
        "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}}, "required": ["location"]}}}]


def _tools(n: int) -> list[dict[str, Any]]:
    tag = uuid.uuid4().hex[:8]
    return [{"type": "function", "function": {
        "name": f"tool_{tag}_{i}", "description": f"Tool number {i}",
        "parameters": {"type": "object", "properties": {
            "query": {"type": "string", "maxLength": 64}, "limit": {"type": "integer", "minimum": 1},
            "mode": {"type": "string", "enum": ["fast", "slow"]}, "flag": {"type": "boolean"}},
            "required": ["query"]}}} for i in range(n)]


def _med(xs: list[float]) -> float:
    return statistics.median(xs) if xs else float("nan")


def decode_with_vs_without(gen: Generator, pairs: int, tokens: int) -> dict[str, float]:
    msgs = [{"role": "user", "content": "Write a long note about the history of Paris."}]
    common = {"format": "hermes", "reasoning": "none", "max_new_tokens": tokens, "ignore_eos": True,
              "stop_after_whitespace": None}
    gen.chat(msgs, UNBOUNDED, tool_choice="required", **common)  # warm-up (tokenizer info, caches)
    gen.chat(msgs, UNBOUNDED, tool_choice="none", **common)
    with_g, without_g = [], []
    for i in range(pairs):
        order = [("with", "required"), ("without", "none")]
        if i % 2:
            order.reverse()
        for kind, choice in order:
            r = gen.chat(msgs, UNBOUNDED, tool_choice=choice, **common)
            assert r["usage"]["completion_tokens"] == tokens, r["usage"]
            (with_g if kind == "with" else without_g).append(r["timings"]["tokens_per_s"])
    w, wo = _med(with_g), _med(without_g)
    return {"with_grammar_tok_s": w, "without_grammar_tok_s": wo, "ratio": w / wo}


def compile_ms(gen: Generator, reps: int) -> dict[int, float]:
    import openvino_genai as ov

    out = {}
    for n in (1, 10, 100):
        times = []
        for _ in range(reps):
            grammar = toolgram.compile("hermes", _tools(n), dialect="ebnf", tool_choice="required",
                                       reasoning="none").grammar
            cfg = ov.GenerationConfig()
            cfg.max_new_tokens = 1
            cfg.apply_chat_template = False
            cfg.structured_output_config = ov.StructuredOutputConfig(grammar=grammar)
            r = gen.pipeline.generate(["hi"], cfg)
            times.append(float(r.perf_metrics.get_grammar_compile_time().mean))
        out[n] = _med(times)
    return out


def _rate(stamps: list[float]) -> float:
    return (len(stamps) - 1) / (stamps[-1] - stamps[0]) if len(stamps) > 1 and stamps[-1] > stamps[0] else float("nan")


def ov_vs_llamacpp(gen: Generator, pairs: int, tokens: int, threads: int) -> dict[str, float]:
    import openvino_genai as ov
    from llama_cpp import Llama, LlamaGrammar

    msgs = [{"role": "user", "content": "What is the weather in Paris?"}]
    prompt, _ = render_prompt("hermes", msgs, WEATHER, model_template=gen.chat_template)
    kw = {"tool_choice": "required", "parallel_tool_calls": True, "reasoning": "none"}
    ebnf = toolgram.compile("hermes", WEATHER, dialect="ebnf", **kw).grammar
    gbnf = toolgram.compile("hermes", WEATHER, dialect="gbnf", **kw).grammar
    llm = Llama(str(gen.model_path), n_ctx=2048, n_threads=threads, n_threads_batch=threads, verbose=False)
    lgrammar = LlamaGrammar.from_string(gbnf, verbose=False)

    def run_ov() -> tuple[float, str]:
        cfg = ov.GenerationConfig()
        cfg.max_new_tokens = tokens
        cfg.do_sample = False
        cfg.apply_chat_template = False
        cfg.structured_output_config = ov.StructuredOutputConfig(grammar=ebnf)
        stamps: list[float] = []
        pieces: list[str] = []

        def streamer(s: str) -> Any:
            stamps.append(time.perf_counter())
            pieces.append(s)
            return ov.StreamingStatus.RUNNING

        r = gen.pipeline.generate([prompt], cfg, streamer)
        n = int(r.perf_metrics.get_num_generated_tokens())
        # the streamer may merge tokens into one chunk; rate over tokens, first to last chunk
        rate = (n - 1) / (stamps[-1] - stamps[0]) if len(stamps) > 1 else float("nan")
        return rate, "".join(pieces)

    def run_llama() -> tuple[float, str]:
        llm.reset()
        stamps: list[float] = []
        pieces: list[str] = []
        for chunk in llm.create_completion(prompt, max_tokens=tokens, temperature=0.0, grammar=lgrammar,
                                           stream=True):
            stamps.append(time.perf_counter())
            pieces.append(chunk["choices"][0]["text"])
        return _rate(stamps), "".join(pieces)

    run_ov(), run_llama()  # warm-up
    ov_rates, ll_rates = [], []
    texts: dict[str, str] = {}
    for i in range(pairs):
        order = [("ov", run_ov), ("llama", run_llama)]
        if i % 2:
            order.reverse()
        for kind, fn in order:
            rate, text = fn()
            (ov_rates if kind == "ov" else ll_rates).append(rate)
            texts[kind] = text
    for kind, text in texts.items():
        msg = toolgram.parse("hermes", text, WEATHER, mode="lenient", **kw)
        print(f"  {kind} sample: {len(msg['tool_calls'])} call(s), first: "
              f"{msg['tool_calls'][0]['function'] if msg['tool_calls'] else None}", file=sys.stderr)
    o, ll = _med(ov_rates), _med(ll_rates)
    return {"openvino_tok_s": o, "llamacpp_tok_s": ll, "speedup": o / ll}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=10)
    ap.add_argument("--tokens", type=int, default=64)
    ap.add_argument("--threads", type=int, default=2, help="llama.cpp threads")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    if args.pairs < 10:
        print("note: fewer than 10 pairs", file=sys.stderr)
    gen = Generator(smollm2_gguf_path(), "CPU")
    res: dict[str, Any] = {}
    res["decode"] = decode_with_vs_without(gen, args.pairs, args.tokens)
    d = res["decode"]
    print(f"decode tok/s (hermes, unbounded string, ignore_eos, {args.tokens} tokens, median of {args.pairs} pairs): "
          f"with grammar {d['with_grammar_tok_s']:.1f}, without {d['without_grammar_tok_s']:.1f}, "
          f"ratio {d['ratio']:.3f}")
    res["compile_ms"] = compile_ms(gen, args.pairs)
    print(f"OpenVINO grammar compile ms (median of {args.pairs}): "
          + ", ".join(f"{n} tools {ms:.1f}" for n, ms in res["compile_ms"].items()))
    res["tool_call"] = ov_vs_llamacpp(gen, args.pairs, args.tokens, args.threads)
    t = res["tool_call"]
    print(f"tool-call generation tok/s (hermes required, same GGUF and grammar, median of {args.pairs} pairs): "
          f"OpenVINO {t['openvino_tok_s']:.1f}, llama.cpp {t['llamacpp_tok_s']:.1f}, "
          f"OpenVINO/llama.cpp {t['speedup']:.2f}x")
    if args.json:
        print(json.dumps(res))
    return 0


if __name__ == "__main__":
    sys.exit(main())
