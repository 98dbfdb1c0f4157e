"""End to end: real SmolLM2-135M on CPU through OpenVINO GenAI under toolgram's grammars.

One pipeline for the module (fixture). Every generated call must parse in strict mode and its
arguments must validate against the tool's schema: 100%.
"""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest
from strategies import format_cases
from toolgram.grammars import FORMATS, get_format
from weather import SCHEMAS, TAG_RELAXED, TAG_TOOLS, TOOLS

import toolgram
from toolgram.errors import UnsupportedSchemaError

pytestmark = pytest.mark.model

QUESTION = [{"role": "user", "content": "What is the weather in Paris and the forecast for Rome for 3 days?"}]
MAX_NEW = 160


def _reasoning(fmt: str) -> str | None:
    return "none" if FORMATS[fmt].reasoning else None


@pytest.fixture(scope="module")
def gen() -> Any:
    from toolgram.runtime.generator import Generator

    return Generator()


def strict_prefix_calls(fmt: str, text: str, parallel: bool | None) -> list[dict[str, Any]]:
    """Calls of the longest prefix of a cut-off ``text`` that parses cleanly in strict mode.

    For list formats the list's closing bracket (and wrapper close) is appended to the prefix; for
    formats whose calls stand in a required section (DeepSeek, Nemotron), the section's close too.
    """
    spec = get_format(fmt)
    closer = ""
    if not spec.scope.per_call and spec.scope.close:
        closer = spec.scope.close
        if spec.scope.wrappers and spec.scope.wrappers[0].open in text:
            closer += spec.scope.wrappers[0].close
    section = spec.scope.section
    if section is not None and section.close and section.open.rstrip() in text:
        closer += section.close
    for i in range(len(text), 0, -1):
        if i < len(text) and text[i] not in "<;,\n \t])":
            continue
        msg = toolgram.parse(fmt, text[:i] + closer, TOOLS, mode="strict", parallel_tool_calls=parallel,
                             reasoning=_reasoning(fmt))
        if msg["diagnostics"] == [] and msg["tool_calls"]:
            return msg["tool_calls"]
    return []


def check(result: dict[str, Any], fmt: str, *, parallel: bool | None, need_call: bool = True,
          only: str | None = None) -> list[dict[str, Any]]:
    """Assert the result holds only valid calls (strict parse, schema validation); return the complete ones."""
    msg = result["message"]
    calls = msg["tool_calls"]
    if need_call:
        assert calls, result["text"]
    if result["usage"]["completion_tokens"] >= MAX_NEW:
        # cut off by max_new_tokens (a small model repeating calls, or emitting the whitespace the
        # grammar allows): every call before the cut is complete and parses strictly
        complete = strict_prefix_calls(fmt, result["text"], parallel)
        assert complete or not need_call, result["text"]
        assert len(complete) >= len(calls) - 1, result["text"]
        assert [c["function"] for c in complete] == [c["function"] for c in calls[: len(complete)]]
    else:
        complete = calls
        assert msg["diagnostics"] == [], result["text"]
        strict = toolgram.parse(fmt, result["text"], TOOLS, mode="strict", parallel_tool_calls=parallel,
                                reasoning=_reasoning(fmt))
        assert strict["diagnostics"] == [] and strict["tool_calls"] == calls
        if calls:
            assert msg["finish_reason"] == "tool_calls"
    if parallel is False:
        assert len(calls) <= 1
    for c in complete:
        name = c["function"]["name"]
        assert name in SCHEMAS and (only is None or name == only)
        jsonschema.validate(json.loads(c["function"]["arguments"]), SCHEMAS[name])
    return complete


CASES = [
    # (tool_choice, parallel, temperature, seed)
    ("required", False, 0.0, 0),
    ("get_forecast", None, 0.8, 1),
    ("required", True, 0.8, 2),
]


# one case per format in the default run (formats take turns, so every case runs); the rest are slow
@pytest.mark.parametrize(("fmt", "choice", "parallel", "temperature", "seed"), format_cases(CASES))
def test_constrained_calls_are_valid(gen: Any, fmt: str, choice: str, parallel: bool | None,
                                     temperature: float, seed: int) -> None:
    result = gen.chat(QUESTION, TOOLS, tool_choice=choice, parallel_tool_calls=parallel, format=fmt,
                      reasoning=_reasoning(fmt), max_new_tokens=MAX_NEW, temperature=temperature, seed=seed)
    only = None if choice == "required" else choice
    # SPEC section 1 lets a required turn open with whitespace before its first call, without bound (as
    # xgrammar's and vLLM's required grammars do). Sampled at 0.8, the 135M model can spend its whole token
    # budget there (minimax_m3 at seed 2 wrote 160 newlines): no call was made and nothing invalid was
    # written. Greedy cases must still call.
    blank_cut = result["usage"]["completion_tokens"] >= MAX_NEW and not result["text"].strip()
    check(result, fmt, parallel=parallel, only=only, need_call=not (temperature > 0 and blank_cut))
    assert result["usage"]["completion_tokens"] > 0 and result["usage"]["prompt_tokens"] > 0
    assert result["timings"]["grammar_compile_ms"] is not None


