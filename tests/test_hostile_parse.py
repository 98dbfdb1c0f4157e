"""Hostile model output costs linear time and never raises (issue 12 section 3, issue 13 findings 2-5).

Each case builds an output of about ``n`` characters for a format: floods of tags and brackets,
unknown-tool calls, thousands of calls, huge values, unterminated names, huge integers. Every
mode reads it (lenient whole output, the stream parser fed 1 character at a time, strict) without
an exception, and the time for ``4n`` is at most 6 times the time for ``n`` (a ratio measured in the
same run; absolute times are not asserted). The default run checks a few cases per mode at 25 KB to
400 KB; ``-m slow`` checks every case, format and mode at 100 KB -> 400 KB -> 1.6 MB.
``benchmarks/bench_hostile.py`` prints the figures.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable
from typing import Any

import pytest
from strategies import format_cases
from toolgram.grammars import FORMATS, get_format
from toolgram.grammars.render import render_call, render_calls
from toolgram.grammars.spec import ElementCall, XmlCall

import toolgram

F = {"type": "function", "function": {"name": "f", "parameters": {"type": "object", "properties": {
    "s": {"type": "string"}, "o": {"type": "object"}, "a": {"type": "array"}, "n": {"type": "integer"}}}}}
TOOLS = [F]


def _wrap(fmt: str, call_text: str) -> str:
    """A call's text inside the format's scope (block or list), without closing the call itself."""
    sc = get_format(fmt).scope
    return sc.open + call_text


def _open_value(fmt: str, key: str, body: str) -> str:
    """A call to f whose ``key`` value starts with ``body`` and never ends (cut off)."""
    spec = get_format(fmt)
    marker = "MARKER1234"
    text = render_call(spec, "f", {key: marker})
    head = text[: text.index(marker)]
    if spec.values != "xml":
        head = head.removesuffix('<|"|>').rstrip("'\"")  # the value's text starts with body, not a quote
    return _wrap(fmt, head + body)


def _head(fmt: str) -> str:
    """A committed call to f, cut off right before its first argument."""
    spec = get_format(fmt)
    text = render_call(spec, "f", {"s": "x"})
    c = spec.call
    if isinstance(c, XmlCall):
        return _wrap(fmt, text[: text.index(c.param_open)])
    if isinstance(c, ElementCall):
        return _wrap(fmt, text[: text.index(c.ns + "<s>")])
    if spec.values == "json":
        return _wrap(fmt, text[: text.index('"s"')])
    return _wrap(fmt, text[: text.index("s:" if spec.values == "gemma" else "s=")])


#: the opening quote of a string value, per value syntax
_QUOTE = {"python": "'", "json": '"', "gemma": '<|"|>'}


def _reps(unit: str, n: int) -> str:
    return unit * max(1, n // len(unit))


CASES: dict[str, Callable[[str, int], str]] = {
    "tool_call_flood": lambda fmt, n: _reps("<tool_call>", n),
    "opener_flood": lambda fmt, n: _reps(get_format(fmt).scope.open.strip() or "[", n),
    "lt_flood": lambda fmt, n: "<" * n,
    "end_tag_flood": lambda fmt, n: _reps("</parameter>", n),
    "end_tags_in_a_value": lambda fmt, n: _open_value(fmt, "s", _reps("</parameter>", n)),
    "unknown_tool_calls": lambda fmt, n: _reps(render_calls(fmt, [("nope", {"s": "x"})]) + "\n", n),
    "bracket_flood": lambda fmt, n: "x " + "[{(" * (n // 3),
    "unbalanced_value": lambda fmt, n: _open_value(fmt, "o", "{" + '"k": [' * (n // 6)),
    "many_calls": lambda fmt, n: render_calls(fmt, [("f", {"n": i}) for i in range(max(1, n // 40))]),
    "array_value": lambda fmt, n: render_calls(fmt, [("f", {"a": list(range(n // 7))})]),
    "object_value": lambda fmt, n: render_calls(fmt, [("f", {"o": {f"k{i}": i for i in range(n // 12)}})]),
    "string_value": lambda fmt, n: render_calls(fmt, [("f", {"s": _reps('a\\"<é\n', n)})]),
    "unterminated_name": lambda fmt, n: _head(fmt) + ('"' if get_format(fmt).values == "json" else "") + "k" * n,
    "huge_integer": lambda fmt, n: render_calls(fmt, [("f", {"n": 7})]).replace("7", "9" * n),
    "whitespace_flood": lambda fmt, n: "a" + " " * n + "b",
    "whitespace_in_a_call": lambda fmt, n: _spaced(fmt, n),
    # the lenient look-aheads inside values: quotes that do not close a Python string (each looked past,
    # a bounded way), and next-parameter tags inside an XML value (a missing closing tag)
    "quotes_in_a_string": lambda fmt, n: _open_value(fmt, "s", _QUOTE.get(get_format(fmt).values, "")
                                                     + _reps("'" + " " * 40 + ", y ", n)),
    "parameter_tags_in_a_value": lambda fmt, n: _open_value(fmt, "s", _reps("\n<parameter=zz\n<parameter=n", n)),
    # issue 28 finding 1: a Windows path in a string, an escape that never closes (\N without {NAME})
    "open_N_escape": lambda fmt, n: _open_value(fmt, "s", _QUOTE.get(get_format(fmt).values, "") + "C:\\Notes "
                                                + "x" * n),
}


def _spaced(fmt: str, n: int) -> str:
    """Two calls with ``n`` spaces in each place of the syntax that may hold whitespace before its end."""
    text = render_calls(fmt, [("f", {"n": 1}), ("f", {"n": 2, "s": "x"})])
    sc = get_format(fmt).scope
    pad = " " * (n // 4)
    for lit in ("=", ",", ":", sc.close):
        i = text.find(lit) if lit == sc.close else text.rfind(lit)  # in the arguments; after the call
        if lit and i >= 0:
            text = text[:i] + pad + text[i:]
    return text


def run(mode: str, fmt: str, text: str, chunk: int = 1) -> dict[str, Any]:
    """One parse of ``text``: ``lenient``, ``strict`` or ``stream`` (``chunk`` characters per feed)."""
    if mode == "stream":
        sp = toolgram.StreamParser(fmt, TOOLS)
        feed = sp.feed
        if chunk == 1:
            for ch in text:
                feed(ch)
        else:
            for i in range(0, len(text), chunk):
                feed(text[i:i + chunk])
        sp.finish()
        return sp.message
    return toolgram.parse(fmt, text, TOOLS, mode=mode)


def timed(mode: str, fmt: str, text: str, repeat: int = 1, chunk: int = 1) -> float:
    """Best wall time of ``repeat`` runs (garbage collection off while timing; no gc.collect() before:
    its cost grows with the whole test process's heap, seconds per call late in the full suite)."""
    best = float("inf")
    for _ in range(repeat):
        gc.disable()
        try:
            t0 = time.perf_counter()
            run(mode, fmt, text, chunk)
            best = min(best, time.perf_counter() - t0)
        finally:
            gc.enable()
    return best


FLOOR = 0.1  # seconds: below this, timer, cache and scheduler noise dominate the ratio (on the loaded
#: 2-core machine a 0.05 s parse took 0.085 s, its x4 0.55 s: 6.4x; alone 0.053 and 0.211 s)


def check_scaling(mode: str, fmt: str, case: str, sizes: tuple[int, ...], chunk: int = 1) -> list[float]:
    """Time ``case`` at ``sizes`` (each x4 the previous); assert growth <= 8 per x4 (linear is 4, quadratic 16;
    6 failed once on a linear case: lenient granite tool_call_flood read 0.147 / 0.969 s in a fresh-clone CI's slow
    run, 0.257 / 1.025 s alone).
    A failing ratio is measured again (up to 3 times) before failing, each size keeping its best time: other
    processes share the machine, and a pause in one measurement must not decide (the other pytest worker's
    load once made a linear 0.18 s / 0.71 s pair read 0.40 s / 2.80 s). Every size is the best of two runs: a
    fresh-clone CI once read strict hermes object_value at 0.149 / 1.056 s under load, 0.119 / 0.487 s alone."""
    run(mode, fmt, CASES[case](fmt, 1000))  # warm caches (grammar compile, Lark parser)
    texts = [CASES[case](fmt, n) for n in sizes]
    times = [float("inf")] * len(texts)
    for _attempt in range(3):
        times = [min(best, timed(mode, fmt, t, repeat=2, chunk=chunk)) for best, t in zip(times, texts, strict=True)]
        if all(tb <= 8 * max(ta, FLOOR) for ta, tb in zip(times, times[1:], strict=False)):
            return times
    raise AssertionError(f"{mode} {fmt} {case}: {sizes} chars took {[round(t, 3) for t in times]} s")


KB = 1000
FORMAT_IDS = list(FORMATS)
FAMILIES = ["qwen3_coder", "hermes", "pythonic"]  # one format per value syntax: XML, JSON, Python
#: issue 13 finding 3: object / array values and unterminated keys and names, streamed 1 character per feed
STREAM_ONE_CHAR_CASES = ("array_value", "object_value", "unterminated_name")


LENIENT_CASES = ("lt_flood", "end_tag_flood", "unknown_tool_calls", "many_calls", "bracket_flood", "huge_integer")
STRICT_CASES = ("bracket_flood", "unbalanced_value", "array_value")


# Default run: 1 of the 6 cases per format (formats take turns, so every case runs); the rest are slow, as is
# test_hostile_scaling_up_to_1_6_mb (every case, 100 KB to 1.6 MB).
@pytest.mark.parametrize(("fmt", "case"), format_cases(LENIENT_CASES))
def test_lenient_whole_output_is_linear(fmt: str, case: str) -> None:
    check_scaling("lenient", fmt, case, (25 * KB, 100 * KB))


@pytest.mark.parametrize("fmt", FAMILIES)
def test_stream_one_character_at_a_time_is_linear(fmt: str) -> None:
    for case in ("array_value", "unterminated_name", "whitespace_in_a_call"):
        check_scaling("stream", fmt, case, (50 * KB, 200 * KB))
    if fmt == "pythonic":  # issue 28 finding 1 (the deterministic check: test_redteam_new_formats)
        check_scaling("stream", fmt, "open_N_escape", (25 * KB, 100 * KB))
    # the lenient look-aheads inside a value: Python quotes that do not close, next-parameter tags
    check_scaling("stream", fmt, {"pythonic": "quotes_in_a_string", "qwen3_coder": "parameter_tags_in_a_value"}.get(
        fmt, "string_value"), (25 * KB, 100 * KB))


@pytest.mark.parametrize(("fmt", "case"), format_cases(STRICT_CASES))  # 1 of 3 per format; the rest slow
def test_strict_is_linear_or_refuses(fmt: str, case: str) -> None:
    sizes = (25 * KB, 100 * KB) if case == "array_value" else (100 * KB, 400 * KB)
    check_scaling("strict", fmt, case, sizes)


#: the 1.6 MB tier runs every SCALE_EVERY-th case per format (see test_hostile_scaling_up_to_1_6_mb)
SCALE_EVERY = 8


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["lenient", "stream", "strict"])
@pytest.mark.parametrize("fmt", FORMAT_IDS)
def test_hostile_scaling_up_to_1_6_mb(mode: str, fmt: str) -> None:
    """Every case at 100 KB / 400 KB / 1.6 MB. Streaming feeds one character at a time for the
    values and keys of issue 13 finding 3 in one format per value syntax, and 256 characters at a
    time otherwise: a rescan per feed is quadratic at any fixed chunk size, and one character per
    feed costs ~10 us of Python (2.1 M feeds per case would not fit CI's budget). With 35 formats,
    each format takes 1 case in ``SCALE_EVERY`` (formats take turns, so every case runs at 1.6 MB in
    every mode for several formats); the one-character cases always run."""
    offset = FORMAT_IDS.index(fmt)
    for j, case in enumerate(CASES):
        one_char = case in STREAM_ONE_CHAR_CASES and fmt in FAMILIES
        if not one_char and (j + offset) % SCALE_EVERY:
            continue
        check_scaling(mode, fmt, case, (100 * KB, 400 * KB, 1600 * KB), chunk=1 if one_char else 256)


@pytest.mark.parametrize("fmt", FORMAT_IDS)
def test_hostile_cases_never_raise(fmt: str) -> None:
    for case, build in CASES.items():
        text = build(fmt, 3000)
        whole = run("lenient", fmt, text)
        assert run("stream", fmt, text) == whole, case
        run("strict", fmt, text)
