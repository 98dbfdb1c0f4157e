"""An OpenAI-compatible chat-completions server over :class:`~toolgram.runtime.generator.Generator`.

``create_app(generator)`` builds a FastAPI (Starlette) application; ``toolgram serve`` runs it with
uvicorn. Endpoints: ``POST /v1/chat/completions`` (streaming and not), ``GET /v1/models``,
``GET /v1/models/{id}``, ``GET /health``, ``GET /metrics``.

- **Grammars**: each request's grammar is ``toolgram.compile(..., dialect="ebnf")`` for its tools
  and options, applied through OpenVINO structured output; the Generator reuses compiled grammars
  (bounded; see :mod:`toolgram.runtime.generator`).
- **Concurrency.** The engine is the generator's: a :class:`~toolgram.runtime.batching.BatchGenerator`
  decodes up to ``max_batch`` requests together (continuous batching), a plain ``Generator`` one at a
  time (FIFO on a single worker thread). The event loop keeps accepting connections and answering
  ``/health``, ``/metrics`` and ``/v1/models``. Each request has its own grammar, stream parser and
  result, so concurrent clients get separate answers.
- **Overload**: at most ``max_queue`` requests wait; more get HTTP 429 ``rate_limit_exceeded`` with
  ``Retry-After``. ``request_timeout``: a request still waiting then gets 503 ``queue_timeout``; a
  running one stops and is answered with what it has (``finish_reason`` ``length``, a ``timeout``
  diagnostic). ``GET /metrics``: Prometheus text format (:mod:`toolgram.runtime.metrics`).
- **Cancellation**: a client that disconnects stops its own generation at the next token; a queued
  request whose client has gone is skipped. Shutdown (SIGTERM/SIGINT) stops the running generations the
  same way.
- **Additions** to OpenAI's request: ``max_tool_calls`` (as in OpenAI's Responses API; enforced by
  the grammar), ``xml_values`` and ``whitespace`` (SPEC section 1: the grammar's language; the
  server's defaults are ``toolgram serve --xml-values/--whitespace``), ``permissive`` (relax schema
  keywords no grammar can enforce instead of answering 400; default ``toolgram serve --permissive``),
  ``any_order`` (object members in any order; default ``toolgram serve --any-order``) and
  ``continue_final_message`` (vLLM's): the final assistant message is a prefill the model
  continues, and the answer is the message parsed from prefill + continuation (prefill the
  format's call opening, e.g. ``"<tool_call>\n"``, to make a call under ``auto``). Each choice
  carries toolgram's ``diagnostics``.
- **Errors** use OpenAI's shape ``{"error": {"message", "type", "param", "code"}}``: invalid JSON,
  tools, schemas or options are 400 (``param`` is the JSON path, e.g.
  ``$.tools[0].function.parameters.properties.x.type``), a prompt longer than the context is 400
  ``context_length_exceeded``, an unknown model 404 ``model_not_found``.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
import uuid
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, PlainTextResponse, StreamingResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from ..compiler.options import WHITESPACE, XML_VALUES, choose
from ..errors import ToolgramError
from .generator import Cancelled, ContextLengthError, Generator, QueueTimeout
from .metrics import CONTENT_TYPE, ServerMetrics

__all__ = ["DEFAULT_MAX_QUEUE", "DEFAULT_MAX_TOKENS", "ApiError", "create_app"]

#: ``max_tokens`` when the request names none.
DEFAULT_MAX_TOKENS = 256
#: Requests that may wait for the engine before new ones are refused with 429.
DEFAULT_MAX_QUEUE = 64


class ApiError(Exception):
    """An error answered with OpenAI's error shape."""

    def __init__(self, status: int, message: str, param: str | None = None, code: str | None = None,
                 type: str = "invalid_request_error",  # noqa: A002 - OpenAI's field name
                 headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status, self.message, self.param, self.code, self.type = status, message, param, code, type
        self.headers = headers

    def response(self) -> JSONResponse:
        body = {"error": {"message": self.message, "type": self.type, "param": self.param, "code": self.code}}
        return JSONResponse(body, status_code=self.status, headers=self.headers)


def _from_toolgram(exc: ToolgramError) -> ApiError:
    if isinstance(exc, ContextLengthError):
        return ApiError(400, str(exc), "messages", "context_length_exceeded")
    path = exc.path
    if path and path.startswith("$["):
        path = "$.tools" + path[1:]  # the compiler's paths are relative to the tools array
    message = f"{exc.message} (at {path})" if path and path.startswith("$") else str(exc)
    return ApiError(400, message, path, "invalid_value")


def _opt(body: dict[str, Any], name: str, types: type | tuple[type, ...], default: Any = None) -> Any:
    value = body.get(name, default)
    if value is None:
        return default
    if isinstance(value, bool) and bool not in (types if isinstance(types, tuple) else (types,)):
        raise ApiError(400, f"'{name}' has the wrong type", name, "invalid_type")
    if not isinstance(value, types):
        raise ApiError(400, f"'{name}' has the wrong type", name, "invalid_type")
    return value


class _Request:
    """The validated fields of one chat-completions request."""

    def __init__(self, body: Any, model_id: str) -> None:
        if not isinstance(body, dict):
            raise ApiError(400, "the request body must be a JSON object", None, "invalid_json")
        model = body.get("model")
        if model is not None and model != model_id:
            raise ApiError(404, f"The model '{model}' does not exist; this server serves '{model_id}'",
                           "model", "model_not_found")
        messages = body.get("messages")
        if not isinstance(messages, list) or not messages:
            raise ApiError(400, "'messages' must be a non-empty array of message objects", "messages", "invalid_value")
        for i, m in enumerate(messages):
            if not isinstance(m, dict) or not isinstance(m.get("role"), str):
                raise ApiError(400, f"messages[{i}] must be an object with a 'role'", f"$.messages[{i}]",
                               "invalid_value")
        messages = [_flatten_content(m, i) for i, m in enumerate(messages)]
        self.prefill: str | None = None
        if body.get("continue_final_message"):
            last = messages[-1]
            if last.get("role") != "assistant" or not isinstance(last.get("content"), str):
                raise ApiError(400, "'continue_final_message' needs a final assistant message with string content",
                               "continue_final_message", "invalid_value")
            self.prefill, messages = last["content"], messages[:-1]
            if not messages:
                raise ApiError(400, "'messages' holds only the message to continue", "messages", "invalid_value")
        self.messages: list[dict[str, Any]] = messages
        tools = body.get("tools")
        if tools is not None and not isinstance(tools, list):
            raise ApiError(400, "'tools' must be an array", "tools", "invalid_type")
        self.tools: list[dict[str, Any]] = tools or []
        choice = body.get("tool_choice")
        if choice is None:
            choice = "auto"
        if not isinstance(choice, (str, dict)):
            raise ApiError(400, "'tool_choice' must be a string or an object", "tool_choice", "invalid_type")
        if not self.tools and choice not in ("auto", "none"):
            raise ApiError(400, "'tool_choice' needs 'tools'", "tool_choice", "invalid_value")
        self.tool_choice: Any = choice
        self.parallel: bool | None = _opt(body, "parallel_tool_calls", bool)
        self.max_tool_calls: int | None = _opt(body, "max_tool_calls", int)
        #: SPEC section 1's language options (``None``: the server's default)
        self.language: dict[str, str] = {}
        for key, allowed in (("xml_values", XML_VALUES), ("whitespace", WHITESPACE)):
            value = _opt(body, key, str)
            if value is not None and value not in allowed:
                raise ApiError(400, f"'{key}' must be {' or '.join(allowed)}", key, "invalid_value")
            if value is not None:
                self.language[key] = value
        #: relax schema keywords no grammar can enforce instead of refusing the tools (``None``: the server's default)
        self.permissive: bool | None = _opt(body, "permissive", bool)
        #: object members in any order (``None``: the server's default)
        self.any_order: bool | None = _opt(body, "any_order", bool)
        max_tokens = _opt(body, "max_completion_tokens", int)
        if max_tokens is None:
            max_tokens = _opt(body, "max_tokens", int, DEFAULT_MAX_TOKENS)
        if max_tokens < 1:
            raise ApiError(400, "'max_tokens' must be at least 1", "max_tokens", "invalid_value")
        self.max_tokens: int = max_tokens
        self.temperature = float(_opt(body, "temperature", (int, float), 0.0))
        if not 0 <= self.temperature <= 2:
            raise ApiError(400, "'temperature' must be between 0 and 2", "temperature", "invalid_value")
        self.seed: int = _opt(body, "seed", int, 0)
        stop = body.get("stop")
        if isinstance(stop, str):
            stop = [stop]
        if stop is not None and (not isinstance(stop, list) or not all(isinstance(s, str) and s for s in stop)):
            raise ApiError(400, "'stop' must be a string or an array of strings", "stop", "invalid_type")
        self.stop: list[str] | None = stop or None
        self.stream: bool = bool(_opt(body, "stream", bool, False))
        options = _opt(body, "stream_options", dict, {})
        self.include_usage = bool(options.get("include_usage"))
        if _opt(body, "n", int, 1) != 1:
            raise ApiError(400, "only n=1 is supported", "n", "invalid_value")


def _flatten_content(message: dict[str, Any], i: int) -> dict[str, Any]:
    """OpenAI content parts (``[{"type": "text", "text": ...}]``) become one string."""
    content = message.get("content")
    if not isinstance(content, list):
        return message
    texts = []
    for j, part in enumerate(content):
        if not isinstance(part, dict) or part.get("type") != "text" or not isinstance(part.get("text"), str):
            raise ApiError(400, "only text content parts are supported", f"$.messages[{i}].content[{j}]",
                           "invalid_value")
        texts.append(part["text"])
    return {**message, "content": "".join(texts)}


def _chunk(cid: str, created: int, model: str, delta: dict[str, Any] | None, finish: str | None = None,
           usage: dict[str, Any] | None = None, diagnostics: list[dict[str, Any]] | None = None) -> str:
    obj: dict[str, Any] = {"id": cid, "object": "chat.completion.chunk", "created": created, "model": model,
                           "choices": [] if delta is None else
                           [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}]}
    if diagnostics:
        obj["choices"][0]["diagnostics"] = diagnostics
    if usage is not None:
        obj["usage"] = usage
    return f"data: {json.dumps(obj, ensure_ascii=False)}\n\n"


