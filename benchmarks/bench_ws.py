"""Shared groups as named rules: engine compile cost of the same EBNF printed three ways (a script, not a test).

``python benchmarks/bench_ws.py [--quick] [--reps 3] [--timeout 120] [--engines openvino,xgrammar]``

toolgram's GBNF/EBNF printers write every group that the grammar would otherwise spell out more
than once (the JSON whitespace ``ws``, punctuation tokens, the JSON string, ...) as one named rule
(``compiler/emit/bnf.py`` ``plan_shared``, issue 10). This script measures what that buys, side by
side in one run, on the same IR printed as:

- ``inline``: every group spelled out where it is used (the printer before this change,
  ``EbnfPrinter(ir, share=False)``);
- ``ws``: only the groups with a registered name (``ir.RULE_NAMES``: the JSON whitespace) as rules;
- ``shared``: every repeated group of at least ``SHARE_MIN_NODES`` IR nodes as a rule (the default).

For 1 / 10 / 100 tools (5 typed parameters each, ``bench_compile``'s tools), ``tool_choice="auto"``,
parallel calls, no reasoning:

- ``openvino``: OpenVINO GenAI's own (older, C++) xgrammar, ``perf_metrics.get_grammar_compile_time()``
  of a 1-token generate on SmolLM2 GGUF, through ``StructuredOutputConfig(grammar=...)``; fresh tool
  names every time (no cache hit); RSS growth of the worker across that generate (OpenVINO keeps
  every compiled grammar);
- ``xgrammar``: the Python package, ``GrammarCompiler(cache_enabled=False, max_threads=1)`` over
  SmolLM2's 49,152-token vocabulary.

The three variants are interleaved per repetition; median of ``--reps``; one compile over 5 s is
measured once; each engine runs in a child process killed after ``--timeout`` s per compile.
"""

from __future__ import annotations

import argparse
import sys
import time
import uuid
from typing import Any

from _common import Worker, machine_footer, machine_header, make_tools, median, reasoning_off, rss_mb, worker_loop
from toolgram.compiler.emit.bnf import EbnfPrinter
from toolgram.compiler.ir import RULE_NAMES

import toolgram

VARIANTS = ("inline", "ws", "shared")
FORMATS = ("hermes", "qwen3_coder", "llama3_json", "seed_oss", "pythonic", "llama4_pythonic")


class _WsOnly(EbnfPrinter):
    """Only the registered groups (JSON whitespace) as rules."""

    def __init__(self, grammar: Any) -> None:
        super().__init__(grammar)
        self._share = {e: None for e in self._share if e in RULE_NAMES}


def grammar_text(fmt: str, n: int, variant: str, tag: str = "") -> str:
    tools = make_tools(n, tag=tag)
    kw = {"tool_choice": "auto", "parallel_tool_calls": True, "reasoning": reasoning_off(fmt)}
    ir = toolgram.compile(fmt, tools, dialect="ebnf", **kw).ir
    assert ir is not None
    if variant == "inline":
        return EbnfPrinter(ir, share=False).render()
    if variant == "ws":
        return _WsOnly(ir).render()
    return EbnfPrinter(ir).render()


_STATE: dict[str, Any] = {}


def _handle(req: dict[str, Any]) -> dict[str, Any]:
    text = grammar_text(req["fmt"], req["n"], req["variant"], tag=uuid.uuid4().hex[:8] + "_")
    if req["engine"] == "xgrammar":
        import xgrammar as xgr

        if "xgr" not in _STATE:
            sys.path.insert(0, __file__.rsplit("/", 1)[0])
            from bench_compile import _compiler

            _STATE["xgr"] = _compiler()[0]
        t0 = time.perf_counter()
        _STATE["xgr"].compile_grammar(xgr.Grammar.from_ebnf(text))
        return {"ms": (time.perf_counter() - t0) * 1000, "mb": 0.0}
    import openvino_genai as ov

    if "ov" not in _STATE:
        from toolgram.engines import smollm2_gguf_path

        _STATE["ov"] = ov.LLMPipeline(smollm2_gguf_path(), "CPU")
        _STATE["ov_ready"] = False
    cfg = ov.GenerationConfig()
    cfg.max_new_tokens = 1
    cfg.apply_chat_template = False
    cfg.structured_output_config = ov.StructuredOutputConfig(grammar=text)
    if not _STATE["ov_ready"]:  # the compiler's initialisation
        _STATE["ov"].generate(["hi"], cfg)
        _STATE["ov_ready"] = True
        cfg.structured_output_config = ov.StructuredOutputConfig(
            grammar=grammar_text(req["fmt"], req["n"], req["variant"], tag=uuid.uuid4().hex[:8] + "_"))
    before = rss_mb()
    r = _STATE["ov"].generate(["hi"], cfg)
    return {"ms": float(r.perf_metrics.get_grammar_compile_time().mean), "mb": rss_mb() - before}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="1 repetition; hermes, qwen3_coder, llama3_json")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--timeout", type=float, default=120.0, help="per compile, seconds")
    ap.add_argument("--engines", default="openvino,xgrammar")
    ap.add_argument("--sizes", default="1,10,100")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        worker_loop(_handle)
        return 0
    reps = 1 if args.quick else args.reps
    formats = FORMATS[:3] if args.quick else FORMATS
    sizes = tuple(int(x) for x in args.sizes.split(","))
    machine_header("bench_ws: EBNF with repeated groups inline, JSON whitespace as a rule, every repeated group "
                   "as a rule", f"median of {reps}; variants interleaved; fresh tool names per compile; "
                   "tool_choice=auto, parallel, no reasoning")
    print(f"{'format':<16} {'tools':>5} {'variant':<7} {'rules':>6} {'chars':>8}", end="")
    engines = [e for e in args.engines.split(",") if e]
    for e in engines:
        print(f" {e + ' ms':>13} {e[:2] + ' MB':>7}", end="")
    print(" (MB: RSS growth per compile)" if "openvino" in engines else "")
    workers = {e: Worker(__file__) for e in engines}
    for fmt in formats:
        for n in sizes:
            res: dict[tuple[str, str], list[tuple[float, float]]] = {}
            status: dict[tuple[str, str], str] = {}
            for _ in range(reps):
                for variant in VARIANTS:
                    for e in engines:
                        key = (e, variant)
                        if key in status:
                            continue
                        reply, err = workers[e].call({"engine": e, "fmt": fmt, "n": n, "variant": variant},
                                                     args.timeout)
                        if reply is None:
                            status[key] = err or "?"
                            continue
                        res.setdefault(key, []).append((reply["ms"], reply["mb"]))
                        if reply["ms"] > 5000:
                            status[key] = "done"
            for variant in VARIANTS:
                text = grammar_text(fmt, n, variant)
                print(f"{fmt:<16} {n:>5} {variant:<7} {text.count(' ::= '):>6} {len(text):>8}", end="")
                for e in engines:
                    got = res.get((e, variant))
                    if got:
                        print(f" {median([m for m, _ in got]):13.1f} {median([b for _, b in got]):7.1f}", end="")
                    else:
                        print(f" {status.get((e, variant), '?')[:13]:>13} {'':>7}", end="")
                print(flush=True)
    for w in workers.values():
        w.close()
    machine_footer()
    return 0


if __name__ == "__main__":
    sys.exit(main())
