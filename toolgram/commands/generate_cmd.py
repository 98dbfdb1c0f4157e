"""``toolgram generate``: constrained tool-call generation with OpenVINO GenAI (SPEC section 5)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from .. import grammars as _grammars
from ..errors import ToolgramError
from .common import (
    add_any_order_option,
    add_language_options,
    add_model_options,
    add_permissive_option,
    language_kwargs,
    print_json,
    read_json_file,
)

# The bundled example lives in the installed toolgram.grammars package (grammars/examples/ in the
# repository), so it is found after a normal (non-editable) install too.
EXAMPLE_TOOLS = Path(_grammars.__file__).resolve().parent / "examples" / "weather_tools.json"
EXAMPLE_PROMPT = "What's the weather like in Paris right now?"


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = sub.add_parser("generate", help="generate tool calls with OpenVINO GenAI under the tool grammar")
    add_model_options(p)
    p.add_argument("--tools", default=None, help="OpenAI tools array (JSON file, '-' for stdin)")
    src = p.add_mutually_exclusive_group()
    src.add_argument("--prompt", default=None, help="the user message")
    src.add_argument("--messages", default=None, help="a JSON file with an OpenAI messages array")
    p.add_argument("--tool-choice", default=None, help="auto|required|none|NAME (function:NAME); default auto "
                   "(required for the bundled example)")
    p.add_argument("--allowed-tools", default=None, help="comma-separated tool names allowed for any choice")
    p.add_argument("--parallel", dest="parallel", action="store_true", default=None,
                   help="allow several calls (default: per format)")
    p.add_argument("--no-parallel", dest="parallel", action="store_false")
    p.add_argument("--max-tool-calls", type=int, default=None, help="at most this many calls (enforced by the "
                   "grammar; 1 for the bundled example)")
    p.add_argument("--reasoning", choices=("none", "optional", "forced"), default=None)
    add_language_options(p)
    add_permissive_option(p)
    add_any_order_option(p)
    p.add_argument("--max-new-tokens", type=int, default=256)
    p.add_argument("--temperature", type=float, default=0.0, help="0 = greedy (default)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--stream", action="store_true", help="show content as generated and each call as it completes")
    p.add_argument("--json", action="store_true", help="print {message, usage, timings} as the last line")
    p.add_argument("--pretty", action="store_true", help="indent the JSON output")
    return p


def _note(text: str) -> None:
    print(f"toolgram: {text}", file=sys.stderr)


class _StreamPrinter:
    """Prints content deltas as they come and each call once it is complete."""

    def __init__(self, out: Any) -> None:
        self.out = out
        self.calls: dict[int, dict[str, str]] = {}
        self.open: int | None = None

    def __call__(self, delta: dict[str, Any]) -> None:
        if delta.get("content"):
            self.flush_call()  # text after a call: the call is complete, print it first
            self.out.write(delta["content"])
            self.out.flush()
        for tc in delta.get("tool_calls") or []:
            i = tc["index"]
            if i != self.open:
                self.flush_call()
                self.open = i
            fn = tc.get("function") or {}
            call = self.calls.setdefault(i, {"name": "", "arguments": ""})
            call["name"] += fn.get("name") or ""
            call["arguments"] += fn.get("arguments") or ""

    def flush_call(self) -> None:
        if self.open is not None:
            c = self.calls[self.open]
            self.out.write(f"\n[call_{self.open}] {c['name']} {c['arguments']}\n")
            self.out.flush()
            self.open = None


def readable_call(call: dict[str, Any]) -> str:
    """A call as ``tool call get_weather (call_0)`` and one ``name = value`` line per argument."""
    fn = call["function"]
    head = f"tool call {fn['name']} ({call['id']})"
    try:
        args = json.loads(fn["arguments"])
    except ValueError:  # cut off: the arguments as received
        return f"{head}\n    arguments (incomplete): {fn['arguments']}"
    if not isinstance(args, dict) or not args:
        return f"{head}, no arguments" if args == {} else f"{head}\n    arguments: {fn['arguments']}"
    lines = [f"    {k} = {json.dumps(v, ensure_ascii=False)}" for k, v in args.items()]
    return "\n".join([head, *lines])


def _summary(result: dict[str, Any], fmt: str) -> str:
    u, t = result["usage"], result["timings"]

    def num(v: Any, unit: str) -> str:
        return "n/a" if v is None else f"{v:.1f} {unit}"

    return (f"{fmt}: {u['prompt_tokens']} prompt + {u['completion_tokens']} generated tokens; "
            f"grammar compile {num(t['grammar_compile_ms'], 'ms')}; TTFT {num(t['ttft_ms'], 'ms')}; "
            f"{num(t['tokens_per_s'], 'tok/s')}")


def run(args: argparse.Namespace) -> int:
    if args.max_new_tokens < 1:
        raise ToolgramError("--max-new-tokens must be at least 1")
    tools: list[dict[str, Any]] | None = None
    tool_choice = args.tool_choice or "auto"
    max_tool_calls = args.max_tool_calls
    if args.tools is None and args.prompt is None and args.messages is None:
        tools = read_json_file(str(EXAMPLE_TOOLS), "example tools")
        messages = [{"role": "user", "content": EXAMPLE_PROMPT}]
        if args.tool_choice is None:  # SmolLM2 answers in prose under auto; show a call
            tool_choice = "required"
            max_tool_calls = 1 if max_tool_calls is None else max_tool_calls
        _note(f"no --tools and no prompt: running the bundled example ({EXAMPLE_TOOLS.name}, "
              f"prompt {EXAMPLE_PROMPT!r}, tool_choice {tool_choice}"
              f"{f', max_tool_calls {max_tool_calls}' if max_tool_calls else ''})")
    else:
        if args.tools is not None:
            tools = read_json_file(args.tools, "tools")
        if args.messages is not None:
            messages = read_json_file(args.messages, "messages")
            if not isinstance(messages, list) or not all(isinstance(m, dict) for m in messages):
                raise ToolgramError("messages must be a JSON array of message objects", args.messages)
        elif args.prompt is not None:
            messages = [{"role": "user", "content": args.prompt}]
        else:
            raise ToolgramError("--prompt or --messages is required with --tools")
    if tools is not None and not isinstance(tools, list):
        raise ToolgramError("tools must be a JSON array (an OpenAI tools array)", args.tools)

    # Validate the tools and options before loading the model (cheap, and errors come first).
    from .. import compile as compile_tools
    from ..grammars import get_format
    from ..runtime.generator import DEFAULT_FORMAT

    if args.format is not None:
        get_format(args.format)
    allowed = [s.strip() for s in args.allowed_tools.split(",") if s.strip()] if args.allowed_tools else None
    if tools:
        extra: dict[str, Any] = {"max_tool_calls": max_tool_calls} if max_tool_calls is not None else {}
        compile_tools(args.format or DEFAULT_FORMAT, tools, dialect="ebnf", tool_choice=tool_choice,
                      parallel_tool_calls=args.parallel, reasoning=args.reasoning, allowed_tools=allowed, **extra,
                      permissive=args.permissive, any_order=args.any_order,
                      **language_kwargs(args))

    from ..runtime.generator import Generator

    progress = _note if sys.stderr.isatty() else None
    gen = Generator(args.model, args.device, progress=progress)
    fmt, note = gen.resolve_format(args.format)
    if note:
        _note(note)
    elif args.format is None and gen.detected:
        _note(f"format {fmt} (detected: {gen.detected[1]})")

    out = sys.stderr if args.json else sys.stdout
    printer = _StreamPrinter(out) if args.stream else None
    result = gen.chat(messages, tools, tool_choice=tool_choice, parallel_tool_calls=args.parallel,
                      format=fmt, reasoning=args.reasoning, max_new_tokens=args.max_new_tokens,
                      temperature=args.temperature, seed=args.seed, on_delta=printer, allowed_tools=allowed,
                      max_tool_calls=max_tool_calls, permissive=args.permissive, any_order=args.any_order,
                      **language_kwargs(args))
    message = result["message"]
    if printer is not None:
        printer.flush_call()
        out.write("\n")
    elif not args.json:
        if message.get("reasoning_content"):
            print(f"[reasoning] {message['reasoning_content']}")
        if message.get("content"):
            print(message["content"])
        for call in message.get("tool_calls") or []:
            print(readable_call(call))
    for d in message.get("diagnostics") or []:
        _note(f"diagnostic {d.get('code')}: {d.get('message')}")
    print(_summary(result, fmt), file=sys.stderr)
    if not args.json:
        _note("add --json for the message (tool_calls with JSON arguments), usage and timings as one JSON line")
    if args.json:
        print_json({"message": message, "usage": result["usage"], "timings": result["timings"]}, args.pretty)
    return 0

