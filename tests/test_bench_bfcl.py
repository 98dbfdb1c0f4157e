"""benchmarks/bench_bfcl.py in quick mode: BFCL's data, BFCL's own checker and a real generation (no accuracy threshold:
a 135M model's figures belong in the benchmark's output, not in a test)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

bench = pytest.importorskip("bench_bfcl")
pytest.importorskip("bfcl_eval")


def test_tools_use_bfcls_type_table() -> None:
    """BFCL's ``dict``/``float``/``tuple``/``any`` become JSON Schema types, nested ones too; names are unchanged."""
    _, _, mapping = bench.bfcl()
    fn = {"name": "math.hypot", "description": "d", "parameters": {"type": "dict", "properties": {
        "x": {"type": "float"}, "pts": {"type": "tuple", "items": {"type": "integer"}},
        "opts": {"type": "dict", "properties": {"k": {"type": "any"}}}}, "required": ["x"]}}
    (tool,) = bench.to_tools([fn], mapping)
    assert tool["function"]["name"] == "math.hypot"
    params = tool["function"]["parameters"]
    assert params["type"] == "object"
    assert params["properties"]["x"]["type"] == "number"
    assert params["properties"]["pts"] == {"type": "array", "items": {"type": "integer"}}
    assert params["properties"]["opts"]["properties"]["k"]["type"] == "string"
    assert fn["parameters"]["type"] == "dict", "the case's own document is not changed"


def test_bfcls_checker_judges() -> None:
    """The verdict is BFCL's: the ground truth passes, a wrong value and a wrong count fail, irrelevance wants none."""
    (case,) = bench.load_cases("simple_python", 1)
    truth = case["ground_truth"][0]
    name, answers = next(iter(truth.items()))
    right = {k: v[0] for k, v in answers.items() if v and v[0] != ""}
    assert bench.score(case, "simple_python", [(name, right)])
    wrong = {**right, next(iter(right)): 999_999}
    assert not bench.score(case, "simple_python", [(name, wrong)])
    assert not bench.score(case, "simple_python", [(name, right), (name, right)])
    assert not bench.score(case, "simple_python", [])
    assert bench.score({}, "irrelevance", []) and not bench.score({}, "irrelevance", [(name, right)])


@pytest.mark.model
def test_quick_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Two cases x two modes through the model; every row printed, every record complete, the run resumable."""
    results = tmp_path / "bfcl.json"
    argv = ["--limit", "1", "--categories", "simple_python,irrelevance", "--formats", "hermes",
            "--modes", "free,required", "--max-new-tokens", "48", "--results", str(results),
            "--plot", str(tmp_path / "bfcl.png")]
    assert bench.main(argv) == 0
    out = capsys.readouterr().out
    records = json.loads(results.read_text(encoding="utf-8"))
    assert len(records) == 4
    for r in records:
        assert {"correct", "valid", "calls", "tokens", "seconds"} <= r.keys()
    required = [r for r in records if r["mode"] == "required"]
    assert all(r["calls"] >= 1 for r in required), "tool_choice required always yields a call"
    for category in ("simple_python", "irrelevance"):
        for mode in ("free", "required"):
            assert any(line.split()[:3] == [category, "hermes", mode] for line in out.splitlines()), out
    assert (tmp_path / "bfcl.png").stat().st_size > 1000
    assert bench.main(argv) == 0  # resumed: nothing left to run
    assert "cases run now: 0" in capsys.readouterr().out
