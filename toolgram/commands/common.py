"""Options shared by several subcommands (SPEC sections 2-5)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from ..errors import ToolgramError
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
        "--permissive",
        action="store_true",
        help="ignore schema keywords a grammar cannot enforce instead of failing (listed as 'relaxed')",
    )


def read_json_file(path: str, what: str) -> Any:
    try:
        text = sys.stdin.read() if path == "-" else Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise ToolgramError(f"cannot read {what}: {exc.strerror}", path) from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ToolgramError(f"{what} is not valid JSON: {exc.msg}", f"{path}:{exc.lineno}:{exc.colno}") from None


def tool_kwargs(args: argparse.Namespace) -> dict[str, Any]:
    """Keyword arguments for :func:`toolgram.compile` / :func:`toolgram.parse` from the shared flags."""
    allowed = [s.strip() for s in args.allowed_tools.split(",") if s.strip()] if args.allowed_tools else None
    return {
        "tool_choice": args.tool_choice,
        "parallel_tool_calls": args.parallel,
        "reasoning": args.reasoning,
        "allowed_tools": allowed,
    }


def print_json(obj: Any, pretty: bool = False) -> None:
    print(json.dumps(obj, ensure_ascii=False, indent=2 if pretty else None))
