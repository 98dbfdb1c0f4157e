"""Pathological but legal input: 2,000 tools and a 50,000-string enum (a script, not a test).

``python benchmarks/bench_scale.py [--quick] [--timeout 30] [--formats hermes]``

For each dialect (gbnf, ebnf, lark, structural-tag) and format, two cases:

- ``2000 tools``: ``toolgram.compile`` of 2,000 tools with 5 typed parameters each;
- ``enum 50k``: one tool whose parameter is an ``enum`` of 50,000 distinct strings;
- ``2000 own`` (for information, no target): 2,000 tools whose parameters all have their own
  names, so no argument rule is shared between tools (``2000 tools`` share one parameter list).

Each case runs in a fresh child process (``--case``), killed after ``--timeout`` seconds and then
reported as "> T s" so the benchmark always finishes. Printed: wall seconds of ``toolgram.compile``
(inputs built and toolgram imported beforehand), then of loading the grammar in its engine
through ``toolgram.engines`` (gbnf: llama.cpp ``llama_sampler_init_grammar`` over SmolLM2's
vocabulary; ebnf and structural-tag: xgrammar ``GrammarCompiler`` over an empty vocabulary; lark:
``Lark(parser="lalr")``), the child's peak RSS (VmHWM, polled from /proc, engine included),
toolgram's own growth (VmHWM after ``toolgram.compile`` less the RSS just before it), and the
grammar size. A timeout counts from the start of the case, so "engine > T s" means toolgram
finished and the engine had not. Target: <= 10 s each (toolgram), with memory reported; the
engine column says what a user pays next.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

from _common import machine_footer, machine_header, make_tools, peak_rss_mb, rss_mb, run_case
from toolgram.compiler.dialects import NAMES as DIALECTS

CASES = ("2000 tools", "enum 50k", "2000 own")


def case_tools(case: str) -> list[dict[str, Any]]:
    if case == "2000 tools":
        return make_tools(2000)
    if case == "2000 own":  # every tool's parameters have their own names: nothing is shared
        return make_tools(2000, distinct=True)
    values = [f"value_{i:05d}" for i in range(50_000)]
    return [{"type": "function", "function": {"name": "pick", "description": "pick one value", "parameters": {
        "type": "object", "properties": {"choice": {"type": "string", "enum": values}}, "required": ["choice"]}}}]


def child(case: str, fmt: str, dialect: str, engine: bool) -> dict[str, Any]:
    import toolgram

    tools = case_tools(case)
    before = rss_mb()
    t0 = time.perf_counter()
    grammar = toolgram.compile(fmt, tools, dialect=dialect).grammar
    res: dict[str, Any] = {"s": time.perf_counter() - t0, "before_mb": before, "peak_rss_mb": peak_rss_mb(),
                           "chars": len(grammar)}
    print(json.dumps(res), flush=True)  # partial result, in case the engine load times out
    if engine:
        t0 = time.perf_counter()
        try:
            if dialect == "gbnf":
                from toolgram.engines import llamacpp_engine
                llamacpp_engine.check_gbnf(grammar)
            elif dialect == "ebnf":
                from toolgram.engines import xgrammar_engine
                xgrammar_engine.compile_ebnf(grammar)
            elif dialect == "lark":
                from toolgram.engines import lark_engine
                lark_engine.build(grammar)
            else:
                from toolgram.engines import xgrammar_engine
                xgrammar_engine.compile_structural_tag(grammar)
            res["engine_s"] = time.perf_counter() - t0
        except Exception as e:  # noqa: BLE001 - engine missing or grammar rejected: reported
            res["engine_error"] = f"{type(e).__name__}: {str(e)[:80]}"
        res["engine_peak_rss_mb"] = peak_rss_mb()
    return res


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="smoke run: 10 s timeout")
    ap.add_argument("--timeout", type=float, default=30.0, help="per case, seconds")
    ap.add_argument("--formats", default="hermes")
    ap.add_argument("--dialects", default=",".join(DIALECTS))
    ap.add_argument("--no-engine", action="store_true", help="skip loading each grammar in its engine")
    ap.add_argument("--case", default="", help=argparse.SUPPRESS)
    ap.add_argument("--format", default="hermes", help=argparse.SUPPRESS)
    ap.add_argument("--dialect", default="gbnf", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.case:
        print(json.dumps(child(args.case, args.format, args.dialect, not args.no_engine)))
        return 0
    timeout = 10.0 if args.quick else args.timeout
    machine_header("bench_scale: 2,000 tools and a 50,000-string enum, every dialect",
                   f"toolgram.compile wall time in a fresh child per case, timeout {timeout:g} s; memory = peak RSS "
                   "(VmHWM) of the child and its growth during the compile")
    print(f"{'case':<11} {'format':<14} {'dialect':<15} {'toolgram s':>10} {'peak RSS':>9} {'growth':>8} "
          f"{'grammar':>9} {'engine s':>9}")
    print(f"{'':<42} {'':>10} {'(all)':>9} {'(toolgram)':>8}")
    worst = 0.0
    for case in CASES:
        for fmt in args.formats.split(","):
            for dialect in args.dialects.split(","):
                argv = [sys.executable, __file__, "--case", case, "--format", fmt, "--dialect", dialect]
                if args.no_engine:
                    argv.append("--no-engine")
                r, status, peak = run_case(argv, timeout)
                if r is None:
                    worst = max(worst, timeout if case != "2000 own" else 0.0)
                    print(f"{case:<11} {fmt:<14} {dialect:<15} {(status or '?')[:40]:>10} {peak:7.0f}MB", flush=True)
                    continue
                if case != "2000 own":
                    worst = max(worst, r["s"])
                eng = (f"{r['engine_s']:9.2f}" if "engine_s" in r else
                       r.get("engine_error", status if status and status.startswith(">") else "-"))
                print(f"{case:<11} {fmt:<14} {dialect:<15} {r['s']:10.2f} {peak:7.0f}MB "
                      f"{r['peak_rss_mb'] - r['before_mb']:6.0f}MB {r['chars'] / 1e6:7.2f}MB {eng:>9}", flush=True)
    print(f"worst: {'> ' if worst >= timeout else ''}{worst:.1f} s (target <= 10 s each; '2000 own' is for "
          "information: the tools share no argument rule)")
    machine_footer()
    return 0


if __name__ == "__main__":
    sys.exit(main())
