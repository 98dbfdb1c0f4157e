"""Prompt rendering: the model's own chat template when it renders tools, else toolgram's own.

Rendering follows transformers: a jinja2 ``ImmutableSandboxedEnvironment`` with
``trim_blocks`` and ``lstrip_blocks`` and the ``loopcontrols`` extension, a ``tojson`` filter
that writes ``json.dumps(..., ensure_ascii=False)``, and the ``raise_exception`` and
``strftime_now`` globals.  toolgram's per-format templates (``templates/<format>.jinja``,
ChatML-based) render earlier calls with :func:`toolgram.runtime.render.render_calls`, so the
history uses exactly the canonical spelling the grammars constrain.
"""

from __future__ import annotations

import json
from datetime import datetime
from functools import lru_cache
from pathlib import Path
from typing import Any

from .. import templates as _templates
from ..errors import ToolgramError
from ..grammars import get_format
from .detect import detect_format
from .render import render_calls

__all__ = ["TEMPLATE_DIR", "call_pairs", "render_prompt", "render_template", "toolgram_template"]

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


@lru_cache(maxsize=4)
def _environment(with_loader: bool) -> Any:
    from jinja2 import FileSystemLoader
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    env = ImmutableSandboxedEnvironment(
        trim_blocks=True, lstrip_blocks=True, extensions=["jinja2.ext.loopcontrols"],
        loader=FileSystemLoader(str(TEMPLATE_DIR)) if with_loader else None,
    )
    env.filters["tojson"] = _tojson
    env.globals["raise_exception"] = _raise
    env.globals["strftime_now"] = _strftime_now
    return env


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


def _dict_args(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Messages whose ``tool_calls`` arguments are dicts (what the official templates iterate) and
    whose ``None`` content is ``""`` (several templates test ``'x' in content``)."""
    out = []
    for m in messages:
        if m.get("content", "") is None:
            m = {**m, "content": ""}
        if m.get("tool_calls"):
            calls = [
                {**c, "type": c.get("type", "function"),
                 "function": {**c.get("function", {}), "name": n, "arguments": a}}
                for c, (n, a) in zip(m["tool_calls"], call_pairs(m), strict=True)
            ]
            m = {**m, "tool_calls": calls}
        out.append(m)
    return out


def render_template(template: str, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None,
                    *, add_generation_prompt: bool = True, **extra: Any) -> str:
    """Render a chat template's text the way transformers does."""
    from jinja2 import TemplateError

    try:
        tpl = _environment(False).from_string(template)
        if tools:  # some templates (vLLM's llama4_pythonic) list the tools only from ``custom_tools``
            extra.setdefault("custom_tools", tools)
        return tpl.render(messages=_dict_args(messages), tools=tools or None,
                          add_generation_prompt=add_generation_prompt, bos_token="", eos_token="", **extra)
    except TemplateError as exc:
        raise ToolgramError(f"chat template error: {exc}") from None


def toolgram_template(format_id: str) -> Any:
    """toolgram's own jinja template for ``format_id`` (with the format's render helpers bound)."""
    spec = get_format(format_id)
    tpl = _environment(True).get_template(f"{spec.id}.jinja")
    return tpl, {
        "fmt": spec.id,
        "render_tool_calls": lambda m: render_calls(spec, call_pairs(m)),
        "example_calls": render_calls(spec, _EXAMPLE),
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
        text = tpl.render(messages=messages, tools=tools or None, add_generation_prompt=add_generation_prompt,
                          **helpers)
    except ToolgramError:
        raise
    except Exception as exc:  # jinja errors and bad message shapes
        raise ToolgramError(f"cannot render the {format_id} prompt: {exc}") from None
    return text, "toolgram"
