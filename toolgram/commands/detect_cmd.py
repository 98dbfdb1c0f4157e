"""``toolgram detect TEMPLATE_OR_GGUF``: which tool-call format a chat template uses (SPEC section 5)."""

from __future__ import annotations

import argparse
import sys

from ..grammars import FORMATS
from ..runtime.detect import TOOL_CALLS_FIELD, detect_format, read_template, renders_tool_calls


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = sub.add_parser("detect", help="detect the tool-call format of a chat template or a GGUF")
    p.add_argument("path", help="a chat template (.jinja) or a .gguf file (its tokenizer.chat_template)")
    return p


def run(args: argparse.Namespace) -> int:
    """Exit 0 with the id and the reason; exit 1 when no format is named: either the template renders
    no tool calls at all, or it writes calls in a family toolgram does not know (never a nearest match)."""
    text = read_template(args.path)
    found = detect_format(text)
    if found is None:
        known = f"known formats: {', '.join(FORMATS)}"
        if not renders_tool_calls(text):
            print(f"no known tool format in {args.path}: the template renders no tool calls (it never reads a "
                  f"message's {TOOL_CALLS_FIELD}); {known}", file=sys.stderr)
        else:
            print(f"no known tool format in {args.path}: unknown tool-call format (the template writes tool "
                  f"calls, but no format's fingerprint matches); {known}", file=sys.stderr)
        return 1
    fmt, reason = found
    print(fmt)
    print(reason)
    return 0
