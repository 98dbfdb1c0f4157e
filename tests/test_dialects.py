"""One list of dialects (issue 8 section 4): the registry in ``compiler/dialects.py`` is what compile(),
the CLI, ``validate`` and the golden files read."""

from __future__ import annotations

import argparse
import importlib.util
import json
from pathlib import Path

import pytest
from toolgram.compiler.dialects import DIALECTS, NAMES

from toolgram import compile
from toolgram.commands import compile_cmd, validate_cmd
from toolgram.engines import ENGINE_MODULES
from toolgram.errors import OptionError

ROOT = Path(__file__).resolve().parents[1]
TOOLS = json.loads((ROOT / "grammars" / "examples" / "tools.json").read_text(encoding="utf-8"))


def _choices(module) -> tuple[str, ...]:
    parser = argparse.ArgumentParser()
    p = module.add_parser(parser.add_subparsers())
    action = next(a for a in p._actions if a.dest == "dialect")
    return tuple(action.choices)


def test_registry_shape() -> None:
    assert NAMES == ("gbnf", "ebnf", "lark", "structural-tag")  # the CLI's and messages' order
    for name, d in DIALECTS.items():
        assert d.name == name and d.engines and set(d.engines) <= set(ENGINE_MODULES)
        assert d.extension.split(".")[0] == name


def test_readers_use_the_registry() -> None:
    from toolgram import validate

    assert _choices(compile_cmd) == NAMES == _choices(validate_cmd)
    assert validate.DIALECTS == NAMES
    assert validate._ENGINE_FOR == {n: list(d.engines) for n, d in DIALECTS.items()}
    spec = importlib.util.spec_from_file_location("regen_golden", ROOT / "scripts" / "regen_golden.py")
    regen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(regen)
    assert regen.DIALECTS == {n: d.extension for n, d in DIALECTS.items()}


@pytest.mark.parametrize("name", NAMES)
def test_bundle_fields_by_dialect(name: str) -> None:
    d = DIALECTS[name]
    auto = compile("hermes", TOOLS, dialect=name)
    assert auto.lazy == d.lazy_auto
    assert (auto.llama_server is not None) == d.llama_server
    assert (auto.lark_parser is not None) == (d.parser_kind is not None)
    none = compile("hermes", TOOLS, dialect=name, tool_choice="none")
    assert none.grammar is None and none.lark_parser == d.default_parser


def test_unknown_dialect_message() -> None:
    for bad in ("bnf", None, ["gbnf"]):
        with pytest.raises(OptionError) as e:
            compile("hermes", TOOLS, dialect=bad)  # type: ignore[arg-type]
        assert str(e.value).startswith(f"unknown dialect {bad!r}; dialects: gbnf, ebnf, lark, structural-tag")
