"""``toolgram validate``: check grammars in their real engines (SPEC section 6).

- ``toolgram validate MANIFEST.toml [--json]``
- ``toolgram validate --grammar FILE --dialect D [--lazy-from-trigger (--format F | --trigger RE…)]
  [--lark-parser lalr|earley] [--accept FILE…] [--reject FILE…] [--json]``

Exit codes: 0 all passed (skipped engines do not fail), 1 any check failed, 2 usage error.
The report shape is documented in :mod:`toolgram.validate`.
"""

from __future__ import annotations

import argparse
import json
import re

from ..compiler.dialects import NAMES as DIALECTS
from ..errors import ToolgramError


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = sub.add_parser("validate", help="load grammars in their engines and check example outputs")
    p.add_argument("manifest", nargs="?", help="TOML manifest of cases (manifest mode)")
    p.add_argument("--grammar", help="grammar file to validate (grammar-file mode)")
    p.add_argument("--dialect", choices=DIALECTS,
                   help="the grammar file's dialect (grammar-file mode)")
    p.add_argument("--lazy-from-trigger", action="store_true",
                   help="GBNF only: the grammar is lazy and matches from the trigger on (as llama.cpp "
                        "applies it); examples are whole outputs. Triggers from --format or --trigger")
    p.add_argument("--format", dest="trigger_format", metavar="FORMAT",
                   help="with --lazy-from-trigger: use this toolgram format's triggers")
    p.add_argument("--trigger", action="append", default=[], metavar="REGEX",
                   help="with --lazy-from-trigger: a trigger pattern (regex; repeatable)")
    p.add_argument("--lark-parser", choices=("lalr", "earley"),
                   help="Lark parser (default: LALR when the grammar builds under it, else Earley)")
    p.add_argument("--accept", nargs="+", default=[], metavar="FILE",
                   help="files whose exact bytes must be a complete match")
    p.add_argument("--reject", nargs="+", default=[], metavar="FILE", help="files that must not match")
    p.add_argument("--json", action="store_true", help="print the report as one JSON object")
    p.add_argument("--pretty", action="store_true", help="indent the JSON output")
    return p


def _usage(msg: str) -> ToolgramError:
    return ToolgramError(msg)


def run(args: argparse.Namespace) -> int:
    from ..validate import validate_grammar_file, validate_manifest

    if args.manifest and args.grammar:
        raise _usage("give either a MANIFEST or --grammar FILE, not both")
    if args.manifest:
        extra = [flag for flag, v in (("--dialect", args.dialect), ("--accept", args.accept),
                                      ("--reject", args.reject), ("--lazy-from-trigger", args.lazy_from_trigger),
                                      ("--format", args.trigger_format), ("--trigger", args.trigger),
                                      ("--lark-parser", args.lark_parser)) if v]
        if extra:
            raise _usage(f"{extra[0]} applies to grammar-file mode (--grammar FILE) only")
        report = validate_manifest(args.manifest)
    elif args.grammar:
        if not args.dialect:
            raise _usage(f"--grammar needs --dialect {'|'.join(DIALECTS)}")
        patterns = None
        if args.lazy_from_trigger:
            if args.dialect != "gbnf":
                raise _usage("--lazy-from-trigger applies to gbnf only; the other dialects express "
                             "laziness inside the grammar")
            patterns = _trigger_patterns(args)
        elif args.trigger or args.trigger_format:
            raise _usage("--format/--trigger need --lazy-from-trigger")
        if args.lark_parser and args.dialect != "lark":
            raise _usage("--lark-parser applies to --dialect lark only")
        report = validate_grammar_file(args.grammar, args.dialect, accept=args.accept, reject=args.reject,
                                       lazy_patterns=patterns, lark_parser=args.lark_parser)
    else:
        raise _usage("give a MANIFEST.toml, or --grammar FILE --dialect D")
    if args.json:
        print(json.dumps(report.to_json(), ensure_ascii=False, indent=2 if args.pretty else None))
    else:
        print(report.table())
    return 0 if report.ok else 1


def _trigger_patterns(args: argparse.Namespace) -> list[str]:
    patterns = list(args.trigger)
    for i, pat in enumerate(patterns):
        try:
            re.compile(pat)
        except re.error as e:
            raise ToolgramError(f"--trigger #{i + 1} is not a valid regex: {e}", "--trigger") from None
    if args.trigger_format:
        from ..compiler.bundle import lazy_patterns
        from ..grammars import get_format

        patterns += lazy_patterns(get_format(args.trigger_format))
    if not patterns:
        raise _usage("--lazy-from-trigger needs the triggers: --format FORMAT or --trigger REGEX")
    return patterns
