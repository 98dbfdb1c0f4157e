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
from .common import add_language_options, add_model_options, language_kwargs


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = sub.add_parser("serve", help="serve an OpenAI-compatible /v1/chat/completions with constrained tool calls")
    add_model_options(p, "; the model id is its file stem")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8000, help="port (default 8000; 0 picks a free one)")
    p.add_argument("--max-grammars", type=int, default=16,
                   help="distinct compiled grammars the OpenVINO pipeline may hold before it is reloaded "
                   "(bounds memory; default 16)")
    add_language_options(p)  # the defaults of requests that name no xml_values/whitespace
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
    from ..runtime.generator import Generator

    if args.format is not None:
        get_format(args.format)
    if not 0 <= args.port <= 65535:
        raise ToolgramError(f"--port must be between 0 and 65535, got {args.port}")
    gen = Generator(args.model, args.device, progress=_say, max_grammars=args.max_grammars)
    fmt, note = gen.resolve_format(args.format)
    if note:
        _say(note)
    elif args.format is None and gen.detected:
        _say(f"format {fmt} (detected: {gen.detected[1]})")
    app = create_app(gen, format=fmt, **language_kwargs(args))
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
    Server(config).run()
    _say("stopped")
    return 0
