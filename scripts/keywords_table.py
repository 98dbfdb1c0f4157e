"""Print the JSON Schema keyword table (claimed / enforced / relaxed) from the registry, compiler/keywords.py.

The docs page (docs/schema.md) shows this table; the JSON-Schema-Test-Suite test reads the same registry.
``--check FILE``: exit 1 when FILE does not contain the table as printed.
"""

from __future__ import annotations

import sys
from pathlib import Path

from toolgram.compiler.keywords import KEYWORDS, NOTES

MEANING = {
    "enforced": "enforced by every dialect and the strict parser",
    "annotation": "annotation (no effect on validity)",
    "unsupported": "refused (ToolgramError with the path); `--permissive`: relaxed (listed, superset grammar)",
}


def table() -> str:
    rows = ["| keyword | toolgram | note |", "|---|---|---|"]
    order = {"enforced": 0, "unsupported": 1, "annotation": 2}
    for kw, status in sorted(KEYWORDS.items(), key=lambda kv: (order[kv[1]], kv[0].lstrip("$").lower())):
        rows.append(f"| `{kw}` | {MEANING[status]} | {NOTES.get(kw, '')} |")
    return "\n".join(rows)


def main(argv: list[str]) -> int:
    text = table()
    if argv[:1] == ["--check"]:
        return 0 if text in Path(argv[1]).read_text(encoding="utf-8") else 1
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
