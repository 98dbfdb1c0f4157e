"""OpenVINO decode with / without the tool grammar (a script, not a test).

``python benchmarks/bench_generate.py [--quick] [--pairs 10] [--tokens 64] [--formats a,b]``

1. For every format in ``toolgram.grammars.FORMATS`` and ``tool_choice`` ``required`` and ``auto``:
   ``Generator.chat`` on SmolLM2-135M (GGUF, CPU) with the tool grammar against the same call with
   ``tool_choice="none"`` (same rendered prompt, no grammar), one tool whose only argument is an
   unbounded string, ``ignore_eos`` and a fixed ``max_new_tokens``, so both runs produce the same
   number of tokens. Median over ``--pairs`` interleaved pairs (order alternates), after one
   warm-up pair (the warm-up also compiles the grammar, so later runs hit OpenVINO's grammar
   cache: compile cost is measured separately by ``bench_ov_compile.py``). Two figures per row:

   (a) time per output token, ``perf_metrics.get_tpot()`` of the pipeline result (the
       benchmark wraps ``Generator.pipeline`` to see the result ``chat`` gets);
   (b) ``Generator.chat`` end to end, wall time of the whole call (prompt rendering, toolgram
       compile, generate, parse).

   Each is given as with ÷ without *speed* (``tpot_without / tpot_with``, ``wall_without /
   wall_with``): 1.0 is free, target >= 0.97. ``calls`` counts the constrained runs whose output
   holds a tool call (under ``auto`` a model may stay in free text, where the grammar's cost is
   that of its free-text automaton).
2. (``--vs-trivial``) where the cost of table 1 comes from: per format and choice, time per token
   of ``pipeline.generate`` on the same prompt with no grammar, with the cheapest grammar there is
   (``root ::= [^\\x00]*``: OpenVINO's structured-output machinery with no language to check) and
   with toolgram's EBNF, interleaved. ``trivial ÷ toolgram`` is what toolgram's grammar costs beyond
   OpenVINO applying any grammar at all; ``none ÷ trivial`` is OpenVINO's own share (and the
   machine's drift). ``--skip-chat`` runs this table alone.
3. (``--vs-llamacpp``) tool-call generation tok/s, OpenVINO against llama.cpp (llama-cpp-python,
   ``LlamaGrammar.from_string`` of toolgram's GBNF), same GGUF, same prompt, same grammar, greedy,
   both timed from first to last streamed token. (llama.cpp with / without grammar per format is
   ``bench_llamacpp.py``.)
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from _common import (
    UNBOUNDED,
    interleaved,
    machine_footer,
    machine_header,
    median,
    ratio,
    reasoning_off,
    stream_rate,
)
from toolgram.grammars import FORMATS
from toolgram.runtime.generator import Generator

import toolgram
from toolgram.engines import smollm2_gguf_path

MESSAGES = [{"role": "user", "content": "Write a long note about the history of Paris. Use the write_note tool."}]
WEATHER = [{"type": "function", "function": {
    "name": "get_weather", "description": "Get the current weather in a city",
    "parameters": {"type": "object", "properties": {
        "location": {"type": "string", "maxLength": 40},
        "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}}, "required": ["location"]}}}]


class _Recorder:
    """Stands in for ``Generator.pipeline``: forwards everything, keeps the last ``generate`` result."""

    def __init__(self, pipeline: Any) -> None:
        self._pipeline = pipeline
        self.last: Any = None

    def wrap(self, pipeline: Any) -> _Recorder:
        """Record ``pipeline`` from now on (the Generator's reload hands in a new one)."""
        self._pipeline, self.last = pipeline, None
        return self

    def generate(self, *args: Any, **kwargs: Any) -> Any:
        self.last = self._pipeline.generate(*args, **kwargs)
        return self.last

    def __getattr__(self, name: str) -> Any:
        return getattr(self._pipeline, name)


def _one(gen: Generator, rec: _Recorder, fmt: str, choice: str, tokens: int) -> dict[str, Any]:
    t0 = time.perf_counter()
    r = gen.chat(MESSAGES, UNBOUNDED, tool_choice=choice, format=fmt, reasoning=reasoning_off(fmt),
                 max_new_tokens=tokens, ignore_eos=True, stop_after_whitespace=None)
    wall = time.perf_counter() - t0
    pm = rec.last.perf_metrics
    return {"wall_s": wall, "tpot_ms": float(pm.get_tpot().mean), "n": r["usage"]["completion_tokens"],
            "call": bool(r["message"].get("tool_calls")), "text": r["text"]}


def decode_table(gen: Generator, rec: _Recorder, formats: list[str], pairs: int, tokens: int) -> list[float]:
    print(f"## 1. OpenVINO decode with ÷ without the tool grammar: SmolLM2-135M GGUF on CPU, one tool with an "
          f"unbounded string argument, ignore_eos, {tokens} tokens, median of {pairs} interleaved pairs "
          "(order alternates), after a warm-up pair")
    print("   (a) tpot = perf_metrics.get_tpot(); (b) e2e = wall time of Generator.chat; ratio = without/with "
          "time (1.0 = grammar is free; target >= 0.97)")
    print(f"{'format':<16} {'choice':<9} {'tpot with':>10} {'without':>8} {'(a) ratio':>9} "
          f"{'e2e with':>9} {'without':>8} {'(b) ratio':>9} {'calls':>6}")
    ratios = []
    for fmt in formats:
        for choice in ("required", "auto"):
            try:
                _one(gen, rec, fmt, choice, tokens)
                _one(gen, rec, fmt, "none", tokens)
            except Exception as e:  # noqa: BLE001 - report the row, keep going
                print(f"{fmt:<16} {choice:<9} error: {str(e)[:150]}", flush=True)
                continue
            runs = interleaved({"with": lambda f=fmt, c=choice: _one(gen, rec, f, c, tokens),
                                "without": lambda f=fmt: _one(gen, rec, f, "none", tokens)}, pairs)
            short = [r["n"] for k in runs for r in runs[k] if r["n"] != tokens]
            tw, to = median([r["tpot_ms"] for r in runs["with"]]), median([r["tpot_ms"] for r in runs["without"]])
            ew, eo = median([r["wall_s"] for r in runs["with"]]), median([r["wall_s"] for r in runs["without"]])
            ra, rb = ratio(to, tw), ratio(eo, ew)
            ratios += [ra, rb]
            calls = sum(r["call"] for r in runs["with"])
            note = f"  (runs with {sorted(set(short))} tokens)" if short else ""
            print(f"{fmt:<16} {choice:<9} {tw:8.2f}ms {to:6.2f}ms {ra:9.3f} {ew * 1000:7.0f}ms {eo * 1000:6.0f}ms "
                  f"{rb:9.3f} {calls:>3}/{pairs}{note}", flush=True)
    if ratios:
        print(f"worst ratio: {min(ratios):.3f} (target >= 0.97 for both, every format)")
    return ratios


def _greedy_config(tokens: int, grammar: str | None, ignore_eos: bool = False) -> Any:
    """A greedy ``GenerationConfig`` for an already rendered prompt, constrained by EBNF ``grammar`` if given."""
    import openvino_genai as ov

    cfg = ov.GenerationConfig()
    cfg.max_new_tokens, cfg.ignore_eos, cfg.do_sample = tokens, ignore_eos, False
    cfg.apply_chat_template = False
    if grammar is not None:
        cfg.structured_output_config = ov.StructuredOutputConfig(grammar=grammar)
    return cfg


#: the cheapest grammar there is: any text (OpenVINO's structured-output machinery, no language)
TRIVIAL = r"root ::= [^\x00]*"


def trivial_table(pipeline: Any, formats: list[str], pairs: int, tokens: int) -> list[float]:
    """toolgram's EBNF against :data:`TRIVIAL` and no grammar, ``pipeline.generate`` on the same prompt."""
    from toolgram.runtime.prompts import render_prompt

    print(f"\n## 2. toolgram's grammar ÷ the cheapest grammar: pipeline.generate, same prompt, ignore_eos, {tokens} "
          f"tokens, no grammar / `{TRIVIAL}` / toolgram's EBNF, median of {pairs} interleaved triples (order rotates)")
    print("   ratio = time per token of the first ÷ of the second (perf_metrics.get_tpot; 1.0 = no extra cost)")
    print(f"{'format':<16} {'choice':<9} {'none':>7} {'trivial':>8} {'toolgram':>9} {'none÷trivial':>12} "
          f"{'none÷toolgram':>13} {'trivial÷toolgram':>16}")

    def run(prompt: str, grammar: str | None) -> float:
        cfg = _greedy_config(tokens, grammar, ignore_eos=True)
        return float(pipeline.generate([prompt], cfg).perf_metrics.get_tpot().mean)

    ratios = []
    for fmt in formats:
        prompt, _ = render_prompt(fmt, MESSAGES, UNBOUNDED)
        for choice in ("required", "auto"):
            ours = toolgram.compile(fmt, UNBOUNDED, dialect="ebnf", tool_choice=choice,
                                    reasoning=reasoning_off(fmt)).grammar
            kinds = {"none": None, "trivial": TRIVIAL, "toolgram": ours}
            for g in kinds.values():
                run(prompt, g)  # warm-up (and OpenVINO's grammar compile)
            res = interleaved({k: lambda g=g, p=prompt: run(p, g) for k, g in kinds.items()}, pairs)
            m = {k: median(v) for k, v in res.items()}
            tt = ratio(m["trivial"], m["toolgram"])
            ratios.append(tt)
            print(f"{fmt:<16} {choice:<9} {m['none']:7.2f} {m['trivial']:8.2f} {m['toolgram']:9.2f} "
                  f"{ratio(m['none'], m['trivial']):12.3f} {ratio(m['none'], m['toolgram']):13.3f} {tt:16.3f}",
                  flush=True)
    if ratios:
        print(f"worst trivial ÷ toolgram: {min(ratios):.3f}; median {median(ratios):.3f}")
    return ratios


def ov_vs_llamacpp(gen: Generator, pairs: int, tokens: int, threads: int) -> None:
    import openvino_genai as ov
    from llama_cpp import Llama, LlamaGrammar
    from toolgram.runtime.prompts import render_prompt

    msgs = [{"role": "user", "content": "What is the weather in Paris?"}]
    prompt, _ = render_prompt("hermes", msgs, WEATHER, model_template=gen.chat_template)
    kw = {"tool_choice": "required", "parallel_tool_calls": True, "reasoning": "none"}
    ebnf = toolgram.compile("hermes", WEATHER, dialect="ebnf", **kw).grammar
    gbnf = toolgram.compile("hermes", WEATHER, dialect="gbnf", **kw).grammar
    llm = Llama(str(gen.model_path), n_ctx=2048, n_threads=threads, n_threads_batch=threads, verbose=False)
    lgrammar = LlamaGrammar.from_string(gbnf, verbose=False)

    def run_ov() -> float:
        cfg = _greedy_config(tokens, ebnf)
        stamps: list[float] = []

        def streamer(s: str) -> Any:
            stamps.append(time.perf_counter())
            return ov.StreamingStatus.RUNNING

        r = gen.pipeline.generate([prompt], cfg, streamer)
        return stream_rate(stamps, int(r.perf_metrics.get_num_generated_tokens()))

    def run_llama() -> float:
        llm.reset()
        stamps: list[float] = []
        for _ in llm.create_completion(prompt, max_tokens=tokens, temperature=0.0, grammar=lgrammar, stream=True):
            stamps.append(time.perf_counter())
        return stream_rate(stamps)

    run_ov(), run_llama()  # warm-up
    res = interleaved({"ov": run_ov, "llama": run_llama}, pairs)
    o, ll = median(res["ov"]), median(res["llama"])
    print(f"\n## tool-call generation tok/s (hermes required, weather tool, same GGUF and grammar, greedy, {tokens} "
          f"max tokens, llama.cpp {threads} threads, median of {pairs} pairs): OpenVINO {o:.1f}, llama.cpp {ll:.1f}, "
          f"OpenVINO ÷ llama.cpp {ratio(o, ll):.2f}x", flush=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="smoke run: 2 pairs, 24 tokens, three formats")
    ap.add_argument("--pairs", type=int, default=10)
    ap.add_argument("--tokens", type=int, default=64)
    ap.add_argument("--formats", default="", help="comma-separated subset of the formats (default: all)")
    ap.add_argument("--vs-llamacpp", action="store_true", help="also OpenVINO vs llama.cpp tool-call tok/s")
    ap.add_argument("--threads", type=int, default=2, help="llama.cpp threads")
    ap.add_argument("--vs-trivial", action="store_true",
                    help="also toolgram's grammar against the cheapest grammar (any text) and none")
    ap.add_argument("--skip-chat", action="store_true", help="skip table 1 (Generator.chat with / without)")
    args = ap.parse_args()
    formats = [f for f in args.formats.split(",") if f] or list(FORMATS)
    pairs, tokens = args.pairs, args.tokens
    if args.quick:
        pairs, tokens = 2, 24
        formats = formats if args.formats else ["hermes", "qwen3_coder", "llama3_json"]
    machine_header("bench_generate: OpenVINO decode with ÷ without the tool grammar",
                   "Generator.chat on one OpenVINO LLMPipeline; tpot from perf_metrics; wall time around chat")
    if pairs < 10:
        print(f"note: {pairs} pairs (< 10): a smoke run, not the issue's measurement\n")
    gen = Generator(smollm2_gguf_path(), "CPU")
    rec = _Recorder(gen.pipeline)
    gen.pipeline = rec
    # the Generator loads a fresh pipeline past max_grammars distinct grammars (its memory bound):
    # record that one too, or every later row would read the last result before the reload
    load = gen._load
    gen._load = lambda: rec.wrap(load())  # type: ignore[method-assign]
    if not args.skip_chat:
        decode_table(gen, rec, formats, pairs, tokens)
    if args.vs_trivial:
        trivial_table(rec._pipeline, formats, pairs, tokens)
    if args.vs_llamacpp:
        gen.pipeline = rec._pipeline
        ov_vs_llamacpp(gen, pairs, 64, args.threads)
    machine_footer()
    return 0


if __name__ == "__main__":
    sys.exit(main())
