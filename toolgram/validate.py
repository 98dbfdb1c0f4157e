"""``toolgram validate``: load grammars in their real engines and check example outputs (SPEC section 6).

Two entry points:

- :func:`validate_manifest` -- every case x dialect of a TOML manifest (see :func:`load_manifest`);
- :func:`validate_grammar_file` -- a grammar toolgram did not write, with accept/reject files.

Engines per dialect (each one really runs; a missing one is ``skipped``, never ``passed``):

=================  ================================================================
``gbnf``           llama.cpp (llama-cpp-python): load, then accept/reject examples
``ebnf``           Python xgrammar: load + examples; OpenVINO GenAI: load ("compiled")
``structural-tag`` the same as ``ebnf``
``lark``           Lark with the bundle's parser (LALR, or Earley where stated)
=================  ================================================================

Accepted manifest examples that list ``calls`` are also parsed with
``toolgram.parse(format, text, tools, mode="strict", ...)`` (engine ``toolgram-strict``,
dialect ``-``); the calls must equal the expected ones (name, and arguments as JSON values).

"Accept" means the example's exact bytes are a complete match: nothing is stripped. A GBNF
grammar compiled lazily (``tool_choice auto``) is checked through llama.cpp's lazy sampler with
the format's trigger patterns, so the example is the whole model output.

JSON report (``--json``; one line)::

    {"ok": false,
     "summary": {"passed": 12, "failed": 1, "skipped": 0, "compiled": 2},
     "results": [
       {"case": "seed_oss auto", "dialect": "gbnf", "engine": "llama.cpp",
        "check": "load" | "accept" | "reject" | "parse",
        "example": "outputs/seed_oss_two_calls.txt" | "inline #2" | null,
        "status": "passed" | "failed" | "skipped" | "compiled",
        "reason": null | "text",
        "position": null | 42}]}

``ok`` is true when no result failed. ``position`` is the character offset where matching
stopped (``len(text)`` when the text is a valid prefix that may not end there). In grammar-file
mode ``case`` is the grammar file's path.

Input bounds: every file validate reads (the manifest, tools files, grammar files, example files) must
be a regular file of at most :data:`MAX_FILE_BYTES` (16 MiB); a FIFO, a device (``/dev/zero``) or a
larger file is a usage error (exit 2). JSON and TOML nested deeper than Python's parser can follow, and
manifest values of the wrong type (``parallel = "no"``, ``allowed_tools = 5``, a TOML date in
``calls``), are usage errors naming ``manifest:line``.
"""

from __future__ import annotations

import json
import math
import os
import re
import stat
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10: the same API from the tomli backport
    import tomli as tomllib  # type: ignore[no-redef]

from .compiler.dialects import DIALECTS as _REGISTRY
from .engines import EngineUnavailable, GrammarRejected, import_engine
from .errors import ToolgramError

__all__ = [
    "Case",
    "Example",
    "ManifestError",
    "Report",
    "MAX_FILE_BYTES",
    "Result",
    "load_manifest",
    "validate_grammar_file",
    "validate_manifest",
]

DIALECTS = tuple(_REGISTRY)
OPTION_KEYS = ("tool_choice", "parallel", "reasoning", "allowed_tools")
CASE_KEYS = {"name", "format", "tools", "dialects", "options", "accept", "reject"}
EXAMPLE_KEYS = {"file", "text", "calls", "name"}
#: the largest manifest, tools, grammar or example file read (a usage error beyond it)
MAX_FILE_BYTES = 16 * 1024 * 1024


def read_bounded(path: str | Path, limit: int = MAX_FILE_BYTES) -> bytes:
    """A regular file's bytes, at most ``limit`` of them.

    Raises ``OSError`` when the file cannot be opened, and ``ValueError`` (with a readable message)
    for a non-regular file (FIFO, device, directory) or a file larger than ``limit``."""
    # O_NONBLOCK: opening a FIFO that has no writer must not hang (it is then refused as not regular)
    with open(path, "rb", opener=lambda p, flags: os.open(p, flags | getattr(os, "O_NONBLOCK", 0))) as f:
        st = os.fstat(f.fileno())
        if not stat.S_ISREG(st.st_mode):
            raise ValueError("not a regular file")
        if st.st_size > limit:
            raise ValueError(f"{st.st_size} bytes, more than the {limit} allowed")
        data = f.read(limit + 1)
    if len(data) > limit:  # it grew while we read it
        raise ValueError(f"more than the {limit} bytes allowed")
    return data


