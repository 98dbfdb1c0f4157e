"""Helpers shared by the benchmark scripts (not a benchmark itself).

Every script prints :func:`machine_header` first and :func:`machine_footer` last, so a run on a
loaded machine shows in its own output (load average at start and end).
"""

from __future__ import annotations

import json
import os
import platform
import select
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")

_START_LOAD: tuple[float, float, float] | None = None


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def loadavg() -> tuple[float, float, float]:
    try:
        return os.getloadavg()
    except OSError:
        return (float("nan"),) * 3


def _versions() -> str:
    out = [f"Python {platform.python_version()}"]
    from importlib.metadata import PackageNotFoundError, version

    for dist in ("xgrammar", "openvino-genai", "llama-cpp-python", "lark"):
        try:
            out.append(f"{dist} {version(dist)}")
        except PackageNotFoundError:  # absent engine: just not listed
            pass
    return ", ".join(out)


def machine_header(title: str, how: str = "") -> None:
    """Print what ran, on which machine, and the load average at the start."""
    global _START_LOAD
    _START_LOAD = loadavg()
    print(f"# {title}")
    print(f"machine: {os.cpu_count()} cores ({len(os.sched_getaffinity(0))} usable), {cpu_model()}, "
          f"{platform.system()} {platform.release()}")
    print(f"software: {_versions()}")
    print(f"load average at start: {_START_LOAD[0]:.2f} {_START_LOAD[1]:.2f} {_START_LOAD[2]:.2f} (1/5/15 min)"
          + ("  ** machine is loaded: figures are not representative **" if _START_LOAD[0] > 0.5 else ""))
    print(f"date: {time.strftime('%Y-%m-%d %H:%M:%S %Z')}")
    if how:
        print(f"how: {how}")
    print(flush=True)


def machine_footer() -> None:
    end = loadavg()
    print(f"\nload average at end: {end[0]:.2f} {end[1]:.2f} {end[2]:.2f} (1/5/15 min)"
          + ("  ** loaded run **" if max(end[0], (_START_LOAD or end)[0]) > 0.5 else ""), flush=True)


def make_tools(n: int, tag: str = "", distinct: bool = False) -> list[dict[str, Any]]:
    """``n`` distinct tools with 5 typed parameters each (string, enum, bounded integer, boolean,
    array of strings). ``tag`` makes the names distinct across calls (defeats engine caches).
    The tools share one parameter schema unless ``distinct``: then every tool's parameters have
    their own names and descriptions, so no schema text repeats (toolgram builds a repeated
    schema once per grammar)."""
    out = []
    for i in range(n):
        props: dict[str, Any] = {
            "location": {"type": "string"},
            "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
            "days": {"type": "integer", "minimum": 1, "maximum": 14},
            "detailed": {"type": "boolean"},
            "tags": {"type": "array", "items": {"type": "string"}},
        }
        required = ["location"]
        if distinct:
            props = {f"{k}_{i}": {**v, "description": f"{k} of tool {i}"} for k, v in props.items()}
            required = [f"location_{i}"]
        out.append({"type": "function", "function": {
            "name": f"tool_{tag}{i}",
            "description": f"tool number {i}",
            "parameters": {"type": "object", "properties": props, "required": required},
        }})
    return out


#: one tool whose only argument is an unbounded string: a constrained run cannot finish early
UNBOUNDED = [{"type": "function", "function": {
    "name": "write_note", "description": "Write a long note",
    "parameters": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}}}]


def reasoning_off(fmt: str) -> str | None:
    """``"none"`` for formats with a reasoning block (the benchmarks compare call grammars only)."""
    from toolgram.grammars import FORMATS

    return "none" if FORMATS[fmt].reasoning else None


