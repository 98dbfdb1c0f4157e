"""Hostile-input benchmark (issue 12 section 3, issue 13 findings 2-5): parse time of each hostile
case of ``tests/test_hostile_parse.py`` at growing sizes, per format and mode, and the growth ratio
per x4 input (linear: about 4; the test asserts <= 6).

Run: ``python benchmarks/bench_hostile.py [--sizes 100000,400000,1600000] [--modes lenient,stream,strict]
[--formats hermes,...] [--cases lt_flood,...] [--tool-counts 1,16,128]``. Stream mode feeds 1 character per
``feed``. The last table (issue 28 finding 8) parses prose of the largest size but one with growing numbers
of tools: the time must not grow with them (ratio to 1 tool; asserted by a work count in
``tests/test_redteam_new_formats.py``).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import time  # noqa: E402

from test_hostile_parse import CASES, run, timed  # noqa: E402
from toolgram.grammars import FORMATS  # noqa: E402

import toolgram  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="100000,400000,1600000")
    ap.add_argument("--modes", default="lenient,stream,strict")
    ap.add_argument("--formats", default=",".join(FORMATS))
    ap.add_argument("--cases", default=",".join(CASES))
    ap.add_argument("--tool-counts", default="1,16,128")
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    print(f"{'mode':8} {'format':16} {'case':22} " + " ".join(f"{n // 1000:>8}KB" for n in sizes) + "  growth/x4")
    worst = 0.0
    for mode in args.modes.split(","):
        for fmt in args.formats.split(","):
            for case in args.cases.split(","):
                run(mode, fmt, CASES[case](fmt, 1000))
                times = [timed(mode, fmt, CASES[case](fmt, n)) for n in sizes]
                pairs = zip(times, times[1:], sizes, sizes[1:], strict=False)
                growth = [b / max(a, 1e-3) / (nb / na / 4) for a, b, na, nb in pairs]
                worst = max([worst, *growth])
                print(f"{mode:8} {fmt:16} {case:22} " + " ".join(f"{t:9.3f}s" for t in times)
                      + "  " + " ".join(f"{g:5.1f}" for g in growth), flush=True)
    print(f"worst growth per x4 input: {worst:.1f} (linear: 4; asserted: <= 6)")
    tool_counts(sizes[-2] if len(sizes) > 1 else sizes[0], [int(k) for k in args.tool_counts.split(",")])


PROSE = "the quick brown fox jumps over the lazy dog and talks about tool_1 and tools\n"


def tool_counts(size: int, counts: list[int]) -> None:
    """Lenient parse time of ``size`` characters of prose per number of tools (names tool_0...)."""
    print(f"\n{'format':16} {size // 1000}KB prose, lenient: " + " ".join(f"{k:>6} tools" for k in counts) + "  ratio")
    for fmt, head in (("functionary_v3_2", "all\n"), ("gpt_oss", ""), ("hermes", "")):
        text = head + PROSE * (size // len(PROSE))
        times = []
        for k in counts:
            tools = [{"type": "function", "function": {"name": f"tool_{i}", "parameters": {"type": "object"}}}
                     for i in range(k)]
            toolgram.parse(fmt, text[:1000], tools)  # warm
            best = float("inf")
            for _ in range(3):
                t0 = time.perf_counter()
                toolgram.parse(fmt, text, tools)
                best = min(best, time.perf_counter() - t0)
            times.append(best)
        print(f"{fmt:16} " + " ".join(f"{t:10.3f}s" for t in times) + f"  {max(times) / max(times[0], 1e-3):5.1f}")


if __name__ == "__main__":
    main()
