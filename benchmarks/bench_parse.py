"""Parser benchmark (issue 3): whole-output throughput per format, OpenVINO GenAI's parsers on the
same outputs, and the byte-by-byte streaming / whole-output time ratio for a 50 KB output.

Run: ``python benchmarks/bench_parse.py [--repeat N]``.  The streaming target is a ratio <= 3.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Any

from toolgram.grammars import FORMATS
from toolgram.runtime.render import render_calls

import toolgram

TOOLS = [{"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object",
    "properties": {"location": {"type": "string"}, "days": {"type": "integer"}, "opts": {"type": "object"}},
    "required": ["location"]}}}]


def output(fmt: str, size: int) -> str:
    """About ``size`` characters of prose, then one call whose string argument fills the rest."""
    prose = "The weather tool will tell us more. " * (size // 80)
    calls = [("get_weather", {"location": "Paris é😀 " * max(1, (size - len(prose)) // 12), "days": 3,
                              "opts": {"unit": "celsius", "n": [1, 2, 3]}})]
    text = render_calls(fmt, calls)
    anchored = FORMATS[fmt].scope.anchored and not FORMATS[fmt].scope.wrappers
    # start-anchored formats: calls first (prose before a bare list is a lenient recovery)
    return text + "\n" if anchored else prose + "\n" + text


def best(fn: Callable[[], Any], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def stream_bytes(fmt: str, text: str) -> None:
    sp = toolgram.StreamParser(fmt, TOOLS)
    for b in text.encode("utf-8"):
        sp.feed(bytes((b,)))
    sp.finish()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--size", type=int, default=50_000, help="output size in characters")
    args = ap.parse_args()
    try:
        import openvino_genai as ov  # noqa: F401 - only for the comparison columns
    except ImportError:
        ov = None
    print(f"whole-output parse, {args.size // 1000} KB outputs, best of {args.repeat}")
    print(f"{'format':17} {'toolgram MB/s':>14} {'OpenVINO MB/s':>14} {'stream/whole':>13}")
    worst = 0.0
    for fmt in FORMATS:
        text = output(fmt, args.size)
        mb = len(text.encode("utf-8")) / 1e6
        msg = toolgram.parse(fmt, text, TOOLS)
        assert msg["tool_calls"], (fmt, msg["diagnostics"])
        whole = best(lambda text=text, fmt=fmt: toolgram.parse(fmt, text, TOOLS), args.repeat)
        ovcol = "-"
        if ov is not None and fmt in ("llama3_json", "pythonic", "llama4_pythonic"):
            parser = ov.Llama3JsonToolParser() if fmt == "llama3_json" else ov.Llama3PythonicToolParser()
            try:
                t = best(lambda parser=parser, text=text: parser.parse({"content": text}), args.repeat)
                ovcol = f"{mb / t:.1f}"
            except Exception as exc:  # noqa: BLE001 - report the engine's failure in the table
                ovcol = f"error: {type(exc).__name__}"
        stream = best(lambda fmt=fmt, text=text: stream_bytes(fmt, text), 1)
        ratio = stream / whole
        worst = max(worst, ratio)
        print(f"{fmt:17} {mb / whole:14.1f} {ovcol:>14} {ratio:13.2f}")
    print(f"worst stream/whole ratio: {worst:.2f} (target <= 3): {'OK' if worst <= 3 else 'OVER TARGET'}")
    # linearity: byte-by-byte streaming of twice the output should take about twice the time
    for fmt in ("qwen3_coder", "hermes", "pythonic"):
        small, large = output(fmt, args.size), output(fmt, 2 * args.size)
        t1 = best(lambda fmt=fmt, small=small: stream_bytes(fmt, small), 1)
        t2 = best(lambda fmt=fmt, large=large: stream_bytes(fmt, large), 1)
        print(f"{fmt}: byte-by-byte streaming {len(small) // 1000} KB {t1:.2f}s, "
              f"{len(large) // 1000} KB {t2:.2f}s (x{t2 / t1:.2f}; linear is x2)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