def _json_problem(value: Any) -> str | None:
    """Why ``value`` (read from TOML) is not a JSON value, or ``None`` (iterative: any depth)."""
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, dict):
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)
        elif isinstance(v, float) and not math.isfinite(v):
            return f"{v} is not a JSON number"
        elif v is not None and not isinstance(v, (str, int, float, bool)):
            return f"a TOML {type(v).__name__} ({v}) is not a JSON value"
    return None


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


class ManifestError(ToolgramError):
    """The manifest cannot be read or is invalid; ``path`` is ``manifest:line``."""


@dataclass
class Result:
    """One row of the report."""

    case: str
    dialect: str
    engine: str
    check: str
    status: str
    example: str | None = None
    reason: str | None = None
    position: int | None = None
    #: the text around ``position`` (table only; not in the JSON report)
    excerpt: str | None = field(default=None, repr=False)


@dataclass
class Report:
    """All results; ``ok`` when none failed."""

    results: list[Result] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not any(r.status == "failed" for r in self.results)

    def summary(self) -> dict[str, int]:
        counts = {"passed": 0, "failed": 0, "skipped": 0, "compiled": 0}
        for r in self.results:
            counts[r.status] = counts.get(r.status, 0) + 1
        return counts

    def to_json(self) -> dict[str, Any]:
        return {"ok": self.ok, "summary": self.summary(), "results": [_row_json(r) for r in self.results]}

    def table(self) -> str:
        """A readable table: case, dialect, engine, check, example, result, and why it failed."""
        head = ("CASE", "DIALECT", "ENGINE", "CHECK", "EXAMPLE", "RESULT")
        rows = [(r.case, r.dialect, r.engine, r.check, r.example or "-", _result_text(r)) for r in self.results]
        widths = [max(len(h), *(len(row[i]) for row in rows)) if rows else len(h) for i, h in enumerate(head)]
        lines = ["  ".join(c.ljust(w) for c, w in zip(head, widths, strict=True)).rstrip()]
        for row in rows:
            lines.append("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip())
        s = self.summary()
        tail = f", {s['compiled']} compiled (OpenVINO loads only)" if s["compiled"] else ""
        lines.append(f"{s['passed']} passed, {s['failed']} failed, {s['skipped']} skipped{tail}")
        return "\n".join(lines)


def _row_json(r: Result) -> dict[str, Any]:
    row = asdict(r)
    del row["excerpt"]
    return row


def _result_text(r: Result) -> str:
    text = r.status
    if r.reason:
        text += f": {r.reason}"
    if r.position is not None:
        text += f" (matching stopped at offset {r.position}"
        text += f": {r.excerpt})" if r.excerpt is not None else ")"
    return text


def _excerpt(s: str, pos: int, width: int = 24) -> str:
    """``before⟨here⟩after`` around ``pos``, as a Python-style escaped string."""
    before = s[max(0, pos - width):pos]
    after = s[pos:pos + width]
    return (repr(("..." if pos > width else "") + before)[:-1] + "<HERE>"
            + repr(after + ("..." if pos + width < len(s) else ""))[1:])


# --------------------------------------------------------------------------- manifest


@dataclass
class Example:
    """An accept/reject example: ``text`` exactly as read (bytes decoded as UTF-8, nothing stripped)."""

    label: str
    text: str
    calls: list[dict[str, Any]] | None = None


@dataclass
class Case:
    """One manifest case."""

    name: str
    format: str
    tools: Any
    tools_path: Path
    options: dict[str, Any]
    dialects: list[str]
    accept: list[Example]
    reject: list[Example]
    line: int


def _case_lines(text: str) -> list[int]:
    return [i + 1 for i, line in enumerate(text.splitlines()) if re.match(r"\s*\[\[\s*case\s*\]\]", line)]


def _key_line(text: str, start: int, key: str) -> int:
    """The first line at or after ``start`` (1-based) that assigns ``key`` (or the case line)."""
    lines = text.splitlines()
    for i in range(start - 1, len(lines)):
        if i > start - 1 and re.match(r"\s*\[\[\s*case\s*\]\]", lines[i]):
            break
        if re.match(rf"\s*(\[+\s*case\.)?{re.escape(key)}\b", lines[i]):
            return i + 1
    return start


def load_manifest(path: str | Path) -> list[Case]:
    """Read and check a manifest; raises :class:`ManifestError` naming ``file:line``.

    Format (paths are relative to the manifest)::

        [[case]]
        name = "hermes auto"                 # optional; default "<format> #<n>"
        format = "hermes"
        tools = "tools.json"                  # an OpenAI tools array
        dialects = ["gbnf", "ebnf"]           # optional; default: all four
        options = {tool_choice = "auto", parallel = true, reasoning = "optional", allowed_tools = ["a"]}

        [[case.accept]]
        file = "outputs/hermes_one_call.txt"  # or: text = "..."
        calls = [{name = "get_weather", arguments = {location = "Paris"}}]   # optional

        [[case.reject]]
        text = "<tool_call>\\n{\\"name\\": \\"nope\\"}"
    """
    path = Path(path)
    try:
        raw = read_bounded(path)
    except OSError as e:
        raise ManifestError(f"cannot read manifest: {e.strerror}", str(path)) from None
    except ValueError as e:
        raise ManifestError(f"cannot read manifest: {e}", str(path)) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        line = raw[: e.start].count(b"\n") + 1
        raise ManifestError("manifest is not UTF-8", f"{path}:{line}") from None
    try:
        data = tomllib.loads(text)
    except RecursionError:
        raise ManifestError("invalid TOML: arrays or tables nested too deep", str(path)) from None
    except tomllib.TOMLDecodeError as e:
        m = re.search(r"\(at line (\d+), column (\d+)\)", str(e))
        if m:
            where = f"{path}:{m.group(1)}:{m.group(2)}"
        else:  # "(at end of document)": the last line
            where = f"{path}:{max(1, len(text.splitlines()))}"
        msg = re.sub(r"\s*\(at (line \d+, column \d+|end of document)\)", "", str(e))
        raise ManifestError(f"invalid TOML: {msg}", where) from None
    unknown = set(data) - {"case"}
    if unknown:
        key = sorted(unknown)[0]
        raise ManifestError(f"unknown top-level key {key!r} (expected [[case]] tables)",
                            f"{path}:{_key_line(text, 1, key)}")
    raw_cases = data.get("case")
    if not isinstance(raw_cases, list) or not raw_cases:
        raise ManifestError("manifest has no [[case]] tables", f"{path}:1")
    lines = _case_lines(text)
    return [_read_case(path, text, c, i, lines[i] if i < len(lines) else 1) for i, c in enumerate(raw_cases)]


_OPTION_TYPES = (
    ("tool_choice", lambda v: isinstance(v, str) or (isinstance(v, dict) and _json_problem(v) is None),
     "a string (auto, required, none, a tool name) or a {type, function = {name}} table"),
    ("parallel", lambda v: isinstance(v, bool), "true or false"),
    ("reasoning", lambda v: isinstance(v, str), "a string (none, optional, forced)"),
    ("allowed_tools", lambda v: isinstance(v, list) and all(isinstance(x, str) for x in v),
     "a list of tool names"),
)


def _read_case(path: Path, text: str, raw: Any, index: int, line: int) -> Case:
    def err(msg: str, key: str | None = None) -> ManifestError:
        ln = _key_line(text, line, key) if key else line
        return ManifestError(f"case {index + 1}: {msg}", f"{path}:{ln}")

    if not isinstance(raw, dict):
        raise err("must be a table")
    unknown = set(raw) - CASE_KEYS
    if unknown:
        key = sorted(unknown)[0]
        raise err(f"unknown key {key!r}; keys: {', '.join(sorted(CASE_KEYS))}", key)
    fmt = raw.get("format")
    if not isinstance(fmt, str):
        raise err("'format' (a format id) is required", "format" if "format" in raw else None)
    from .grammars import FORMATS

    if fmt not in FORMATS:
        raise err(f"unknown format {fmt!r}; formats: {', '.join(FORMATS)}", "format")
    name = raw.get("name", f"{fmt} #{index + 1}")
    if not isinstance(name, str):
        raise err("'name' must be a string", "name")
    tools_rel = raw.get("tools")
    if not isinstance(tools_rel, str):
        raise err("'tools' (path of an OpenAI tools JSON file) is required", "tools" if "tools" in raw else None)
    tools_path = (path.parent / tools_rel)
    try:
        tools = json.loads(read_bounded(tools_path).decode("utf-8"), parse_constant=_reject_constant)
    except OSError as e:
        raise err(f"cannot read tools file {tools_rel!r}: {e.strerror}", "tools") from None
    except UnicodeDecodeError as e:
        raise err(f"tools file {tools_rel!r} is not UTF-8 (byte {e.start})", "tools") from None
    except RecursionError:
        raise err(f"tools file {tools_rel!r} is nested too deep", "tools") from None
    except ValueError as e:  # JSONDecodeError, a too-long integer, NaN/Infinity, a non-regular or huge file
        raise err(f"tools file {tools_rel!r}: {e}" if not isinstance(e, json.JSONDecodeError)
                  else f"tools file {tools_rel!r} is not valid JSON: {e}", "tools") from None
    dialects = raw.get("dialects", list(DIALECTS))
    if not isinstance(dialects, list) or not dialects or any(d not in DIALECTS for d in dialects):
        raise err(f"'dialects' must be a non-empty list of {', '.join(DIALECTS)}", "dialects")
    options = raw.get("options", {})
    if not isinstance(options, dict):
        raise err("'options' must be a table", "options")
    bad = set(options) - set(OPTION_KEYS)
    if bad:
        raise err(f"unknown option {sorted(bad)[0]!r}; options: {', '.join(OPTION_KEYS)}", "options")
    for key, ok, want in _OPTION_TYPES:
        if key in options and not ok(options[key]):
            ln = _key_line(text, line, key)
            raise ManifestError(f"case {index + 1}: option {key!r} must be {want}, not {options[key]!r}",
                                f"{path}:{ln if ln != line else _key_line(text, line, 'options')}")
    examples: dict[str, list[Example]] = {}
    for kind in ("accept", "reject"):
        items = raw.get(kind, [])
        if not isinstance(items, list):
            raise err(f"'{kind}' must be an array of tables ([[case.{kind}]])", kind)
        examples[kind] = [_read_example(path, item, kind, j, err) for j, item in enumerate(items)]
    return Case(name=name, format=fmt, tools=tools, tools_path=tools_path, options=options,
                dialects=list(dialects), accept=examples["accept"], reject=examples["reject"], line=line)


def _read_example(path: Path, item: Any, kind: str, j: int, err: Any) -> Example:
    if isinstance(item, str):
        item = {"file": item}
    if not isinstance(item, dict):
        raise err(f"{kind} #{j + 1} must be a table with 'file' or 'text'", kind)
    unknown = set(item) - EXAMPLE_KEYS
    if unknown:
        raise err(f"{kind} #{j + 1}: unknown key {sorted(unknown)[0]!r}", kind)
    if ("file" in item) == ("text" in item):
        raise err(f"{kind} #{j + 1} needs exactly one of 'file' and 'text'", kind)
    if "file" in item:
        rel = item["file"]
        if not isinstance(rel, str):
            raise err(f"{kind} #{j + 1}: 'file' must be a string", kind)
        try:
            text = read_bounded(path.parent / rel).decode("utf-8")
        except OSError as e:
            raise err(f"cannot read {kind} file {rel!r}: {e.strerror}", kind) from None
        except UnicodeDecodeError:
            raise err(f"{kind} file {rel!r} is not UTF-8", kind) from None
        except ValueError as e:
            raise err(f"cannot read {kind} file {rel!r}: {e}", kind) from None
        label = item.get("name", rel)
    else:
        text = item["text"]
        if not isinstance(text, str):
            raise err(f"{kind} #{j + 1}: 'text' must be a string", kind)
        label = item.get("name", f"inline {kind} #{j + 1}")
    calls = item.get("calls")
    if calls is not None:
        if kind != "accept":
            raise err(f"{kind} #{j + 1}: 'calls' only applies to accept examples", kind)
        if not isinstance(calls, list) or not all(
            isinstance(c, dict) and isinstance(c.get("name"), str) and isinstance(c.get("arguments", {}), dict)
            for c in calls
        ):
            raise err(f"accept #{j + 1}: 'calls' must be a list of {{name = ..., arguments = {{...}}}}", kind)
        problem = _json_problem(calls)
        if problem:
            raise err(f"accept #{j + 1}: 'calls' must hold JSON values: {problem}", kind)
    if not isinstance(item.get("name", ""), str):
        raise err(f"{kind} #{j + 1}: 'name' must be a string", kind)
    return Example(label=str(label), text=text, calls=calls)


# --------------------------------------------------------------------------- engines


def _engine(name: str) -> Any:
    """The adapter module, or ``None`` when the engine is not installed."""
    try:
        return import_engine(name)
    except EngineUnavailable:
        return None


class _Checker:
    """Loads one grammar in one engine and checks strings against it."""

    engine: str = ""
    status_ok: str = "passed"

    def load(self) -> None:
        raise NotImplementedError

    def accepts(self, s: str) -> tuple[bool, int | None]:
        raise NotImplementedError


class _LlamaCpp(_Checker):
    engine = "llama.cpp"

    def __init__(self, mod: Any, grammar: str, lazy_patterns: list[str] | None) -> None:
        self.mod, self.grammar, self.lazy_patterns = mod, grammar, lazy_patterns

    def load(self) -> None:
        self.mod.check_gbnf(self.grammar)

    def accepts(self, s: str) -> tuple[bool, int | None]:
        return self.mod.accepts_gbnf(self.grammar, s, lazy_patterns=self.lazy_patterns)


class _XGrammar(_Checker):
    engine = "xgrammar"

    def __init__(self, mod: Any, grammar: str, structural: bool) -> None:
        self.mod, self.grammar, self.structural = mod, grammar, structural

    def load(self) -> None:
        (self.mod.compile_structural_tag if self.structural else self.mod.compile_ebnf)(self.grammar)

    def accepts(self, s: str) -> tuple[bool, int | None]:
        if self.structural:
            return self.mod.accepts_structural_tag(self.grammar, s)
        return self.mod.accepts_ebnf(self.grammar, s)


class _OpenVINO(_Checker):
    engine = "openvino"
    status_ok = "compiled"

    def __init__(self, mod: Any, grammar: str, structural: bool) -> None:
        self.mod, self.grammar, self.structural = mod, grammar, structural

    def load(self) -> None:
        (self.mod.check_structural_tag if self.structural else self.mod.check_ebnf)(self.grammar)


class _Lark(_Checker):
    engine = "lark"

    def __init__(self, mod: Any, grammar: str, parser: str) -> None:
        self.mod, self.grammar, self.parser = mod, grammar, parser
        self.engine = f"lark-{parser}"

    def load(self) -> None:
        self.mod.build(self.grammar, self.parser)

    def accepts(self, s: str) -> tuple[bool, int | None]:
        return self.mod.accepts_lark(self.grammar, s, self.parser)


_ENGINE_FOR = {name: list(d.engines) for name, d in _REGISTRY.items()}
_DISPLAY = {"llamacpp": "llama.cpp", "xgrammar": "xgrammar", "openvino": "openvino", "lark": "lark"}


def _checkers(dialect: str, grammar: str, *, lazy_patterns: list[str] | None = None,
              lark_parser: str = "lalr") -> Iterator[tuple[str, _Checker | None, str | None]]:
    """``(engine display name, checker or None, skip reason)`` for each engine of ``dialect``."""
    for name in _ENGINE_FOR[dialect]:
        mod = _engine(name)
        if mod is None:
            yield _DISPLAY[name], None, "not installed"
            continue
        if name == "llamacpp":
            yield "llama.cpp", _LlamaCpp(mod, grammar, lazy_patterns), None
        elif name == "xgrammar":
            yield "xgrammar", _XGrammar(mod, grammar, dialect == "structural-tag"), None
        elif name == "openvino":
            yield "openvino", _OpenVINO(mod, grammar, dialect == "structural-tag"), None
        else:
            c = _Lark(mod, grammar, lark_parser)
            yield c.engine, c, None


def _run_engine(report: Report, case: str, dialect: str, engine: str, checker: _Checker | None,
                skip: str | None, accept: list[Example], reject: list[Example]) -> None:
    """Load the grammar in one engine, then check every example (when the engine can check strings)."""
    row = Result(case=case, dialect=dialect, engine=engine, check="load", status="skipped")
    report.results.append(row)
    if checker is None:
        row.reason = skip
        return
    try:
        checker.load()
    except EngineUnavailable as e:
        row.reason = f"not installed ({e})"
        return
    except GrammarRejected as e:
        row.status, row.reason = "failed", f"{e.engine} rejected the grammar: {e.reason}"
        return
    row.status = checker.status_ok
    if isinstance(checker, _OpenVINO):
        return  # no accept-string API: acceptance is checked in Python xgrammar
    for kind, examples in (("accept", accept), ("reject", reject)):
        for ex in examples:
            res = Result(case=case, dialect=dialect, engine=engine, check=kind, status="passed", example=ex.label)
            try:
                ok, pos = checker.accepts(ex.text)
            except EngineUnavailable as e:
                res.status, res.reason = "skipped", f"not installed ({e})"
            else:
                if kind == "accept" and not ok:
                    res.status, res.reason, res.position = "failed", "grammar rejected the example", pos
                    if pos is not None:
                        res.excerpt = _excerpt(ex.text, pos)
                elif kind == "reject" and ok:
                    res.status, res.reason = "failed", "grammar accepted an example that must be rejected"
            report.results.append(res)


# --------------------------------------------------------------------------- strict parse


def _parse_function() -> Any:
    try:
        from .parsing import parser
    except ImportError:
        return None
    return getattr(parser, "parse", None)


def _calls_of(message: Any) -> list[dict[str, Any]]:
    if hasattr(message, "to_json"):
        message = message.to_json()
    elif not isinstance(message, dict) and hasattr(message, "tool_calls"):
        message = {"tool_calls": message.tool_calls}
    out = []
    for call in message.get("tool_calls") or []:
        fn = call["function"] if isinstance(call, dict) else call.function
        name = fn["name"] if isinstance(fn, dict) else fn.name
        args = fn["arguments"] if isinstance(fn, dict) else fn.arguments
        out.append({"name": name, "arguments": json.loads(args) if isinstance(args, str) else args})
    return out


def _check_parse(report: Report, case: Case, kwargs: dict[str, Any]) -> None:
    parse = None
    for ex in case.accept:
        if ex.calls is None:
            continue
        res = Result(case=case.name, dialect="-", engine="toolgram-strict", check="parse", status="passed",
                     example=ex.label)
        report.results.append(res)
        if parse is None:
            parse = _parse_function()
        if parse is None:
            res.status, res.reason = "skipped", "toolgram.parsing.parser is not available"
            continue
        expected = [{"name": c["name"], "arguments": c.get("arguments", {})} for c in ex.calls]
        try:
            got = _calls_of(parse(case.format, ex.text, case.tools, mode="strict", **kwargs))
        except ToolgramError as e:
            res.status, res.reason = "failed", f"strict parse raised: {e}"
            continue
        if got != expected:
            res.status = "failed"
            res.reason = (f"parsed {json.dumps(got, ensure_ascii=False)}, "
                          f"expected {json.dumps(expected, ensure_ascii=False)}")


# --------------------------------------------------------------------------- entry points


def _compile_kwargs(options: dict[str, Any]) -> dict[str, Any]:
    return {
        "tool_choice": options.get("tool_choice", "auto"),
        "parallel_tool_calls": options.get("parallel"),
        "reasoning": options.get("reasoning"),
        "allowed_tools": options.get("allowed_tools"),
    }


def validate_manifest(path: str | Path) -> Report:
    """Validate every case and dialect of a manifest. Raises :class:`ManifestError` on a bad manifest."""
    from .compiler.bundle import compile as compile_bundle
    from .compiler.bundle import lazy_patterns
    from .grammars import get_format

    path = Path(path)
    cases = load_manifest(path)
    report = Report()
    for case in cases:
        kwargs = _compile_kwargs(case.options)
        for dialect in case.dialects:
            try:
                bundle = compile_bundle(case.format, case.tools, dialect=dialect, **kwargs)
            except ToolgramError as e:
                raise ManifestError(f"case {case.name!r} ({dialect}): {e}", f"{path}:{case.line}") from None
            except RecursionError:
                raise ManifestError(f"case {case.name!r} ({dialect}): the tools' schemas are nested too deep",
                                    f"{path}:{case.line}") from None
            if bundle.grammar is None:
                report.results.append(Result(case=case.name, dialect=dialect, engine="-", check="load",
                                             status="skipped", reason="tool_choice none: no grammar"))
                continue
            patterns = lazy_patterns(get_format(case.format)) if bundle.lazy else None
            for engine, checker, skip in _checkers(dialect, bundle.grammar, lazy_patterns=patterns,
                                                   lark_parser=bundle.lark_parser or "lalr"):
                _run_engine(report, case.name, dialect, engine, checker, skip, case.accept, case.reject)
        _check_parse(report, case, kwargs)
    return report


def _read_example_file(path: str, kind: str) -> Example:
    try:
        text = read_bounded(path).decode("utf-8")
    except OSError as e:
        raise ToolgramError(f"cannot read {kind} file: {e.strerror}", path) from None
    except UnicodeDecodeError as e:
        raise ToolgramError(f"{kind} file is not UTF-8 (byte {e.start})", path) from None
    except ValueError as e:
        raise ToolgramError(f"cannot read {kind} file: {e}", path) from None
    return Example(label=path, text=text)


def validate_grammar_file(
    grammar_path: str | Path,
    dialect: str,
    *,
    accept: list[str] = (),  # type: ignore[assignment]
    reject: list[str] = (),  # type: ignore[assignment]
    lazy_patterns: list[str] | None = None,
    lark_parser: str | None = None,
) -> Report:
    """Validate a grammar file (not necessarily written by toolgram) in its dialect's engines.

    ``lazy_patterns`` (GBNF only) runs llama.cpp's lazy sampler with those trigger regexes, so the
    examples are whole model outputs and the grammar matches from the trigger on. For Lark the
    parser is ``lark_parser``, or LALR when the grammar builds under LALR, else Earley.
    """
    if dialect not in DIALECTS:
        raise ToolgramError(f"unknown dialect {dialect!r}; dialects: {', '.join(DIALECTS)}", "--dialect")
    try:
        grammar = read_bounded(grammar_path).decode("utf-8")
    except OSError as e:
        raise ToolgramError(f"cannot read grammar: {e.strerror}", str(grammar_path)) from None
    except UnicodeDecodeError as e:
        raise ToolgramError(f"grammar is not UTF-8 (byte {e.start})", str(grammar_path)) from None
    except ValueError as e:
        raise ToolgramError(f"cannot read grammar: {e}", str(grammar_path)) from None
    if dialect == "structural-tag":
        grammar = grammar.strip()  # the JSON text; surrounding whitespace is not part of the tag
    acc = [_read_example_file(p, "accept") for p in accept]
    rej = [_read_example_file(p, "reject") for p in reject]
    if dialect == "lark" and lark_parser is None:
        lark_parser = "lalr"
        mod = _engine("lark")
        if mod is not None:
            try:
                mod.build(grammar, "lalr")
            except GrammarRejected:
                lark_parser = "earley"
    report = Report()
    for engine, checker, skip in _checkers(dialect, grammar, lazy_patterns=lazy_patterns,
                                           lark_parser=lark_parser or "lalr"):
        _run_engine(report, str(grammar_path), dialect, engine, checker, skip, acc, rej)
    return report
