"""``toolgram serve``: an OpenAI-compatible chat-completions server on OpenVINO GenAI (issue 11)."""

from __future__ import annotations

import argparse
import contextlib
import signal
import sys
import threading
from collections.abc import Iterator
from typing import Any

from ..errors import ToolgramError
from .common import (
    add_any_order_option,
    add_language_options,
    add_model_options,
    add_permissive_option,
    language_kwargs,
)


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = sub.add_parser("serve", help="serve an OpenAI-compatible /v1/chat/completions with constrained tool calls")
    add_model_options(p, "; the model id is its file stem")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8000, help="port (default 8000; 0 picks a free one)")
    p.add_argument("--max-grammars", type=int, default=16,
                   help="distinct compiled grammars the OpenVINO pipeline may hold before it is reloaded "
                   "(bounds memory; default 16)")
    add_language_options(p)  # the defaults of requests that name no xml_values/whitespace
    add_permissive_option(p, "relax schema keywords a grammar cannot enforce (uniqueItems...) for requests that do not "
                          "say otherwise (their 'permissive' field); default: such tools are a 400 naming the keyword")
    add_any_order_option(p, "object members in any order (objects of up to 6 members) for requests that do not say "
                         "otherwise (their 'any_order' field); default: the properties order")
    p.add_argument("--engine", choices=("batch", "queue"), default=None,
                   help="batch: continuous batching (ContinuousBatchingPipeline, concurrent requests decoded "
                   "together); queue: one LLMPipeline, one generation at a time. Default: batch when the model "
                   "loads that way, else queue")
    p.add_argument("--max-batch", type=int, default=8,
                   help="requests decoded together by the batch engine (max_num_seqs; default 8)")
    p.add_argument("--kv-cache-size", type=int, default=1,
                   help="KV cache of the batch engine in GB (default 1)")
    p.add_argument("--prefix-caching", choices=("on", "off"), default="on",
                   help="batch engine: requests that start with the same prompt text (system prompt, tools) "
                   "reuse its KV cache instead of computing it again (enable_prefix_caching; default on)")
    p.add_argument("--max-queue", type=int, default=64,
                   help="requests that may wait for the engine; more get HTTP 429 with Retry-After (default 64)")
    p.add_argument("--request-timeout", type=float, default=None, metavar="S",
                   help="seconds a request may take from arrival: still queued -> HTTP 503 queue_timeout; "
                   "running -> stopped and answered with what it has (finish_reason length, a 'timeout' "
                   "diagnostic). Default: no limit")
    p.add_argument("--log-level", default="warning", choices=("critical", "error", "warning", "info", "debug"),
                   help="uvicorn's log level (default warning)")
    return p


def _say(text: str) -> None:
    print(f"toolgram: {text}", file=sys.stderr, flush=True)


def run(args: argparse.Namespace) -> int:
    try:
        import uvicorn

        from ..runtime.server import create_app
    except ModuleNotFoundError as exc:
        raise ToolgramError(f"toolgram serve needs the 'serve' extra (pip install 'toolgram[serve]'): {exc}") from None
    from ..grammars import get_format

    if args.format is not None:
        get_format(args.format)
    if not 0 <= args.port <= 65535:
        raise ToolgramError(f"--port must be between 0 and 65535, got {args.port}")
    if args.max_queue < 0 or args.max_batch < 1 or args.kv_cache_size < 1:
        raise ToolgramError("--max-queue must be at least 0, --max-batch and --kv-cache-size at least 1")
    if args.request_timeout is not None and args.request_timeout <= 0:
        raise ToolgramError("--request-timeout must be above 0")
    gen = _load(args)
    _say(f"engine: {gen.engine}" + (f" (continuous batching, up to {args.max_batch} requests at once, "
                                    f"{args.kv_cache_size} GB KV cache, prefix caching {args.prefix_caching})"
                                    if gen.engine == "batch"
                                    else " (one generation at a time, requests queued)")
         + f"; max queue {args.max_queue}"
         + (f"; request timeout {args.request_timeout:g} s" if args.request_timeout else ""))
    fmt, note = gen.resolve_format(args.format)
    if note:
        _say(note)
    elif args.format is None and gen.detected:
        _say(f"format {fmt} (detected: {gen.detected[1]})")
    app = create_app(gen, format=fmt, max_queue=args.max_queue, request_timeout=args.request_timeout,
                     permissive=args.permissive, any_order=args.any_order, **language_kwargs(args))
    model_id = app.state.model_id

    class Server(uvicorn.Server):
        def handle_exit(self, sig: int, frame: Any) -> None:
            app.state.shutting_down.set()  # the running generation stops at its next token
            super().handle_exit(sig, frame)

        @contextlib.contextmanager
        def capture_signals(self) -> Iterator[None]:
            # uvicorn re-raises SIGTERM/SIGINT after its graceful shutdown (exit status 143/130);
            # a requested shutdown that completed is a clean exit here (status 0).
            if threading.current_thread() is not threading.main_thread():
                yield
                return
            old = {s: signal.signal(s, self.handle_exit) for s in (signal.SIGINT, signal.SIGTERM)}
            try:
                yield
            finally:
                for s, h in old.items():
                    signal.signal(s, h)

        async def startup(self, sockets: Any = None) -> None:
            await super().startup(sockets)
            if self.started:
                host, port = args.host, args.port
                for server in getattr(self, "servers", []):
                    for sock in server.sockets:
                        port = sock.getsockname()[1]
                        break
                shown = f"[{host}]" if ":" in host else host
                print(f"toolgram: serving {model_id} ({fmt}) at http://{shown}:{port}/v1", flush=True)

    config = uvicorn.Config(app, host=args.host, port=args.port, log_level=args.log_level,
                            timeout_graceful_shutdown=10)
    try:
        Server(config).run()
    finally:
        gen.close()
    _say("stopped")
    return 0


def _load(args: argparse.Namespace) -> Any:
    """The engine: continuous batching unless ``--engine queue``, or when it cannot load (then said)."""
    from ..runtime.generator import Generator

    if args.engine in (None, "batch"):
        from ..runtime.batching import BatchGenerator

        try:
            return BatchGenerator(args.model, args.device, progress=_say, max_grammars=args.max_grammars,
                                  max_batch=args.max_batch, kv_cache_size=args.kv_cache_size,
                                  prefix_caching=args.prefix_caching == "on")
        except ToolgramError as exc:
            if args.engine == "batch" or "continuous batching" not in str(exc):
                raise
            _say(f"continuous batching unavailable ({exc}); falling back to the queued engine")
    return Generator(args.model, args.device, progress=_say, max_grammars=args.max_grammars)
