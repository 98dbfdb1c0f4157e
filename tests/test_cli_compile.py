"""``toolgram compile`` and ``toolgram formats`` (SPEC section 3, errors per section 7).

Run in-process through ``toolgram.cli.main`` with ``capsys``; one test runs the installed
console script to check the entry point.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from strategies import WEATHER
from toolgram.grammars import FORMATS, get_format

from toolgram.cli import main
from toolgram.engines import lark_engine, llamacpp_engine, xgrammar_engine

KEYS = {"format", "dialect", "grammar", "lazy", "triggers", "preserved_tokens"}


@pytest.fixture
def tools_file(tmp_path: Path) -> Path:
    p = tmp_path / "tools.json"
    p.write_text(json.dumps([WEATHER]), encoding="utf-8")
    return p


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def bundle_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    code, out, err = run(capsys, "compile", *argv, "--json")
    assert code == 0, err
    assert out.endswith("\n") and out.count("\n") == 1, "--json prints one line"
    return json.loads(out)


@pytest.mark.parametrize("fmt", list(FORMATS))
@pytest.mark.parametrize("choice", ["auto", "required", "get_weather"])
def test_gbnf_json_shape(capsys: pytest.CaptureFixture[str], tools_file: Path, fmt: str, choice: str) -> None:
    obj = bundle_json(capsys, fmt, "--tools", str(tools_file), "--tool-choice", choice)
    assert KEYS <= set(obj) and "lark_parser" not in obj
    assert obj["format"] == fmt and obj["dialect"] == "gbnf"
    assert isinstance(obj["grammar"], str)
    spec = get_format(fmt)
    lazy = choice == "auto" and bool(spec.triggers)  # a format without triggers is never lazy
    assert obj["lazy"] is lazy
    assert obj["triggers"] == [{"type": t.type, "value": t.value} for t in spec.triggers]
    ls = obj["llama_server"]
    assert set(ls) == {"grammar", "grammar_lazy", "grammar_triggers", "preserved_tokens"}
    assert ls["grammar"] == obj["grammar"] and ls["grammar_lazy"] is lazy
    codes = {"word": 1, "pattern": 2, "pattern_full": 3}
    if choice == "auto":
        assert ls["grammar_triggers"] == [{"type": codes[t.type], "value": t.value} for t in spec.triggers]
        assert all(isinstance(t["type"], int) for t in ls["grammar_triggers"])
    for t in spec.triggers:
        if t.type == "word":
            assert t.value in ls["preserved_tokens"]
    llamacpp_engine.check_gbnf(obj["grammar"])


def test_other_dialects(capsys: pytest.CaptureFixture[str], tools_file: Path) -> None:
    for fmt in FORMATS:
        ebnf = bundle_json(capsys, fmt, "--tools", str(tools_file), "--dialect", "ebnf")
        assert ebnf["lazy"] is False and "llama_server" not in ebnf
        xgrammar_engine.compile_ebnf(ebnf["grammar"])
        st = bundle_json(capsys, fmt, "--tools", str(tools_file), "--dialect", "structural-tag")
        tag = json.loads(st["grammar"])
        assert tag["type"] == "structural_tag" and "format" in tag and st["lazy"] is False
        xgrammar_engine.compile_structural_tag(st["grammar"])
        lk = bundle_json(capsys, fmt, "--tools", str(tools_file), "--dialect", "lark")
        assert lk["lark_parser"] in ("lalr", "earley") and lk["lazy"] is False
        lark_engine.build(lk["grammar"], lk["lark_parser"])


def test_tool_choice_none(capsys: pytest.CaptureFixture[str], tools_file: Path) -> None:
    obj = bundle_json(capsys, "hermes", "--tools", str(tools_file), "--tool-choice", "none")
    assert obj["grammar"] is None and obj["lazy"] is False
    assert obj["triggers"] == [{"type": "word", "value": "<tool_call>"}]


def test_plain_output_and_file(capsys: pytest.CaptureFixture[str], tools_file: Path, tmp_path: Path) -> None:
    code, out, _ = run(capsys, "compile", "seed_oss", "--tools", str(tools_file))
    assert code == 0 and "root ::=" in out
    llamacpp_engine.check_gbnf(out)
    target = tmp_path / "g.json"
    code, out, _ = run(capsys, "compile", "seed_oss", "--tools", str(tools_file), "--json", "-o", str(target))
    assert code == 0 and out == ""
    assert json.loads(target.read_text(encoding="utf-8"))["format"] == "seed_oss"


def test_parallel_and_reasoning_flags_change_grammar(capsys: pytest.CaptureFixture[str], tools_file: Path) -> None:
    base = ["compile", "hermes", "--tools", str(tools_file), "--tool-choice", "required"]
    grammars = {run(capsys, *base, *extra)[1] for extra in
                ([], ["--no-parallel"], ["--reasoning", "none"], ["--reasoning", "forced"])}
    assert len(grammars) == 4


@pytest.mark.parametrize(("argv", "needle"), [
    (["compile", "hermes", "--tools", "BAD"], "bad.json"),
    (["compile", "nosuchformat", "--tools", "TOOLS"], "nosuchformat"),
    (["compile", "hermes", "--tools", "TOOLS", "--tool-choice", "get_wether"], "tool_choice"),
    (["compile", "pythonic", "--tools", "TOOLS", "--reasoning", "optional"], "reasoning"),
    (["compile", "hermes", "--tools", "MISSING"], "missing.json"),
])
def test_errors_exit_2_one_line(capsys: pytest.CaptureFixture[str], tools_file: Path, tmp_path: Path,
                                argv: list[str], needle: str) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('[{"type": "function",', encoding="utf-8")
    subst = {"BAD": str(bad), "TOOLS": str(tools_file), "MISSING": str(tmp_path / "missing.json")}
    code, out, err = run(capsys, *[subst.get(a, a) for a in argv])
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("toolgram: error:"), err
    assert needle in err, err


def test_formats(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "formats", "--json")
    assert code == 0 and out.count("\n") == 1
    rows = json.loads(out)
    assert [r["id"] for r in rows] == list(FORMATS)
    for r in rows:
        spec = get_format(r["id"])
        assert r["parallel_default"] is spec.parallel_default
        assert r["triggers"] == [{"type": t.type, "value": t.value} for t in spec.triggers]
        assert (r["reasoning"] is None) is (spec.reasoning is None)
    code, out, _ = run(capsys, "formats")
    assert code == 0 and all(f in out for f in FORMATS)


def test_console_script(tools_file: Path) -> None:
    exe = shutil.which("toolgram")
    if exe is None:
        pytest.skip("the toolgram console script is not on PATH (pip install -e .)")
    res = subprocess.run([exe, "compile", "hermes", "--tools", str(tools_file), "--json"],
                         capture_output=True, text=True, timeout=120, check=False)
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["llama_server"]["grammar_lazy"] is True
    res = subprocess.run([exe, "compile", "nosuch", "--tools", str(tools_file)],
                         capture_output=True, text=True, timeout=120, check=False)
    assert res.returncode == 2 and res.stderr.count("\n") == 1