def _call_prefill(fmt: str) -> str:
    spec = get_format(fmt)
    if spec.scope.section is not None:
        # the section's opening is the trigger (a call block or list alone is not a call there)
        return spec.scope.section.open
    if spec.scope.per_call:
        return spec.scope.open
    if spec.scope.wrappers:
        return spec.scope.wrappers[0].open + spec.scope.open
    if spec.scope.open:
        return spec.scope.open
    return '{"name": "'  # llama3_json: the JSON call itself


#: the two auto tests take turns: every fourth format runs one of them in the default run (every format runs
#: test_constrained_calls_are_valid), the others in the slow suite
_AUTO = format_cases(("plain", "prefilled"), every=4)


def _auto_params(kind: str) -> list[Any]:
    return [pytest.param(p.values[0], marks=p.marks) for p in _AUTO if p.values[1] == kind]


@pytest.mark.parametrize("fmt", _auto_params("plain"))
def test_auto_is_content_or_valid_calls(gen: Any, fmt: str) -> None:
    result = gen.chat(QUESTION, TOOLS, format=fmt, reasoning=_reasoning(fmt), max_new_tokens=MAX_NEW)
    check(result, fmt, parallel=None, need_call=False)


@pytest.mark.parametrize("fmt", _auto_params("prefilled"))
def test_auto_with_prefilled_trigger_produces_a_call(gen: Any, fmt: str) -> None:
    prefill = _call_prefill(fmt)
    result = gen.chat(QUESTION, TOOLS, format=fmt, reasoning=_reasoning(fmt), max_new_tokens=MAX_NEW,
                      prefill=prefill, parallel_tool_calls=False)
    assert result["text"].startswith(prefill)
    calls = check(result, fmt, parallel=False)
    assert len(calls) == 1


def _concat(deltas: list[dict[str, Any]]) -> dict[str, Any]:
    content = "".join(d.get("content") or "" for d in deltas)
    reasoning = "".join(d.get("reasoning_content") or "" for d in deltas)
    calls: dict[int, dict[str, str]] = {}
    for d in deltas:
        for tc in d.get("tool_calls") or []:
            c = calls.setdefault(tc["index"], {"id": "", "name": "", "arguments": ""})
            c["id"] += tc.get("id") or ""
            fn = tc.get("function") or {}
            c["name"] += fn.get("name") or ""
            c["arguments"] += fn.get("arguments") or ""
    return {"content": content or None, "reasoning_content": reasoning or None,
            "tool_calls": [calls[i] for i in sorted(calls)]}


@pytest.mark.parametrize(("fmt", "choice", "prefill"), [
    ("hermes", "required", None), ("pythonic", "get_weather", None), ("qwen3_coder", "auto", None),
    ("seed_oss", "auto", "<seed:tool_call>\n"),
])
def test_streamed_deltas_concatenate_to_the_message(gen: Any, fmt: str, choice: str, prefill: str | None) -> None:
    deltas: list[dict[str, Any]] = []
    result = gen.chat(QUESTION, TOOLS, tool_choice=choice, format=fmt, reasoning=_reasoning(fmt),
                      max_new_tokens=MAX_NEW, on_delta=deltas.append, prefill=prefill, parallel_tool_calls=False)
    msg = result["message"]
    got = _concat(deltas)
    assert got["content"] == msg["content"]
    assert got["reasoning_content"] == msg["reasoning_content"]
    assert got["tool_calls"] == [{"id": c["id"], "name": c["function"]["name"],
                                  "arguments": c["function"]["arguments"]} for c in msg["tool_calls"]]
    if choice != "auto" or prefill:
        check(result, fmt, parallel=False)


def test_prompt_longer_than_the_context(gen: Any) -> None:
    assert gen.context_length
    long = [{"role": "user", "content": "word " * (gen.context_length + 10)}]
    with pytest.raises(toolgram.ToolgramError, match="context"):
        gen.chat(long, TOOLS, format="hermes")


