"""The ``toolgram`` command line: one module per subcommand under ``toolgram.commands``.

Every command module exposes ``add_parser(subparsers)`` and ``run(args) -> int``.
A :class:`~toolgram.errors.ToolgramError` prints as one line and exits 2 (SPEC section 7).
"""

from __future__ import annotations

import argparse
import importlib
import importlib.metadata
import importlib.util
import sys

from .errors import ToolgramError

COMMANDS = ("compile", "formats", "parse", "generate", "serve", "detect", "validate")


def version() -> str:
    """The installed distribution's version (``importlib.metadata``), or a note when toolgram is not installed."""
    try:
        return importlib.metadata.version("toolgram")
    except importlib.metadata.PackageNotFoundError:
        return "unknown (not installed: run from a source tree)"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="toolgram", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=f"toolgram {version()}",
                        help="print the installed toolgram version and exit")
    sub = parser.add_subparsers(dest="command", required=True)
    for name in COMMANDS:
        module_name = f"toolgram.commands.{name}_cmd"
        if importlib.util.find_spec(module_name) is None:
            continue
        module = importlib.import_module(module_name)
        p = module.add_parser(sub)
        p.set_defaults(_run=module.run)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args._run(args) or 0)
    except ToolgramError as exc:
        print(f"toolgram: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # pragma: no cover - e.g. `toolgram compile ... | head`
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
