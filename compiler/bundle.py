"""``compile()``: format + tools + options -> a :class:`Bundle` (SPEC sections 3 and 8)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ..errors import OptionError, UnsupportedSchemaError
from ..grammars import get_format
from ..grammars.spec import FormatSpec
from .build import GrammarBuilder
from .dialects import DIALECTS
from .ir import Grammar
from .options import Options, resolve
from .regex import shared_parts
from .schema import Tool, load_tools

LLAMA_TRIGGER_TYPES = {"word": 1, "pattern": 2, "pattern_full": 3}


@dataclass
class Bundle:
    """A compiled grammar and everything needed to apply it (SPEC section 3's JSON object)."""

    format: str
    dialect: str
    grammar: str | None
    lazy: bool
    triggers: list[dict[str, str]]
    preserved_tokens: list[str]
    llama_server: dict[str, Any] | None = None
    lark_parser: str | None = None
    relaxed: list[dict[str, str]] = field(default_factory=list)
    ir: Grammar | None = field(default=None, repr=False)
    options: Options | None = field(default=None, repr=False)
    tools: list[Tool] = field(default_factory=list, repr=False)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "format": self.format,
            "dialect": self.dialect,
            "grammar": self.grammar,
            "lazy": self.lazy,
            "triggers": self.triggers,
            "preserved_tokens": self.preserved_tokens,
        }
        if self.llama_server is not None:
            out["llama_server"] = self.llama_server
        if self.lark_parser is not None:
            out["lark_parser"] = self.lark_parser
        if self.relaxed:
            out["relaxed"] = self.relaxed
        return out


def build_ir(spec: FormatSpec, tools: list[Tool], options: Options, lazy: bool) -> tuple[Grammar, list[dict[str, str]]]:
    """The IR for the options; ``lazy`` builds the from-the-trigger grammar of GBNF ``auto``."""
    with shared_parts():  # (equal parts are one object within this grammar, never with another's)
        builder = GrammarBuilder(spec, options, tools)
        return builder.build("lazy" if lazy else "full"), builder.relaxed


def compile(  # noqa: A001 - the public name is SPEC's
    format: str,
    tools: Any,
    *,
    dialect: str = "gbnf",
    tool_choice: Any = "auto",
    parallel_tool_calls: bool | None = None,
    reasoning: str | None = None,
    allowed_tools: list[str] | None = None,
    permissive: bool = False,
    max_tool_calls: int | None = None,
    xml_values: str | None = None,
    whitespace: str | None = None,
    any_order: bool = False,
) -> Bundle:
    """Compile ``tools`` (an OpenAI tools array) for ``format`` into ``dialect``; ``xml_values``
    (``first_close``/``lookahead``), ``whitespace`` (``canonical``/``flexible``) and ``any_order`` (object
    members in any order, each at most once, where the grammar can say so: docs/schema.md): SPEC section 1."""
    spec = get_format(format)
    d = DIALECTS.get(dialect) if isinstance(dialect, str) else None
    if d is None:
        raise OptionError(f"unknown dialect {dialect!r}; dialects: {', '.join(DIALECTS)}", "dialect")
    tool_list = load_tools(tools)
    opts = resolve(
        spec,
        tool_list,
        tool_choice=tool_choice,
        parallel_tool_calls=parallel_tool_calls,
        reasoning=reasoning,
        allowed_tools=allowed_tools,
        permissive=permissive,
        max_tool_calls=max_tool_calls,
        xml_values=xml_values,
        whitespace=whitespace,
        any_order=any_order,
    )
    triggers = [{"type": t.type, "value": t.value} for t in spec.triggers]
    preserved = list(spec.special_tokens)
    # a format without triggers (its replies always start with the grammar: Functionary v3.2's
    # recipient line) gets the whole auto grammar in GBNF too
    lazy = d.lazy_auto and opts.choice == "auto" and bool(spec.triggers)
    bundle = Bundle(
        format=spec.id,
        dialect=dialect,
        grammar=None,
        lazy=lazy,
        triggers=triggers,
        preserved_tokens=preserved,
        options=opts,
        tools=tool_list,
    )
    if opts.choice != "none":
        try:
            ir, relaxed = build_ir(spec, tool_list, opts, lazy)
            bundle.grammar = d.emit(spec, tool_list, opts, ir)
        except RecursionError:  # (the schemas' nesting and their meets' are bounded where they are read: a guard)
            raise UnsupportedSchemaError("the tools' schemas are too deep to compile: the build passed Python's "
                                         "recursion limit", "$") from None
        bundle.ir = ir
        bundle.relaxed = relaxed
        if d.parser_kind is not None:
            bundle.lark_parser = d.parser_kind(bundle.grammar)
    if bundle.lark_parser is None:
        bundle.lark_parser = d.default_parser
    if d.llama_server:
        bundle.llama_server = llama_server_fields(spec, bundle.grammar, lazy)
    return bundle


def llama_server_fields(spec: FormatSpec, grammar: str | None, lazy: bool) -> dict[str, Any]:
    """llama-server request fields: integer trigger types, every trigger word preserved."""
    triggers = []
    for t in spec.triggers:
        triggers.append({"type": LLAMA_TRIGGER_TYPES[t.type], "value": t.value})
    words = [t.value for t in spec.triggers if t.type == "word"]
    preserved = list(dict.fromkeys([*words, *spec.special_tokens]))
    return {
        "grammar": grammar,
        "grammar_lazy": lazy,
        "grammar_triggers": triggers if lazy else [],
        "preserved_tokens": preserved,
    }


def lazy_patterns(spec: FormatSpec) -> list[str]:
    """The regexes llama.cpp's lazy sampler gets for this format's triggers (WORDs escaped)."""
    out = []
    for t in spec.triggers:
        out.append(re.escape(t.value) if t.type == "word" else t.value)
    return out