def test_invalid_tools_and_format_are_user_errors(gen: Any) -> None:
    with pytest.raises(toolgram.ToolgramError):
        gen.chat(QUESTION, [{"type": "function", "function": {"parameters": {}}}], format="hermes")
    with pytest.raises(toolgram.ToolgramError):
        gen.chat(QUESTION, TOOLS, format="nope")


def test_permissive_relaxes_what_strict_refuses(gen: Any) -> None:
    """``permissive``: the tools strict compiling refuses (with the keyword's path) generate under the relaxed
    grammar, and the output is read strictly with that same grammar; the choice is part of the cache key."""
    ask = [{"role": "user", "content": "Tag Paris as sunny and warm."}]
    with pytest.raises(UnsupportedSchemaError, match=r"uniqueItems.*\$\[0\]\.function\.parameters"
                                                                r"\.properties\.tags"):
        gen.chat(ask, TAG_TOOLS, format="hermes", tool_choice="required")
    deltas: list[dict[str, Any]] = []  # streamed too: the lenient stream parser takes the same options
    result = gen.chat(ask, TAG_TOOLS, format="hermes", tool_choice="required", max_new_tokens=MAX_NEW,
                      parallel_tool_calls=False, permissive=True, on_delta=deltas.append)
    assert any(d.get("tool_calls") for d in deltas), deltas
    msg = result["message"]
    assert msg["finish_reason"] == "tool_calls" and msg["diagnostics"] == [], msg
    (call,) = msg["tool_calls"]
    args = json.loads(call["function"]["arguments"])
    jsonschema.validate(args, TAG_RELAXED)  # everything but the relaxed keyword is enforced
    # the strict refusal is not served from the permissive grammar's cache entry
    with pytest.raises(UnsupportedSchemaError):
        gen.chat(ask, TAG_TOOLS, format="hermes", tool_choice="required")
    # under "none" there is no grammar, so nothing to enforce and nothing refused, permissive or not
    for permissive in (False, True):
        assert gen.chat(ask, TAG_TOOLS, format="hermes", tool_choice="none", max_new_tokens=4,
                        permissive=permissive)["message"]["tool_calls"] == []


def test_any_order_generates_members_in_another_order(gen: Any) -> None:
    """``any_order``: a call whose arguments start with a member the schema declares last (a prefill here) is
    one the grammar continues, to a call that validates and that the strict reading under the same option
    returns; without it that prefill is refused. The choice is part of the grammar cache's key."""
    prefill = '<tool_call>\n{"name": "get_forecast", "arguments": {"days": '
    kwargs: dict[str, Any] = {"format": "hermes", "tool_choice": "required", "reasoning": "none",
                              "parallel_tool_calls": False, "prefill": prefill, "max_new_tokens": 40}
    with pytest.raises(toolgram.ToolgramError, match="prefill"):
        gen.chat(QUESTION, TOOLS, **kwargs)
    deltas: list[dict[str, Any]] = []  # streamed too: the lenient stream parser takes the same options
    msg = gen.chat(QUESTION, TOOLS, any_order=True, on_delta=deltas.append, **kwargs)["message"]
    assert any(d.get("tool_calls") for d in deltas), deltas
    assert msg["finish_reason"] == "tool_calls" and msg["diagnostics"] == [], msg
    (call,) = msg["tool_calls"]
    args = json.loads(call["function"]["arguments"])
    assert list(args) == ["days", "location"], args
    jsonschema.validate(args, SCHEMAS["get_forecast"])
    with pytest.raises(toolgram.ToolgramError, match="prefill"):  # not served from the any-order cache entry
        gen.chat(QUESTION, TOOLS, **kwargs)


def test_prefill_the_grammar_cannot_continue(gen: Any) -> None:
    with pytest.raises(toolgram.ToolgramError, match="prefill"):
        gen.chat(QUESTION, TOOLS, format="hermes", tool_choice="required", reasoning="none", prefill="Sure")


def test_default_format_is_hermes_for_smollm2(gen: Any) -> None:
    assert gen.detected is None
    fmt, note = gen.resolve_format(None)
    assert fmt == "hermes" and note and "hermes" in note


# ----------------------------------------------------------------------------- issues 8, 10, 11, 12


def test_allowed_tools_reach_the_parser() -> None:
    from toolgram.runtime.generator import Generator, GrammarRequest

    text = '<tool_call>\n{"name": "get_forecast", "arguments": {"location": "Rome", "days": 3}}\n</tool_call>'
    opts = GrammarRequest("hermes", TOOLS, "auto", None, "none", ["get_weather"], None, "").options()
    for constrained in (True, False):
        msg = Generator._parse("hermes", text, TOOLS, constrained, opts)
        assert msg["tool_calls"] == [] and msg["content"] and msg["diagnostics"], msg
    opts = GrammarRequest("hermes", TOOLS, "auto", None, "none", ["get_forecast"], None, "").options()
    assert Generator._parse("hermes", text, TOOLS, True, opts)["tool_calls"]


