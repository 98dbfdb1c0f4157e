"""A generated README section between two HTML-comment markers: read it, check it, rewrite it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def section(text: str, begin: str, end: str) -> str:
    """The text between the markers."""
    return text.split(begin, 1)[1].split(end, 1)[0].strip("\n")


def run(table: Callable[[], str], begin: str, end: str, argv: list[str]) -> int:
    """No argument: print the table; ``--check``: exit 1 if README.md differs; ``--write``: update README.md."""
    text = README.read_text(encoding="utf-8")
    if "--check" in argv:
        return 0 if section(text, begin, end) == table() else 1
    if "--write" in argv:
        head, rest = text.split(begin, 1)
        README.write_text(f"{head}{begin}\n{table()}\n{end}{rest.split(end, 1)[1]}", encoding="utf-8")
        return 0
    print(table())
    return 0
