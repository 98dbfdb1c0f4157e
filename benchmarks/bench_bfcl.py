"""BFCL v4 accuracy with and without toolgram, per category x format x mode (a script, not a test).

``python benchmarks/bench_bfcl.py [--limit N] [--categories a,b] [--formats a,b|all] [--modes free,auto,required]
[--model PATH] [--results FILE] [--plot FILE.png]``

What it runs, for every BFCL v4 case of the chosen categories (the first ``--limit`` of each, in the data's order):

- the case's functions become OpenAI tools: BFCL's type names are mapped to JSON Schema with BFCL's own
  ``GORILLA_TO_OPENAPI`` table (``dict`` -> ``object``, ``float`` -> ``number``, ``tuple`` -> ``array``, ``any`` ->
  ``string``; the walk follows BFCL's ``_cast_to_openai_type``); tool names are kept as BFCL writes them (dotted
  names such as ``math.factorial`` included), so the checker compares names unchanged;
- the model answers the case's question through :class:`toolgram.runtime.Generator` (OpenVINO GenAI, greedy), with
  the prompt toolgram renders for the format (the model's own template where it renders tools, else toolgram's
  ChatML template with the format's instructions), in three modes:
  ``free`` (no grammar; the output is read back with toolgram's lenient parser), ``auto`` and ``required``
  (toolgram's grammar for the format, ``tool_choice`` auto / required). ``parallel_tool_calls`` follows
  ``--parallel``: ``category`` (default) turns it on for BFCL's parallel categories and off for the others, as an
  API user who expects one call would set it; ``on``, ``off`` and ``format`` (the format's own default) are the
  alternatives, so the runaway repeats a small model writes when it may call again can be measured too;
- BFCL's own checker, ``bfcl_eval.eval_checker.ast_eval.ast_checker.ast_checker``, judges the calls (never a
  re-implementation); ``irrelevance`` cases are right when no call is made, as BFCL scores them.

Per category x format x mode it prints: accuracy (BFCL's checker), ``valid`` (the share of cases whose output holds
at least one call and whose every call names an offered tool with arguments valid under its JSON schema,
``jsonschema`` as the oracle; for ``irrelevance``, the share with no call), output tokens per call, seconds per
case, and how many cases the format could not compile (``refused``: a tool name or schema the format cannot carry;
such a case counts as wrong). Results are written to ``--results`` (JSON, one record per case and mode) as they come,
and a rerun with the same file skips what is already there (resumable); ``--plot`` draws accuracy per format and
mode as a PNG (matplotlib).

BFCL's data and checker come from the ``bfcl-eval`` package, installed without its model-provider dependencies:
``pip install --no-deps bfcl-eval==2026.3.23``. Its checker module imports BFCL's model registry (and through it
every provider SDK) only to read one flag, ``underscore_to_dot``, for the model being scored; this script registers
that one entry for the model name ``toolgram`` (names are not rewritten, so the flag is false) before importing the
checker, and imports nothing else of the registry.

A 135M model is far from the leaderboard: the figures show the relative effect of constraining a small model in
each format, not a leaderboard entry.
"""

from __future__ import annotations

import argparse
import copy
import json
import sys
import time
import types
from collections import defaultdict
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import grouped_bars, machine_footer, machine_header, save_figure  # noqa: E402

CATEGORIES = ("simple_python", "multiple", "parallel", "parallel_multiple", "irrelevance",
              "live_simple", "live_multiple", "live_parallel")
MODES = ("free", "auto", "required")
#: formats run by default (``--formats all`` runs every format): one per call-syntax family
DEFAULT_FORMATS = ("hermes", "qwen3_coder", "llama3_json", "pythonic", "mistral", "deepseek_v3_1")
MODEL_NAME = "toolgram"  # the name the checker is told (its registry entry is made below)


@dataclass
class _CheckerModelConfig:
    """The one field of BFCL's ``ModelConfig`` its AST checker reads."""

    underscore_to_dot: bool = False


def bfcl() -> tuple[Any, Any, dict[str, str]]:
    """BFCL's checker, its ``Language`` enum and its ``GORILLA_TO_OPENAPI`` table."""
    registry = "bfcl_eval.constants.model_config"
    if registry not in sys.modules:  # see the module docstring: the checker reads one flag of one entry
        stub = types.ModuleType(registry)
        stub.MODEL_CONFIG_MAPPING = {MODEL_NAME: _CheckerModelConfig()}  # type: ignore[attr-defined]
        sys.modules[registry] = stub
    from bfcl_eval.constants.enums import Language
    from bfcl_eval.constants.type_mappings import GORILLA_TO_OPENAPI
    from bfcl_eval.eval_checker.ast_eval.ast_checker import ast_checker

    return ast_checker, Language, GORILLA_TO_OPENAPI


