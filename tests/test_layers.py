"""The import layers hold (issue 8): import-linter's contracts in pyproject.toml, on the installed layout.

``scripts/lint_layers.py`` stages the package as it installs and runs ``lint-imports``; these tests
run it on the real tree and on a scratch copy with a deliberate upward import.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("importlinter", reason="import-linter is a test dependency (pip install -e '.[test]')")

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "lint_layers.py"


def _lint(*inject: str) -> subprocess.CompletedProcess[str]:
    args = [sys.executable, str(SCRIPT)]
    for item in inject:
        args += ["--inject", item]
    return subprocess.run(args, capture_output=True, text=True, timeout=120)


def test_the_layers_hold() -> None:
    proc = _lint()
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.parametrize(
    ("module", "line", "message"),
    [
        # the compiler importing the parser: upward
        ("toolgram.compiler.ir", "from toolgram.parsing import parser", "toolgram.compiler is not allowed to import"),
        # the parser importing generation: upward
        ("toolgram.parsing.scanner", "from toolgram.runtime import generator", "toolgram.parsing is not allowed"),
        # value conversion importing the stream scanner: upward inside parsing
        ("toolgram.parsing.values", "from toolgram.parsing import scanner", "toolgram.parsing.values is not allowed"),
        # a format description importing the compiler: upward
        ("toolgram.grammars.spec", "from toolgram.compiler import ir", "toolgram.grammars is not allowed to import"),
        # the parser importing an engine
        ("toolgram.parsing.scanner", "import xgrammar", "xgrammar"),
    ],
)
def test_an_upward_import_is_caught(module: str, line: str, message: str) -> None:
    proc = _lint(f"{module}:{line}")
    assert proc.returncode != 0
    assert message in proc.stdout, proc.stdout
