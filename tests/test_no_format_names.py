"""No code outside the format descriptions names a format (issue 8).

Every string literal in the emitters, the IR builder, the parsers, the scanner, detection, prompt
rendering and the CLI is read with ``tokenize`` (comments and docstrings are prose, not code, and
are skipped): none may be a format id or contain a tag literal of any format description.
"""

from __future__ import annotations

import ast
import io
import tokenize
from dataclasses import fields, is_dataclass
from pathlib import Path

import pytest
from toolgram.grammars import FORMATS

ROOT = Path(__file__).resolve().parents[1]
CODE = sorted(
    [*ROOT.glob("compiler/**/*.py"), *ROOT.glob("toolgram/commands/*.py"), ROOT / "toolgram" / "cli.py",
     *ROOT.glob("parsing/**/*.py"), ROOT / "grammars" / "render.py",
     *(ROOT / "runtime" / f"{m}.py" for m in ("detect", "prompts"))]
)


def _tag_literals() -> set[str]:
    """Every literal a description holds that is specific to a format: tags, tokens, JSON keys."""
    found: set[str] = set()

    def walk(obj: object) -> None:
        if isinstance(obj, str):
            text = obj.strip()
            if len(text) >= 3 and any(not ch.isalnum() for ch in text):  # '<tool_call>', '[TOOL_CALLS]'
                found.add(text)
        elif isinstance(obj, (tuple, list)):
            for item in obj:
                walk(item)
        elif is_dataclass(obj):
            for f in fields(obj):
                if f.name not in ("id", "summary", "instructions", "detect", "type"):  # prose, ids, kinds
                    walk(getattr(obj, f.name))

    for spec in FORMATS.values():
        walk(spec)
        call = spec.call
        for key in ("name_key", "args_key", "read_args_keys"):
            value = getattr(call, key, ())
            for name in (value,) if isinstance(value, str) else value:
                found.add(f'"{name}"')  # a JSON key as it is written in the output
    found.discard("...")
    return found


def _string_literals(path: Path) -> list[tuple[int, str]]:
    """``(line, value)`` of every string literal of ``path`` that is not a docstring."""
    source = path.read_text(encoding="utf-8")
    docstrings = {
        node.body[0].value.lineno
        for node in ast.walk(ast.parse(source))
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
        and node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)
        and isinstance(node.body[0].value.value, str)
    }
    out = []
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.STRING and tok.start[0] not in docstrings:
            try:
                value = ast.literal_eval(tok.string)
            except ValueError:  # an f-string: its literal parts
                value = tok.string
            if isinstance(value, bytes):
                value = value.decode("latin-1")
            out.append((tok.start[0], value))
    return out


def test_the_descriptions_have_tag_literals() -> None:
    tags = _tag_literals()
    assert {"<tool_call>", "<seed:tool_call>", "<|python_tag|>", '"name"', '"parameters"'} <= tags


@pytest.mark.parametrize("path", CODE, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_format_id_or_tag_in_code(path: Path) -> None:
    tags = _tag_literals()
    bad = []
    for line, value in _string_literals(path):
        if value in FORMATS:
            bad.append(f"{path.name}:{line}: format id {value!r}")
        bad += [f"{path.name}:{line}: tag {t!r} in {value!r}" for t in tags if t in value]
    assert not bad, "\n".join(bad)
