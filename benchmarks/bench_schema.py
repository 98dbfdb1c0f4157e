"""Schema compile benchmark (a script, not a test): ``python benchmarks/bench_schema.py [--quick] [--repeat N]``.

Grammar-text build time (``toolgram.compile``, one tool whose ``parameters`` is the schema, hermes, each
dialect) per schema, p50 and p90 over a corpus: every object schema of the vendored JSON-Schema-Test-Suite
(tests/data/json-schema-test-suite, draft 2020-12) that compiles, and realistic MCP/OpenAPI-style tool schemas
written here (:data:`REALISTIC`).  Issue 22's target: p90 <= 10 ms per schema for the grammar text.  Schemas
that do not compile are counted, not timed.  Strict mode (no ``--permissive``).

``--keys``: the strict parser's Lark grammar size and build time with extra keys printed as a negative look-ahead
(``Token.unless``, now) and as the complement of the declared names' trie (before), side by side in one run, on
the vendored real-world schemas and the OpenAI SDK's ``ChatCompletion`` and ``Response`` models.

``--lark``: the strict parser's build instead, for each vendored real-world schema (tests/data/real-world-schemas;
``--permissive`` where strict compiling refuses one), with Lark's own grammar analyses and with toolgram's
(``toolgram.compiler.emit.lark_analysis``), side by side in one run.

``--corpus DIR``: every ``*.json`` schema under DIR as one tool's parameters (hermes EBNF), strict and
``--permissive`` side by side: how many compile, the commonest refusals (pattern text cut), p50/p90/max time, and
compiles past 60 s.  A corpus not vendored here, e.g. the CloudFormation resource schemas cfn-lint ships:
``pip download --no-deps cfn-lint==1.58.0 && unzip -q cfn_lint-1.58.0-py3-none-any.whl -d cfn`` then
``--corpus cfn/cfnlint/data/schemas/resources``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import Any

from _common import machine_footer, machine_header
from toolgram.compiler.bundle import compile

from toolgram.errors import ToolgramError

DATA = Path(__file__).resolve().parents[1] / "tests" / "data"
SUITE = DATA / "json-schema-test-suite" / "draft2020-12"

_STR = {"type": "string"}
_INT = {"type": "integer"}
REALISTIC: dict[str, dict[str, Any]] = {
    "mcp_filesystem_edit": {"type": "object", "properties": {
        "path": _STR, "edits": {"type": "array", "items": {"type": "object", "properties": {
            "oldText": _STR, "newText": _STR}, "required": ["oldText", "newText"], "additionalProperties": False}},
        "dryRun": {"type": "boolean", "default": False}}, "required": ["path", "edits"],
        "additionalProperties": False, "$schema": "http://json-schema.org/draft-07/schema#"},
    "mcp_github_create_issue": {"type": "object", "properties": {
        "owner": _STR, "repo": _STR, "title": _STR, "body": _STR,
        "assignees": {"type": "array", "items": _STR}, "labels": {"type": "array", "items": _STR},
        "milestone": {"type": "integer", "minimum": 1}}, "required": ["owner", "repo", "title"]},
    "openapi_search": {"type": "object", "properties": {
        "q": {"type": "string", "minLength": 1, "maxLength": 256},
        "sort": {"type": "string", "enum": ["relevance", "date", "stars"]},
        "order": {"enum": ["asc", "desc"]}, "per_page": {"type": "integer", "minimum": 1, "maximum": 100},
        "page": {"type": "integer", "minimum": 1}, "filters": {"type": "object", "additionalProperties": _STR,
                                                               "maxProperties": 8}},
        "required": ["q"]},
    "openapi_refs": {"type": "object", "$defs": {
        "Address": {"type": "object", "properties": {"street": _STR, "city": _STR, "zip": {
            "type": "string", "pattern": "^[0-9]{5}(-[0-9]{4})?$"}}, "required": ["city"]},
        "Person": {"type": "object", "properties": {"name": _STR, "age": {"type": "integer", "minimum": 0},
                                                    "address": {"$ref": "#/$defs/Address"}}}},
        "properties": {"customer": {"$ref": "#/$defs/Person"}, "shipping": {"$ref": "#/$defs/Address"},
                       "notes": {"type": ["string", "null"]}}, "required": ["customer"]},
    "k8s_like_labels": {"type": "object", "properties": {
        "name": {"type": "string", "pattern": "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$", "description": "DNS label"},
        "labels": {"type": "object", "additionalProperties": _STR},
        "replicas": {"type": "integer", "minimum": 0, "maximum": 1000},
        "ports": {"type": "array", "items": {"type": "object", "properties": {
            "containerPort": _INT, "protocol": {"enum": ["TCP", "UDP", "SCTP"]}}, "required": ["containerPort"]},
            "maxItems": 16}},
        "required": ["name"], "additionalProperties": True, "minProperties": 1},
    "config_with_extras": {"type": "object", "properties": {"mode": {"const": "fast"}, "level": _INT},
                           "required": ["mode", "token"], "additionalProperties": {"type": ["integer", "boolean"]}},
    # JsonSchemaStore-style conditions: a discriminator's if/then/else in allOf, and a dependent schema
    "config_conditions": {"type": "object", "properties": {
        "kind": {"enum": ["http", "file", "queue"]}, "url": {"type": "string", "format": "uri"}, "path": _STR,
        "queue": _STR, "retries": {"type": "integer", "minimum": 0, "maximum": 10}, "backoff": {"type": "number"}},
        "required": ["kind"], "allOf": [
            {"if": {"properties": {"kind": {"const": "http"}}}, "then": {"required": ["url"]}},
            {"if": {"properties": {"kind": {"const": "file"}}}, "then": {"required": ["path"]}},
            {"if": {"properties": {"kind": {"const": "queue"}}}, "then": {"required": ["queue"]}}],
        "dependentSchemas": {"retries": {"required": ["backoff"]}}},
    # pydantic's Optional[Literal[...]] and Optional[constr(max_length=...)]
    "pydantic_optionals": {"type": "object", "properties": {
        "mode": {"anyOf": [{"enum": ["read", "write"]}, {"type": "null"}], "default": None},
        "note": {"anyOf": [{"type": "string", "maxLength": 80}, {"type": "null"}], "default": None},
        "limit": {"anyOf": [{"type": "integer", "minimum": 1}, {"type": "null"}], "default": None}},
        "required": []},
    # exactly one source (oneOf over required names), and a 2020-12 discriminated union closed by
    # unevaluatedProperties, its definitions named by $id and $anchor
    "exactly_one_source": {"type": "object", "properties": {
        "url": {"type": "string", "format": "uri"}, "path": _STR, "inline": _STR,
        "encoding": {"enum": ["utf-8", "latin-1"]}},
        "oneOf": [{"required": ["url"]}, {"required": ["path"]}, {"required": ["inline"]}]},
    "anchored_union": {"$id": "https://example.com/shapes.json", "type": "object", "$defs": {
        "circle": {"$anchor": "circle", "properties": {"kind": {"const": "circle"}, "r": {"type": "number"}},
                   "required": ["kind", "r"]},
        "rect": {"$id": "rect.json", "properties": {"kind": {"const": "rect"}, "w": _INT, "h": _INT},
                 "required": ["kind", "w", "h"]}},
        "properties": {"kind": {"enum": ["circle", "rect"]}, "label": _STR}, "required": ["kind"],
        "oneOf": [{"$ref": "#circle"}, {"$ref": "https://example.com/rect.json"}], "unevaluatedProperties": False},
    # patterns as sign-up forms and configs write them: look-aheads (a reserved name, a password rule), a
    # Unicode letter class, a Java-style (?i), a negated pattern and two patterns met
    "account_signup": {"type": "object", "properties": {
        "username": {"type": "string", "pattern": "^(?!(admin|root)$)[a-z][a-z0-9_]{2,15}$"},
        "password": {"type": "string", "pattern": "^(?=.*[A-Z])(?=.*[0-9]).{8,}$"},
        "display_name": {"type": "string", "pattern": "^[\\p{L} '-]+$", "maxLength": 40},
        "color": {"type": "string", "pattern": "(?i)^#[0-9a-f]{6}$"},
        "tag": {"type": "string", "not": {"pattern": "^x-"}, "allOf": [{"pattern": "^[a-z-]+$"}]}},
        "required": ["username", "password"]},
    # OpenAPI-style text fields: a pattern that asks for one non-blank character, met with its lengths
    "ticket_fields": {"type": "object", "properties": {
        "title": {"type": "string", "pattern": "\\S", "minLength": 1, "maxLength": 255},
        "body": {"type": "string", "pattern": "^(?!\\s*$).+", "maxLength": 65535},
        "glob": {"type": "string", "pattern": "[*?\\[]", "maxLength": 1024}},
        "required": ["title"]},
}


def corpus() -> dict[str, dict[str, Any]]:
    out = dict(REALISTIC)
    for f in sorted(SUITE.glob("*.json")):
        for i, group in enumerate(json.loads(f.read_text(encoding="utf-8"))):
            schema = group["schema"]
            if isinstance(schema, dict) and schema.get("type", "object") in ("object", ["object"]):
                out[f"suite/{f.stem}/{i}"] = schema
    return out


def percentile(xs: list[float], q: float) -> float:
    return statistics.quantiles(xs, n=100, method="inclusive")[int(q) - 1] if len(xs) > 1 else xs[0]


def _larks_own(text: str, kind: str, extra: dict[str, str]) -> None:
    import lark
    import lark.lexer

    saved, lark.lexer.has_interegular = lark.lexer.has_interegular, False  # as new_lark does
    try:
        lark.Lark(text, parser=kind, propagate_positions=True, **extra)
    finally:
        lark.lexer.has_interegular = saved


def _toolgrams(text: str, kind: str, extra: dict[str, str]) -> None:
    from toolgram.compiler.emit.lark import new_lark

    new_lark(text, parser=kind, propagate_positions=True)


def _best(repeat: int, build: Any, *args: Any) -> float:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        build(*args)
        best = min(best, time.perf_counter() - t0)
    return best


def lark_builds(repeat: int) -> None:
    """Lark parser build time per real-world schema: Lark's analyses against toolgram's."""
    machine_header("bench_schema --lark: strict parser (Lark) build time per real-world schema (hermes, one tool)",
                   f"best of {repeat}; the same grammar text built by lark.Lark as is and by toolgram's new_lark")
    print(f"{'schema':<20}{'mode':>11}{'parser':>8}{'grammar KB':>12}{'Lark s':>9}{'toolgram s':>12}{'ratio':>8}")
    for path in sorted((DATA / "real-world-schemas").glob("*.json")):
        tools = [{"type": "function", "function": {"name": "f", "parameters": json.loads(path.read_text("utf-8"))}}]
        mode = "strict"
        try:
            bundle = compile("hermes", tools, dialect="lark", tool_choice="required")
        except ToolgramError:
            mode = "permissive"
            bundle = compile("hermes", tools, dialect="lark", tool_choice="required", permissive=True)
        text, kind = bundle.grammar or "", bundle.lark_parser or "lalr"
        extra = {"lexer": "contextual"} if kind == "lalr" else {}
        times = [_best(repeat, build, text, kind, extra) for build in (_larks_own, _toolgrams)]
        print(f"{path.stem:<20}{mode:>11}{kind:>8}{len(text) / 1000:>12.0f}{times[0]:>9.2f}{times[1]:>12.2f}"
              f"{times[0] / times[1]:>8.1f}")
    machine_footer()


@contextmanager
def _keys_as_complements() -> Iterator[None]:
    """Print extra keys as before ``Token.unless``: the complement of the declared names' trie, in Lark too."""
    from toolgram.compiler.emit import lark as printer

    own = printer.LarkPrinter.terminal

    def terminal(self: Any, e: Any, kind: str, follow: Any = "", path: str = "", stop: str = "",
                 unless: Any = None) -> str:
        return own(self, e, kind, follow, path, stop, None)

    printer.LarkPrinter.terminal = terminal  # type: ignore[method-assign]
    try:
        yield
    finally:
        printer.LarkPrinter.terminal = own  # type: ignore[method-assign]


