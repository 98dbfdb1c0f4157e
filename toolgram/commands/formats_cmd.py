"""``toolgram formats [--json]``: the formats with their tags, triggers and defaults."""

from __future__ import annotations

import argparse
from dataclasses import asdict
from typing import Any

from ..grammars import FORMATS
from ..grammars.spec import FormatSpec
from .common import print_json


def describe(spec: FormatSpec) -> dict[str, Any]:
    sc = spec.scope
    return {
        "id": spec.id,
        "summary": spec.summary,
        "values": spec.values,
        "scope": scope_kind(spec),
        "call_open": sc.open,
        "call_close": sc.close,
        "separator": sc.canonical_join,
        "wrappers": [asdict(w) for w in sc.wrappers],
        "parallel_default": spec.parallel_default,
        "reasoning": asdict(spec.reasoning) if spec.reasoning else None,
        "reasoning_default": "optional" if spec.reasoning else "none",
        "triggers": [asdict(t) for t in spec.triggers],
        "anchored": sc.anchored,
        "section": asdict(sc.section) if sc.section else None,
        # protocol markup the parsers drop from text (SPEC section 1)
        "markup": {"tokens": list(spec.markup.tokens), "headers": [list(h) for h in spec.markup.headers]},
    }


def scope_kind(spec: FormatSpec) -> str:
    """How the calls of one turn are grouped, in words."""
    sc = spec.scope
    if sc.per_call:
        return "one block per call" + (", in one section" if sc.section else "")
    return "one list for all calls" + (", in one section" if sc.section else "")


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = sub.add_parser("formats", help="list the formats")
    p.add_argument("--json", action="store_true")
    p.add_argument("--pretty", action="store_true")
    return p


def run(args: argparse.Namespace) -> int:
    rows = [describe(s) for s in FORMATS.values()]
    if args.json:
        print_json(rows, args.pretty)
        return 0
    for r in rows:
        trig = ", ".join(f"{t['type']} {t['value']!r}" for t in r["triggers"])
        reason = f"{r['reasoning']['open']} {r['reasoning']['close']}" if r["reasoning"] else "none"
        print(
            f"{r['id']:<16} parallel={'on' if r['parallel_default'] else 'off':<3}  reasoning={reason:<28} "
            f"triggers: {trig}"
        )
        print(f"{'':16} {r['summary']}")
    return 0
