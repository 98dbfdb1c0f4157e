"""Prompt rendering: the model's own chat template when it renders tools, else toolgram's own.

Rendering follows transformers: a jinja2 ``ImmutableSandboxedEnvironment`` with
``trim_blocks`` and ``lstrip_blocks``, the ``loopcontrols`` extension and the ``{% generation %}``
tag (transformers' ``AssistantTracker``; here it only renders its body), a ``tojson`` filter
that writes ``json.dumps(..., ensure_ascii=False)``, and the ``raise_exception`` and
``strftime_now`` globals. Like transformers, the sandbox is immutable: a template that mutates a
list (``l.append(x)``, as llama.cpp's Kimi-K2-Instruct/Thinking copies do for tool-call ids) is an
error, not rendered.  toolgram's per-format templates (``templates/<format>.jinja``,
ChatML-based) render earlier calls with :func:`toolgram.grammars.render.render_calls`, so the
history uses exactly the canonical spelling the grammars constrain.

A chat template read from a GGUF or a file is untrusted code. Besides the sandbox, every render is
bounded (each limit is a one-line :class:`ToolgramError`, never a traceback):

- ``range()`` yields at most :data:`MAX_RANGE` items, and all ``{% for %}`` loops of one render
  together run at most :data:`MAX_LOOP_ITERATIONS` iterations;
- ``*``, ``**`` and ``+`` may not build a string, list or integer past :data:`MAX_OUTPUT_CHARS`
  characters (or digits), no function or macro takes such an argument, and the rendered text may not
  exceed :data:`MAX_OUTPUT_CHARS` characters;
- a render stops after :data:`MAX_RENDER_SECONDS` seconds (checked on every function call and every 1024
  loop iterations);
- recursion past Python's limit (a macro calling itself), ``OverflowError`` and ``MemoryError``
  become errors too.
"""

from __future__ import annotations

import contextvars
import json
import re
import time
from collections.abc import Iterable, Iterator
from datetime import datetime
from functools import lru_cache
from pathlib import Path
from typing import Any

from .. import templates as _templates
from ..errors import ToolgramError
from ..grammars import get_format
from ..grammars.render import render_calls
from .detect import detect_format

__all__ = ["MAX_LOOP_ITERATIONS", "MAX_OUTPUT_CHARS", "MAX_RANGE", "MAX_RENDER_SECONDS", "TEMPLATE_DIR",
           "call_pairs", "render_prompt", "render_template", "toolgram_template"]

#: ``range()`` in a template yields at most this many items (jinja2's own sandbox limit)
MAX_RANGE = 100_000
#: all ``{% for %}`` loops of one render together run at most this many iterations
MAX_LOOP_ITERATIONS = 1_000_000
#: the longest rendered prompt, and the largest string/list/integer ``*`` or ``**`` may build
MAX_OUTPUT_CHARS = 16 * 1024 * 1024
#: a render taking longer stops with an error
MAX_RENDER_SECONDS = 10.0

TEMPLATE_DIR = Path(_templates.__file__).resolve().parent  # the installed toolgram.templates package

_EXAMPLE = [("function_name", {"param_1": "value", "param_2": 2})]


def _raise(message: str) -> None:
    raise ToolgramError(f"chat template error: {message}")


def _tojson(value: Any, indent: int | None = None, separators: Any = None, sort_keys: bool = False,
            ensure_ascii: bool = False) -> str:
    return json.dumps(value, ensure_ascii=ensure_ascii, indent=indent, separators=separators,
                      sort_keys=sort_keys)


def _strftime_now(fmt: str) -> str:
    return datetime.now().strftime(fmt)


class _Budget:
    """The limits of one render: loop iterations left and the deadline."""

    __slots__ = ("deadline", "iterations")

    def __init__(self) -> None:
        self.iterations = MAX_LOOP_ITERATIONS
        self.deadline = time.monotonic() + MAX_RENDER_SECONDS

    def check_time(self) -> None:
        if time.monotonic() > self.deadline:
            raise ToolgramError(f"chat template error: rendering took more than {MAX_RENDER_SECONDS:g} s")


_BUDGET: contextvars.ContextVar[_Budget | None] = contextvars.ContextVar("toolgram_render_budget", default=None)


