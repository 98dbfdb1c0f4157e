"""``toolgram --version`` (issue 12, "What to build" 5): the installed distribution's version."""

from __future__ import annotations

import importlib.metadata
import subprocess
import sys

import pytest

from toolgram.cli import main


def test_version_flag_prints_the_installed_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0
    assert capsys.readouterr().out == f"toolgram {importlib.metadata.version('toolgram')}\n"


def test_version_from_the_command_line() -> None:
    proc = subprocess.run([sys.executable, "-m", "toolgram.cli", "--version"], capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0 and proc.stderr == ""
    assert proc.stdout == f"toolgram {importlib.metadata.version('toolgram')}\n"
