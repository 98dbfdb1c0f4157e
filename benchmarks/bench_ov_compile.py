"""OpenVINO grammar compile time, toolgram vs xgrammar's builtin structural tag (a script, not a test).

``python benchmarks/bench_ov_compile.py [--quick] [--reps 3] [--timeout 120]``

For 1 / 10 / 100 tools (5 typed parameters each) and each toolgram format that has an xgrammar
builtin structural tag (hermes vs ``qwen_3``, qwen3_coder vs ``qwen_3_coder``, llama3_json vs
``llama``, and any newer pair listed in ``bench_compile.BUILTIN``), OpenVINO GenAI's own
(older, C++) xgrammar compiles:

- ``ebnf``: toolgram's EBNF through ``StructuredOutputConfig(grammar=...)`` (what ``Generator`` does);
- ``stag``: toolgram's structural-tag dialect through ``StructuredOutputConfig(structural_tags_config=...)``;
- ``builtin``: ``xgrammar.get_builtin_structural_tag(model, tools)`` as JSON through
  ``structural_tags_config``.

Grammar compile time is ``perf_metrics.get_grammar_compile_time()`` of a 1-token ``generate``.
Every repetition uses fresh tool names, so OpenVINO's grammar cache never hits; the three kinds
are interleaved per repetition; one warm-up compile first pays the compiler's initialisation.
``tool_choice="auto"``, parallel calls on, no reasoning block. The pipeline runs in a child
process, killed after ``--timeout`` seconds per compile (reported as "> T s"); a compile over 5 s
is measured once.
"""

from __future__ import annotations

import argparse
import json
import sys
import uuid
from typing import Any

from _common import Worker, machine_footer, machine_header, make_tools, median, ratio, reasoning_off, worker_loop
from bench_compile import builtin_pairs

import toolgram

SIZES = (1, 10, 100)
_PIPE: list[Any] = []


def _pipeline() -> Any:
    if not _PIPE:
        import openvino_genai as ov

        from toolgram.engines import smollm2_gguf_path
        _PIPE.append(ov.LLMPipeline(smollm2_gguf_path(), "CPU"))
        _compile_ms({"kind": "ebnf", "fmt": "hermes", "model": "qwen_3", "n": 1})  # compiler initialisation
    return _PIPE[0]


def _compile_ms(req: dict[str, Any]) -> float:
    import openvino_genai as ov
    import xgrammar as xgr

    fmt, model, n, kind = req["fmt"], req["model"], req["n"], req["kind"]
    tools = make_tools(n, tag=uuid.uuid4().hex[:8] + "_")
    kw = {"tool_choice": "auto", "parallel_tool_calls": True, "reasoning": reasoning_off(fmt)}
    if kind == "ebnf":
        so = ov.StructuredOutputConfig(grammar=toolgram.compile(fmt, tools, dialect="ebnf", **kw).grammar)
    elif kind == "stag":
        so = ov.StructuredOutputConfig(
            structural_tags_config=toolgram.compile(fmt, tools, dialect="structural-tag", **kw).grammar)
    else:
        tag = xgr.get_builtin_structural_tag(model, tools=tools, tool_choice="auto", reasoning=False,
                                             parallel_tool_calls=True)
        so = ov.StructuredOutputConfig(structural_tags_config=tag.model_dump_json())
    cfg = ov.GenerationConfig()
    cfg.max_new_tokens = 1
    cfg.apply_chat_template = False
    cfg.structured_output_config = so
    r = _PIPE[0].generate(["hi"], cfg)
    return float(r.perf_metrics.get_grammar_compile_time().mean)


def _handle(req: dict[str, Any]) -> dict[str, Any]:
    _pipeline()
    return {"ms": _compile_ms(req)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="smoke run: 1 repetition, 30 s timeout")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--timeout", type=float, default=120.0, help="per compile, seconds")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        worker_loop(_handle)
        return 0
    reps, timeout = (1, 30.0) if args.quick else (args.reps, args.timeout)
    machine_header("bench_ov_compile: OpenVINO grammar compile, toolgram vs xgrammar's builtin structural tag",
                   "perf_metrics.get_grammar_compile_time() of a 1-token generate on SmolLM2 GGUF; fresh tool "
                   f"names every time (no cache hit); median of {reps}; kinds interleaved")
    worker = Worker(__file__)
    _, err = worker.call({"kind": "builtin", "fmt": "hermes", "model": "qwen_3", "n": 1}, 180)  # load + warm-up
    if err:
        print(f"OpenVINO unavailable: {err}")
        return 1
    print(f"{'format':<14} {'builtin':<14} {'tools':>5} {'ebnf ms':>9} {'stag ms':>9} {'builtin ms':>10} "
          f"{'ebnf/b':>7} {'stag/b':>7}")
    results: dict[str, Any] = {}
    for fmt, model in builtin_pairs():
        for n in SIZES:
            ms: dict[str, list[float]] = {"ebnf": [], "stag": [], "builtin": []}
            status: dict[str, str] = {}
            for _ in range(reps):
                for kind in ms:
                    if kind in status:
                        continue
                    reply, err = worker.call({"kind": kind, "fmt": fmt, "model": model, "n": n}, timeout)
                    if reply:
                        ms[kind].append(reply["ms"])
                        if reply["ms"] > 5000:  # slow: one measurement is enough
                            status[kind] = "done"
                    else:
                        status[kind] = err or "?"
            med = {k: median(v) for k, v in ms.items()}
            cols = {k: (f"{med[k]:9.1f}" if ms[k] else f"{status.get(k, '?')[:9]:>9}") for k in ms}
            for k, s in status.items():
                if s != "done" and not s.startswith(">"):
                    print(f"  ({fmt} {k}, {n} tools: {s})")
            results[f"{fmt}/{n}"] = med
            print(f"{fmt:<14} {model:<14} {n:>5} {cols['ebnf']} {cols['stag']} {cols['builtin']:>10} "
                  f"{ratio(med['ebnf'], med['builtin']):7.2f} {ratio(med['stag'], med['builtin']):7.2f}", flush=True)
    worker.close()
    print("target: ebnf/b <= 1.0")
    machine_footer()
    if "--json" in sys.argv:
        print(json.dumps(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