def _openai_schemas() -> dict[str, dict[str, Any]]:
    """Pydantic schemas of the OpenAI SDK's response models (``additionalProperties: true`` on every object), if
    the ``openai`` package is installed."""
    try:
        import openai
        from openai.types.chat import ChatCompletion
        from openai.types.responses import Response
    except ImportError:
        return {}
    return {f"openai {openai.__version__} {m.__name__}": m.model_json_schema() for m in (ChatCompletion, Response)}


def key_lookaheads(repeat: int) -> None:
    """The strict parser's grammar and build with extra keys as a look-ahead (now) and as a complement (before)."""
    machine_header("bench_schema --keys: extra keys in the strict parser (Lark), look-ahead vs trie complement",
                   f"best of {repeat}; compile(..., dialect='lark') then new_lark, one process, hermes, one tool")
    print(f"{'schema':<34}{'KB before':>10}{'KB now':>8}{'build s before':>16}{'build s now':>13}{'ratio':>7}")
    schemas = {p.stem: json.loads(p.read_text("utf-8")) for p in sorted((DATA / "real-world-schemas").glob("*.json"))}
    schemas.update(_openai_schemas())
    for name, schema in schemas.items():
        tools = [{"type": "function", "function": {"name": "f", "parameters": schema}}]
        row = []
        for before in (True, False):
            with _keys_as_complements() if before else nullcontext():
                bundle = compile("hermes", tools, dialect="lark", tool_choice="required", permissive=True)
            text, kind = bundle.grammar or "", bundle.lark_parser or "lalr"
            row.append((len(text) / 1000, _best(repeat, _toolgrams, text, kind, {})))
        (kb0, t0), (kb1, t1) = row
        print(f"{name[:33]:<34}{kb0:>10.0f}{kb1:>8.0f}{t0:>16.2f}{t1:>13.2f}{t0 / t1:>7.1f}")
    machine_footer()