def _budget() -> _Budget:
    budget = _BUDGET.get()
    if budget is None:  # a render outside _render(): give it its own budget
        budget = _Budget()
        _BUDGET.set(budget)
    return budget


def _counted(iterable: Iterable[Any]) -> Iterator[Any]:
    """Every ``{% for %}`` iterates through this: it spends the render's loop budget."""
    budget = _budget()
    for item in iterable:
        budget.iterations -= 1
        if budget.iterations < 0:
            raise ToolgramError(f"chat template error: more than {MAX_LOOP_ITERATIONS} loop iterations")
        if budget.iterations % 1024 == 0:
            budget.check_time()
        yield item


def _range(*args: int) -> range:
    rng = range(*args)
    if len(rng) > MAX_RANGE:
        raise ToolgramError(f"chat template error: range() of {len(rng)} items (at most {MAX_RANGE})")
    return rng


def _size(value: Any) -> int:
    """Characters (or decimal digits, roughly) ``value`` takes."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value.bit_length() * 3 // 10
    try:
        return len(value)
    except TypeError:
        return 0


def _generation_extension() -> type:
    """transformers' ``{% generation %}...{% endgeneration %}`` block (it marks the assistant's
    tokens for ``return_assistant_tokens_mask``): renders its body unchanged."""
    from jinja2 import nodes
    from jinja2.ext import Extension

    class GenerationBlock(Extension):
        tags = {"generation"}

        def parse(self, parser: Any) -> nodes.Node:
            lineno = next(parser.stream).lineno
            body = parser.parse_statements(("name:endgeneration",), drop_needle=True)
            return nodes.CallBlock(self.call_method("_body", []), [], [], body).set_lineno(lineno)

        def _body(self, caller: Any) -> str:
            return caller()

    return GenerationBlock


def _sandbox_class() -> type:
    from jinja2 import nodes
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    class BoundedEnvironment(ImmutableSandboxedEnvironment):
        """The sandbox, plus the loop, size and time bounds of one render (module docstring)."""

        intercepted_binops = frozenset({"*", "**", "+"})

        def _parse(self, source: str, name: str | None, filename: str | None) -> nodes.Template:
            tree = super()._parse(source, name, filename)
            for loop in tree.find_all(nodes.For):  # route every loop through the iteration budget
                loop.iter = nodes.Filter(loop.iter, "_toolgram_counted", [], [], None, None, lineno=loop.lineno)
            return tree

        def call_binop(self, context: Any, operator: str, left: Any, right: Any) -> Any:
            if operator == "**" and isinstance(left, int) and isinstance(right, int) and abs(left) > 1:
                if right > 0 and max(left.bit_length() - 1, 1) * right * 3 // 10 > MAX_OUTPUT_CHARS:
                    raise ToolgramError(f"chat template error: {left} ** {right} is too large")
            elif operator == "+" and not isinstance(left, int) and _size(left) + _size(right) > MAX_OUTPUT_CHARS:
                raise ToolgramError(f"chat template error: '+' would build more than {MAX_OUTPUT_CHARS} items")
            elif operator == "*" and isinstance(left, int) != isinstance(right, int):
                count, seq = (left, right) if isinstance(left, int) else (right, left)
                if count > 0 and _size(seq) * count > MAX_OUTPUT_CHARS:
                    raise ToolgramError(f"chat template error: '*' would build more than {MAX_OUTPUT_CHARS} items")
            return super().call_binop(context, operator, left, right)

        def call(__self, __context: Any, __obj: Any, *args: Any, **kwargs: Any) -> Any:
            _budget().check_time()
            for arg in (*args, *kwargs.values()):  # str.ljust(10**9), center(...), zfill(...), a macro doubling s ~ s
                if isinstance(arg, int) and not isinstance(arg, bool) and arg > MAX_OUTPUT_CHARS:
                    raise ToolgramError(f"chat template error: argument {arg} is too large")
                if isinstance(arg, (str, list)) and len(arg) > MAX_OUTPUT_CHARS:
                    raise ToolgramError(f"chat template error: an argument of more than {MAX_OUTPUT_CHARS} items")
            return super().call(__context, __obj, *args, **kwargs)

    return BoundedEnvironment


@lru_cache(maxsize=4)
def _environment(with_loader: bool) -> Any:
    from jinja2 import FileSystemLoader

    env = _sandbox_class()(
        trim_blocks=True, lstrip_blocks=True, extensions=["jinja2.ext.loopcontrols", _generation_extension()],
        loader=FileSystemLoader(str(TEMPLATE_DIR)) if with_loader else None,
    )
    env.filters["tojson"] = _tojson
    env.filters["_toolgram_counted"] = _counted
    env.globals["raise_exception"] = _raise
    env.globals["strftime_now"] = _strftime_now
    env.globals["range"] = _range
    return env


def _render(tpl: Any, **context: Any) -> str:
    """Render within the bounds of the module docstring; any overrun or runaway is a ToolgramError.

    jinja's own ``TemplateError`` passes through (each caller words it)."""
    token = _BUDGET.set(_Budget())
    try:
        out: list[str] = []
        size = 0
        for chunk in tpl.generate(**context):
            size += len(chunk)
            if size > MAX_OUTPUT_CHARS:
                raise ToolgramError(f"chat template error: the prompt is longer than {MAX_OUTPUT_CHARS} characters")
            out.append(chunk)
        return "".join(out)
    except RecursionError:
        raise ToolgramError("chat template error: recursion too deep (a macro or loop calling itself)") from None
    except MemoryError:
        raise ToolgramError("chat template error: out of memory while rendering") from None
    except OverflowError as exc:
        raise ToolgramError(f"chat template error: {_one_line(exc)}") from None
    finally:
        _BUDGET.reset(token)


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__


