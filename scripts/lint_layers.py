"""Check toolgram's import layers with import-linter (the contracts in pyproject.toml).

The repository keeps the design card's layout (``compiler/``, ``runtime/``, ``grammars/``,
``templates/`` at the top) and setuptools maps them into the one installed namespace
``toolgram``.  import-linter (grimp) finds a package's modules by walking the directory of its
root package, so it cannot see that mapping: this script stages the installed layout in a
temporary folder (copying the ``package-dir`` mapping of pyproject.toml) and lints that.

``python scripts/lint_layers.py`` exits with lint-imports' status.
``--inject MODULE:LINE`` appends ``LINE`` to the staged copy of MODULE first (the tests use it to
show that an upward import is caught).
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

ROOT = Path(__file__).resolve().parents[1]


def stage(dest: Path, keep_data: bool = False) -> Path:
    """Copy the package tree as it installs (``toolgram.compiler`` -> ``toolgram/compiler``) under ``dest``
    (without the golden grammars and examples unless ``keep_data``)."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    mapping: dict[str, str] = config["tool"]["setuptools"]["package-dir"]
    # parents before children: toolgram/ first, then toolgram/compiler/ etc.
    for package, folder in sorted(mapping.items(), key=lambda kv: kv[0].count(".")):
        target = dest.joinpath(*package.split("."))
        skip = ("__pycache__", "*.pyc", *(() if keep_data else ("golden", "examples")))
        shutil.copytree(ROOT / folder, target, dirs_exist_ok=True, ignore=shutil.ignore_patterns(*skip))
    return dest


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--inject", action="append", default=[], metavar="MODULE:LINE")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        staged = stage(Path(tmp))
        for item in args.inject:
            module, _, line = item.partition(":")
            path = staged.joinpath(*module.split("."))
            path = path / "__init__.py" if path.is_dir() else path.with_suffix(".py")
            with path.open("a", encoding="utf-8") as f:
                f.write("\n" + line + "\n")
        exe = shutil.which("lint-imports") or "lint-imports"
        proc = subprocess.run([exe, str(ROOT / "pyproject.toml"), "--no-cache"], cwd=tmp,
                              env={**__import__("os").environ, "PYTHONPATH": tmp})
        return proc.returncode


if __name__ == "__main__":
    sys.exit(main())
