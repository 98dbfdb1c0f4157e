"""The dialects toolgram prints: the one list that ``compile()``, the CLI, ``validate`` and the golden files read.

Adding a dialect is one :class:`Dialect` entry here (and its emitter under ``emit/``): the CLI's
``--dialect`` choices, the manifest's ``dialects``, the engines ``toolgram validate`` loads it in
and the golden file names follow.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass

from ..grammars.spec import FormatSpec
from .emit.bnf import to_ebnf, to_gbnf
from .emit.lark import lark_parser_kind, to_lark
from .emit.structural_tag import to_structural_tag
from .ir import Grammar
from .options import Options
from .schema import Tool

#: ``emit(spec, tools, options, ir)`` -> the grammar text
Emitter = Callable[[FormatSpec, list[Tool], Options, Grammar], str]


@dataclass(frozen=True)
class Dialect:
    name: str
    emit: Emitter
    #: engines that load it: keys of ``toolgram.engines.ENGINE_MODULES``, in ``validate``'s order
    engines: tuple[str, ...]
    #: golden file extension (``grammars/golden/<format>/<variant>.<extension>``)
    extension: str
    #: ``tool_choice="auto"`` compiles the from-the-trigger grammar (llama.cpp applies it lazily)
    lazy_auto: bool = False
    #: the bundle carries llama-server request fields
    llama_server: bool = False
    #: which parser the grammar text builds under (the bundle's ``lark_parser``), and the default
    #: when there is no grammar (``tool_choice="none"``)
    parser_kind: Callable[[str], str] | None = None
    default_parser: str | None = None


def _structural_tag(spec: FormatSpec, tools: list[Tool], opts: Options, ir: Grammar) -> str:
    return json.dumps(to_structural_tag(spec, tools, opts, ir), ensure_ascii=False)


_LIST = (
    Dialect("gbnf", lambda spec, tools, opts, ir: to_gbnf(ir), ("llamacpp",), "gbnf",
            lazy_auto=True, llama_server=True),
    Dialect("ebnf", lambda spec, tools, opts, ir: to_ebnf(ir), ("xgrammar", "openvino"), "ebnf"),
    Dialect("lark", lambda spec, tools, opts, ir: to_lark(ir), ("lark",), "lark",
            parser_kind=lark_parser_kind, default_parser="lalr"),
    Dialect("structural-tag", _structural_tag, ("xgrammar", "openvino"), "structural-tag.json"),
)
#: name -> dialect, in the order the CLI and error messages list them
DIALECTS: dict[str, Dialect] = {d.name: d for d in _LIST}
NAMES: tuple[str, ...] = tuple(DIALECTS)

__all__ = ["DIALECTS", "Dialect", "NAMES"]
