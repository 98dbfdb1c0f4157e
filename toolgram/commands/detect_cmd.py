"""``toolgram detect TEMPLATE_OR_GGUF``: which tool-call format a chat template uses (SPEC section 5)."""

from __future__ import annotations

import argparse
import sys

from ..grammars import FORMATS
from ..runtime.detect import detect_path


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = sub.add_parser("detect", help="detect the tool-call format of a chat template or a GGUF")
    p.add_argument("path", help="a chat template (.jinja) or a .gguf file (its tokenizer.chat_template)")
    return p


def run(args: argparse.Namespace) -> int:
    found = detect_path(args.path)
    if found is None:
        print(f"no known tool format in {args.path}; known formats: {', '.join(FORMATS)}", file=sys.stderr)
        return 1
    fmt, reason = found
    print(fmt)
    print(reason)
    return 0
