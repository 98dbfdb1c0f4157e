"""OpenVINO memory per distinct compiled grammar (a script, not a test).

``python benchmarks/bench_memory.py [--quick] [--sets 64] [--tools 1] [--max-rss-mb 8000]``

Each mode runs in a fresh child process (one SmolLM2 GGUF ``LLMPipeline`` on CPU) that applies
``--sets`` distinct tool sets (``--tools`` tools of 5 typed parameters each, fresh names per set),
one 1-token generation per set, and reads its RSS (``/proc/self/status``) after each:

- ``pipeline``: toolgram's hermes EBNF straight through ``StructuredOutputConfig(grammar=...)``
  (OpenVINO's own behaviour: does it keep every compiled grammar?);
- ``builtin``: xgrammar's builtin ``qwen_3`` structural tag for the same tools, through
  ``structural_tags_config`` (is the growth specific to toolgram's grammars?);
- ``generator``: ``toolgram.runtime.Generator.chat(..., tool_choice="required", max_new_tokens=1)``
  (what a long-lived server pays; bounded once the Generator caches compiled grammars).

A child stops early (and says so) once its RSS passes ``--max-rss-mb``: on a loaded 2-core
machine 10-tool hermes grammars cost ~250 MB each, so 64 of them would take the machine's memory.

Reported: RSS after warm-up, after all sets, growth per distinct grammar (MB, least-squares slope
over the sets), and for the first tool set applied again: its grammar compile time (a cache hit
is ~1 ms, a recompile is the full compile time) and the RSS change.
"""

from __future__ import annotations

import argparse
import json
import sys
import uuid
from typing import Any

from _common import UNBOUNDED, machine_footer, machine_header, make_tools, rss_mb, run_case


def _slope(ys: list[float]) -> float:
    n = len(ys)
    if n < 2:
        return float("nan")
    mx, my = (n - 1) / 2, sum(ys) / n
    return sum((i - mx) * (y - my) for i, y in enumerate(ys)) / sum((i - mx) ** 2 for i in range(n))


def child(mode: str, sets: int, ntools: int, max_rss_mb: float) -> dict[str, Any]:
    import openvino_genai as ov
    import xgrammar as xgr

    import toolgram
    from toolgram.engines import smollm2_gguf_path

    gen = None
    if mode == "generator":
        from toolgram.runtime.generator import Generator
        gen = Generator(smollm2_gguf_path(), "CPU")
        pipe = gen.pipeline
    else:
        pipe = ov.LLMPipeline(smollm2_gguf_path(), "CPU")

    def apply(tools: list[dict[str, Any]]) -> float | None:
        if gen is not None:
            r = gen.chat([{"role": "user", "content": "hi"}], tools, tool_choice="required", format="hermes",
                         reasoning="none", max_new_tokens=1)
            return r["timings"].get("grammar_compile_ms")
        cfg = ov.GenerationConfig()
        cfg.max_new_tokens = 1
        cfg.apply_chat_template = False
        if mode == "builtin":
            tag = xgr.get_builtin_structural_tag("qwen_3", tools=tools, tool_choice="required", reasoning=False)
            cfg.structured_output_config = ov.StructuredOutputConfig(structural_tags_config=tag.model_dump_json())
        else:
            g = toolgram.compile("hermes", tools, dialect="ebnf", tool_choice="required", reasoning="none").grammar
            cfg.structured_output_config = ov.StructuredOutputConfig(grammar=g)
        return float(pipe.generate(["hi"], cfg).perf_metrics.get_grammar_compile_time().mean)

    apply(UNBOUNDED)  # warm-up: compiler initialisation, first allocations
    apply(make_tools(ntools, tag="warm_"))
    base = rss_mb()
    first = make_tools(ntools, tag=uuid.uuid4().hex[:8] + "_")
    rss, compile_ms = [], []
    for i in range(sets):
        tools = first if i == 0 else make_tools(ntools, tag=uuid.uuid4().hex[:8] + "_")
        compile_ms.append(apply(tools))
        rss.append(rss_mb())
        if rss[-1] > max_rss_mb:
            break
    before = rss_mb()
    again_ms = apply(first)
    return {"sets": len(rss), "base_mb": base, "end_mb": rss[-1], "per_grammar_mb": _slope(rss),
            "compile_ms_first": compile_ms[0],
            "compile_ms_median": sorted(c for c in compile_ms if c is not None)[len(compile_ms) // 2]
            if any(c is not None for c in compile_ms) else None,
            "repeat_compile_ms": again_ms, "repeat_rss_delta_mb": rss_mb() - before}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="smoke run: 12 sets")
    ap.add_argument("--sets", type=int, default=64)
    ap.add_argument("--tools", type=int, default=1, help="tools per set (5 typed parameters each)")
    ap.add_argument("--max-rss-mb", type=float, default=8000.0, help="a child stops adding grammars past this RSS")
    ap.add_argument("--timeout", type=float, default=300.0, help="per mode, seconds")
    ap.add_argument("--modes", default="pipeline,builtin,generator")
    ap.add_argument("--child", default="", help=argparse.SUPPRESS)
    args = ap.parse_args()
    sets = 12 if args.quick else args.sets
    if args.child:
        print(json.dumps(child(args.child, sets, args.tools, args.max_rss_mb)))
        return 0
    machine_header("bench_memory: OpenVINO RSS growth per distinct compiled grammar",
                   f"{sets} distinct tool sets of {args.tools} tools, one 1-token generate each, RSS from "
                   "/proc/self/status in a fresh process per mode; growth = least-squares slope")
    print(f"{'mode':<10} {'sets':>4} {'RSS base':>9} {'RSS end':>9} {'MB/grammar':>11} {'compile ms':>11} "
          f"{'repeat: compile ms':>19} {'RSS Δ':>7}")
    for mode in args.modes.split(","):
        argv = [sys.executable, __file__, "--child", mode, "--sets", str(sets), "--tools", str(args.tools),
                "--max-rss-mb", str(args.max_rss_mb)]
        if args.quick:
            argv.append("--quick")
        r, status, _ = run_case(argv, args.timeout)
        if r is None:
            print(f"{mode:<10} {status}", flush=True)
            continue

        def f(x: Any, spec: str) -> str:
            return "-" if x is None else format(x, spec)

        print(f"{mode:<10} {r['sets']:>4} {r['base_mb']:7.0f}MB {r['end_mb']:7.0f}MB {r['per_grammar_mb']:11.2f} "
              f"{f(r['compile_ms_median'], '11.1f')} {f(r['repeat_compile_ms'], '19.1f')} "
              f"{r['repeat_rss_delta_mb']:5.1f}MB", flush=True)
    print("target: <= 5 MB per distinct grammar, or bounded by the Generator's cache; a repeated tool set should "
          "not recompile (repeat compile ~1 ms)")
    machine_footer()
    return 0


if __name__ == "__main__":
    sys.exit(main())
