"""Print the formats table of docs/formats.md from the format descriptions (``--check``, ``--write``: docs/formats.md).

Each row renders one call ``N(K="V")`` with the format's own renderer, so the table shows exactly
what the grammars emit and cannot drift from the descriptions (``tests/test_readme_tables.py``).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _readme_section import run, section  # noqa: E402
from toolgram.grammars import FORMATS
from toolgram.grammars.render import render_calls

from toolgram.commands.formats_cmd import scope_kind

BEGIN, END = "<!-- formats-table:begin -->", "<!-- formats-table:end -->"


def _cell(text: str) -> str:
    body = text.replace("\n", "\\n").replace("|", "\\|")
    tick = "``" if "`" in body else "`"
    pad = " " if tick == "``" else ""
    return f"{tick}{pad}{body}{pad}{tick}"


def table() -> str:
    rows = ["| id | one call `N(K=\"V\")`, as emitted | calls | parallel default | reasoning | triggers |",
            "|---|---|---|---|---|---|"]
    for spec in FORMATS.values():
        r = spec.reasoning
        reasoning = f"{_cell(r.open)} … {_cell(r.close)}" if r else "none"
        triggers = ", ".join(f"{t.type} {_cell(t.value)}" for t in spec.triggers)
        sc = spec.scope
        calls = scope_kind(spec) + (f", joined by {_cell(sc.canonical_join)}" if sc.canonical_join else ", adjacent")
        for w in sc.wrappers:
            calls += (f", optionally in {_cell(w.open)} … {_cell(w.close)}" if w.close
                      else f", optionally after {_cell(w.open)}")
        rows.append(f"| `{spec.id}` | {_cell(render_calls(spec, [('N', {'K': 'V'})]))} | {calls} | "
                    f"{'on' if spec.parallel_default else 'off'} | {reasoning} | {triggers} |")
    return "\n".join(rows)


def doc_table(text: str) -> str:
    """The table between the markers of docs/formats.md."""
    return section(text, BEGIN, END)


def main() -> int:
    """No argument: print the table; ``--check``: exit 1 if docs/formats.md differs; ``--write``: update it."""
    return run(table, BEGIN, END, sys.argv[1:])


if __name__ == "__main__":
    raise SystemExit(main())
