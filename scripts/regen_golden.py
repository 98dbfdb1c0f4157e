"""Regenerate the golden grammars under ``grammars/golden/`` with ``toolgram compile``.

Usage (from the repository root)::

    python scripts/regen_golden.py           # rewrite every golden file
    python scripts/regen_golden.py --check   # exit 1, listing the files that differ, without writing

Each file is exactly what ``toolgram compile FORMAT --tools grammars/examples/tools.json
--dialect D [--tool-choice required] -o FILE`` writes, for every format x dialect and the
variants in :data:`VARIANTS`. ``tests/test_golden.py`` fails when they drift.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from toolgram.compiler.dialects import DIALECTS as _REGISTRY
from toolgram.grammars import FORMATS as _ALL_FORMATS

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = ROOT / "grammars" / "golden"
TOOLS = ROOT / "grammars" / "examples" / "tools.json"
#: every format description (discovered, in listing order)
FORMATS = tuple(_ALL_FORMATS)
#: dialect -> golden file extension (the dialect registry's)
DIALECTS = {name: d.extension for name, d in _REGISTRY.items()}
#: variant name -> extra ``toolgram compile`` arguments
VARIANTS: dict[str, list[str]] = {"auto": [], "required": ["--tool-choice", "required"]}


def plan() -> list[tuple[Path, list[str]]]:
    """``(golden file, toolgram compile argv without -o)`` for every golden file."""
    out = []
    for fmt in FORMATS:
        for dialect, ext in DIALECTS.items():
            for variant, extra in VARIANTS.items():
                argv = ["compile", fmt, "--tools", str(TOOLS), "--dialect", dialect, *extra]
                out.append((GOLDEN / fmt / f"{variant}.{ext}", argv))
    return out


def compile_to_bytes(argv: list[str]) -> bytes:
    """Run ``toolgram compile`` (in-process, the CLI's own code path) and return what ``-o`` wrote."""
    from toolgram.cli import main

    with tempfile.TemporaryDirectory() as tmp:
        target = Path(tmp) / "out"
        code = main([*argv, "-o", str(target)])
        if code != 0:
            raise SystemExit(f"toolgram {' '.join(argv)} exited {code}")
        return target.read_bytes()


def main(args: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--check", action="store_true", help="report drift instead of writing")
    ns = p.parse_args(args)
    drift = []
    for path, argv in plan():
        data = compile_to_bytes(argv)
        if path.exists() and path.read_bytes() == data:
            continue
        drift.append(path)
        if not ns.check:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
    for path in drift:
        print(f"{'differs' if ns.check else 'wrote'}: {path.relative_to(ROOT)}")
    if ns.check and drift:
        print("run: python scripts/regen_golden.py", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
