"""Print the README's formats table from the format descriptions (``--check``, ``--write``: README.md).

Each row renders one call ``N(K="V")`` with the format's own renderer, so the table shows exactly
what the grammars emit and cannot drift from the descriptions (``tests/test_readme_tables.py``).
"""

from __future__ import annotations

import sys
from pathlib import Path

from toolgram.grammars import FORMATS
from toolgram.runtime.render import render_calls

from toolgram.commands.formats_cmd import scope_kind

ROOT = Path(__file__).resolve().parents[1]
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


def readme_table(text: str) -> str:
    """The table between the README's markers."""
    return text.split(BEGIN, 1)[1].split(END, 1)[0].strip("\n")


def main() -> int:
    """No argument: print the table; ``--check``: exit 1 if README.md differs; ``--write``: update README.md."""
    readme = ROOT / "README.md"
    text = readme.read_text(encoding="utf-8")
    if "--check" in sys.argv[1:]:
        return 0 if readme_table(text) == table() else 1
    if "--write" in sys.argv[1:]:
        head, rest = text.split(BEGIN, 1)
        readme.write_text(f"{head}{BEGIN}\n{table()}\n{END}{rest.split(END, 1)[1]}", encoding="utf-8")
        return 0
    print(table())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
