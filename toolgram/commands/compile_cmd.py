"""``toolgram compile FORMAT --tools TOOLS.json``: print a grammar or the SPEC section 3 bundle."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from .. import compile as compile_tools
from ..compiler.dialects import NAMES as DIALECTS
from .common import add_format, add_tool_options, read_tools, tool_kwargs, tools_file


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = sub.add_parser("compile", help="compile a format and tools into a grammar")
    add_format(p)
    add_tool_options(p)
    p.add_argument("--dialect", default="gbnf", choices=DIALECTS)
    p.add_argument("--json", action="store_true", help="print the bundle object (grammar, triggers, llama_server)")
    p.add_argument("--pretty", action="store_true", help="indent the JSON output")
    p.add_argument("-o", "--output", help="write to FILE instead of stdout")
    return p


def run(args: argparse.Namespace) -> int:
    tools = read_tools(args.tools)
    with tools_file(args.tools):
        bundle = compile_tools(args.format, tools, dialect=args.dialect, permissive=args.permissive,
                               **tool_kwargs(args))
    if args.json:
        text = json.dumps(bundle.to_json(), ensure_ascii=False, indent=2 if args.pretty else None) + "\n"
    else:
        text = bundle.grammar if bundle.grammar is not None else ""
        if text and not text.endswith("\n"):  # the structural tag's JSON text
            text += "\n"
    if args.output:
        Path(args.output).write_text(text, encoding="utf-8")
    else:
        print(text, end="")
    return 0