def load_cases(category: str, limit: int | None) -> list[dict[str, Any]]:
    """The category's cases (with ``ground_truth`` where BFCL has one), in the data's order."""
    data = resources.files("bfcl_eval") / "data"
    cases = [json.loads(line) for line in (data / f"BFCL_v4_{category}.json").read_text(encoding="utf-8").splitlines()
             if line.strip()]
    answers_file = data / "possible_answer" / f"BFCL_v4_{category}.json"
    if answers_file.is_file():
        answers = {a["id"]: a["ground_truth"] for a in
                   (json.loads(line) for line in answers_file.read_text(encoding="utf-8").splitlines() if line.strip())}
        for case in cases:
            case["ground_truth"] = answers.get(case["id"])
    return cases[:limit] if limit else cases


def _cast(properties: dict[str, Any], mapping: dict[str, str]) -> dict[str, Any]:
    """BFCL's type names -> JSON Schema, as BFCL's ``_cast_to_openai_type`` walks them (lists of lists, lists of
    dicts, dicts of anything)."""
    for value in properties.values():
        value["type"] = mapping.get(value.get("type", "string"), "string")
        if value["type"] in ("array", "object"):
            if "properties" in value:
                value["properties"] = _cast(value["properties"], mapping)
            elif isinstance(value.get("items"), dict):
                items = value["items"]
                items["type"] = mapping.get(items.get("type", "string"), "string")
                if items["type"] == "array" and isinstance(items.get("items"), dict):
                    items["items"]["type"] = mapping.get(items["items"].get("type", "string"), "string")
                elif items["type"] == "object" and "properties" in items:
                    items["properties"] = _cast(items["properties"], mapping)
    return properties


def to_tools(functions: list[dict[str, Any]], mapping: dict[str, str]) -> list[dict[str, Any]]:
    """BFCL function documents -> an OpenAI ``tools`` array (names unchanged)."""
    tools = []
    for fn in copy.deepcopy(functions):
        params = fn.get("parameters") or {}
        params["type"] = "object"
        params["properties"] = _cast(params.get("properties", {}), mapping)
        tools.append({"type": "function", "function": {"name": fn["name"], "description": fn.get("description", ""),
                                                       "parameters": params}})
    return tools


def calls_of(message: dict[str, Any]) -> list[tuple[str, Any]]:
    """(name, decoded arguments or None when they are not a JSON object) for each call of a parsed message."""
    out = []
    for call in message.get("tool_calls") or []:
        try:
            args = json.loads(call["function"]["arguments"])
        except ValueError:
            args = None
        out.append((call["function"]["name"], args if isinstance(args, dict) else None))
    return out


def schema_valid(calls: list[tuple[str, Any]], tools: list[dict[str, Any]]) -> bool:
    """Every call names an offered tool with arguments valid under its schema (``jsonschema``)."""
    import jsonschema

    schemas = {t["function"]["name"]: t["function"]["parameters"] for t in tools}
    for name, args in calls:
        if name not in schemas or args is None:
            return False
        try:
            jsonschema.validate(args, schemas[name])
        except jsonschema.ValidationError:
            return False
        except jsonschema.SchemaError:
            return False
    return bool(calls)


def score(case: dict[str, Any], category: str, calls: list[tuple[str, Any]]) -> bool:
    """BFCL's verdict for the calls (its AST checker; irrelevance: right when there is no call)."""
    if "irrelevance" in category:
        return not calls
    if not calls or any(args is None for _, args in calls):
        return False
    checker, language, _ = bfcl()
    verdict = checker(case["function"], [{name: args} for name, args in calls], case["ground_truth"],
                      language.PYTHON, category, MODEL_NAME)
    return bool(verdict.get("valid"))


def parallel_for(policy: str, category: str) -> bool | None:
    """``parallel_tool_calls`` for a case under ``--parallel`` (``None``: the format's default)."""
    return {"on": True, "off": False, "format": None}.get(policy, "parallel" in category)


