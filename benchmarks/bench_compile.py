"""Compile benchmarks (a script, not a test): ``python benchmarks/bench_compile.py [--repeat N]``.

1. Time to build the grammar text (``toolgram.compile``) for 1, 10 and 100 tools, per format and
   dialect. Target: <= 20 ms for 100 tools.
2. xgrammar compile time of toolgram's EBNF against xgrammar's own builtin structural tag
   (``xgrammar.get_builtin_structural_tag``) for the same tools, in one run, with the ratio
   (target <= 1.0). Both are compiled by one ``GrammarCompiler`` over SmolLM2's vocabulary (read
   from the GGUF through llama-cpp-python), falling back to an empty vocabulary if unavailable.
   Both sides use ``tool_choice="auto"``, parallel calls on, and no reasoning block.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from typing import Any

from toolgram.grammars import FORMATS

from toolgram import compile as tg_compile

DIALECTS = ("gbnf", "ebnf", "lark", "structural-tag")
#: toolgram format -> xgrammar builtin model name
BUILTIN = {"qwen3_coder": "qwen_3_coder", "llama3_json": "llama", "hermes": "qwen_3"}


def make_tools(n: int) -> list[dict[str, Any]]:
    """``n`` distinct tools with a typical mix of parameter types."""
    return [{"type": "function", "function": {
        "name": f"tool_{i}",
        "description": f"tool number {i}",
        "parameters": {
            "type": "object",
            "properties": {
                "location": {"type": "string"},
                "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
                "days": {"type": "integer", "minimum": 1, "maximum": 14},
                "detailed": {"type": "boolean"},
                "tags": {"type": "array", "items": {"type": "string"}},
            },
            "required": ["location"],
        },
    }} for i in range(n)]


def best_ms(fn: Callable[[], Any], repeat: int) -> float:
    """Median wall time of ``fn`` in milliseconds over ``repeat`` runs (after one warm-up)."""
    fn()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


def bench_build(repeat: int) -> None:
    print("## grammar text build time, ms (median), target <= 20 ms at 100 tools")
    print(f"{'format':<16} {'dialect':<15} {'1':>8} {'10':>8} {'100':>8}")
    worst = 0.0
    for fmt in FORMATS:
        for dialect in DIALECTS:
            row = []
            for n in (1, 10, 100):
                tools = make_tools(n)
                row.append(best_ms(lambda t=tools, d=dialect, f=fmt: tg_compile(f, t, dialect=d), repeat))
            worst = max(worst, row[-1])
            flag = "" if row[-1] <= 20 else "  (over target)"
            print(f"{fmt:<16} {dialect:<15} {row[0]:8.2f} {row[1]:8.2f} {row[2]:8.2f}{flag}")
    print(f"worst at 100 tools: {worst:.2f} ms")


def _compiler() -> tuple[Any, str]:
    import xgrammar as xgr
    try:
        from toolgram.engines import llamacpp_engine
        llm = llamacpp_engine._llama()
        vocab = [llm.detokenize([i], special=True) for i in range(llm.n_vocab())]
        info = xgr.TokenizerInfo(vocab, vocab_type=xgr.VocabType.RAW)
        desc = f"SmolLM2 vocabulary ({len(vocab)} tokens)"
    except Exception as e:  # no GGUF / llama-cpp-python: still comparable, just cheaper
        info = xgr.TokenizerInfo([])
        desc = f"empty vocabulary ({type(e).__name__}: {e})"
    return xgr.GrammarCompiler(info, cache_enabled=False), desc


def bench_xgrammar(repeat: int) -> None:
    import xgrammar as xgr
    compiler, desc = _compiler()
    print(f"\n## xgrammar compile time, ms (median): toolgram EBNF vs builtin structural tag; {desc}")
    print(f"{'format':<14} {'model':<14} {'tools':>5} {'toolgram':>10} {'builtin':>10} {'ratio':>7}")
    ratios = []
    for fmt, model in BUILTIN.items():
        for n in (1, 10, 100):
            tools = make_tools(n)
            reasoning = "none" if FORMATS[fmt].reasoning else None
            ebnf = tg_compile(fmt, tools, dialect="ebnf", tool_choice="auto", parallel_tool_calls=True,
                              reasoning=reasoning).grammar
            tag = xgr.get_builtin_structural_tag(model, tools=tools, tool_choice="auto", reasoning=False,
                                                 parallel_tool_calls=True)
            ours = best_ms(lambda g=ebnf: compiler.compile_grammar(xgr.Grammar.from_ebnf(g)), repeat)
            theirs = best_ms(lambda t=tag: compiler.compile_structural_tag(t), repeat)
            ratios.append(ours / theirs)
            print(f"{fmt:<14} {model:<14} {n:>5} {ours:10.2f} {theirs:10.2f} {ours / theirs:7.2f}")
    print(f"worst ratio: {max(ratios):.2f} (target <= 1.0)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--skip-xgrammar", action="store_true")
    args = ap.parse_args()
    bench_build(args.repeat)
    if not args.skip_xgrammar:
        bench_xgrammar(max(1, args.repeat // 2))


if __name__ == "__main__":
    main()
