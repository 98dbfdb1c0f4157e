"""``toolgram validate``: exit codes, report contents and the JSON shape, with the real engines."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from toolgram.grammars.render import render_calls

from toolgram import validate as validate_mod
from toolgram.cli import main

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "grammars" / "examples"
GOLDEN = ROOT / "grammars" / "golden"

pytest.importorskip("llama_cpp")
pytest.importorskip("lark")

HERMES_CALL = render_calls("hermes", [("get_weather", {"location": "Paris"})])
UNKNOWN_TOOL = '<tool_call>\n{"name": "delete_everything", "arguments": {}}\n</tool_call>'


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def write_manifest(tmp_path: Path, body: str) -> Path:
    shutil.copy(EXAMPLES / "tools.json", tmp_path / "tools.json")
    path = tmp_path / "manifest.toml"
    path.write_text(body, encoding="utf-8")
    return path


def hermes_case(accept: str, reject: str = "", dialects: str = '["gbnf", "lark"]', calls: str | None = None) -> str:
    body = f'[[case]]\nname = "hermes case"\nformat = "hermes"\ntools = "tools.json"\ndialects = {dialects}\n'
    body += f"\n[[case.accept]]\ntext = {json.dumps(accept)}\n"
    if calls is not None:
        body += f"calls = {calls}\n"
    if reject:
        body += f"\n[[case.reject]]\ntext = {json.dumps(reject)}\n"
    return body


def test_passing_manifest(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "out.txt").write_text("Sure.\n" + HERMES_CALL, encoding="utf-8")
    body = hermes_case(HERMES_CALL, UNKNOWN_TOOL) + '\n[[case.accept]]\nfile = "out.txt"\n'
    code, out, _ = run_cli(capsys, "validate", str(write_manifest(tmp_path, body)))
    assert code == 0, out
    lines = out.splitlines()
    assert lines[0].split()[:6] == ["CASE", "DIALECT", "ENGINE", "CHECK", "EXAMPLE", "RESULT"]
    rows = [line for line in lines[1:-1]]
    # load + 2 accepts + 1 reject, for llama.cpp (gbnf) and Lark
    assert len(rows) == 8
    assert sum("llama.cpp" in r for r in rows) == 4 and sum("lark-lalr" in r for r in rows) == 4
    assert all(r.rstrip().endswith("passed") for r in rows)
    assert any("out.txt" in r for r in rows)
    assert lines[-1].startswith("8 passed, 0 failed, 0 skipped")


def test_wrong_example_fails_with_reason_and_position(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    body = hermes_case(UNKNOWN_TOOL, HERMES_CALL)  # swapped: the accept is wrong, and so is the reject
    code, out, _ = run_cli(capsys, "validate", "--json", str(write_manifest(tmp_path, body)))
    assert code == 1
    report = json.loads(out)
    assert report["ok"] is False
    failed = [r for r in report["results"] if r["status"] == "failed"]
    assert {(r["engine"], r["check"]) for r in failed} == {
        ("llama.cpp", "accept"), ("llama.cpp", "reject"), ("lark-lalr", "accept"), ("lark-lalr", "reject")}
    for r in failed:
        if r["check"] == "accept":
            assert r["reason"] == "grammar rejected the example"
            # matching stops inside the unknown name (after '<tool_call>\n{"name": "')
            assert 20 <= r["position"] <= UNKNOWN_TOOL.index("delete_everything") + 1
        else:
            assert r["reason"] == "grammar accepted an example that must be rejected"
            assert r["position"] is None


def test_exact_bytes_no_newline_stripped(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A call followed by a stray character fails; the trailing newline alone is allowed whitespace."""
    (tmp_path / "nl.txt").write_bytes((HERMES_CALL + "\n").encode())
    (tmp_path / "x.txt").write_bytes((HERMES_CALL + "\nx").encode())
    grammar = GOLDEN / "hermes" / "required.lark"
    code, out, _ = run_cli(capsys, "validate", "--json", "--grammar", str(grammar), "--dialect", "lark",
                           "--accept", str(tmp_path / "nl.txt"), str(tmp_path / "x.txt"))
    assert code == 1
    res = {Path(r["example"]).name: r for r in json.loads(out)["results"] if r["check"] == "accept"}
    assert res["nl.txt"]["status"] == "passed"
    assert res["x.txt"]["status"] == "failed" and res["x.txt"]["position"] == len(HERMES_CALL) + 1


