"""Prometheus metrics of ``toolgram serve`` in the text exposition format 0.0.4 (no dependency).

Names follow vLLM's (``vllm:num_requests_running`` -> ``toolgram_num_requests_running``) so the
dashboards and alerts operators of vLLM and OVMS already have map over. :class:`ServerMetrics`
holds the server's counters; :meth:`ServerMetrics.render` writes them out.
"""

from __future__ import annotations

import math
import threading
import time
from collections import deque
from typing import Any

__all__ = ["CONTENT_TYPE", "LATENCY_BUCKETS", "ServerMetrics"]

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
#: Histogram buckets (seconds) for request latency and time to first token.
LATENCY_BUCKETS = (0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 20.0, 40.0, 80.0)
#: Outcomes counted by ``toolgram_requests_total``.
OUTCOMES = ("success", "rejected", "timeout", "error", "cancelled")
_RATE_WINDOW = 10.0  # seconds over which generation tokens/s is measured


def _num(value: float) -> str:
    if isinstance(value, float) and math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    return repr(float(value)) if isinstance(value, float) else str(value)


def _labels(labels: dict[str, str]) -> str:
    if not labels:
        return ""
    body = ",".join(f'{k}="{v}"' for k, v in labels.items())
    return "{" + body + "}"


class _Histogram:
    def __init__(self, buckets: tuple[float, ...]) -> None:
        self.buckets = buckets
        self.counts = [0] * len(buckets)
        self.sum = 0.0
        self.count = 0

    def observe(self, value: float) -> None:
        for i, b in enumerate(self.buckets):
            if value <= b:
                self.counts[i] += 1
        self.sum += value
        self.count += 1


