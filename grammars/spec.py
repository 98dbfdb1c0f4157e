"""The typed model of a tool-call format description.

One :class:`FormatSpec` per format drives everything: the grammar builder
(``toolgram.compiler``), the strict parser (the Lark grammar built from it)
and the lenient/stream scanner (``toolgram.runtime``).  A new format is a new
module in this package holding one ``FORMAT = FormatSpec(...)``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal

from .syntax import python_text


@dataclass(frozen=True)
class XmlCall:
    """``<function=N>`` + ``<parameter=K>V</parameter>`` lines: raw strings, JSON for other types."""

    function_open: str = "<function="
    name_end: str = ">\n"
    param_open: str = "<parameter="
    param_name_end: str = ">"
    param_end: str = "</parameter>\n"
    function_end: str = "</function>\n"
    values: Literal["xml"] = "xml"

    def render(self, name: str, arguments: dict[str, Any], index: int = 0) -> str:
        """One call in the canonical spelling: strings raw, every other type as JSON text."""
        params = "".join(f"{self.param_open}{k}{self.param_name_end}{_xml_value(v)}{self.param_end}"
                         for k, v in arguments.items())
        return f"{self.function_open}{name}{self.name_end}{params}{self.function_end}"

    def literal_ends(self, name: str) -> tuple[str, str]:
        """The literal text a call of ``name`` starts and ends with."""
        return self.function_open + name + self.name_end, self.function_end

    @property
    def value_stops(self) -> tuple[str, ...]:
        """The texts that end a raw value (vLLM's rule): the closing tag followed by the next
        ``<parameter=`` or by ``</function>``, as the format writes them (``</parameter>\n<parameter=``,
        ``</parameter>\n</function>``); any whitespace (`` \t\n\r``, even none) may replace the ``\n``.
        The first such text after the value's opening padding ends it, so a value may contain
        ``</parameter>``, ``<parameter=`` or ``<tool_call>`` anywhere else, but never the closing tag,
        whitespace and then ``<parameter=`` or ``</function>``."""
        close = self.param_end[len(self.value_pad_close):]
        return (close + self.param_open, close + self.function_end.rstrip("\n"))

    @property
    def value_pad_open(self) -> str:
        """Padding the template writes before a raw value (Qwen3-Coder: ``\n``; Seed-OSS: none)."""
        return self.param_name_end[1:] if self.param_name_end.startswith(">") else ""

    @property
    def value_pad_close(self) -> str:
        """Padding the template writes after a raw value, before ``</parameter>``."""
        return self.param_end[: len(self.param_end) - len(self.param_end.lstrip("\n"))]


@dataclass(frozen=True)
class JsonCall:
    """``{"<name_key>": "N", "<args_key>": {...}}``: JSON values.

    The grammar and the renderer write ``args_key``; the lenient parser also reads any key of
    ``read_args_keys`` there (models mix Hermes' ``arguments`` and Llama 3's ``parameters``).
    """

    args_key: str = "arguments"
    name_key: str = "name"
    read_args_keys: tuple[str, ...] = ("arguments", "parameters")
    values: Literal["json"] = "json"

    def render(self, name: str, arguments: dict[str, Any], index: int = 0) -> str:
        return json.dumps({self.name_key: name, self.args_key: arguments}, ensure_ascii=False)

    def literal_ends(self, name: str) -> tuple[str, str]:
        """JSON allows whitespace inside the envelope: no literal text names the tool."""
        return "", ""


@dataclass(frozen=True)
class PythonCall:
    """``N(k=v, ...)``: Python literal values."""

    values: Literal["python"] = "python"

    def render(self, name: str, arguments: dict[str, Any], index: int = 0) -> str:
        return f"{name}(" + ", ".join(f"{k}={python_text.literal(v)}" for k, v in arguments.items()) + ")"

    def literal_ends(self, name: str) -> tuple[str, str]:
        return name + "(", ")"


@dataclass(frozen=True)
class NamedJsonCall:
    """``head`` + N + ``name_end`` + the JSON object of the arguments + ``end``.

    The name stands as text before the arguments: DeepSeek V3.1's
    ``<｜tool▁call▁begin｜>N<｜tool▁sep｜>{...}<｜tool▁call▁end｜>``, Mistral's ``N[ARGS]{...}``,
    Functionary's ``<function=N>{...}</function>``, a ``<call name="N">{...}</call>`` block.

    ``counter``: the name is followed by ``name_end``, a decimal call index and then this text
    (Kimi-K2's ``functions.N:0<|tool_call_argument_begin|>``); the renderer writes the call's
    position in the turn, parsers accept any index.
    """

    head: str = ""
    name_end: str = ""
    end: str = ""
    counter: str | None = None
    values: Literal["json"] = "json"

    def render(self, name: str, arguments: dict[str, Any], index: int = 0) -> str:
        number = "" if self.counter is None else f"{index}{self.counter}"
        return f"{self.head}{name}{self.name_end}{number}{json.dumps(arguments, ensure_ascii=False)}{self.end}"

    def literal_ends(self, name: str) -> tuple[str, str]:
        return self.head + name + self.name_end, self.end


def _xml_value(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


CallSyntax = XmlCall | JsonCall | PythonCall | NamedJsonCall


@dataclass(frozen=True)
class Wrapper:
    """An optional outer wrapper around the calls, e.g. ``<|python_start|>[...]<|python_end|>``."""

    open: str
    close: str = ""


@dataclass(frozen=True)
class Scope:
    """How calls are grouped.

    ``per_call=True``: each call in its own ``open``...``close`` block, blocks joined by
    optional whitespace.  ``per_call=False``: one ``open``...``close`` holds every call,
    ``separator`` (with optional whitespace around it) between calls.
    ``canonical_join`` is what the renderer writes between calls.
    ``anchored``: without a wrapper, calls are recognised only at the start of the output.
    ``section``: every call of the turn stands inside this one required section (DeepSeek's
    ``<｜tool▁calls▁begin｜>``...``<｜tool▁calls▁end｜>`` around per-call blocks, Nemotron's
    ``<TOOLCALL>``...``</TOOLCALL>`` around a list); its opening is the trigger word, so free
    text may come before it (``auto``).
    """

    per_call: bool
    open: str
    close: str
    separator: str = ""
    canonical_join: str = "\n"
    wrappers: tuple[Wrapper, ...] = ()
    anchored: bool = False
    section: Wrapper | None = None


@dataclass(frozen=True)
class Reasoning:
    """Reasoning tags; ``trigger_ends`` says whether a call trigger inside reasoning ends it."""

    open: str
    close: str
    trigger_ends: bool


@dataclass(frozen=True)
class Trigger:
    """A lazy-grammar trigger: ``word`` (literal anywhere) or ``pattern_full`` (anchored regex with a capture)."""

    type: Literal["word", "pattern", "pattern_full"]
    value: str


@dataclass(frozen=True)
class Fingerprint:
    """How ``toolgram detect`` recognises a chat template written for a format.

    The template names the format when every literal of one of ``clauses`` occurs in it
    (substring tests only, so detection stays linear in the template's length). When several
    formats match, the highest ``priority`` wins: a more specific fingerprint (``<tool_call>``
    with ``<function=``) outranks a more general one (``<tool_call>`` alone).
    """

    clauses: tuple[tuple[str, ...], ...]
    reason: str
    priority: int = 0


@dataclass(frozen=True)
class FormatSpec:
    """Everything toolgram knows about one output format.

    ``order`` places the format in listings (``toolgram formats``, error messages).
    ``detect`` says how a chat template for the format is recognised; ``instructions`` is what
    toolgram's own chat template (``templates/_chatml.jinja``) tells the model about the format,
    with ``{example}`` standing for a rendered example call.
    """

    id: str
    summary: str
    call: CallSyntax
    scope: Scope
    triggers: tuple[Trigger, ...]
    parallel_default: bool = True
    reasoning: Reasoning | None = None
    special_tokens: tuple[str, ...] = field(default=())
    detect: tuple[Fingerprint, ...] = ()
    instructions: str = ""
    order: int = 1000

    @property
    def values(self) -> str:
        """``xml``, ``json`` or ``python``: how argument values are spelled."""
        return self.call.values

    @property
    def trigger_word(self) -> str | None:
        """For block and section formats: the literal that starts every call block (or the section)."""
        for t in self.triggers:
            if t.type == "word" and (self.scope.per_call or self.scope.section is not None):
                return t.value
        return None