def test_allowed_tools_in_generation(gen: Any) -> None:
    result = gen.chat(QUESTION, TOOLS, tool_choice="required", format="hermes", reasoning="none",
                      max_new_tokens=MAX_NEW, allowed_tools=["get_forecast"], max_tool_calls=1)
    calls = check(result, "hermes", parallel=None, only="get_forecast")
    assert len(calls) == 1


def test_stopping_at_max_new_tokens_is_length(gen: Any) -> None:
    # SmolLM2 repeats calls under parallel_tool_calls until the limit
    result = gen.chat(QUESTION, TOOLS, tool_choice="required", parallel_tool_calls=True, format="hermes",
                      reasoning="none", max_new_tokens=48)
    msg = result["message"]
    assert result["usage"]["completion_tokens"] == 48
    assert msg["finish_reason"] == "length"
    assert "max_new_tokens" in [d["code"] for d in msg["diagnostics"]]


def test_deadline_queued_is_an_error_running_is_answered_with_what_it_has(gen: Any) -> None:
    import time

    from toolgram.runtime.generator import QueueTimeout

    with pytest.raises(QueueTimeout):
        gen.chat(QUESTION, TOOLS, tool_choice="required", deadline=time.monotonic() - 1)
    result = gen.chat(QUESTION, TOOLS, tool_choice="required", parallel_tool_calls=True, format="hermes",
                      reasoning="none", max_new_tokens=2000, ignore_eos=True, deadline=time.monotonic() + 1.5)
    msg = result["message"]
    assert 0 < result["usage"]["completion_tokens"] < 2000
    assert msg["finish_reason"] == "length" and [d["code"] for d in msg["diagnostics"]][-1] == "timeout"


def test_max_tool_calls_bounds_the_calls(gen: Any) -> None:
    result = gen.chat(QUESTION, TOOLS, tool_choice="required", parallel_tool_calls=True, format="hermes",
                      reasoning="none", max_new_tokens=MAX_NEW, max_tool_calls=2)
    msg = result["message"]
    assert 1 <= len(msg["tool_calls"]) <= 2 and msg["finish_reason"] == "tool_calls", result["text"]
    check(result, "hermes", parallel=True)


def test_context_error_gives_the_real_prompt_length(gen: Any) -> None:
    long = [{"role": "user", "content": "word " * 12000}]  # past the tokenizer's 8192-token truncation
    with pytest.raises(toolgram.ToolgramError) as err:
        gen.chat(long, TOOLS, format="hermes")
    n = int(str(err.value).split("the prompt is ")[1].split()[0])
    assert 12000 <= n < 12600 and str(gen.context_length) in str(err.value)


def test_load_failure_keeps_openvinos_useful_line(tmp_path: Any) -> None:
    from toolgram.runtime.generator import Generator

    with pytest.raises(toolgram.ToolgramError) as err:
        Generator(tmp_path)
    text = str(err.value)
    assert "Could not find a model in the directory" in text
    assert ".cpp" not in text and "jenkins" not in text


