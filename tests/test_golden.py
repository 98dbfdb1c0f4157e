"""Drift check: ``toolgram compile`` reproduces every golden grammar under ``grammars/golden/`` byte for byte.

Regenerate with ``python scripts/regen_golden.py`` after an intended change.
"""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _regen() -> ModuleType:
    spec = importlib.util.spec_from_file_location("regen_golden", ROOT / "scripts" / "regen_golden.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


REGEN = _regen()
PLAN = REGEN.plan()


@pytest.mark.parametrize(("path", "argv"), PLAN, ids=[str(p.relative_to(REGEN.GOLDEN)) for p, _ in PLAN])
def test_golden_file_matches_compile(path: Path, argv: list[str]) -> None:
    assert path.exists(), f"missing golden file {path}; run python scripts/regen_golden.py"
    assert REGEN.compile_to_bytes(argv) == path.read_bytes(), (
        f"{path.relative_to(ROOT)} drifted from `toolgram {' '.join(argv)}`; "
        "if intended, run python scripts/regen_golden.py")


def test_no_stray_golden_files() -> None:
    on_disk = {p for p in REGEN.GOLDEN.rglob("*") if p.is_file()}
    assert on_disk == {p for p, _ in PLAN}
    # every format and dialect is covered
    assert {p.parent.name for p, _ in PLAN} == set(REGEN.FORMATS)
    assert len(PLAN) == len(REGEN.FORMATS) * 4 * len(REGEN.VARIANTS)


def test_console_script_reproduces_a_golden_file(tmp_path: Path) -> None:
    """The installed ``toolgram`` command (not only the in-process entry point) writes the same bytes."""
    exe = shutil.which("toolgram")
    cmd = [exe] if exe else [sys.executable, "-m", "toolgram.cli"]
    path, argv = next((p, a) for p, a in PLAN if p.name == "auto.structural-tag.json" and p.parent.name == "hermes")
    subprocess.run([*cmd, *argv, "-o", str(tmp_path / "out")], check=True, timeout=120)
    assert (tmp_path / "out").read_bytes() == path.read_bytes()


def test_check_mode_reports_drift(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    """``regen_golden.py`` writes a tree; ``--check`` then passes, and exits 1 naming a file that differs."""
    monkeypatch.setattr(REGEN, "GOLDEN", tmp_path / "golden")
    monkeypatch.setattr(REGEN, "ROOT", tmp_path)
    monkeypatch.setattr(REGEN, "FORMATS", ("pythonic",))
    monkeypatch.setattr(REGEN, "VARIANTS", {"auto": []})
    assert REGEN.main([]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 4  # one "wrote:" line per dialect
    assert REGEN.main(["--check"]) == 0 and capsys.readouterr().out == ""
    victim = tmp_path / "golden" / "pythonic" / "auto.gbnf"
    victim.write_bytes(victim.read_bytes() + b"\n")
    assert REGEN.main(["--check"]) == 1
    assert capsys.readouterr().out.strip() == "differs: golden/pythonic/auto.gbnf"
