"""The generated tables of docs/formats.md (scripts/formats_table.py, scripts/template_table.py) match the format
descriptions and the template index, and the README's list of format ids names every format once."""

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


FORMATS_DOC = ROOT / "docs" / "formats.md"


def test_formats_doc_formats_table_is_generated() -> None:
    mod = _script("formats_table")
    doc = FORMATS_DOC.read_text(encoding="utf-8")
    assert mod.doc_table(doc) == mod.table(), "run: python scripts/formats_table.py --write"


def test_formats_table_lists_every_format() -> None:
    from toolgram.grammars import FORMATS

    table = _script("formats_table").table()
    for fid in FORMATS:
        assert f"| `{fid}` |" in table


def test_formats_doc_templates_table_is_generated() -> None:
    mod = _script("template_table")
    doc = FORMATS_DOC.read_text(encoding="utf-8")
    assert mod.doc_table(doc) == mod.table(), "run: python scripts/template_table.py --write"


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


def test_readme_lists_every_format_id_once() -> None:
    """README's ``format-ids`` list: one line per format, in the registry's order, no id twice or missing."""
    from toolgram.grammars import FORMATS

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    listed = _script("_readme_section").section(readme, "<!-- format-ids:begin -->", "<!-- format-ids:end -->")
    ids = [line.split("`")[1] for line in listed.splitlines()]
    assert all(line.startswith("- `") for line in listed.splitlines()), listed
    assert ids == list(FORMATS), "README.md's format-ids list differs from toolgram.grammars.FORMATS"
    # the first paragraph names six formats "and N more"
    assert f"and {len(FORMATS) - 6} more." in readme.split("\n\n", 2)[1].replace("\n", " ")


def test_readme_is_short() -> None:
    """The README is the newcomer's page (issue 27): the reference lives in docs/."""
    assert len((ROOT / "README.md").read_text(encoding="utf-8").splitlines()) <= 200
