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


def test_readme_templates_table_is_generated() -> None:
    mod = _script("template_table")
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert mod.readme_table(readme) == mod.table(), "run: python scripts/template_table.py --write"


def test_templates_table_maps_every_template() -> None:
    table = _script("template_table").table()
    collection = ROOT / "tests" / "data" / "templates" / "llama.cpp"
    names = sorted(p.name[: -len(".jinja")] for p in collection.glob("*.jinja"))
    assert len(names) == 71
    rows = table.splitlines()[2:]
    assert sorted(r.split("`")[1] for r in rows) == names
    for name in ("google-gemma-2-2b-it", "microsoft-Phi-3.5-mini-instruct", "llama-cpp-rwkv-world",
                 "HuggingFaceTB-SmolLM3-3B"):
        assert next(r for r in rows if r.startswith(f"| `{name}` |")).endswith("| none — renders no tool calls |")
