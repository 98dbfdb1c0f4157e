"""Parser benchmark: whole-output throughput per format, OpenVINO GenAI's parsers on the same
outputs, the byte-by-byte streaming / whole-output time ratio for a 50 KB output (issue 3), and
(issue 10, section 8) the streaming cost per token-sized delta against OpenVINO's decode time per
token.

Run: ``python benchmarks/bench_parse.py [--quick] [--repeat N] [--tpot-ms X | --no-openvino]``.

Section 8: each output (prose, then one call whose string argument fills the rest; lengths
``--lengths``) is fed to a fresh ``toolgram.StreamParser`` in 4-character ``str`` deltas (about one
token of SmolLM2). Printed per format and length: the mean µs per delta over the whole output and
over its last quarter (a cost that grows with the output shows as last-quarter > mean, and as
growth along the row), and the ratio of the mean to OpenVINO's time per output token
(``perf_metrics.get_tpot()`` of free decode on SmolLM2 GGUF, median of 3 x 32 tokens, measured in
this run unless ``--tpot-ms`` is given). Target: <= 0.01, constant in output length.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from typing import Any

from _common import machine_footer, machine_header, median
from toolgram.grammars import FORMATS
from toolgram.grammars.render import render_calls

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


def openvino_tpot_ms() -> float:
    """OpenVINO's time per output token for free decode of SmolLM2 GGUF (median of 3 x 32 tokens)."""
    import openvino_genai as ov

    from toolgram.engines import smollm2_gguf_path

    pipe = ov.LLMPipeline(smollm2_gguf_path(), "CPU")
    cfg = ov.GenerationConfig()
    cfg.max_new_tokens = 32
    cfg.ignore_eos = True
    cfg.apply_chat_template = False
    pipe.generate(["Write about Paris."], cfg)
    return median([float(pipe.generate(["Write about Paris."], cfg).perf_metrics.get_tpot().mean)
                   for _ in range(3)])


def stream_deltas(fmt: str, text: str, width: int = 4) -> tuple[float, float]:
    """Mean seconds per ``width``-character delta over the whole text and over its last quarter."""
    sp = toolgram.StreamParser(fmt, TOOLS)
    deltas = [text[i:i + width] for i in range(0, len(text), width)]
    cut = len(deltas) * 3 // 4
    t0 = time.perf_counter()
    for d in deltas[:cut]:
        sp.feed(d)
    t1 = time.perf_counter()
    for d in deltas[cut:]:
        sp.feed(d)
    t2 = time.perf_counter()
    sp.finish()
    return (t2 - t0) / len(deltas), (t2 - t1) / max(1, len(deltas) - cut)


def bench_deltas(lengths: list[int], tpot_ms: float | None, repeat: int) -> None:
    src = "given" if tpot_ms is not None else "not measured"
    print(f"\n## 8. streaming parse cost per 4-character delta (µs, best of {repeat}) ÷ OpenVINO decode time per "
          f"token ({f'{tpot_ms:.2f} ms' if tpot_ms else src}); target <= 0.01, constant in output length")
    print("   cells: mean µs per delta / last-quarter µs per delta / mean ÷ tpot")
    print(f"{'format':17} " + " ".join(f"{f'{n // 1000}k chars':>26}" for n in lengths))
    worst = 0.0
    for fmt in FORMATS:
        cells = []
        for n in lengths:
            text = output(fmt, n)
            best_mean, best_tail = min(stream_deltas(fmt, text) for _ in range(repeat))
            r = best_mean * 1000 / tpot_ms if tpot_ms else float("nan")
            worst = max(worst, r) if r == r else worst
            cells.append(f"{best_mean * 1e6:7.1f} /{best_tail * 1e6:7.1f} /{r:8.4f}")
        print(f"{fmt:17} " + " ".join(f"{c:>26}" for c in cells), flush=True)
    if tpot_ms:
        print(f"worst ratio: {worst:.4f} (target <= 0.01)")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="smoke run: 10 KB outputs, 1 repeat, two lengths")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--size", type=int, default=50_000, help="output size in characters")
    ap.add_argument("--lengths", default="1000,4000,16000,64000", help="output lengths for section 8")
    ap.add_argument("--tpot-ms", type=float, default=None, help="OpenVINO time per token (skips measuring it)")
    ap.add_argument("--no-openvino", action="store_true")
    args = ap.parse_args()
    lengths = [int(x) for x in args.lengths.split(",")]
    if args.quick:
        args.size, args.repeat, lengths = 10_000, 1, [1000, 16000]
    machine_header("bench_parse: whole-output parse, byte-by-byte streaming, per-delta streaming cost",
                   "wall time (time.perf_counter) in this process, best of --repeat")
    tpot = args.tpot_ms
    if tpot is None and not args.no_openvino:
        try:
            tpot = openvino_tpot_ms()
        except Exception as exc:  # noqa: BLE001 - no OpenVINO: the ratio column stays empty
            print(f"(OpenVINO tpot not measured: {type(exc).__name__}: {str(exc)[:100]})")
    try:
        import openvino_genai as ov  # noqa: F401 - only for the comparison columns
    except ImportError:
        ov = None
    print(f"## whole-output parse, {args.size // 1000} KB outputs, best of {args.repeat}")
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
    bench_deltas(lengths, tpot, max(3, args.repeat))  # cheap: best of 3 even in a smoke run
    machine_footer()
    return 0


if __name__ == "__main__":
    sys.exit(main())
