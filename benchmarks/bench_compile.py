"""Compile benchmarks (a script, not a test): ``python benchmarks/bench_compile.py [--quick] [--repeat N]``.

1. Grammar text build time (``toolgram.compile``) for 1, 10 and 100 tools with 5 typed parameters
   each (one parameter schema shared by the tools), every format and dialect. Target: <= 20 ms at
   100 tools (issue 10). Then, for information, 100 tools whose parameters all have their own
   names and descriptions: toolgram builds a repeated schema once per grammar, so that is the
   costlier case (grammar text ~5x longer for the JSON formats).
2. xgrammar compile time of toolgram's grammar -- the EBNF dialect and the structural-tag dialect --
   against xgrammar's own builtin structural tag (``xgrammar.get_builtin_structural_tag``) for the
   same tools, 1 / 10 / 100 tools, in one run, with the ratio (target <= 1.0). Pairs: hermes vs
   ``qwen_3``, qwen3_coder vs ``qwen_3_coder``, llama3_json vs ``llama``, and every other toolgram
   format whose family has a builtin (see ``BUILTIN``). Both sides are compiled by one
   ``GrammarCompiler(cache_enabled=False)`` over SmolLM2's real vocabulary (49,152 tokens, read from
   the GGUF through llama-cpp-python; falls back to an empty vocabulary, said in the output). Both
   sides use ``tool_choice="auto"``, parallel calls on, no reasoning block.

For OpenVINO's compile of the same grammars see ``bench_generate.py``; for 2,000 tools and a
50,000-string enum see ``bench_scale.py``.
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

from _common import (
    Worker,
    dist_version,
    grouped_bars,
    machine_footer,
    machine_header,
    make_tools,
    median_ms,
    ratio,
    reasoning_off,
    save_figure,
    worker_loop,
)
from toolgram.compiler.dialects import NAMES as DIALECTS
from toolgram.grammars import FORMATS

from toolgram import compile as tg_compile

#: toolgram format id -> xgrammar builtin structural-tag model (used when both exist)
BUILTIN = {
    "hermes": "qwen_3", "qwen3_coder": "qwen_3_coder", "llama3_json": "llama",
    "kimi_k2": "kimi", "deepseek_r1": "deepseek_r1", "deepseek_v3_1": "deepseek_v3_1",
    "deepseek_dsml": "deepseek_v3_2", "gpt_oss": "harmony", "glm4_7": "glm_4_7", "minimax_m2": "minimax",
    "command_r7b": "cohere", "gemma4": "gemma_4",
}
SIZES = (1, 10, 100)


def bench_build(repeat: int, sizes: tuple[int, ...], distinct: bool = False) -> None:
    if distinct:
        print(f"## 6b. the same at 100 tools whose parameters have their own names and descriptions (no schema "
              f"text repeats, so nothing is built once for many tools), ms (median of {repeat}); no target")
    else:
        print(f"## 6. grammar text build time, ms (median of {repeat}); 5 typed parameters per tool (one schema "
              "shared by the tools); target <= 20 ms at 100 tools")
    print(f"{'format':<16} {'dialect':<15} " + " ".join(f"{n:>8}" for n in sizes))
    worst = (0.0, "")
    for fmt in FORMATS:
        for dialect in DIALECTS:
            row = []
            for n in sizes:
                tools = make_tools(n, distinct=distinct)
                row.append(median_ms(lambda t=tools, d=dialect, f=fmt: tg_compile(f, t, dialect=d), repeat))
            worst = max(worst, (row[-1], f"{fmt}/{dialect}"))
            flag = "" if distinct or row[-1] <= 20 else "  (over target)"
            print(f"{fmt:<16} {dialect:<15} " + " ".join(f"{x:8.2f}" for x in row) + flag, flush=True)
    print(f"worst at {sizes[-1]} tools: {worst[0]:.2f} ms ({worst[1]})" + ("" if distinct else "; target <= 20 ms"))


def _compiler() -> tuple[Any, str]:
    import xgrammar as xgr
    try:
        from toolgram.engines import llamacpp_engine
        llm = llamacpp_engine._llama()
        vocab = [llm.detokenize([i], special=True) for i in range(llm.n_vocab())]
        info = xgr.TokenizerInfo(vocab, vocab_type=xgr.VocabType.RAW, stop_token_ids=[llm.token_eos()])
        desc = f"SmolLM2 vocabulary ({len(vocab)} tokens, RAW bytes from the GGUF)"
    except Exception as e:  # noqa: BLE001 - no GGUF / llama-cpp-python: still comparable, just cheaper
        info = xgr.TokenizerInfo([])
        desc = f"EMPTY vocabulary ({type(e).__name__}: {e})"
    return xgr.GrammarCompiler(info, max_threads=1, cache_enabled=False), desc


def builtin_pairs() -> list[tuple[str, str]]:
    from xgrammar import builtin_structural_tag as bst

    registry = set(getattr(bst, "_structural_tag_registry", {}))
    pairs = [(f, m) for f, m in BUILTIN.items() if f in FORMATS and (not registry or m in registry)]
    pairs += [(f, f) for f in FORMATS if f in registry and f not in BUILTIN]
    missing = [f for f in FORMATS if f not in dict(pairs)]
    if missing:
        print(f"(no xgrammar {dist_version('xgrammar')} builtin structural tag for: {', '.join(missing)})")
    return pairs


_COMPILER: list[Any] = []


def _cell(req: dict[str, Any]) -> dict[str, Any]:
    """Worker side: compile one (format, model, tools, kind) cell ``repeat`` times; median ms."""
    import xgrammar as xgr
    if not _COMPILER:
        _COMPILER.extend(_compiler())
    compiler = _COMPILER[0]
    fmt, model, n, kind = req["fmt"], req["model"], req["n"], req["kind"]
    tools = make_tools(n)
    kw = {"tool_choice": "auto", "parallel_tool_calls": True, "reasoning": reasoning_off(fmt)}
    if kind == "ebnf":
        text = tg_compile(fmt, tools, dialect="ebnf", **kw).grammar
        fn = lambda: compiler.compile_grammar(xgr.Grammar.from_ebnf(text))  # noqa: E731
    elif kind == "stag":
        text = tg_compile(fmt, tools, dialect="structural-tag", **kw).grammar
        fn = lambda: compiler.compile_structural_tag(text)  # noqa: E731
    else:
        tag = xgr.get_builtin_structural_tag(model, tools=tools, tool_choice="auto", reasoning=False,
                                             parallel_tool_calls=True)
        text = tag.model_dump_json() if hasattr(tag, "model_dump_json") else json.dumps(tag)
        fn = lambda: compiler.compile_structural_tag(text)  # noqa: E731
    t0 = time.perf_counter()
    fn()
    first = (time.perf_counter() - t0) * 1000
    if first > 2000:  # slow: one measurement is enough (and keeps the benchmark within minutes)
        return {"ms": first, "vocab": _COMPILER[1]}
    return {"ms": median_ms(fn, req["repeat"], warmup=max(0, req["warmup"] - 1)), "vocab": _COMPILER[1]}


def bench_xgrammar(repeat: int, warmup: int, sizes: tuple[int, ...], timeout: float) -> list[dict[str, Any]]:
    """Section 2; returns one row per format x tool count (ms per kind, ratios) for :func:`plot`."""
    worker = Worker(__file__)
    rows: list[dict[str, Any]] = []
    desc, _ = worker.call({"fmt": "hermes", "model": "qwen_3", "n": 1, "kind": "builtin", "repeat": 1,
                           "warmup": 0}, 120)
    print(f"\n## 2. xgrammar {dist_version('xgrammar')} compile ms (median of {repeat}, {warmup} warm-up), one "
          f"GrammarCompiler (cache off, 1 thread) over {desc['vocab'] if desc else '?'}; tool_choice=auto, "
          f"parallel calls, no reasoning; each cell in a child process, timeout {timeout:g} s; a cell whose first "
          "compile takes > 2 s is that one measurement")
    print("   ebnf = toolgram EBNF via Grammar.from_ebnf + compile_grammar; stag = toolgram structural-tag "
          "dialect via compile_structural_tag; builtin = get_builtin_structural_tag(model) via "
          "compile_structural_tag")
    print(f"{'format':<14} {'builtin':<14} {'tools':>5} {'ebnf':>9} {'stag':>9} {'builtin':>9} "
          f"{'ebnf/b':>7} {'stag/b':>7}")
    worst = (0.0, "")
    for fmt, model in builtin_pairs():
        for n in sizes:
            ms: dict[str, float] = {}
            shown: dict[str, str] = {}
            for kind in ("ebnf", "stag", "builtin"):
                reply, status = worker.call({"fmt": fmt, "model": model, "n": n, "kind": kind, "repeat": repeat,
                                             "warmup": warmup}, timeout)
                ms[kind] = reply["ms"] if reply else (timeout * 1000 if status and status.startswith(">") else
                                                      float("nan"))
                shown[kind] = f"{ms[kind]:9.2f}" if reply else f"{(status or '?')[:9]:>9}"
                if status and not status.startswith(">"):
                    print(f"  ({fmt} {kind}, {n} tools: {status})")
            r1, r2 = ratio(ms["ebnf"], ms["builtin"]), ratio(ms["stag"], ms["builtin"])
            mark = ">" if shown["ebnf"].strip().startswith(">") else ""
            worst = max(worst, (r1, f"{fmt} ebnf, {n} tools"))
            rows.append({"format": fmt, "builtin": model, "tools": n, **ms, "ebnf/b": r1, "stag/b": r2})
            print(f"{fmt:<14} {model:<14} {n:>5} {shown['ebnf']} {shown['stag']} {shown['builtin']} "
                  f"{mark + format(r1, '.2f'):>7} {'>' if shown['stag'].strip().startswith('>') else ''}"
                  f"{r2:6.2f}", flush=True)
    worker.close()
    print(f"worst EBNF ratio: {worst[0]:.2f} ({worst[1]}); target <= 1.0")
    return rows


def plot(rows: list[dict[str, Any]], path: str, title: str) -> None:
    """Section 2 as a PNG: toolgram EBNF compile time / builtin's, per format and tool count (log scale)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    formats = list(dict.fromkeys(r["format"] for r in rows))
    sizes = sorted({r["tools"] for r in rows})
    ratios = {(r["format"], r["tools"]): r["ebnf/b"] for r in rows}
    fig, ax = plt.subplots(figsize=(max(6.0, 0.8 * len(formats)), 3.6))
    grouped_bars(ax, formats, {f"{n} tools": [ratios.get((f, n), float("nan")) for f in formats] for n in sizes})
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_yscale("log")
    ax.set_ylabel("toolgram EBNF / builtin tag")
    ax.set_title(title, fontsize=9)
    ax.legend()
    save_figure(fig, path)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="smoke run: 100 tools only for the build table, 1 repeat")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--skip-xgrammar", action="store_true")
    ap.add_argument("--timeout", type=float, default=60.0, help="per xgrammar cell (all its repeats), s")
    ap.add_argument("--plot", default=None, help="write section 2's ratios as a PNG (matplotlib)")
    ap.add_argument("--skip-build", action="store_true", help="section 2 only")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        worker_loop(_cell)
        return
    repeat = 1 if args.quick else args.repeat
    machine_header("bench_compile: grammar text build time; xgrammar compile vs builtin structural tags",
                   "wall time (time.perf_counter) in this process, median after one warm-up run")
    if not args.skip_build:
        bench_build(repeat, (100,) if args.quick else SIZES)
        bench_build(repeat, (100,), distinct=True)
    if not args.skip_xgrammar:
        rows = bench_xgrammar(1 if args.quick else max(1, repeat // 2 + 1), 0 if args.quick else 1, SIZES,
                              min(args.timeout, 20.0) if args.quick else args.timeout)
        if args.plot:
            plot(rows, args.plot, f"xgrammar {dist_version('xgrammar')} compile, SmolLM2 vocabulary, "
                                  "tool_choice auto: toolgram EBNF / builtin structural tag (1.0 = as fast)")
    machine_footer()


if __name__ == "__main__":
    main()