def call_pairs(message: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """``(name, arguments dict)`` for each OpenAI ``tool_calls`` entry of an assistant message."""
    out = []
    for i, call in enumerate(message.get("tool_calls") or []):
        fn = call.get("function", call)
        args = fn.get("arguments", {})
        if isinstance(args, str):
            try:
                args = json.loads(args) if args.strip() else {}
            except json.JSONDecodeError:
                raise ToolgramError("tool call arguments are not valid JSON",
                                    f"$.tool_calls[{i}].function.arguments") from None
        if not isinstance(args, dict):
            raise ToolgramError("tool call arguments must be an object", f"$.tool_calls[{i}].function.arguments")
        out.append((fn["name"], args))
    return out


def _dict_args(messages: list[dict[str, Any]], strings: bool = False) -> list[dict[str, Any]]:
    """Messages whose ``tool_calls`` arguments are dicts (what the official templates iterate) and
    whose ``None`` content is ``""`` (several templates test ``'x' in content``).  ``strings``: the
    arguments as JSON text instead (as given, or dumped), for templates that write them only that
    way (:func:`wants_string_arguments`)."""
    out = []
    for m in messages:
        if m.get("content", "") is None:
            m = {**m, "content": ""}
        if m.get("tool_calls"):
            calls = []
            for c, (n, a) in zip(m["tool_calls"], call_pairs(m), strict=True):
                fn = c.get("function", {})
                if strings:
                    given = fn.get("arguments")
                    a = given if isinstance(given, str) and given.strip() else json.dumps(a, ensure_ascii=False)
                calls.append({**c, "type": c.get("type", "function"), "function": {**fn, "name": n, "arguments": a}})
            m = {**m, "tool_calls": calls}
        out.append(m)
    return out


_PROBE_TOOLS = [{"type": "function", "function": {"name": "probe_tool", "description": "probe", "parameters": {
    "type": "object", "properties": {"code": {"type": "string"}}, "required": ["code"]}}}]
_PROBE_ARGS = {"code": "print('Hello, World!')"}
_PROBE_JSON = re.compile(r'"code"\s*:\s*"print')
_PROBE_REPR = "{'code': "


@lru_cache(maxsize=64)
def wants_string_arguments(template: str) -> bool:
    """Whether a chat template writes a tool call's arguments only when they are JSON text.

    Most templates iterate or ``tojson`` the arguments as a dict (transformers' convention, and
    vLLM's, which always hands dicts); a few concatenate them as a string (Functionary v3.2 fails on
    a dict, others print a Python ``repr``).  llama.cpp probes each template for this (minja's
    ``requires_object_arguments``); so does toolgram: one call rendered with string arguments and
    with dict arguments.  True when the string rendering writes the arguments as JSON and the dict
    one fails or writes a Python ``repr`` (a template with its own spelling, Gemma 4's, keeps dicts)."""
    tpl = _environment(False).from_string(template)

    def render(arguments: Any) -> str | None:
        messages = [{"role": "user", "content": "probe"}, {"role": "assistant", "content": "", "tool_calls": [
            {"id": "call00000", "type": "function", "function": {"name": "probe_tool", "arguments": arguments}}]}]
        try:
            return _render(tpl, messages=messages, tools=_PROBE_TOOLS, custom_tools=_PROBE_TOOLS,
                           add_generation_prompt=False, bos_token="", eos_token="")
        except Exception:  # noqa: BLE001 - a template that fails on this spelling does not take it
            return None

    as_text = render(json.dumps(_PROBE_ARGS))
    if as_text is None or not _PROBE_JSON.search(as_text):
        return False
    as_dict = render(dict(_PROBE_ARGS))
    return as_dict is None or _PROBE_REPR in as_dict


def render_template(template: str, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None,
                    *, add_generation_prompt: bool = True, **extra: Any) -> str:
    """Render a chat template's text the way transformers does."""
    from jinja2 import TemplateError

    try:
        tpl = _environment(False).from_string(template)
    except TemplateError as exc:
        raise ToolgramError(f"chat template error: {_one_line(exc)}") from None
    except (RecursionError, MemoryError, OverflowError):
        raise ToolgramError("chat template error: the template is too large or nested too deep to compile") from None
    if tools:  # some templates (vLLM's llama4_pythonic) list the tools only from ``custom_tools``
        extra.setdefault("custom_tools", tools)
    try:
        strings = any(m.get("tool_calls") for m in messages) and wants_string_arguments(template)
        return _render(tpl, messages=_dict_args(messages, strings), tools=tools or None,
                       add_generation_prompt=add_generation_prompt, bos_token="", eos_token="", **extra)
    except ToolgramError:
        raise
    except TemplateError as exc:
        raise ToolgramError(f"chat template error: {_one_line(exc)}") from None
    except Exception as exc:  # the template's own bugs (TypeError, KeyError, ...): untrusted code, one line
        raise ToolgramError(f"chat template error: {type(exc).__name__}: {_one_line(exc)}") from None


def toolgram_template(format_id: str) -> Any:
    """toolgram's own jinja template for ``format_id`` (with the format's render helpers bound).

    ``templates/<id>.jinja`` when a format has its own, else the ChatML template
    ``templates/_chatml.jinja``, which teaches the format with its description's ``instructions``.
    """
    spec = get_format(format_id)
    env = _environment(True)
    own = f"{spec.id}.jinja"
    tpl = env.get_template(own if (TEMPLATE_DIR / own).is_file() else "_chatml.jinja")
    example = render_calls(spec, _EXAMPLE)
    return tpl, {
        "fmt": spec.id,
        "render_tool_calls": lambda m: render_calls(spec, call_pairs(m)),
        "example_calls": example,
        "instructions": spec.instructions.replace("{example}", example),
        "tool_json": lambda t: json.dumps(t.get("function", t), ensure_ascii=False),
    }


def render_prompt(format_id: str, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None,
                  *, model_template: str | None = None, add_generation_prompt: bool = True) -> tuple[str, str]:
    """The prompt text and which template made it (``"model"`` or ``"toolgram"``).

    The model's template is used when it renders tools in a known format (detected) -- or
    always when no tools are given; otherwise toolgram's template for ``format_id``.
    """
    if model_template and (not tools or detect_format(model_template) is not None):
        return render_template(model_template, messages, tools, add_generation_prompt=add_generation_prompt), "model"
    tpl, helpers = toolgram_template(format_id)
    try:
        text = _render(tpl, messages=messages, tools=tools or None, add_generation_prompt=add_generation_prompt,
                       **helpers)
    except ToolgramError:
        raise
    except Exception as exc:  # jinja errors and bad message shapes
        raise ToolgramError(f"cannot render the {format_id} prompt: {exc}") from None
    return text, "toolgram"
