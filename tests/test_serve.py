"""`toolgram serve` through the official `openai` client: SmolLM2-135M on CPU, 127.0.0.1 only.

One server process for the session (started from the tests, ``--port 0``); every call's arguments
validate against the tool's schema with ``jsonschema``.
"""

from __future__ import annotations

import json
import re
import signal
import sys
import threading
import time
from collections.abc import Iterator
from typing import Any

import jsonschema
import pytest
from serving import ServeProcess
from weather import SCHEMAS, TAG_RELAXED, TAG_TOOLS, TOOLS

pytest.importorskip("openvino_genai")
pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")
openai = pytest.importorskip("openai")
httpx = pytest.importorskip("httpx")

pytestmark = pytest.mark.model

PARIS = [{"role": "user", "content": "What's the weather like in Paris right now?"}]


class Server(ServeProcess):
    def __init__(self, *extra: str) -> None:
        super().__init__([sys.executable, "-m", "toolgram.cli"], extra=extra)
        self.root = self.url.removesuffix("/v1")
        models = httpx.get(self.url + "/models", timeout=10).json()
        self.model = models["data"][0]["id"]

    def client(self) -> Any:
        return openai.OpenAI(base_url=self.url, api_key="unused", max_retries=0, timeout=120)


@pytest.fixture(scope="session")
def server() -> Iterator[Server]:
    srv = Server()
    yield srv
    # SIGTERM during a long streamed generation: a clean, prompt shutdown with exit status 0
    body = {"model": srv.model, "messages": [{"role": "user", "content": "Tell me a very long story."}],
            "max_tokens": 2000, "stream": True}
    lines: list[str] = []

    def stream() -> None:
        try:
            with httpx.stream("POST", srv.url + "/chat/completions", json=body, timeout=60) as r:
                lines.extend(line for line in r.iter_lines() if line)
        except httpx.HTTPError:
            pass

    reader = threading.Thread(target=stream, daemon=True)
    reader.start()
    time.sleep(2)
    t0 = time.monotonic()
    srv.proc.send_signal(signal.SIGTERM)
    try:
        code = srv.proc.wait(timeout=30)
    finally:
        if srv.proc.poll() is None:
            srv.proc.kill()
    elapsed = time.monotonic() - t0
    reader.join(timeout=10)
    assert code == 0, "".join(srv.stderr)[-2000:]
    assert elapsed < 8, elapsed  # not the 2000 tokens, nor uvicorn's 10 s graceful timeout
    assert lines and lines[-1] == "data: [DONE]"


def check_calls(calls: list[Any], only: str | None = None) -> list[tuple[str, dict[str, Any]]]:
    """Every call names a tool and its arguments validate against the tool's schema."""
    out = []
    for c in calls:
        name = c.function.name
        assert name in SCHEMAS and (only is None or name == only)
        args = json.loads(c.function.arguments)
        jsonschema.validate(args, SCHEMAS[name])
        out.append((name, args))
    return out


def test_models_and_health(server: Server) -> None:
    assert server.model == "SmolLM2-135M-Instruct.Q4_1"
    assert [m.id for m in server.client().models.list()] == [server.model]
    health = httpx.get(server.root + "/health", timeout=10).json()
    assert health["status"] == "ok" and health["engine"] == "batch"  # continuous batching is the default
    assert any("engine: batch" in line for line in server.stderr)


def test_required(server: Server) -> None:
    r = server.client().chat.completions.create(model=server.model, messages=PARIS, tools=TOOLS,
                                                tool_choice="required", parallel_tool_calls=False, max_tokens=48)
    choice = r.choices[0]
    assert choice.finish_reason == "tool_calls"
    assert len(choice.message.tool_calls) == 1
    check_calls(choice.message.tool_calls)
    assert r.usage.prompt_tokens > 0 and r.usage.completion_tokens > 0
    assert r.usage.total_tokens == r.usage.prompt_tokens + r.usage.completion_tokens


def test_named(server: Server) -> None:
    r = server.client().chat.completions.create(
        model=server.model, messages=PARIS, tools=TOOLS, max_tokens=48, parallel_tool_calls=False,
        tool_choice={"type": "function", "function": {"name": "get_forecast"}})
    assert r.choices[0].finish_reason == "tool_calls"
    check_calls(r.choices[0].message.tool_calls, only="get_forecast")


def test_auto_with_a_prefilled_call_opening(server: Server) -> None:
    messages = [*PARIS, {"role": "assistant", "content": "<tool_call>\n"}]
    r = server.client().chat.completions.create(
        model=server.model, messages=messages, tools=TOOLS, tool_choice="auto", parallel_tool_calls=False,
        max_tokens=48, extra_body={"continue_final_message": True})
    assert r.choices[0].finish_reason == "tool_calls"
    assert len(check_calls(r.choices[0].message.tool_calls)) == 1