def run_case(gen: Any, fmt: str, mode: str, case: dict[str, Any], category: str, max_new_tokens: int,
             mapping: dict[str, str], parallel: bool | None = None) -> dict[str, Any]:
    """One generation and its verdict, as a JSON-serialisable record."""
    import toolgram
    from toolgram import ToolgramError

    tools = to_tools(case["function"], mapping)
    messages = case["question"][0]
    record: dict[str, Any] = {"id": case["id"], "category": category, "format": fmt, "mode": mode}
    t0 = time.perf_counter()
    try:
        result = gen.chat(messages, tools=tools, tool_choice="none" if mode == "free" else mode, format=fmt,
                          parallel_tool_calls=parallel, max_new_tokens=max_new_tokens)
    except ToolgramError as exc:  # the format cannot carry a tool name or schema: the case counts as wrong
        record.update(refused=str(exc).splitlines()[0], correct=False, valid=False, calls=0, tokens=0,
                      seconds=round(time.perf_counter() - t0, 3))
        return record
    message = result["message"]
    if mode == "free":  # no grammar: read the raw text back as a user of the format would
        message = toolgram.parse(fmt, result["text"], tools)
    calls = calls_of(message)
    record.update(
        correct=score(case, category, calls),
        valid=(not calls) if "irrelevance" in category else schema_valid(calls, tools),
        calls=len(calls),
        tokens=result["usage"]["completion_tokens"],
        finish=result["message"].get("finish_reason"),  # the engine's (a re-parse of free text cannot know it)
        seconds=round(time.perf_counter() - t0, 3),
        text=result["text"],
    )
    return record