class ServerMetrics:
    """Counters, gauges and histograms of one server (thread-safe)."""

    def __init__(self, model_id: str, engine: str) -> None:
        self.model_id, self.engine = model_id, engine
        self._lock = threading.Lock()
        self.requests = dict.fromkeys(OUTCOMES, 0)
        self.finished = {"stop": 0, "tool_calls": 0, "length": 0}
        self.waiting = 0
        self.running = 0
        self.prompt_tokens = 0
        self.generation_tokens = 0
        self.cache = {"hit": 0, "miss": 0}
        self.engine_cache = {"hit": 0, "miss": 0}
        self.compile_s = {"toolgram": [0.0, 0], "engine": [0.0, 0]}
        self.e2e = _Histogram(LATENCY_BUCKETS)
        self.ttft = _Histogram(LATENCY_BUCKETS)
        self._recent: deque[tuple[float, int]] = deque()  # (finish time, tokens) within the rate window
        self._latency_ema: float | None = None

    # ---------------------------------------------------------------- updates

    def count(self, outcome: str) -> None:
        with self._lock:
            self.requests[outcome] += 1

    def queued(self, delta: int) -> None:
        with self._lock:
            self.waiting += delta

    def started(self) -> None:
        with self._lock:
            self.waiting -= 1
            self.running += 1

    def stopped_running(self) -> None:
        with self._lock:
            self.running -= 1

    def done(self, result: dict[str, Any], seconds: float, ttft_s: float | None) -> None:
        """A request answered: its usage, grammar timings and latency."""
        usage, timings = result["usage"], result.get("timings") or {}
        reason = result["message"].get("finish_reason") or "stop"
        now = time.monotonic()
        with self._lock:
            self.requests["success"] += 1
            self.finished[reason] = self.finished.get(reason, 0) + 1
            self.prompt_tokens += usage["prompt_tokens"]
            self.generation_tokens += usage["completion_tokens"]
            self._recent.append((now, usage["completion_tokens"]))
            hit = timings.get("compile_cache_hit")
            if hit is not None:
                self.cache["hit" if hit else "miss"] += 1
            held = timings.get("grammar_reused")
            if held is not None:
                self.engine_cache["hit" if held else "miss"] += 1
            if timings.get("toolgram_compile_ms") is not None and not hit:
                self.compile_s["toolgram"][0] += timings["toolgram_compile_ms"] / 1000
                self.compile_s["toolgram"][1] += 1
            if timings.get("grammar_compile_ms") is not None:
                self.compile_s["engine"][0] += timings["grammar_compile_ms"] / 1000
                self.compile_s["engine"][1] += 1
            self.e2e.observe(seconds)
            if ttft_s is not None:
                self.ttft.observe(ttft_s)
            self._latency_ema = seconds if self._latency_ema is None else 0.8 * self._latency_ema + 0.2 * seconds

    def tokens_per_second(self) -> float:
        """Generated tokens per second over the last 10 s (requests finished in that window)."""
        now = time.monotonic()
        with self._lock:
            while self._recent and self._recent[0][0] < now - _RATE_WINDOW:
                self._recent.popleft()
            return sum(n for _, n in self._recent) / _RATE_WINDOW

    def retry_after(self, slots: int) -> int:
        """Seconds a rejected client should wait: the queue ahead divided over the slots, at the mean latency."""
        with self._lock:
            latency = self._latency_ema if self._latency_ema is not None else 1.0
            return max(1, math.ceil(latency * (self.waiting + self.running) / max(1, slots)))

    # ---------------------------------------------------------------- output

    def render(self, extra: dict[str, float] | None = None) -> str:
        """The metrics in the text exposition format 0.0.4."""
        tps = self.tokens_per_second()
        m = {"model_name": self.model_id}
        out: list[str] = []

        def metric(name: str, kind: str, doc: str, samples: list[tuple[dict[str, str], float]]) -> None:
            out.append(f"# HELP {name} {doc}")
            out.append(f"# TYPE {name} {kind}")
            out.extend(f"{name}{_labels({**m, **lab})} {_num(v)}" for lab, v in samples)

        def histogram(name: str, doc: str, h: _Histogram) -> None:
            out.append(f"# HELP {name} {doc}")
            out.append(f"# TYPE {name} histogram")
            for b, c in zip(h.buckets, h.counts, strict=True):
                out.append(f"{name}_bucket{_labels({**m, 'le': _num(float(b))})} {c}")
            out.append(f"{name}_bucket{_labels({**m, 'le': '+Inf'})} {h.count}")
            out.append(f"{name}_sum{_labels(m)} {_num(h.sum)}")
            out.append(f"{name}_count{_labels(m)} {h.count}")

        with self._lock:
            metric("toolgram_requests_total", "counter", "Requests by outcome (rejected: 429 queue full).",
                   [({"outcome": k}, v) for k, v in self.requests.items()])
            metric("toolgram_request_success_total", "counter", "Answered requests by finish reason.",
                   [({"finished_reason": k}, v) for k, v in self.finished.items()])
            metric("toolgram_num_requests_waiting", "gauge", "Requests waiting for the engine.", [({}, self.waiting)])
            metric("toolgram_num_requests_running", "gauge", "Requests being generated.", [({}, self.running)])
            metric("toolgram_prompt_tokens_total", "counter", "Prompt tokens of answered requests.",
                   [({}, self.prompt_tokens)])
            metric("toolgram_generation_tokens_total", "counter", "Generated tokens of answered requests.",
                   [({}, self.generation_tokens)])
            metric("toolgram_generation_tokens_per_second", "gauge",
                   "Generated tokens per second over the last 10 s.", [({}, round(tps, 3))])
            metric("toolgram_grammar_cache_hits_total", "counter",
                   "Compiled grammars reused (cache: toolgram's compile cache, or the engine's compiled set).",
                   [({"cache": "toolgram"}, self.cache["hit"]), ({"cache": "engine"}, self.engine_cache["hit"])])
            metric("toolgram_grammar_cache_misses_total", "counter", "Grammars compiled anew (by cache).",
                   [({"cache": "toolgram"}, self.cache["miss"]), ({"cache": "engine"}, self.engine_cache["miss"])])
            out.append("# HELP toolgram_grammar_compile_seconds Grammar compile time (stage: toolgram's compile, "
                       "the engine's matcher compile when it reports one).")
            out.append("# TYPE toolgram_grammar_compile_seconds summary")
            for stage, (total, n) in self.compile_s.items():
                out.append(f"toolgram_grammar_compile_seconds_sum{_labels({**m, 'stage': stage})} {_num(total)}")
                out.append(f"toolgram_grammar_compile_seconds_count{_labels({**m, 'stage': stage})} {n}")
            histogram("toolgram_e2e_request_latency_seconds", "End-to-end latency of answered requests.", self.e2e)
            histogram("toolgram_time_to_first_token_seconds", "Time to the first generated token.", self.ttft)
        for name, value in (extra or {}).items():
            metric(name, "gauge", name.removeprefix("toolgram_").replace("_", " ") + ".", [({}, value)])
        return "\n".join(out) + "\n"