def test_streaming_deltas_accumulate_like_the_client(server: Server) -> None:
    stream = server.client().chat.completions.create(
        model=server.model, messages=PARIS, tools=TOOLS, tool_choice="required", parallel_tool_calls=False,
        max_tokens=48, stream=True, stream_options={"include_usage": True})
    calls: dict[int, dict[str, str]] = {}
    finish, usage, roles = None, None, []
    for chunk in stream:
        if chunk.usage is not None:
            usage = chunk.usage
        for choice in chunk.choices:
            if choice.delta.role:
                roles.append(choice.delta.role)
            for tc in choice.delta.tool_calls or []:
                c = calls.setdefault(tc.index, {"id": "", "name": "", "arguments": ""})
                c["id"] += tc.id or ""
                c["name"] += (tc.function and tc.function.name) or ""
                c["arguments"] += (tc.function and tc.function.arguments) or ""
            finish = choice.finish_reason or finish
    assert roles == ["assistant"] and finish == "tool_calls"
    assert usage is not None and usage.completion_tokens > 0
    assert list(calls) == [0] and calls[0]["id"] == "call_0"
    jsonschema.validate(json.loads(calls[0]["arguments"]), SCHEMAS[calls[0]["name"]])


def test_sse_wire_format_ends_with_done(server: Server) -> None:
    body = {"model": server.model, "messages": PARIS, "tools": TOOLS, "tool_choice": "required",
            "parallel_tool_calls": False, "max_tokens": 48, "stream": True}
    with httpx.stream("POST", server.url + "/chat/completions", json=body, timeout=120) as r:
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/event-stream")
        events = [line for line in r.iter_lines() if line]
    assert all(e.startswith("data: ") for e in events)
    assert events[-1] == "data: [DONE]"
    last = json.loads(events[-2][6:])
    assert last["object"] == "chat.completion.chunk" and last["choices"][0]["finish_reason"] == "tool_calls"
    assert last["usage"]["completion_tokens"] > 0


def test_two_parallel_calls(server: Server) -> None:
    messages = [{"role": "user", "content": "What is the weather in Paris and the forecast for Rome for 3 days?"}]
    r = server.client().chat.completions.create(
        model=server.model, messages=messages, tools=TOOLS, tool_choice="required", parallel_tool_calls=True,
        max_tokens=128, extra_body={"max_tool_calls": 2})
    choice = r.choices[0]
    assert choice.finish_reason == "tool_calls"
    assert len(check_calls(choice.message.tool_calls)) == 2
    assert [c.id for c in choice.message.tool_calls] == ["call_0", "call_1"]


def test_tool_choice_none(server: Server) -> None:
    r = server.client().chat.completions.create(model=server.model, messages=PARIS, tools=TOOLS,
                                                tool_choice="none", max_tokens=24)
    choice = r.choices[0]
    assert not choice.message.tool_calls and choice.message.content
    assert choice.finish_reason in ("stop", "length")


def _good(server: Server) -> None:
    r = server.client().chat.completions.create(model=server.model, messages=PARIS, tools=TOOLS,
                                                tool_choice="required",
                                                parallel_tool_calls=False, max_tokens=64)
    assert r.choices[0].finish_reason == "tool_calls"
    check_calls(r.choices[0].message.tool_calls)


