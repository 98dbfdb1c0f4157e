"""The README's formats table is generated from the format descriptions (scripts/formats_table.py)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _script(name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_readme_formats_table_is_generated() -> None:
    mod = _script("formats_table")
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert mod.readme_table(readme) == mod.table(), "run: python scripts/formats_table.py --write"


def test_formats_table_lists_every_format() -> None:
    from toolgram.grammars import FORMATS

    table = _script("formats_table").table()
    for fid in FORMATS:
        assert f"| `{fid}` |" in table
