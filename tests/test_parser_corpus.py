"""The lenient-parser corpus (tests/corpus/parser_lenient.json): every case's expected message,
from the whole text and from 1-character streaming; plus the CLI."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import toolgram

CORPUS = json.loads((Path(__file__).parent / "corpus" / "parser_lenient.json").read_text(encoding="utf-8"))
TOOLS = CORPUS["tools"]


@pytest.mark.parametrize("case", CORPUS["cases"], ids=[c["name"] for c in CORPUS["cases"]])
def test_corpus_case(case: dict[str, Any]) -> None:
    got = toolgram.parse(case["format"], case["text"], TOOLS, **case["options"])
    assert got == case["expected"]
    sp = toolgram.StreamParser(case["format"], TOOLS, **case["options"])
    for ch in case["text"]:
        sp.feed(ch)
    sp.finish()
    assert sp.message == case["expected"]


def test_corpus_covers_every_format() -> None:
    assert {c["format"] for c in CORPUS["cases"]} == set(toolgram.FORMATS)


def _cli(args: list[str], stdin: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps(TOOLS), encoding="utf-8")
    return subprocess.run([sys.executable, "-m", "toolgram.cli", "parse", *args, "--tools", str(tools)],
                          input=stdin, capture_output=True, text=True, encoding="utf-8", timeout=120)


def test_cli_parse_whole_and_chunked(tmp_path: Path) -> None:
    case = next(c for c in CORPUS["cases"] if c["name"] == "hermes prose before the call")
    r = _cli(["hermes"], case["text"], tmp_path)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert len(lines) == 1 and json.loads(lines[0]) == case["expected"]
    r = _cli(["hermes", "--chunk-size", "3"], case["text"], tmp_path)
    lines = [json.loads(x) for x in r.stdout.splitlines()]
    assert lines[-1] == case["expected"]
    assert "".join(d.get("content", "") for d in lines[:-1]) == "Let me check."
    args = "".join(d["tool_calls"][0]["function"]["arguments"] for d in lines[:-1] if "tool_calls" in d)
    assert args == case["expected"]["tool_calls"][0]["function"]["arguments"]
    r = _cli(["hermes", "--mode", "strict", "--pretty"], case["text"], tmp_path)
    assert json.loads(r.stdout)["tool_calls"][0]["function"]["name"] == "get_weather"
    r = _cli(["hermes", "--chunk-size", "0"], "x", tmp_path)
    assert r.returncode == 2


def test_cli_parse_imports_no_engine(tmp_path: Path) -> None:
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps(TOOLS), encoding="utf-8")
    code = (
        "import sys, io\n"
        f"sys.argv = ['toolgram', 'parse', 'qwen3_coder', '--tools', {str(tools)!r}, '--chunk-size', '2']\n"
        "sys.stdin = io.TextIOWrapper(io.BytesIO(b'<tool_call>\\n<function=get_weather>\\n'))\n"
        "from toolgram.cli import main\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "bad = [m for m in ('torch', 'openvino', 'openvino_genai', 'xgrammar') if m in sys.modules]\n"
        "print('LOADED', bad)\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[-1] == "LOADED []"
    assert '"finish_reason": "length"' in r.stdout