def _error(response: httpx.Response, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    err = response.json()["error"]
    assert set(err) == {"message", "type", "param", "code"} and err["code"] == code and err["message"]
    return err


def test_bad_requests_get_openai_errors_and_the_server_keeps_serving(server: Server) -> None:
    post = server.url + "/chat/completions"
    bad_tools = json.loads(json.dumps(TOOLS))
    bad_tools[1]["function"]["parameters"]["properties"]["days"]["type"] = "integr"
    err = _error(httpx.post(post, json={"model": server.model, "messages": PARIS, "tools": bad_tools}, timeout=60),
                 400, "invalid_value")
    assert err["param"] == "$.tools[1].function.parameters.properties.days.type"
    assert "$.tools[1].function.parameters.properties.days.type" in err["message"]
    _good(server)
    # through the official client: the same status surfaces as its exception types
    with pytest.raises(openai.NotFoundError) as nf:
        server.client().chat.completions.create(model="gpt-nope", messages=PARIS, max_tokens=8)
    assert nf.value.status_code == 404 and nf.value.code == "model_not_found"
    _good(server)
    long = [{"role": "user", "content": "word " * 9000}]
    err = _error(httpx.post(post, json={"model": server.model, "messages": long}, timeout=60),
                 400, "context_length_exceeded")
    n_prompt = int(re.search(r"the prompt is (\d+) tokens", err["message"]).group(1))
    assert 9000 < n_prompt < 9500 and "8192" in err["message"]  # the real length, not the tokenizer's cap
    _good(server)
    err = _error(httpx.post(post, content=b'{"model": "x", "messages": [', timeout=60,
                            headers={"content-type": "application/json"}), 400, "invalid_json")
    _good(server)
    _error(httpx.post(post, json={"messages": PARIS, "tools": TOOLS, "tool_choice": "no_such_tool"}, timeout=60),
           400, "invalid_value")
    _error(httpx.post(post, json={"messages": "hi"}, timeout=60), 400, "invalid_value")
    _error(httpx.get(server.root + "/nope", timeout=10), 404, "not_found")
    _good(server)


def test_language_options_per_request(server: Server) -> None:
    """``whitespace`` and ``xml_values`` request fields (SPEC section 2): checked, then used."""
    post = server.url + "/chat/completions"
    for key in ("whitespace", "xml_values"):
        err = _error(httpx.post(post, json={"messages": PARIS, "tools": TOOLS, key: "pretty"}, timeout=60),
                     400, "invalid_value")
        assert err["param"] == key
    r = server.client().chat.completions.create(
        model=server.model, messages=PARIS, tools=TOOLS, tool_choice="required", parallel_tool_calls=False,
        max_tokens=64, extra_body={"whitespace": "flexible", "xml_values": "lookahead"})
    assert r.choices[0].finish_reason == "tool_calls"
    check_calls(r.choices[0].message.tool_calls)


def test_permissive_per_request(server: Server) -> None:
    """``permissive`` request field: a schema keyword no grammar enforces is a 400 naming its path by default
    (the server runs without ``--permissive``), and relaxed when the request asks; a wrong type is a 400."""
    post = server.url + "/chat/completions"
    tools = TAG_TOOLS
    ask = [{"role": "user", "content": "Tag Paris as sunny and warm."}]
    err = _error(httpx.post(post, json={"messages": ask, "tools": tools, "tool_choice": "required"}, timeout=60),
                 400, "invalid_value")
    assert err["param"] == "$.tools[0].function.parameters.properties.tags.uniqueItems"
    assert "permissive" in err["message"]
    err = _error(httpx.post(post, json={"messages": ask, "tools": tools, "permissive": "yes"}, timeout=60),
                 400, "invalid_type")
    assert err["param"] == "permissive"
    r = server.client().chat.completions.create(
        model=server.model, messages=ask, tools=tools, tool_choice="required", parallel_tool_calls=False,
        max_tokens=64, extra_body={"permissive": True})
    assert r.choices[0].finish_reason == "tool_calls"
    (call,) = r.choices[0].message.tool_calls
    args = json.loads(call.function.arguments)
    jsonschema.validate(args, TAG_RELAXED)


@pytest.mark.model
def test_permissive_and_any_order_as_the_servers_defaults() -> None:
    """``create_app(permissive=True, any_order=True)`` (``toolgram serve --permissive --any-order``): requests
    that name neither are relaxed and take members in any order, and a request may still say otherwise."""
    from fastapi.testclient import TestClient
    from toolgram.runtime.generator import Generator
    from toolgram.runtime.server import create_app

    body = {"messages": [{"role": "user", "content": "Tag Paris as sunny and warm."}], "tools": TAG_TOOLS,
            "tool_choice": "required", "parallel_tool_calls": False, "max_tokens": 64}
    # arguments begun with the member the schema declares last: only an any-order grammar continues them
    begun = {"messages": [{"role": "user", "content": "Forecast for Rome, 3 days?"},
                          {"role": "assistant", "content": '<tool_call>\n{"name": "get_forecast", "arguments": '
                                                           '{"days": '}],
             "tools": TOOLS, "tool_choice": "required", "parallel_tool_calls": False, "max_tokens": 40,
             "continue_final_message": True}
    with TestClient(create_app(Generator(), permissive=True, any_order=True)) as c:
        r = c.post("/v1/chat/completions", json=body)
        assert r.status_code == 200, r.text
        (call,) = r.json()["choices"][0]["message"]["tool_calls"]
        jsonschema.validate(json.loads(call["function"]["arguments"]), TAG_RELAXED)
        err = _error(c.post("/v1/chat/completions", json={**body, "permissive": False}), 400, "invalid_value")
        assert err["param"].endswith("properties.tags.uniqueItems")

        r = c.post("/v1/chat/completions", json=begun)
        assert r.status_code == 200, r.text
        (call,) = r.json()["choices"][0]["message"]["tool_calls"]
        args = json.loads(call["function"]["arguments"])
        assert list(args) == ["days", "location"], args
        jsonschema.validate(args, SCHEMAS["get_forecast"])
        err = _error(c.post("/v1/chat/completions", json={**begun, "any_order": False}), 400, "invalid_value")
        assert "prefill" in err["message"], err
        _error(c.post("/v1/chat/completions", json={**begun, "any_order": "yes"}), 400, "invalid_type")


CITIES = ["Paris", "Rome", "Berlin", "Madrid"]


@pytest.mark.slow
def test_concurrent_clients_get_their_own_answers(server: Server) -> None:
    """4 clients x 3 requests at once: each answer is its own request's, never another client's.

    Greedy answers under concurrency are not compared with the same request alone: a batch of four runs other
    kernels than a batch of one, and on a near tie SmolLM2 picks another token (seen: ``"location"`` for
    ``"Madrid"``). Mixing shows as another client's city in an answer, or a call to the other tool."""

    def ask(c: Any, i: int, j: int) -> Any:
        tool = ["get_weather", "get_forecast"][(i + j) % 2]
        return c.chat.completions.create(
            model=server.model, max_tokens=64, tools=TOOLS, parallel_tool_calls=False,
            messages=[{"role": "user", "content": f"What's the weather like in {CITIES[i]}?"}],
            tool_choice={"type": "function", "function": {"name": tool}})

    results: dict[tuple[int, int], Any] = {}
    errors: list[BaseException] = []

    def client(i: int) -> None:
        c = server.client()
        try:
            for j in range(3):
                results[(i, j)] = ask(c, i, j)
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    # one request first, alone: openai's client builds its response models lazily, and four threads building them
    # at once raised pydantic's "BaseModel cannot be instantiated directly" once in CI (7 Dec), in the client
    ask(server.client(), 0, 0)
    threads = [threading.Thread(target=client, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    assert not errors, errors
    assert len(results) == 12 and len({r.id for r in results.values()}) == 12
    for (i, j), r in results.items():
        tool = ["get_weather", "get_forecast"][(i + j) % 2]
        calls = r.choices[0].message.tool_calls
        check_calls(calls, only=tool)
        named = {city for city in CITIES for c in calls if city in c.function.arguments}
        assert named <= {CITIES[i]}, (i, j, named)  # no other client's city
    assert any(CITIES[i] in r.choices[0].message.tool_calls[0].function.arguments for (i, _), r in results.items())


def test_client_disconnect_mid_stream_stops_generation(server: Server) -> None:
    body = {"model": server.model, "messages": [{"role": "user", "content": "Tell me a very long story."}],
            "max_tokens": 2000, "stream": True}
    t0 = time.monotonic()
    with httpx.stream("POST", server.url + "/chat/completions", json=body, timeout=120) as r:
        assert r.status_code == 200
        seen = 0
        for line in r.iter_lines():
            if line.startswith("data: "):
                seen += 1
            if seen >= 4:
                break  # leave mid-stream: the connection closes
    assert httpx.get(server.root + "/health", timeout=10).status_code == 200
    _good(server)
    # 2000 tokens at SmolLM2's ~20-60 tok/s would hold the queue for 30 s or more
    assert time.monotonic() - t0 < 25


def test_client_giving_up_on_a_non_streamed_request_stops_generation(server: Server) -> None:
    body = {"model": server.model, "messages": [{"role": "user", "content": "Tell me a very long story."}],
            "max_tokens": 2000}
    t0 = time.monotonic()
    with pytest.raises(httpx.TimeoutException):
        httpx.post(server.url + "/chat/completions", json=body, timeout=2)
    _good(server)
    assert time.monotonic() - t0 < 25


def test_streamed_reasoning_content(server: Server) -> None:
    prefill = "<think>The user wants the weather in Paris.</think>\n<tool_call>\n"
    stream = server.client().chat.completions.create(
        model=server.model, messages=[*PARIS, {"role": "assistant", "content": prefill}], tools=TOOLS,
        tool_choice="required",
        parallel_tool_calls=False, max_tokens=48, stream=True, extra_body={"continue_final_message": True})
    reasoning, args, finish = "", "", None
    for chunk in stream:
        for choice in chunk.choices:
            reasoning += getattr(choice.delta, "reasoning_content", None) or ""
            for tc in choice.delta.tool_calls or []:
                args += (tc.function and tc.function.arguments) or ""
            finish = choice.finish_reason or finish
    assert reasoning == "The user wants the weather in Paris."
    assert finish == "tool_calls"
    jsonschema.validate(json.loads(args), SCHEMAS["get_weather"] if "days" not in args else SCHEMAS["get_forecast"])


# ----------------------------------------------------------------------------- under load (issue 29)

SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})? (-?[0-9.e+-]+|\+Inf|NaN)$')


def metrics(server: Server) -> dict[str, float]:
    """``/metrics`` read as {'name{labels}': value}; every line is a comment or a well-formed sample."""
    r = httpx.get(server.root + "/metrics", timeout=10)
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/plain; version=0.0.4")
    out: dict[str, float] = {}
    for line in r.text.splitlines():
        if line.startswith("#"):
            assert re.match(r"^# (HELP|TYPE) toolgram_\w+ ", line), line
            continue
        m = SAMPLE.match(line)
        assert m, line
        labels = re.sub(r',?model_name="[^"]*"', "", m.group(2) or "").replace("{,", "{")
        out[m.group(1) + ("" if labels in ("", "{}") else labels)] = float(m.group(3))
    return out


def test_metrics(server: Server) -> None:
    before = metrics(server)
    for name in ("toolgram_num_requests_running", "toolgram_num_requests_waiting",
                 "toolgram_generation_tokens_per_second", "toolgram_e2e_request_latency_seconds_count",
                 'toolgram_grammar_compile_seconds_sum{stage="toolgram"}', "toolgram_time_to_first_token_seconds_count",
                 'toolgram_grammar_cache_hits_total{cache="toolgram"}', "toolgram_max_queue"):
        assert name in before, name
    _good(server)
    _error(httpx.post(server.url + "/chat/completions", json={"messages": "hi"}, timeout=60), 400, "invalid_value")
    after = metrics(server)

    def grew(name: str) -> float:
        return after[name] - before.get(name, 0)

    assert grew('toolgram_requests_total{outcome="success"}') == 1
    assert grew('toolgram_request_success_total{finished_reason="tool_calls"}') == 1
    assert grew("toolgram_generation_tokens_total") > 0 and grew("toolgram_prompt_tokens_total") > 0
    assert grew('toolgram_grammar_cache_hits_total{cache="toolgram"}') + \
        grew('toolgram_grammar_cache_misses_total{cache="toolgram"}') == 1
    assert grew("toolgram_e2e_request_latency_seconds_count") == 1
    assert after['toolgram_e2e_request_latency_seconds_bucket{le="+Inf"}'] == \
        after["toolgram_e2e_request_latency_seconds_count"]
    assert after["toolgram_generation_tokens_per_second"] > 0
    assert after["toolgram_num_requests_running"] == 0 and after["toolgram_num_requests_waiting"] == 0


def _stream_calls(server: Server, body: dict[str, Any]) -> tuple[str | None, dict[int, dict[str, str]]]:
    calls: dict[int, dict[str, str]] = {}
    finish = None
    for chunk in server.client().chat.completions.create(**body, stream=True):
        for choice in chunk.choices:
            for tc in choice.delta.tool_calls or []:
                c = calls.setdefault(tc.index, {"name": "", "arguments": ""})
                c["name"] += (tc.function and tc.function.name) or ""
                c["arguments"] += (tc.function and tc.function.arguments) or ""
            finish = choice.finish_reason or finish
    return finish, calls


def test_batched_concurrent_requests_are_answered_separately(server: Server) -> None:
    """4 requests at once, each its own grammar (named tool), stream or not, one cut by max_tokens."""
    tools = ["get_weather", "get_forecast", "get_forecast", "get_weather"]
    results: dict[int, Any] = {}
    errors: list[BaseException] = []
    running: list[int] = []

    def ask(i: int) -> None:
        body = {"model": server.model, "tools": TOOLS, "parallel_tool_calls": False,
                "max_tokens": 6 if i == 3 else 64,
                "messages": [{"role": "user", "content": f"What's the weather like in {CITIES[i]}?"}],
                "tool_choice": {"type": "function", "function": {"name": tools[i]}}}
        try:
            if i % 2:
                results[i] = _stream_calls(server, body)
            else:
                r = server.client().chat.completions.create(**body)
                calls = r.choices[0].message.tool_calls or []
                results[i] = (r.choices[0].finish_reason,
                              {k: {"name": c.function.name, "arguments": c.function.arguments}
                               for k, c in enumerate(calls)})
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=ask, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    while any(t.is_alive() for t in threads):
        running.append(httpx.get(server.root + "/health", timeout=10).json()["running"])
        time.sleep(0.05)
    assert not errors, errors
    assert max(running) >= 2  # decoded together, not one after the other
    for i in range(3):
        finish, calls = results[i]
        assert finish == "tool_calls" and len(calls) == 1 and calls[0]["name"] == tools[i], (i, results[i])
        jsonschema.validate(json.loads(calls[0]["arguments"]), SCHEMAS[tools[i]])
    finish, calls = results[3]
    assert finish == "length" and all(c["name"] in ("", tools[3]) for c in calls.values())


def test_disconnect_cancels_only_its_request(server: Server) -> None:
    before = metrics(server)
    body = {"model": server.model, "messages": [{"role": "user", "content": "Tell me a very long story."}],
            "max_tokens": 2000, "stream": True}
    other: list[Any] = []
    with httpx.stream("POST", server.url + "/chat/completions", json=body, timeout=120) as r:
        assert r.status_code == 200
        seen = 0
        for line in r.iter_lines():
            seen += line.startswith("data: ")
            if seen == 2:  # the long request runs: another one joins the batch
                t = threading.Thread(target=lambda: other.append(_stream_calls(server, {
                    "model": server.model, "messages": PARIS, "tools": TOOLS, "tool_choice": "required",
                    "parallel_tool_calls": False, "max_tokens": 64})))
                t.start()
            if seen >= 6:
                break  # leave mid-stream
    t.join(timeout=120)
    finish, calls = other[0]
    assert finish == "tool_calls" and len(calls) == 1
    jsonschema.validate(json.loads(calls[0]["arguments"]), SCHEMAS[calls[0]["name"]])
    deadline = time.monotonic() + 20
    while (m := metrics(server))["toolgram_num_requests_running"] and time.monotonic() < deadline:
        time.sleep(0.2)
    assert m["toolgram_num_requests_running"] == 0  # the long request stopped, not its 2000 tokens
    assert m["toolgram_generation_tokens_total"] - before["toolgram_generation_tokens_total"] < 1000


@pytest.mark.slow  # two server processes of its own (~35 s)
def test_prefix_caching_changes_no_answer() -> None:
    """``--prefix-caching off`` answers the same requests with the same text as a server with it on (the default):
    one at a time, greedy, the second and third sharing the first's system prompt and tools, so the cached prefix
    is what the second server reads them from.  Both servers are fresh: the session server's cache may hold that
    prefix as computed in a batch of four (its concurrency tests), whose kernels round otherwise, and on a near tie
    greedy decoding then takes another token (seen in the slow run: another sentence about Rome's weather)."""
    cities = ["Paris", "Rome", "Paris"]

    def answers(srv: Server) -> list[tuple[str | None, str]]:
        out = []
        for tool_choice, city in zip(("required", "auto", "none"), cities, strict=True):
            r = srv.client().chat.completions.create(
                model=srv.model, tools=TOOLS, tool_choice=tool_choice, parallel_tool_calls=False, max_tokens=24,
                messages=[{"role": "user", "content": f"What's the weather like in {city}?"}])
            m = r.choices[0].message
            out.append((m.content, json.dumps([c.function.model_dump() for c in m.tool_calls or []])))
        return out

    caching = Server()
    try:
        assert "prefix caching on" in "".join(caching.stderr)
        cached = answers(caching)
    finally:
        caching.stop()
    uncached = Server("--prefix-caching", "off")
    try:
        assert "prefix caching off" in "".join(uncached.stderr)
        assert answers(uncached) == cached
    finally:
        uncached.stop()
    assert json.loads(cached[0][1])  # the required call was made


@pytest.fixture(scope="module")
def queued() -> Iterator[Server]:
    """The queued engine (one generation at a time), one request may wait, 5 s per request."""
    srv = Server("--engine", "queue", "--max-queue", "1", "--request-timeout", "5")
    try:
        yield srv
    finally:
        srv.stop()


def test_overload_is_429_and_a_running_request_times_out(queued: Server) -> None:
    assert any("engine: queue" in line for line in queued.stderr)
    long = {"model": queued.model, "messages": [{"role": "user", "content": "Tell me a very long story."}],
            "max_tokens": 2000, "stream": True}
    events: list[str] = []
    waiting: list[Any] = []
    t0 = time.monotonic()
    with httpx.stream("POST", queued.url + "/chat/completions", json=long, timeout=120) as r:
        assert r.status_code == 200
        lines = r.iter_lines()
        events.append(next(lines))  # running now
        second = threading.Thread(target=lambda: waiting.append(httpx.post(
            queued.url + "/chat/completions", timeout=120,
            json={"model": queued.model, "messages": PARIS, "tools": TOOLS, "tool_choice": "required",
                  "parallel_tool_calls": False, "max_tokens": 48})))
        second.start()
        while httpx.get(queued.root + "/health", timeout=10).json()["waiting"] < 1:
            time.sleep(0.05)
        t1 = time.monotonic()
        refused = httpx.post(queued.url + "/chat/completions", json={"model": queued.model, "messages": PARIS},
                             timeout=10)
        health = httpx.get(queued.root + "/health", timeout=10)
        assert time.monotonic() - t1 < 2  # answered at once, not queued
        err = _error(refused, 429, "rate_limit_exceeded")
        assert err["type"] == "requests" and err["param"] is None
        assert int(refused.headers["retry-after"]) >= 1
        assert health.status_code == 200 and health.json()["running"] == 1
        with pytest.raises(openai.RateLimitError):
            queued.client().chat.completions.create(model=queued.model, messages=PARIS, max_tokens=4)
        events.extend(line for line in lines if line)
    elapsed = time.monotonic() - t0
    assert 4 < elapsed < 15, elapsed  # stopped by the 5 s timeout, not by its 2000 tokens
    assert events[-1] == "data: [DONE]"
    final = json.loads(events[-2][6:])["choices"][0]
    assert final["finish_reason"] == "length" and [d["code"] for d in final["diagnostics"]] == ["timeout"]
    second.join(timeout=60)
    r = waiting[0]  # accepted: it waited, then got an answer of its own (complete, or cut by its own timeout)
    if r.status_code == 503:  # its deadline passed before the engine was free: an explicit error
        assert _error(r, 503, "queue_timeout")["type"] == "server_error" and r.headers["retry-after"]
        return
    assert r.status_code == 200, r.text
    choice = r.json()["choices"][0]
    assert choice["finish_reason"] in ("tool_calls", "length")
    if choice["finish_reason"] == "tool_calls":
        jsonschema.validate(json.loads(choice["message"]["tool_calls"][0]["function"]["arguments"]),
                            SCHEMAS[choice["message"]["tool_calls"][0]["function"]["name"]])
    else:
        assert [d["code"] for d in choice["diagnostics"]][-1] == "timeout"
    m = metrics(queued)
    assert m['toolgram_requests_total{outcome="rejected"}'] == 2
    assert m['toolgram_requests_total{outcome="timeout"}'] >= 1


MATH = [
    {"type": "function", "function": {"name": "add", "description": "Add two integers",
     "parameters": {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
                    "required": ["a", "b"], "additionalProperties": False}}},
    {"type": "function", "function": {"name": "convert", "description": "Convert an amount between currencies",
     "parameters": {"type": "object", "properties": {
         "amount": {"type": "number"}, "currency": {"type": "string", "enum": ["EUR", "USD", "JPY"]}},
         "required": ["amount", "currency"]}}},
]
MATH_SCHEMAS = {t["function"]["name"]: t["function"]["parameters"] for t in MATH}


def _rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmRSS:")) / 1024


@pytest.mark.slow
def test_bounded_load() -> None:
    """120 requests from 16 clients on the batch engine: mixed tool sets, tool_choice values, streaming on and
    off, some clients leaving mid-stream; a small queue so overload is answered with 429 (then retried)."""
    srv = Server("--max-batch", "8", "--max-queue", "4", "--max-grammars", "6")
    try:
        sets = [(TOOLS, SCHEMAS, "What's the weather like in Paris?"), (MATH, MATH_SCHEMAS, "Add 2 and 40.")]
        choices = ["auto", "required", "named", "none"]
        warm = {"model": srv.model, "messages": PARIS, "tools": TOOLS, "tool_choice": "required", "max_tokens": 32}
        httpx.post(srv.url + "/chat/completions", json=warm, timeout=120).raise_for_status()
        rss_before = _rss_mb(srv.proc.pid)
        lock = threading.Lock()
        answered, rejected, left, problems = [0], [0], [0], []

        def check(k: int, tools: list[Any], schemas: dict[str, Any], choice: Any, finish: str | None,
                  calls: list[tuple[str, str]]) -> None:
            try:
                assert finish in ("tool_calls", "stop", "length"), finish
                if choice == "none":
                    assert not calls
                for name, args in calls:
                    assert name in schemas, (name, "not one of this request's tools")
                    if isinstance(choice, dict):
                        assert name == choice["function"]["name"]
                    if finish == "tool_calls":
                        jsonschema.validate(json.loads(args), schemas[name])
                if choice in ("required",) or isinstance(choice, dict):
                    assert calls or finish == "length"
            except (AssertionError, ValueError, jsonschema.ValidationError) as exc:
                problems.append((k, repr(exc)))

        def one(k: int) -> None:
            tools, schemas, question = sets[k % 2]
            choice: Any = choices[(k // 2) % 4]
            if choice == "named":
                choice = {"type": "function", "function": {"name": tools[0]["function"]["name"]}}
            body = {"model": srv.model, "messages": [{"role": "user", "content": question}], "tools": tools,
                    "tool_choice": choice, "parallel_tool_calls": False, "max_tokens": 40,
                    "stream": k % 3 == 0}
            while True:
                if body["stream"]:
                    with httpx.stream("POST", srv.url + "/chat/completions", json=body, timeout=180) as r:
                        if r.status_code == 429:
                            r.read()
                        else:
                            assert r.status_code == 200, r.read()
                            events, calls, finish = [], {}, None
                            for line in r.iter_lines():
                                if not line:
                                    continue
                                events.append(line)
                                if k % 9 == 0 and len(events) >= 3:
                                    with lock:
                                        left[0] += 1
                                    return  # leaves mid-stream
                                if line == "data: [DONE]":
                                    break
                                for ch in json.loads(line[6:])["choices"]:
                                    for tc in ch["delta"].get("tool_calls") or []:
                                        c = calls.setdefault(tc["index"], ["", ""])
                                        c[0] += tc.get("function", {}).get("name") or ""
                                        c[1] += tc.get("function", {}).get("arguments") or ""
                                    finish = ch["finish_reason"] or finish
                            assert events[-1] == "data: [DONE]", events[-3:]
                            check(k, tools, schemas, choice, finish, [tuple(c) for c in calls.values()])
                            with lock:
                                answered[0] += 1
                            return
                else:
                    r = httpx.post(srv.url + "/chat/completions", json=body, timeout=180)
                    if r.status_code != 429:
                        assert r.status_code == 200, r.text
                        ch = r.json()["choices"][0]
                        calls = [(c["function"]["name"], c["function"]["arguments"])
                                 for c in ch["message"].get("tool_calls") or []]
                        check(k, tools, schemas, choice, ch["finish_reason"], calls)
                        with lock:
                            answered[0] += 1
                        return
                err = r.json()["error"]
                assert err["code"] == "rate_limit_exceeded" and int(r.headers["retry-after"]) >= 1
                with lock:
                    rejected[0] += 1
                time.sleep(0.3)  # retry (sooner than Retry-After: the test wants overload)

        errors: list[BaseException] = []

        def client(c: int) -> None:
            try:
                for j in range(8 if c < 8 else 7):
                    one(c + 16 * j)
            except BaseException as e:  # noqa: BLE001 - reported below
                errors.append(e)

        t0 = time.monotonic()
        threads = [threading.Thread(target=client, args=(c,)) for c in range(16)]
        for t in threads:
            t.start()
        health_s = []
        while any(t.is_alive() for t in threads) and time.monotonic() - t0 < 300:
            h0 = time.monotonic()
            assert httpx.get(srv.root + "/health", timeout=60).status_code == 200
            health_s.append(time.monotonic() - h0)
            time.sleep(0.5)
        for t in threads:
            t.join(timeout=60)
        assert not errors, errors[:3]
        assert not problems, problems[:5]
        assert answered[0] + left[0] == 120 and left[0] > 0
        assert rejected[0] > 0  # overload was answered with 429
        # a hang guard, not a speed target (those are bench_serve's): /health answers while the engine is
        # loaded; ContinuousBatchingPipeline.step() holds the GIL, so an answer can wait for one step
        # (measured up to 8 s with 16 clients on a machine loaded by other test runs)
        assert max(health_s) < 30, max(health_s)
        m = metrics(srv)
        assert m["toolgram_num_requests_running"] == 0 and m["toolgram_num_requests_waiting"] == 0
        assert m['toolgram_requests_total{outcome="rejected"}'] == rejected[0]
        assert m['toolgram_requests_total{outcome="error"}'] == 0
        assert m["toolgram_grammars_held"] <= 6  # 2 tool sets x auto, required, named
        # memory: the grammars OpenVINO holds are bounded (--max-grammars 6, ~20-40 MB each), and so is the KV
        # cache, which ContinuousBatchingPipeline allocates block by block up to SchedulerConfig.cache_size
        # (--kv-cache-size, 1 GB here) and keeps: measured with SmolLM2, +37 MB per 8 requests of ~450 tokens,
        # flat at +1,049 MB from the 216th request on (docs/engines.md)
        kv_mb = 1024
        assert _rss_mb(srv.proc.pid) < rss_before + kv_mb + 400, (rss_before, _rss_mb(srv.proc.pid))
    finally:
        srv.stop()
