"""``toolgram parse FORMAT --tools TOOLS.json < OUTPUT``: print the SPEC section 4 message.

With ``--chunk-size N`` the stream parser is fed N characters at a time: one JSON line per
delta, then the final message.  Imports no engine (torch, OpenVINO, xgrammar).
"""

from __future__ import annotations

import argparse
import sys

from ..compiler.options import CALL_IDS
from .common import add_format, add_tool_options, print_json, read_json_file, tool_kwargs


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = sub.add_parser("parse", help="parse model output (stdin) into an assistant message")
    add_format(p)
    add_tool_options(p)
    p.add_argument("--mode", choices=("lenient", "strict"), default="lenient")
    p.add_argument("--chunk-size", type=int, default=None,
                   help="stream: feed N characters at a time, print each delta, then the message")
    p.add_argument("--call-ids", choices=CALL_IDS, default=CALL_IDS[0],
                   help="lenient: call_<index> ids (default), or the id the model wrote in a call's head (model)")
    p.add_argument("--any-tool", action="store_true",
                   help="lenient: a call to any name is a call (vLLM's reading); by default only the tools' names")
    p.add_argument("--pretty", action="store_true", help="indent the JSON output")
    return p


def run(args: argparse.Namespace) -> int:
    from ..errors import OptionError
    from ..parsing.parser import StreamParser, parse

    tools = read_json_file(args.tools, "tools")
    text = sys.stdin.buffer.read().decode("utf-8", errors="replace")
    kwargs = {**tool_kwargs(args), "call_ids": args.call_ids, "any_tool": args.any_tool}
    if args.chunk_size is None:
        print_json(parse(args.format, text, tools, mode=args.mode, permissive=args.permissive, **kwargs), args.pretty)
        return 0
    if args.chunk_size < 1:
        raise OptionError("--chunk-size must be at least 1", "--chunk-size")
    if args.mode != "lenient":
        raise OptionError("--chunk-size streams with the lenient parser; drop --mode strict", "--mode")
    sp = StreamParser(args.format, tools, **kwargs)
    n = args.chunk_size
    for i in range(0, len(text), n):
        for delta in sp.feed(text[i:i + n]):
            print_json(delta, args.pretty)
    for delta in sp.finish():
        print_json(delta, args.pretty)
    print_json(sp.message, args.pretty)
    return 0
