"""`toolgram serve` under load: continuous batching vs the queued engine, with and without grammars.

    python benchmarks/bench_serve.py [--requests 32] [--clients 1,4,8,16] [--engines batch,batch-noprefix,queue]
                                     [--model PATH]
    python benchmarks/bench_serve.py --quick      # a tiny run that checks the script works (no figures)

For each engine (a server subprocess on 127.0.0.1: ``batch``, ``batch-noprefix`` with ``--prefix-caching off``,
``queue``) and each grammar mode
(``grammar``: a named tool choice, so every request is constrained; ``free``: the same prompt and
tools with ``tool_choice: "none"``, no grammar) and each number of concurrent clients, it sends
``--requests`` streamed requests (greedy, ``max_tokens`` 32) and prints requests/s, generated
tokens/s (usage of every answer over the wall time), p50/p99 latency and p50 time to the first
token (the first delta with content or a call). ``--overhead`` adds the server's overhead over a
direct ``Generator.chat`` (one client, interleaved pairs). Figures are for a quiet machine: the
load average is printed before and after.
"""

from __future__ import annotations

import argparse
import itertools
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
CITIES = ("Paris", "Madrid", "Tokyo", "Lima", "Oslo", "Cairo", "Delhi", "Quito", "Rome", "Seoul", "Accra", "Hanoi")
MAX_TOKENS = 32
_count = itertools.count()


def body(stream: bool = False, grammar: bool = True) -> dict[str, Any]:
    """One request; the city changes from request to request (the tools and the prompt around them do not)."""
    choice: Any = {"type": "function", "function": {"name": "get_weather"}} if grammar else "none"
    city = CITIES[next(_count) % len(CITIES)]
    return {"messages": [{"role": "user", "content": f"Weather in {city}?"}], "tools": TOOLS, "max_tokens": MAX_TOKENS,
            "parallel_tool_calls": False,
            "tool_choice": choice, "stream": stream, "stream_options": {"include_usage": True} if stream else None}


#: engine labels -> ``toolgram serve`` flags
ENGINES = {"batch": ["--engine", "batch"], "batch-noprefix": ["--engine", "batch", "--prefix-caching", "off"],
           "queue": ["--engine", "queue"]}


def start_server(model: str | None, engine: str = "batch", max_batch: int = 16) -> tuple[subprocess.Popen[str], str]:
    cmd = [sys.executable, "-m", "toolgram.cli", "serve", "--port", "0", *ENGINES[engine], "--max-queue", "256",
           "--max-batch", str(max_batch)] + (["--model", model] if model else [])
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


def streamed(c: httpx.Client, url: str, b: dict[str, Any]) -> tuple[float, float | None, int]:
    """One streamed request: (latency s, time to the first token s, generated tokens)."""
    t0 = time.perf_counter()
    first, tokens = None, 0
    with c.stream("POST", url + "/chat/completions", json=b) as r:
        r.raise_for_status()
        for line in r.iter_lines():
            if not line.startswith("data: {"):
                continue
            obj = json.loads(line[6:])
            if obj.get("usage"):
                tokens = obj["usage"]["completion_tokens"]
            for ch in obj["choices"]:
                d = ch["delta"]
                if first is None and (d.get("content") or d.get("tool_calls")):
                    first = time.perf_counter() - t0
    return time.perf_counter() - t0, first, tokens


def load(url: str, clients: int, total: int, grammar: bool) -> dict[str, float]:
    latencies: list[float] = []
    ttfts: list[float] = []
    tokens = [0]
    lock = threading.Lock()
    per = max(1, total // clients)

    def worker() -> None:
        with httpx.Client(timeout=600) as c:
            for _ in range(per):
                lat, first, n = streamed(c, url, body(stream=True, grammar=grammar))
                with lock:
                    latencies.append(lat)
                    tokens[0] += n
                    if first is not None:
                        ttfts.append(first)

    t0 = time.perf_counter()
    threads = [threading.Thread(target=worker) for _ in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - t0
    return {"rps": len(latencies) / wall, "tps": tokens[0] / wall, "p50": statistics.median(latencies),
            "p99": pct(latencies, 0.99), "ttft": statistics.median(ttfts) if ttfts else float("nan")}


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
    ap.add_argument("--requests", type=int, default=32, help="requests per (engine, grammar, clients) cell")
    ap.add_argument("--clients", default="1,4,8,16", help="concurrency levels (comma-separated)")
    ap.add_argument("--engines", default=",".join(ENGINES),
                    help=f"engines to compare (comma-separated, of {', '.join(ENGINES)})")
    ap.add_argument("--overhead", action="store_true", help="also measure the overhead over Generator.chat")
    ap.add_argument("--quick", action="store_true", help="a tiny run: 2 requests, 1 and 2 clients, no overhead")
    ap.add_argument("--model", default=None)
    args = ap.parse_args()
    levels = [int(c) for c in args.clients.split(",")]
    if args.quick:
        args.requests, levels = 2, [1, 2]
    print(f"load average before: {os.getloadavg()}; cpus: {os.cpu_count()}")
    rows: dict[tuple[str, str, int], dict[str, float]] = {}
    print(f"{'engine':>14} {'grammar':>7} {'clients':>7} {'req/s':>7} {'tok/s':>7} {'p50 ms':>8} {'p99 ms':>8} "
          f"{'TTFT ms':>8}")
    for engine in args.engines.split(","):
        proc, url = start_server(args.model, engine, max(levels))
        try:
            with httpx.Client(timeout=600) as c:  # warm up: grammar compile, first-token caches
                for grammar in (True, False):
                    streamed(c, url, body(stream=True, grammar=grammar))
            for grammar in (True, False):
                for clients in levels:
                    r = load(url, clients, max(args.requests - args.requests % clients, clients), grammar)
                    mode = "grammar" if grammar else "free"
                    rows[(engine, mode, clients)] = r
                    print(f"{engine:>14} {mode:>7} {clients:>7} {r['rps']:>7.2f} {r['tps']:>7.1f} "
                          f"{r['p50'] * 1000:>8.0f} {r['p99'] * 1000:>8.0f} {r['ttft'] * 1000:>8.0f}", flush=True)
            if args.overhead and engine == "queue":
                from toolgram.runtime.generator import Generator

                overhead(url, Generator(args.model), max(8, args.requests // 2))
        finally:
            proc.terminate()
            proc.wait(timeout=60)
    for batch in ("batch", "batch-noprefix"):
        for mode in ("grammar", "free"):
            for clients in sorted({8, max(levels)} & set(levels)):  # the target is at 8 clients; the highest too
                b, q = rows.get((batch, mode, clients)), rows.get(("queue", mode, clients))
                if b and q:
                    print(f"{mode}, {clients} clients: {batch} / queue requests/s {b['rps'] / q['rps']:.2f}x "
                          f"(target >= 2 at 8); {batch} p99 / p50 {b['p99'] / b['p50']:.2f} (target <= 2)")
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
