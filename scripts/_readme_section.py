"""A generated documentation section between two HTML-comment markers: read it, check it, rewrite it.

The generated tables live in ``docs/formats.md`` (they were README sections before the README was split into
``docs/``; the module keeps its name).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

DOC = Path(__file__).resolve().parents[1] / "docs" / "formats.md"


def section(text: str, begin: str, end: str) -> str:
    """The text between the markers."""
    return text.split(begin, 1)[1].split(end, 1)[0].strip("\n")


def run(table: Callable[[], str], begin: str, end: str, argv: list[str], doc: Path = DOC) -> int:
    """No argument: print the table; ``--check``: exit 1 if ``doc`` differs; ``--write``: update ``doc``."""
    text = doc.read_text(encoding="utf-8")
    if "--check" in argv:
        return 0 if section(text, begin, end) == table() else 1
    if "--write" in argv:
        head, rest = text.split(begin, 1)
        doc.write_text(f"{head}{begin}\n{table()}\n{end}{rest.split(end, 1)[1]}", encoding="utf-8")
        return 0
    print(table())
    return 0