def corpus_scan(root: Path, limit_s: int = 60) -> None:
    """Strict and permissive compiles of every schema under ``root`` (see the module's ``--corpus``)."""
    import collections
    import re
    import signal

    class Late(Exception):
        pass

    def late(*_: Any) -> None:
        raise Late

    schemas, unread = {}, 0
    for path in sorted(root.rglob("*.json")):
        try:  # (a byte-order mark is read; a file that is no JSON object is counted, not compiled)
            schema = json.loads(path.read_text(encoding="utf-8-sig"))
        except (ValueError, UnicodeDecodeError):
            schema = None
        if isinstance(schema, dict):
            schemas[path.name] = schema
        else:
            unread += 1
    machine_header("bench_schema --corpus: real-world schemas, strict and permissive (hermes EBNF, one tool)",
                   f"{len(schemas)} schemas under {root} ({unread} files not a JSON object left out), "
                   f"one compile each, {limit_s} s at most")
    signal.signal(signal.SIGALRM, late)
    print(f"{'mode':<12}{'compiled':>10}{'refused':>10}{'late':>6}{'p50 ms':>10}{'p90 ms':>10}{'max ms':>10}")
    reasons: collections.Counter[str] = collections.Counter()
    slow: list[str] = []
    slowest: dict[str, list[tuple[float, str]]] = {}
    for permissive in (False, True):
        mode = "permissive" if permissive else "strict"
        named: list[tuple[float, str]] = []  # (ms, file) of each compile
        refused, over = 0, 0
        for name, schema in schemas.items():
            tools = [{"type": "function", "function": {"name": "f", "parameters": schema}}]
            signal.alarm(limit_s)
            t0 = time.process_time()
            try:
                compile("hermes", tools, dialect="ebnf", tool_choice="required", permissive=permissive)
                named.append(((time.process_time() - t0) * 1000, name))
            except ToolgramError as exc:
                refused += 1
                if not permissive:
                    reasons[re.sub(r"(['\"]).{24,}?\1 ", "… ", exc.message)[:100]] += 1  # (long patterns cut)
            except Late:
                over += 1
                slow.append(f"{mode}: {name}")
            finally:
                signal.alarm(0)
        slowest[mode] = sorted(named, reverse=True)[:3]
        xs = sorted(ms for ms, _ in named)
        print(f"{mode:<12}{len(xs):>10}{refused:>10}{over:>6}"
              f"{percentile(xs, 50) if xs else 0:>10.1f}{percentile(xs, 90) if xs else 0:>10.1f}"
              f"{xs[-1] if xs else 0:>10.0f}")
    print("\nstrict refusals, commonest first:")
    for reason, n in reasons.most_common(8):
        print(f"{n:>6}  {reason}")
    print("\nslowest compiles (ms, file):")
    for mode, worst in slowest.items():
        print(f"  {mode:<12}" + ", ".join(f"{ms:.0f} {name}" for ms, name in worst))
    if slow:
        print(f"\npast {limit_s} s: " + ", ".join(slow))
    machine_footer()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--quick", action="store_true", help="realistic schemas and every 10th suite schema, 1 repeat")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--lark", action="store_true", help="the strict parser's build on the real-world schemas")
    ap.add_argument("--keys", action="store_true", help="extra keys in the strict parser: look-ahead vs complement")
    ap.add_argument("--corpus", type=Path, help="a folder of real-world JSON schemas: strict and permissive compiles")
    args = ap.parse_args()
    if args.corpus:
        corpus_scan(args.corpus)
        return
    if args.lark:
        lark_builds(1 if args.quick else min(args.repeat, 3))
        return
    if args.keys:
        key_lookaheads(1 if args.quick else min(args.repeat, 3))
        return
    schemas = corpus()
    if args.quick:
        names = list(schemas)
        schemas = {k: schemas[k] for i, k in enumerate(names) if k in REALISTIC or i % 10 == 0}
    repeat = 1 if args.quick else args.repeat
    machine_header("bench_schema: grammar text build time per schema (hermes, one tool)",
                   f"{len(schemas)} schemas, best of {repeat} per schema")
    print(f"{'dialect':<16}{'compiled':>10}{'refused':>10}{'p50 ms':>10}{'p90 ms':>10}{'max ms':>10}  slowest")
    for dialect in ("gbnf", "ebnf", "lark", "structural-tag"):
        times: dict[str, float] = {}
        refused = 0
        for name, schema in schemas.items():
            tools = [{"type": "function", "function": {"name": "f", "parameters": schema}}]
            best = float("inf")
            try:
                for _ in range(repeat):
                    t0 = time.perf_counter()
                    compile("hermes", tools, dialect=dialect, tool_choice="required")
                    best = min(best, time.perf_counter() - t0)
            except ToolgramError:
                refused += 1
                continue
            times[name] = best * 1000
        xs = sorted(times.values())
        slowest = max(times, key=times.get) if times else "-"
        print(f"{dialect:<16}{len(xs):>10}{refused:>10}{percentile(xs, 50):>10.2f}{percentile(xs, 90):>10.2f}"
              f"{xs[-1]:>10.2f}  {slowest}")
    machine_footer()


if __name__ == "__main__":
    main()