def dist_version(dist: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(dist)
    except PackageNotFoundError:
        return "?"


def median(xs: list[float]) -> float:
    xs = [x for x in xs if x == x]
    return statistics.median(xs) if xs else float("nan")


def median_ms(fn: Callable[[], Any], repeat: int, warmup: int = 1) -> float:
    """Median wall time of ``fn`` in milliseconds over ``repeat`` runs (after ``warmup`` runs)."""
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


def rss_mb() -> float:
    """Resident set size of this process in MB (from /proc/self/status)."""
    return _status_kb("VmRSS") / 1024


def _status_kb(key: str, pid: int | str = "self") -> float:
    try:
        with open(f"/proc/{pid}/status", encoding="utf-8") as fh:
            for line in fh:
                if line.startswith(key + ":"):
                    return float(line.split()[1])
    except OSError:
        pass
    return float("nan")


def peak_rss_mb(pid: int | str = "self") -> float:
    """Peak resident set size (VmHWM) in MB."""
    return _status_kb("VmHWM", pid) / 1024


def grouped_bars(ax: Any, labels: list[str], series: dict[str, list[float]]) -> None:
    """One group of bars per label on matplotlib axes ``ax``, one bar per series in each (the plots of
    bench_bfcl and bench_compile), the ticks under each group's middle."""
    width = 0.8 / max(len(series), 1)
    for i, (name, values) in enumerate(series.items()):
        ax.bar([x + i * width for x in range(len(labels))], values, width, label=name)
    ax.set_xticks([x + width * (len(series) - 1) / 2 for x in range(len(labels))], labels, rotation=25, ha="right")


def save_figure(fig: Any, path: Any) -> None:
    """Lay out and write a matplotlib figure as the benchmarks' PNGs are written."""
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    print(f"plot: {path}")


def ratio(a: float, b: float) -> float:
    return a / b if b and b == b and a == a else float("nan")


def interleaved(runs: dict[str, Callable[[], T]], reps: int) -> dict[str, list[T]]:
    """Each run ``reps`` times, interleaved: repetition ``i`` starts at the ``i``-th kind (with two
    kinds the order alternates), so drift in the machine's speed falls on every kind alike."""
    kinds = list(runs)
    out: dict[str, list[T]] = {k: [] for k in kinds}
    for i in range(reps):
        j = i % len(kinds)
        for kind in kinds[j:] + kinds[:j]:
            out[kind].append(runs[kind]())
    return out


def stream_rate(stamps: list[float], tokens: int | None = None) -> float:
    """Decode tokens per second between the first and the last streamed chunk (``tokens``: the
    generated count when a chunk may hold several tokens; default one token per stamp)."""
    n = len(stamps) if tokens is None else tokens
    return (n - 1) / (stamps[-1] - stamps[0]) if len(stamps) > 1 and stamps[-1] > stamps[0] else float("nan")


# ----------------------------------------------------------------------------- child processes
# A compile that takes minutes (or that cannot be interrupted, inside C++) must not stop a
# benchmark: such cases run in a child process that is killed after a timeout ("> T s").


class Worker:
    """A child process running ``python <script> --worker`` that answers one JSON request per line.

    ``call(request, timeout)`` returns ``(reply, None)``, or ``(None, "> T s")`` after killing the
    child on timeout (the next call starts a fresh child), or ``(None, error)`` if it died.
    The script's worker loop is :func:`worker_loop`.
    """

    def __init__(self, script: str, extra: list[str] | None = None) -> None:
        self.argv = [sys.executable, script, "--worker", *(extra or [])]
        self.proc: subprocess.Popen[str] | None = None

    def _start(self) -> subprocess.Popen[str]:
        if self.proc is None or self.proc.poll() is not None:
            self.proc = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                         bufsize=1)
        return self.proc

    def call(self, request: dict[str, Any], timeout: float) -> tuple[dict[str, Any] | None, str | None]:
        proc = self._start()
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(json.dumps(request) + "\n")
        proc.stdin.flush()
        ready, _, _ = select.select([proc.stdout], [], [], timeout)
        if not ready:
            self.close()
            return None, f"> {timeout:g} s"
        line = proc.stdout.readline()
        if not line:
            self.close()
            return None, "worker died"
        reply = json.loads(line)
        if "error" in reply:
            return None, reply["error"]
        return reply, None

    def close(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.proc = None


def worker_loop(handle: Callable[[dict[str, Any]], dict[str, Any]]) -> None:
    """Serve :class:`Worker` requests on stdin/stdout until stdin closes."""
    out = sys.stdout
    sys.stdout = sys.stderr  # stray prints must not corrupt the reply channel
    for line in sys.stdin:
        try:
            reply = handle(json.loads(line))
        except Exception as e:  # noqa: BLE001 - reported to the parent
            reply = {"error": f"{type(e).__name__}: {str(e)[:200]}"}
        out.write(json.dumps(reply) + "\n")
        out.flush()


def run_case(argv: list[str], timeout: float) -> tuple[dict[str, Any] | None, str | None, float]:
    """Run ``argv`` (a child printing JSON lines, the latest one the most complete) with a timeout,
    polling its peak RSS.

    Returns ``(reply, status, peak_rss_mb)``: ``status`` is None, ``"> T s"`` or an error; on a
    timeout ``reply`` is the last JSON line the child had printed (partial results), if any.
    """
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    t0 = time.perf_counter()
    peak = 0.0
    status = None
    while proc.poll() is None:
        hwm = peak_rss_mb(proc.pid)
        if hwm == hwm:
            peak = max(peak, hwm)
        if time.perf_counter() - t0 > timeout:
            proc.kill()
            status = f"> {timeout:g} s"
            break
        time.sleep(0.05)
    out, err = proc.communicate()
    lines = [ln for ln in out.strip().splitlines() if ln.startswith("{")]
    reply = json.loads(lines[-1]) if lines else None
    if status is None and (proc.returncode != 0 or reply is None):
        tail = err.strip().splitlines()[-1:] if err else []
        status = f"failed (rc {proc.returncode}): {tail[0][:120] if tail else ''}"
    if reply is not None:
        peak = max(peak, float(reply.get("peak_rss_mb", 0.0)), float(reply.get("engine_peak_rss_mb", 0.0)))
    return reply, status, peak