def _usage(result: dict[str, Any]) -> dict[str, int]:
    u = result["usage"]
    return {"prompt_tokens": u["prompt_tokens"], "completion_tokens": u["completion_tokens"],
            "total_tokens": u["prompt_tokens"] + u["completion_tokens"]}


class _Track:
    """One accepted request's life: waiting, running, answered (for the queue bound and the metrics)."""

    def __init__(self, metrics: ServerMetrics, timeout: float | None) -> None:
        self.metrics = metrics
        self.t_accept = time.monotonic()
        self.deadline = self.t_accept + timeout if timeout is not None else None
        self.t_start: float | None = None
        self._lock = threading.Lock()
        metrics.queued(+1)

    def start(self) -> None:
        with self._lock:
            self.t_start = time.monotonic()
            self.metrics.started()

    def end(self, future: Future[Any], cancel: threading.Event) -> None:
        """Account for the request's outcome (called once, when its future is done)."""
        with self._lock:
            started = self.t_start is not None
        if started:
            self.metrics.stopped_running()
        else:
            self.metrics.queued(-1)
        if future.cancelled():
            self.metrics.count("cancelled")
            return
        exc = future.exception()
        if exc is None:
            result = future.result()
            if result is None:
                self.metrics.count("cancelled")
                return
            now = time.monotonic()
            ttft_ms = (result.get("timings") or {}).get("ttft_ms")
            ttft = (self.t_start - self.t_accept) + ttft_ms / 1000 if ttft_ms is not None and self.t_start else None
            self.metrics.done(result, now - self.t_accept, ttft)
            if result["message"].get("finish_reason") == "length" and any(
                    d.get("code") == "timeout" for d in result["message"].get("diagnostics") or []):
                self.metrics.count("timeout")  # answered with what it had: counted as success and timeout
        elif isinstance(exc, QueueTimeout):
            self.metrics.count("timeout")
        elif isinstance(exc, Cancelled) or cancel.is_set():
            self.metrics.count("cancelled")
        else:
            self.metrics.count("error")