def test_broken_grammar_file_exits_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.gbnf"
    bad.write_text('root ::= "a" (\n', encoding="utf-8")
    code, out, _ = run_cli(capsys, "validate", "--grammar", str(bad), "--dialect", "gbnf")
    assert code == 1
    assert "llama.cpp rejected the grammar" in out and "failed" in out
    bad_lark = tmp_path / "bad.lark"
    bad_lark.write_text("start: undefined_rule\n", encoding="utf-8")
    code, out, _ = run_cli(capsys, "validate", "--json", "--grammar", str(bad_lark), "--dialect", "lark")
    assert code == 1
    (row,) = json.loads(out)["results"]
    assert row["check"] == "load" and row["status"] == "failed" and "undefined_rule" in row["reason"]


def test_grammar_file_lazy_from_trigger(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The lazy GBNF (golden hermes auto) checks whole outputs through llama.cpp's lazy sampler."""
    out_file = tmp_path / "output.txt"
    out_file.write_text("Let me look.\n" + HERMES_CALL, encoding="utf-8")
    bad = tmp_path / "bad.txt"
    bad.write_text("Let me look.\n" + UNKNOWN_TOOL, encoding="utf-8")
    grammar = str(GOLDEN / "hermes" / "auto.gbnf")
    code, out, _ = run_cli(capsys, "validate", "--grammar", grammar, "--dialect", "gbnf", "--lazy-from-trigger",
                           "--format", "hermes", "--accept", str(out_file), "--reject", str(bad))
    assert code == 0, out
    # Without the triggers the grammar must match from the first character: the prose fails.
    code, out, _ = run_cli(capsys, "validate", "--json", "--grammar", grammar, "--dialect", "gbnf",
                           "--accept", str(out_file))
    assert code == 1
    (acc,) = [r for r in json.loads(out)["results"] if r["check"] == "accept"]
    assert acc["status"] == "failed" and acc["position"] == 0


def test_parse_mismatch_exits_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = '[{name = "get_weather", arguments = {location = "Paris"}}]'
    wrong = '[{name = "get_weather", arguments = {location = "Lyon"}}]'
    path = write_manifest(tmp_path, hermes_case(HERMES_CALL, dialects='["lark"]', calls=good))
    code, out, _ = run_cli(capsys, "validate", str(path))
    assert code == 0, out
    path = write_manifest(tmp_path, hermes_case(HERMES_CALL, dialects='["lark"]', calls=wrong))
    code, out, _ = run_cli(capsys, "validate", "--json", str(path))
    assert code == 1
    (row,) = [r for r in json.loads(out)["results"] if r["check"] == "parse"]
    assert row["engine"] == "toolgram-strict" and row["status"] == "failed"
    assert "Paris" in row["reason"] and "Lyon" in row["reason"]


@pytest.mark.parametrize(
    ("body", "line", "words"),
    [
        ('[[case]]\nformat = "hermes"\ntools = "tools.json"\ndialects = ["gbnf"\n', 4, "invalid TOML"),
        ('[[case]]\nformat = "hermes"\ntools = "tools.json"\n\n[[case]]\nformat = "nope"\ntools = "tools.json"\n',
         6, "unknown format 'nope'"),
        ('[[case]]\nformat = "hermes"\ntools = "missing.json"\n', 3, "cannot read tools file"),
        ('[[case]]\nformat = "hermes"\ntools = "tools.json"\ndialects = ["gbnf"]\noptions = {tool_choice = "nope"}\n',
         1, "not a tool"),
        ('[[case]]\nformat = "hermes"\ntools = "tools.json"\n\n[[case.accept]]\nfile = "gone.txt"\n', 5,
         "cannot read accept file"),
    ],
)
def test_bad_manifest_exits_2_naming_the_line(tmp_path: Path, capsys: pytest.CaptureFixture[str], body: str,
                                              line: int, words: str) -> None:
    path = write_manifest(tmp_path, body)
    code, out, err = run_cli(capsys, "validate", str(path))
    assert code == 2 and out == ""
    assert words in err and f"{path}:{line}" in err, err


def test_unreadable_manifest_and_usage_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(capsys, "validate", str(tmp_path / "none.toml"))
    assert code == 2 and "cannot read manifest" in err
    (tmp_path / "m.toml").write_bytes(b'[[case]]\nformat = "hermes"\nname = "\xff"\n')
    code, _, err = run_cli(capsys, "validate", str(tmp_path / "m.toml"))
    assert code == 2 and "m.toml:3" in err
    code, _, err = run_cli(capsys, "validate")
    assert code == 2 and "MANIFEST" in err
    code, _, err = run_cli(capsys, "validate", "--grammar", str(GOLDEN / "hermes" / "auto.lark"))
    assert code == 2 and "--dialect" in err
    code, _, err = run_cli(capsys, "validate", "--grammar", str(GOLDEN / "hermes" / "auto.lark"), "--dialect", "lark",
                           "--lazy-from-trigger", "--format", "hermes")
    assert code == 2 and "gbnf only" in err
    code, _, err = run_cli(capsys, "validate", "--grammar", str(GOLDEN / "hermes" / "auto.gbnf"), "--dialect", "gbnf",
                           "--lazy-from-trigger")
    assert code == 2 and "--trigger" in err


def test_json_shape(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    body = hermes_case(HERMES_CALL, UNKNOWN_TOOL)
    code, out, _ = run_cli(capsys, "validate", "--json", str(write_manifest(tmp_path, body)))
    assert code == 0
    assert out.count("\n") == 1  # one line
    report = json.loads(out)
    assert set(report) == {"ok", "summary", "results"}
    assert report["ok"] is True
    assert report["summary"] == {"passed": 6, "failed": 0, "skipped": 0, "compiled": 0}
    keys = {"case", "dialect", "engine", "check", "example", "status", "reason", "position"}
    for r in report["results"]:
        assert set(r) == keys
        assert r["case"] == "hermes case" and r["dialect"] in ("gbnf", "lark")
        assert r["check"] in ("load", "accept", "reject") and r["status"] == "passed"
        assert (r["example"] is None) == (r["check"] == "load")


def test_missing_engine_is_skipped_never_passed(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """When llama-cpp-python is absent, gbnf rows are 'skipped: not installed' and the run still exits 0."""
    real = validate_mod._engine
    monkeypatch.setattr(validate_mod, "_engine", lambda name: None if name == "llamacpp" else real(name))
    code, out, _ = run_cli(capsys, "validate", "--json", str(write_manifest(tmp_path, hermes_case(HERMES_CALL))))
    assert code == 0
    rows = json.loads(out)["results"]
    gbnf = [r for r in rows if r["dialect"] == "gbnf"]
    assert gbnf == [{"case": "hermes case", "dialect": "gbnf", "engine": "llama.cpp", "check": "load",
                     "example": None, "status": "skipped", "reason": "not installed", "position": None}]
    assert all(r["status"] == "passed" for r in rows if r["dialect"] == "lark")


@pytest.mark.model
def test_ebnf_runs_xgrammar_and_openvino(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("xgrammar")
    pytest.importorskip("openvino_genai")
    body = hermes_case(HERMES_CALL, UNKNOWN_TOOL, dialects='["ebnf"]')
    code, out, _ = run_cli(capsys, "validate", "--json", str(write_manifest(tmp_path, body)))
    report = json.loads(out)
    assert code == 0, out
    assert [(r["engine"], r["check"], r["status"]) for r in report["results"]] == [
        ("xgrammar", "load", "passed"), ("xgrammar", "accept", "passed"), ("xgrammar", "reject", "passed"),
        ("openvino", "load", "compiled")]
    # A grammar OpenVINO's older xgrammar refuses ({0,-1}, see ENGINE_NOTES) fails there, with exit 1.
    bad = tmp_path / "bad.ebnf"
    bad.write_text('root ::= "a"{0,-1}\n', encoding="utf-8")
    code, out, _ = run_cli(capsys, "validate", "--json", "--grammar", str(bad), "--dialect", "ebnf")
    assert code == 1
    rows = {r["engine"]: r for r in json.loads(out)["results"]}
    assert rows["xgrammar"]["status"] == "passed"
    assert rows["openvino"]["status"] == "failed" and "Expect integer" in rows["openvino"]["reason"]


@pytest.mark.slow
@pytest.mark.model
def test_repo_manifest_passes(capsys: pytest.CaptureFixture[str]) -> None:
    """The repository's own manifest (also run by the README's test command)."""
    code, out, _ = run_cli(capsys, "validate", str(EXAMPLES / "manifest.toml"))
    assert code == 0, out


def test_table_shows_where_matching_stopped(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.txt"
    bad.write_text("Hi\n" + UNKNOWN_TOOL, encoding="utf-8")
    code, out, _ = run_cli(capsys, "validate", "--grammar", str(GOLDEN / "hermes" / "auto.lark"), "--dialect", "lark",
                           "--accept", str(bad))
    assert code == 1
    (row,) = [line for line in out.splitlines() if " accept " in line]
    assert "lark-lalr" in row and "failed: grammar rejected the example" in row
    assert "matching stopped at offset 24" in row and '"name": <HERE>"delete_everything"' in row


def test_tool_choice_none_has_no_grammar(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    body = ('[[case]]\nformat = "pythonic"\ntools = "tools.json"\ndialects = ["gbnf"]\n'
            'options = {tool_choice = "none"}\n')
    code, out, _ = run_cli(capsys, "validate", "--json", str(write_manifest(tmp_path, body)))
    assert code == 0
    assert [(r["check"], r["status"], r["reason"]) for r in json.loads(out)["results"]] == [
        ("load", "skipped", "tool_choice none: no grammar")]