def summarise(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per category x format x mode."""
    groups: dict[tuple[str, str, str], list[dict[str, Any]]] = defaultdict(list)
    for r in records:
        groups[(r["category"], r["format"], r["mode"])].append(r)
    rows = []
    for (category, fmt, mode), rs in sorted(groups.items()):
        n_calls = sum(r["calls"] for r in rs)
        rows.append({
            "category": category, "format": fmt, "mode": mode, "n": len(rs),
            "accuracy": sum(r["correct"] for r in rs) / len(rs),
            "valid": sum(r["valid"] for r in rs) / len(rs),
            "tokens_per_call": (sum(r["tokens"] for r in rs if r["calls"]) / n_calls) if n_calls else None,
            "seconds_per_case": sum(r["seconds"] for r in rs) / len(rs),
            "refused": sum(1 for r in rs if r.get("refused")),
            "length": sum(1 for r in rs if r.get("finish") == "length"),
        })
    return rows


def print_table(rows: list[dict[str, Any]]) -> None:
    print(f"{'category':<18} {'format':<15} {'mode':<9} {'n':>4} {'accuracy':>9} {'valid':>7} {'tok/call':>9} "
          f"{'s/case':>7} {'refused':>8} {'length':>7}")
    for r in rows:
        tpc = f"{r['tokens_per_call']:.1f}" if r["tokens_per_call"] is not None else "-"
        print(f"{r['category']:<18} {r['format']:<15} {r['mode']:<9} {r['n']:>4} {r['accuracy']:>9.2f} "
              f"{r['valid']:>7.2f} {tpc:>9} {r['seconds_per_case']:>7.2f} {r['refused']:>8} {r['length']:>7}")


def _weighted(rows: list[dict[str, Any]], key: str) -> float:
    """``key`` over several rows, each case weighing the same."""
    return sum(r[key] * r["n"] for r in rows) / max(sum(r["n"] for r in rows), 1)


def markdown(rows: list[dict[str, Any]]) -> str:
    """The summary as Markdown, for the docs: per format x mode over all categories (accuracy, valid, tokens
    per call, cut at the token limit), then accuracy per category."""
    by_fm: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        by_fm[(r["format"], r["mode"])].append(r)
    categories = [c for c in CATEGORIES if any(r["category"] == c for r in rows)]
    keys = sorted(by_fm, key=lambda k: (k[0], MODES.index(k[1])))
    lines = ["| format | mode | cases | accuracy | valid | tokens/call | cut at limit |",
             "|---|---|---|---|---|---|---|"]
    for fmt, mode in keys:
        rs = by_fm[(fmt, mode)]
        calls = [r for r in rs if r["tokens_per_call"] is not None]
        tpc = f"{_weighted(calls, 'tokens_per_call'):.0f}" if calls else "-"
        lines.append(f"| {fmt} | {mode} | {sum(r['n'] for r in rs)} | {_weighted(rs, 'accuracy'):.2f} | "
                     f"{_weighted(rs, 'valid'):.2f} | {tpc} | {sum(r['length'] for r in rs)} |")
    lines += ["", "| format | mode | " + " | ".join(categories) + " |", "|---|---|" + "---|" * len(categories)]
    for fmt, mode in keys:
        acc = {r["category"]: r for r in by_fm[(fmt, mode)]}
        cells = [f"{round(acc[c]['accuracy'] * acc[c]['n'])}/{acc[c]['n']}" if c in acc else "-" for c in categories]
        lines.append(f"| {fmt} | {mode} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def plot(rows: list[dict[str, Any]], path: Path, title: str) -> None:
    """Two grouped bar charts per format and mode over the categories that expect a call (each case weighs the
    same): BFCL accuracy, and the share of cases whose calls are valid. ``irrelevance`` (no call expected) is
    left to the table: ``required`` fails it by definition."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    calls = [r for r in rows if "irrelevance" not in r["category"]]
    groups: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for r in calls:
        groups[(r["format"], r["mode"])].append(r)
    formats = sorted({f for f, _ in groups})
    modes = [m for m in MODES if any(k[1] == m for k in groups)]
    fig, axes = plt.subplots(1, 2, figsize=(max(9, 2.0 * len(formats)), 3.8), sharey=True)
    for ax, key, label in ((axes[0], "accuracy", "BFCL accuracy"), (axes[1], "valid", "valid calls")):
        grouped_bars(ax, formats, {mode: [_weighted(groups[(f, mode)], key) if groups[(f, mode)] else 0
                                          for f in formats] for mode in modes})
        ax.set_title(f"{label}, cases that expect a call", fontsize=9)
        ax.set_ylim(0, 1)
    axes[0].legend(title="mode")
    fig.suptitle(title, fontsize=9)
    save_figure(fig, path)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    ap.add_argument("--categories", default=",".join(CATEGORIES))
    ap.add_argument("--formats", default=",".join(DEFAULT_FORMATS), help="comma-separated ids, or 'all'")
    ap.add_argument("--modes", default=",".join(MODES))
    ap.add_argument("--limit", type=int, default=None, help="the first N cases of each category")
    ap.add_argument("--model", default=None, help="a .gguf file or OpenVINO IR folder (default: SmolLM2-135M)")
    ap.add_argument("--device", default="CPU")
    ap.add_argument("--max-new-tokens", type=int, default=256)
    ap.add_argument("--parallel", choices=("category", "on", "off", "format"), default="category",
                    help="parallel_tool_calls: on for BFCL's parallel categories only (default), on, off, or the "
                         "format's default")
    ap.add_argument("--results", type=Path, default=None, help="JSON file of per-case records (resumed if present)")
    ap.add_argument("--plot", type=Path, default=None, help="write accuracy per format and mode as a PNG")
    args = ap.parse_args(argv)

    from toolgram.grammars import FORMATS
    from toolgram.runtime import Generator

    categories = [c for c in args.categories.split(",") if c]
    formats = list(FORMATS) if args.formats == "all" else [f for f in args.formats.split(",") if f]
    modes = [m for m in args.modes.split(",") if m]
    for name, given, known in (("category", categories, CATEGORIES), ("format", formats, FORMATS),
                               ("mode", modes, MODES)):
        unknown = [g for g in given if g not in known]
        if unknown:
            ap.error(f"unknown {name}: {', '.join(unknown)}")
    _, _, mapping = bfcl()
    records: dict[str, dict[str, Any]] = {}
    if args.results and args.results.is_file():
        records = {r["key"]: r for r in json.loads(args.results.read_text(encoding="utf-8"))}

    gen = Generator(args.model, args.device)
    model_label = Path(gen.model_path).name
    machine_header(
        "BFCL v4 accuracy with and without toolgram",
        f"model {model_label} (OpenVINO GenAI, {args.device}, greedy, max_new_tokens {args.max_new_tokens}); "
        f"categories {','.join(categories)}; first {args.limit or 'all'} cases each; parallel_tool_calls "
        f"{args.parallel}; BFCL's AST checker",
    )
    done = 0
    for category in categories:
        cases = load_cases(category, args.limit)
        for fmt in formats:
            for mode in modes:
                for case in cases:
                    key = f"{category}|{fmt}|{mode}|{args.parallel}|{case['id']}"
                    if key in records:
                        continue
                    records[key] = {"key": key, "parallel": args.parallel, **run_case(
                        gen, fmt, mode, case, category, args.max_new_tokens, mapping,
                        parallel_for(args.parallel, category))}
                    done += 1
                    if args.results:
                        args.results.write_text(json.dumps(list(records.values()), ensure_ascii=False, indent=0),
                                                encoding="utf-8")
    print(f"cases run now: {done}; from {args.results}: {len(records) - done}\n")
    wanted = {(c, f, m) for c in categories for f in formats for m in modes}
    rows = summarise([r for r in records.values()
                      if (r["category"], r["format"], r["mode"]) in wanted and r.get("parallel") == args.parallel])
    print_table(rows)
    print("\n" + markdown(rows))
    if args.plot:
        plot(rows, args.plot, f"BFCL v4, {model_label}, first {args.limit or 'all'} cases per category")
    machine_footer()
    return 0


if __name__ == "__main__":
    sys.exit(main())
