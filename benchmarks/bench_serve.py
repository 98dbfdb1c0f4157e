"""`toolgram serve` under load: requests/s and latency for 1, 4 and 8 concurrent clients, time to
first byte of a streamed response, and the server's overhead over a direct ``Generator.chat``.

    python benchmarks/bench_serve.py [--requests 24] [--model PATH]

Each request is a short prompt with a named tool choice and ``max_tokens`` 32 (greedy), so every
request generates the same 32-token call. The server runs in a subprocess on 127.0.0.1 (port 0);
the direct ``Generator.chat`` baseline runs in this process with the same model, tools and
options, interleaved with single server requests (median of the per-pair ratios). Requests are
queued in the server (one generation at a time), so requests/s stays flat with more clients and
latency grows with the queue.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import threading
import time
from typing import Any

import httpx

TOOLS = [{"type": "function", "function": {
    "name": "get_weather", "description": "Get the current weather in a city",
    "parameters": {"type": "object", "properties": {"location": {"type": "string"}}, "required": ["location"]}}}]
MESSAGES = [{"role": "user", "content": "Weather in Paris?"}]
MAX_TOKENS = 32


def body(stream: bool = False) -> dict[str, Any]:
    return {"messages": MESSAGES, "tools": TOOLS, "max_tokens": MAX_TOKENS, "parallel_tool_calls": False,
            "tool_choice": {"type": "function", "function": {"name": "get_weather"}}, "stream": stream}


def start_server(model: str | None) -> tuple[subprocess.Popen[str], str]:
    cmd = [sys.executable, "-m", "toolgram.cli", "serve", "--port", "0"] + (["--model", model] if model else [])
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"})
    assert proc.stdout is not None
    for line in proc.stdout:
        if "http://" in line:
            return proc, line.split()[-1]
    raise SystemExit("the server did not start")


def pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, round(q * (len(s) - 1)))]


def load(url: str, clients: int, total: int) -> tuple[float, list[float]]:
    latencies: list[float] = []
    lock = threading.Lock()
    per = total // clients

    def worker() -> None:
        with httpx.Client(timeout=300) as c:
            for _ in range(per):
                t0 = time.perf_counter()
                r = c.post(url + "/chat/completions", json=body())
                r.raise_for_status()
                assert r.json()["choices"][0]["message"]["tool_calls"]
                with lock:
                    latencies.append(time.perf_counter() - t0)

    t0 = time.perf_counter()
    threads = [threading.Thread(target=worker) for _ in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return len(latencies) / (time.perf_counter() - t0), latencies


def ttfb(url: str, n: int) -> tuple[list[float], list[float]]:
    """Seconds to the first SSE byte and to the first tool-call delta."""
    first_byte, first_call = [], []
    with httpx.Client(timeout=300) as c:
        for _ in range(n):
            t0 = time.perf_counter()
            with c.stream("POST", url + "/chat/completions", json=body(stream=True)) as r:
                got_byte = got_call = False
                for line in r.iter_lines():  # read to the end: the stream finishes normally
                    if not got_byte:
                        first_byte.append(time.perf_counter() - t0)
                        got_byte = True
                    if not got_call and '"tool_calls"' in line:
                        first_call.append(time.perf_counter() - t0)
                        got_call = True
    return first_byte, first_call


def overhead(url: str, gen: Any, pairs: int) -> None:
    """Server (1 client) ÷ direct ``Generator.chat`` for the same request, interleaved pairs."""
    b = body()
    server_s, direct_s, ratios = [], [], []
    with httpx.Client(timeout=300) as c:
        for i in range(pairs + 2):
            t0 = time.perf_counter()
            out = gen.chat(b["messages"], b["tools"], tool_choice=b["tool_choice"], parallel_tool_calls=False,
                           max_new_tokens=MAX_TOKENS)
            d = time.perf_counter() - t0
            assert out["message"]["tool_calls"], json.dumps(out["message"])
            t0 = time.perf_counter()
            c.post(url + "/chat/completions", json=b).raise_for_status()
            sv = time.perf_counter() - t0
            if i >= 2:  # warm-up pairs
                direct_s.append(d)
                server_s.append(sv)
                ratios.append(sv / d)
    print(f"direct Generator.chat p50 {statistics.median(direct_s) * 1000:.0f} ms; server (1 client) p50 "
          f"{statistics.median(server_s) * 1000:.0f} ms; overhead ratio (median of {pairs} interleaved pairs) "
          f"{statistics.median(ratios):.3f} (target <= 1.1)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--requests", type=int, default=24, help="requests per concurrency level")
    ap.add_argument("--model", default=None)
    args = ap.parse_args()
    print(f"load average before: {os.getloadavg()}; cpus: {os.cpu_count()}")
    from toolgram.runtime.generator import Generator

    gen = Generator(args.model)  # the direct baseline, loaded before the server so both stay warm
    proc, url = start_server(args.model)
    try:
        with httpx.Client(timeout=300) as c:  # warm up: grammar compile, first-token caches
            for _ in range(2):
                c.post(url + "/chat/completions", json=body()).raise_for_status()
        print(f"{'clients':>7} {'req/s':>7} {'p50 ms':>8} {'p95 ms':>8}")
        for clients in (1, 4, 8):
            rps, lat = load(url, clients, max(args.requests - args.requests % clients, clients))
            print(f"{clients:>7} {rps:>7.2f} {statistics.median(lat) * 1000:>8.0f} {pct(lat, 0.95) * 1000:>8.0f}")
        fb, fc = ttfb(url, 8)
        print(f"streamed: time to first byte p50 {statistics.median(fb) * 1000:.0f} ms, "
              f"to the first tool-call delta p50 {statistics.median(fc) * 1000:.0f} ms")
        overhead(url, gen, max(8, args.requests // 2))
    finally:
        proc.terminate()
        proc.wait(timeout=60)

    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