def test_generator_imports_no_package_face_and_no_test_adapters() -> None:
    import ast
    from pathlib import Path

    import toolgram.runtime.generator as mod

    tree = ast.parse(Path(mod.__file__).read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            assert not any(a.name == "toolgram" or a.name.startswith("toolgram.") for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            target = "." * node.level + (node.module or "")
            assert not target.startswith(("toolgram", "..engines")), target
            assert target != "..", "from .. import ...: the package face"


@pytest.fixture(scope="module")
def small_cache() -> Any:
    from toolgram.runtime.generator import Generator

    return Generator(max_grammars=2)


def _tools(i: int) -> list[dict[str, Any]]:
    return [{"type": "function", "function": {"name": f"tool_{i}", "parameters": {
        "type": "object", "properties": {"city": {"type": "string", "maxLength": 12}}, "required": ["city"]}}}]


def _one(g: Any, i: int) -> dict[str, Any]:
    return g.chat(QUESTION, _tools(i), tool_choice="required", format="hermes", reasoning="none",
                  max_new_tokens=2)


def test_repeated_tool_sets_reuse_the_compiled_grammar(small_cache: Any) -> None:
    first = _one(small_cache, 0)
    again = _one(small_cache, 0)
    t1, t2 = first["timings"], again["timings"]
    assert t1["grammar_reused"] is False and t2["grammar_reused"] is True and t2["compile_cache_hit"] is True
    # OpenVINO keeps the compiled grammar by its text: no recompile
    assert t2["grammar_compile_ms"] < max(t1["grammar_compile_ms"] / 4, 30), (t1, t2)
    reloads = small_cache.reloads
    _one(small_cache, 1)
    assert small_cache.cached_grammars == 2 and small_cache.reloads == reloads
    _one(small_cache, 2)  # a third distinct grammar: the pipeline is reloaded, holding only this one
    assert small_cache.reloads == reloads + 1 and small_cache.cached_grammars == 1
    assert _one(small_cache, 0)["timings"]["grammar_reused"] is False


def _rss_mb() -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS"):
                return int(line.split()[1]) / 1024
    return 0.0


@pytest.mark.slow
def test_memory_is_bounded_over_many_distinct_tool_sets() -> None:
    from toolgram.runtime.generator import Generator

    g = Generator(max_grammars=4)
    for i in range(4):
        _one(g, 100 + i)
    full = _rss_mb()
    peak = full
    for i in range(20):
        _one(g, 200 + i)
        peak = max(peak, _rss_mb())
    assert g.reloads == 5 and g.cached_grammars == 4
    # unbounded, 20 more grammars would add ~20 x 20-40 MB; bounded, the peak stays near the 4-grammar level
    assert peak - full < 200, (full, peak)


def test_generate_without_arguments_prints_a_tool_call(tmp_path: Any) -> None:
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-m", "toolgram.cli", "generate"], capture_output=True, text=True,
                         cwd=tmp_path, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("tool call get_"), out.stdout
    assert " = " in out.stdout and "--json" in out.stderr


def test_prefill_that_closes_reasoning_continues_the_reasoning_free_grammar() -> None:
    from toolgram.runtime.generator import GrammarRequest, _compile

    plain = toolgram.compile("hermes", TOOLS, dialect="ebnf", tool_choice="auto", reasoning="none").grammar
    assert _compile(GrammarRequest("hermes", TOOLS, "auto", None, None, None, None, "<think>ok</think>\n")) == plain
    prefill = "<think>ok</think>\n<tool_call>\n"
    forced = _compile(GrammarRequest("hermes", TOOLS, "auto", None, None, None, None, prefill))
    assert forced is not None and forced != plain


def test_engine_reason_keeps_the_useful_line() -> None:
    from toolgram.runtime.models import engine_reason

    msg = ("Exception from /home/jenkins/agent/workspace/private-ci/ie/build/src/cpp/src/utils.cpp:123:\n"
           "Could not find a model in the directory 'models/missing'\n")
    assert engine_reason(msg) == "Could not find a model in the directory 'models/missing'"
    assert engine_reason("[11:24:02] /project/cpp/grammar_parser.cc:820: EBNF parser error at line 1") == \
        "EBNF parser error at line 1"
    assert engine_reason("unordered_map::at") == "unordered_map::at"


def test_long_prompts_are_counted_exactly(gen: Any) -> None:
    text = " ".join(f"The {i}th city is Paris, and the weather there is fine." for i in range(150))
    assert len(text) > 4000
    whole = int(gen.tokenizer.encode(text, add_special_tokens=False).input_ids.shape[-1])
    assert whole < 8000 and gen.count_tokens(text) == whole


def test_grammar_cache_tells_property_orders_apart() -> None:
    """Regression: the compile cache keyed tools with sorted JSON keys, so a tool set whose
    properties come in another order (another argument order) got the first one's grammar."""
    from toolgram.runtime.generator import Generator, GrammarRequest

    a = [{"type": "function", "function": {"name": "f", "parameters": {"type": "object", "properties": {
        "x": {"type": "string"}, "y": {"type": "string"}}, "required": ["x", "y"]}}}]
    b = [{"type": "function", "function": {"name": "f", "parameters": {"type": "object", "properties": {
        "y": {"type": "string"}, "x": {"type": "string"}}, "required": ["x", "y"]}}}]
    gen = Generator.__new__(Generator)  # the cache only: no model is loaded
    from collections import OrderedDict

    gen._compiled, gen.compile_cache_size = OrderedDict(), 8
    args = ("required", None, None, None, None, "")
    ga, hit_a = gen._grammar_for(GrammarRequest("hermes", a, *args))
    gb, hit_b = gen._grammar_for(GrammarRequest("hermes", b, *args))
    assert not hit_a and not hit_b and ga != gb
    assert gen._grammar_for(GrammarRequest("hermes", a, *args)) == (ga, True)
