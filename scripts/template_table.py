"""Print docs/formats.md's table of llama.cpp's template collection: each template and its format id.

Generated from the fixture index (``tests/data/families/index.json``, written by
``scripts/make_family_fixtures.py``) and the implemented formats (``toolgram.grammars.FORMATS``), so it
cannot drift (``tests/test_readme_tables.py``). ``--check``: exit 1 if docs/formats.md differs;
``--write``: update docs/formats.md between its markers.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _readme_section import run, section  # noqa: E402
from toolgram.grammars import FORMATS

ROOT = Path(__file__).resolve().parents[1]
INDEX = ROOT / "tests" / "data" / "families" / "index.json"
BEGIN, END = "<!-- templates-table:begin -->", "<!-- templates-table:end -->"
NO_CALLS = "none — renders no tool calls"
NOT_YET = "not yet supported"


def status(entry: dict) -> str:
    """The table cell for one index entry."""
    fmt = entry["format"]
    if fmt is None:
        return NO_CALLS
    if fmt not in FORMATS:
        return f"{NOT_YET} (proposed id `{fmt}`)"
    if not entry["renders_calls"]:
        return f"`{fmt}` (the template does not write calls back into history)"
    return f"`{fmt}`"


def table() -> str:
    index = json.loads(INDEX.read_text(encoding="utf-8"))
    rows = ["| template | family | format |", "|---|---|---|"]
    for name in sorted(index, key=str.lower):
        e = index[name]
        family = e["family"].replace("|", "\\|").replace("<", "&lt;")
        rows.append(f"| `{name[: -len('.jinja')]}` | {family} | {status(e)} |")
    return "\n".join(rows)


def doc_table(text: str) -> str:
    """The table between the markers of docs/formats.md."""
    return section(text, BEGIN, END)


def main() -> int:
    """No argument: print the table; ``--check``: exit 1 if docs/formats.md differs; ``--write``: update it."""
    return run(table, BEGIN, END, sys.argv[1:])


if __name__ == "__main__":
    raise SystemExit(main())