def create_app(generator: Generator, model_id: str | None = None, format: str | None = None,  # noqa: A002
               xml_values: str | None = None, whitespace: str | None = None,
               *, max_queue: int = DEFAULT_MAX_QUEUE, request_timeout: float | None = None,
               permissive: bool = False, any_order: bool = False) -> FastAPI:
    """The FastAPI application serving ``generator`` as model ``model_id`` (default: the model file's stem).

    ``xml_values``, ``whitespace``, ``permissive`` and ``any_order`` are the defaults of the requests that name
    none (``permissive``: relax schema keywords no grammar can enforce, as ``toolgram compile --permissive`` does,
    instead of answering HTTP 400; ``any_order``: object members in any order, as ``--any-order``).
    ``max_queue``: requests that may wait for the engine; past it new requests get HTTP 429
    (``rate_limit_exceeded``, with ``Retry-After``). ``request_timeout``: seconds from acceptance;
    a request still waiting then gets HTTP 503 ``queue_timeout``, a running one stops and is
    answered with what it has (``finish_reason`` ``length``, a ``timeout`` diagnostic).
    """
    defaults = {"xml_values": choose(xml_values, XML_VALUES, "xml_values"),
                "whitespace": choose(whitespace, WHITESPACE, "whitespace")}
    if max_queue < 0:
        raise ToolgramError("max_queue must be at least 0")
    if request_timeout is not None and request_timeout <= 0:
        raise ToolgramError("request_timeout must be above 0")
    model_id = model_id or generator.model_path.stem
    fmt, _note = generator.resolve_format(format)
    engine = getattr(generator, "engine", "queue")
    slots = int(getattr(generator, "max_batch", 1)) if engine == "batch" else 1
    # queue: one worker, FIFO; batch: a thread per running or waiting request (each blocks in chat)
    executor = ThreadPoolExecutor(max_workers=1 if engine != "batch" else slots + max_queue + 1,
                                  thread_name_prefix="toolgram-generate")
    shutting_down = threading.Event()
    created_at = int(time.time())
    metrics = ServerMetrics(model_id, engine)

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> Any:
        yield
        shutting_down.set()  # stops the running generation at its next token
        executor.shutdown(wait=True, cancel_futures=True)

    app = FastAPI(title="toolgram", lifespan=lifespan)
    app.state.generator = generator
    app.state.model_id = model_id
    app.state.format = fmt
    app.state.shutting_down = shutting_down  # set it to stop the running generation (SIGTERM)
    app.state.metrics = metrics
    app.state.engine = engine

    @app.exception_handler(ApiError)
    async def _api_error(_request: Request, exc: ApiError) -> JSONResponse:
        return exc.response()

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(_request: Request, exc: StarletteHTTPException) -> JSONResponse:
        code = "not_found" if exc.status_code == 404 else "http_error"
        return ApiError(exc.status_code, str(exc.detail), None, code).response()

    @app.exception_handler(Exception)
    async def _internal(_request: Request, exc: Exception) -> JSONResponse:
        return ApiError(500, f"internal error: {type(exc).__name__}: {exc}", None, "internal_error",
                        "server_error").response()

    @app.get("/health")
    async def health() -> dict[str, Any]:
        return {"status": "ok", "model": model_id, "format": fmt, "engine": engine,
                "running": metrics.running, "waiting": metrics.waiting}

    @app.get("/metrics")
    async def prometheus() -> PlainTextResponse:
        extra = {"toolgram_max_queue": max_queue, "toolgram_max_batch": slots,
                 "toolgram_grammars_held": generator.cached_grammars}
        return PlainTextResponse(metrics.render(extra), media_type=CONTENT_TYPE)

    def model_card() -> dict[str, Any]:
        return {"id": model_id, "object": "model", "created": created_at, "owned_by": "toolgram"}

    @app.get("/v1/models")
    async def models() -> dict[str, Any]:
        return {"object": "list", "data": [model_card()]}

    @app.get("/v1/models/{name:path}")
    async def model(name: str) -> dict[str, Any]:
        if name != model_id:
            raise ApiError(404, f"The model '{name}' does not exist", "model", "model_not_found")
        return model_card()

    def run(req: _Request, cancel: threading.Event, track: _Track, on_delta: Any = None,
            on_start: Any = None) -> Any:
        if cancel.is_set() or shutting_down.is_set():
            return None  # the client left while the request was queued
        if track.deadline is not None and time.monotonic() > track.deadline:
            raise QueueTimeout("the request timed out waiting for the engine")

        def started() -> None:
            track.start()
            if on_start is not None:
                on_start()

        return generator.chat(
            req.messages, req.tools, tool_choice=req.tool_choice, parallel_tool_calls=req.parallel, format=fmt,
            max_new_tokens=req.max_tokens, temperature=req.temperature, seed=req.seed, stop=req.stop,
            prefill=req.prefill, max_tool_calls=req.max_tool_calls, **{**defaults, **req.language},
            permissive=permissive if req.permissive is None else req.permissive,
            any_order=any_order if req.any_order is None else req.any_order,
            on_delta=on_delta, on_start=started, deadline=track.deadline,
            should_stop=lambda: cancel.is_set() or shutting_down.is_set(),
        )

    def submit(req: _Request, cancel: threading.Event, *args: Any) -> Future[Any]:
        """Accept the request (or refuse it: 429 when ``max_queue`` requests already wait)."""
        if metrics.waiting >= max_queue:
            metrics.count("rejected")
            wait = metrics.retry_after(slots)
            raise ApiError(429, f"the server is at capacity ({max_queue} requests waiting); retry after {wait} s",
                           None, "rate_limit_exceeded", "requests", headers={"Retry-After": str(wait)})
        track = _Track(metrics, request_timeout)
        future = executor.submit(run, req, cancel, track, *args)
        future.add_done_callback(lambda f: track.end(f, cancel))
        return future

    def engine_error(exc: BaseException) -> ApiError:
        if isinstance(exc, QueueTimeout):
            return ApiError(503, f"{exc.message} ({request_timeout} s)", None, "queue_timeout", "server_error",
                            headers={"Retry-After": str(metrics.retry_after(slots))})
        if isinstance(exc, Cancelled):
            return ApiError(503, "the server is shutting down", None, "shutting_down", "server_error")
        if isinstance(exc, ToolgramError):
            return _from_toolgram(exc)
        raise exc

    @app.post("/v1/chat/completions")
    async def chat_completions(request: Request) -> Any:
        raw = await request.body()
        try:
            body = json.loads(raw)
        except (ValueError, UnicodeDecodeError) as exc:
            raise ApiError(400, f"the request body is not valid JSON: {exc}", None, "invalid_json") from None
        req = _Request(body, model_id)
        cid = f"chatcmpl-{uuid.uuid4().hex}"
        created = int(time.time())
        loop = asyncio.get_running_loop()
        cancel = threading.Event()
        if not req.stream:
            future = asyncio.wrap_future(submit(req, cancel))
            try:
                while not future.done():  # a client that hangs up stops its generation
                    await asyncio.wait({future}, timeout=0.5)
                    if not future.done() and await request.is_disconnected():
                        cancel.set()
                result = future.result()
            except ToolgramError as exc:
                raise engine_error(exc) from None
            except asyncio.CancelledError:
                cancel.set()
                raise
            if result is None:
                raise ApiError(503, "the server is shutting down", None, "shutting_down", "server_error")
            return JSONResponse(_completion(cid, created, model_id, result))

        events: asyncio.Queue[tuple[str, Any]] = asyncio.Queue()

        def push(kind: str, value: Any = None) -> None:
            loop.call_soon_threadsafe(events.put_nowait, (kind, value))

        future = submit(req, cancel, lambda d: push("delta", d), lambda: push("start"))
        future.add_done_callback(lambda f: push("done", f))
        try:
            kind, value = await events.get()
        except asyncio.CancelledError:
            cancel.set()
            raise
        if kind == "done":  # failed (or skipped) before generation started
            try:
                value.result()
            except ToolgramError as exc:
                raise engine_error(exc) from None
            raise ApiError(503, "the server is shutting down", None, "shutting_down", "server_error")

        pending = [(kind, value)] if kind == "delta" else []

        async def stream() -> Any:
            try:
                yield _chunk(cid, created, model_id, {"role": "assistant", "content": ""})
                while True:
                    kind, value = pending.pop() if pending else await events.get()
                    if kind == "delta":
                        yield _chunk(cid, created, model_id, value)
                        continue
                    if kind != "done":
                        continue
                    try:
                        result = value.result()
                    except Exception as exc:  # noqa: BLE001 - reported in the stream, headers are sent
                        err = {"error": {"message": str(exc), "type": "server_error", "param": None, "code": None}}
                        yield f"data: {json.dumps(err)}\n\n"
                        break
                    if result is None:
                        break
                    msg, usage = result["message"], _usage(result)
                    yield _chunk(cid, created, model_id, {}, msg["finish_reason"],
                                 None if req.include_usage else usage, msg.get("diagnostics"))
                    if req.include_usage:
                        yield _chunk(cid, created, model_id, None, usage=usage)
                    break
                yield "data: [DONE]\n\n"
            finally:
                cancel.set()  # normal end, or the client went away (the task is cancelled)

        return StreamingResponse(stream(), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})

    return app


def _completion(cid: str, created: int, model_id: str, result: dict[str, Any]) -> dict[str, Any]:
    msg = result["message"]
    message: dict[str, Any] = {"role": "assistant", "content": msg.get("content")}
    if msg.get("reasoning_content") is not None:
        message["reasoning_content"] = msg["reasoning_content"]
    if msg.get("tool_calls"):
        message["tool_calls"] = msg["tool_calls"]
    return {
        "id": cid, "object": "chat.completion", "created": created, "model": model_id,
        "choices": [{"index": 0, "message": message, "logprobs": None, "finish_reason": msg["finish_reason"],
                     "diagnostics": msg.get("diagnostics") or []}],
        "usage": _usage(result),
    }
