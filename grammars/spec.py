"""The typed model of a tool-call format description.

One :class:`FormatSpec` per format drives everything: the grammar builder
(``toolgram.compiler``), the strict parser (the Lark grammar built from it)
and the lenient/stream scanner (``toolgram.runtime``).  A new format is a new
module in this package holding one ``FORMAT = FormatSpec(...)``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Literal

from .syntax import gemma_text, python_text, xml_elements


@dataclass(frozen=True)
class XmlCall:
    """``<function=N>`` + ``<parameter=K>V</parameter>`` lines: raw strings, JSON for other types.

    The same shape spells GLM's ``N\n<arg_key>K</arg_key>\n<arg_value>V</arg_value>`` (empty
    ``function_open`` and ``function_end``: the scope's tags stand around the call), MiniMax's
    ``<parameter name="K">V</parameter>`` (a quoted name: the key may not hold the quote) and
    DeepSeek's DSML ``<｜DSML｜parameter name="K" string="true">V</｜DSML｜parameter>``.

    ``json_name_end``: the text after the key before a JSON-spelled value (not a string), when it
    differs from ``param_name_end`` (DSML's ``" string="false">``); None: the same text.
    """

    function_open: str = "<function="
    name_end: str = ">\n"
    param_open: str = "<parameter="
    param_name_end: str = ">"
    param_end: str = "</parameter>\n"
    function_end: str = "</function>\n"
    json_name_end: str | None = None
    #: MiniCPM5: a string holding ``<``, ``&`` or a newline is written ``<![CDATA[...]]>``, and a raw
    #: value so wrapped is read unwrapped (grammars take it as raw text either way)
    cdata: bool = False
    #: typed argument attributes (Kimi-K3's ``key="K" type="number"<|sep|>``): ``param_name_end`` holds
    #: ``{type}``, written with this table's word for the value's JSON Schema type (``integer`` ->
    #: ``number``); the grammar admits the words of the types the schema allows, the parsers read any
    #: word and type the value by the schema (SPEC section 1)
    type_words: tuple[tuple[str, str], ...] = ()
    #: a call index after ``name_end`` (Kimi-K3's ``index="1"<|sep|>``): decimal digits, then this text;
    #: the renderer writes the call's position in the turn plus ``counter_base``, parsers accept any index
    counter: str | None = None
    counter_base: int = 0
    #: the name written a second time (muse-glimmer's recipient header `` to=N<|message|>`` before
    #: ``<atem:invoke name="N">``): ``name_end`` is followed by the same name and this text
    name_again: str | None = None
    values: Literal["xml"] = "xml"

    def render(self, name: str, arguments: dict[str, Any], index: int = 0) -> str:
        """One call in the canonical spelling: strings raw, every other type as JSON text."""
        params = "".join(f"{self.param_open}{k}{self.name_end_for(v)}{self.write_value(v)}{self.param_end}"
                         for k, v in arguments.items())
        return f"{self.function_open}{self.head_text(name, index)}{params}{self.function_end}"

    def head_text(self, name: str, index: int = 0) -> str:
        """The name and what follows it up to the first parameter (the repeated name, the call index)."""
        again = "" if self.name_again is None else name + self.name_again
        number = "" if self.counter is None else f"{index + self.counter_base}{self.counter}"
        return f"{name}{self.name_end}{again}{number}"

    def type_word(self, json_type: str) -> str:
        """:attr:`type_words`' word for a JSON Schema type name."""
        return dict(self.type_words)[json_type]

    @property
    def name_ends(self) -> tuple[str, ...]:
        """Every text that may stand between a key and its value (one per type word, DSML's two)."""
        if self.type_words:
            return tuple(dict.fromkeys(self.param_name_end.replace("{type}", w) for _, w in self.type_words))
        return (self.param_name_end,) if self.json_name_end is None else (self.param_name_end, self.json_name_end)

    def write_value(self, value: Any) -> str:
        """A value as the format writes it: strings raw (in CDATA where :attr:`cdata` asks), others as JSON."""
        if not isinstance(value, str):
            return json.dumps(value, ensure_ascii=False)
        if self.cdata and any(c in value for c in CDATA_TRIGGERS):
            return CDATA_OPEN + value + CDATA_CLOSE
        return value

    def ends_early(self, value: str, scope_close: str) -> bool:
        """Whether the string ``value``, written raw, would end before its own end: it holds the closing
        tag followed (after whitespace) by the next ``param_open`` or the call's end, as the lenient
        parser (and ``xml_values="lookahead"``) reads it (:attr:`value_stops`); in CDATA (:attr:`cdata`)
        only when it also holds ``]]>``. (With ``first_close`` a grammar takes no closing tag in a value.)"""
        if self.cdata and any(c in value for c in CDATA_TRIGGERS) and CDATA_CLOSE not in value:
            return False
        end = self.param_end.strip(" \t\n\r")
        followers = (self.param_open, self.function_end.strip(" \t\n\r") or scope_close.strip(" \t\n\r"))
        stop = re.escape(end) + "[ \t\n\r]*(?:" + "|".join(re.escape(f) for f in followers if f) + ")"
        return re.search(stop, self.write_value(value)) is not None

    def read_raw(self, raw: str) -> str:
        """A raw value's text as written, less its CDATA wrapper (:attr:`cdata`); the inverse of :meth:`write_value`."""
        if self.cdata and raw.startswith(CDATA_OPEN) and raw.endswith(CDATA_CLOSE) \
                and len(raw) >= len(CDATA_OPEN) + len(CDATA_CLOSE):
            return raw[len(CDATA_OPEN):len(raw) - len(CDATA_CLOSE)]
        return raw

    def read_raw_start(self, raw: str) -> str:
        """The start of a raw value cut short (truncated output): less its CDATA opening, if complete."""
        return raw[len(CDATA_OPEN):] if self.cdata and raw.startswith(CDATA_OPEN) else raw

    def name_end_for(self, value: Any) -> str:
        """The text between the key and ``value`` (``json_name_end`` before a value that is not a string)."""
        if self.type_words:
            return self.param_name_end.replace("{type}", self.type_word(json_type_of(value)))
        return self.param_name_end if isinstance(value, str) or self.json_name_end is None else self.json_name_end

    @property
    def quoted_key(self) -> bool:
        """The key stands inside quotes (``<parameter name="K">``): it may not hold the quote."""
        return self.param_open.endswith('"')

    @property
    def value_stops(self) -> tuple[str, ...]:
        """The texts that end a raw value (vLLM's rule): the closing tag followed by the next
        ``<parameter=`` or by ``</function>``, as the format writes them (``</parameter>\n<parameter=``,
        ``</parameter>\n</function>``); any whitespace (`` \t\n\r``, even none) may replace the ``\n``.
        The first such text after the value's opening padding ends it, so a value may contain
        ``</parameter>``, ``<parameter=`` or ``<tool_call>`` anywhere else, but never the closing tag,
        whitespace and then ``<parameter=`` or ``</function>``."""
        return self.value_stops_in("")

    def value_stops_in(self, scope_close: str) -> tuple[str, ...]:
        """:attr:`value_stops` when the call stands in a scope closed by ``scope_close``: without a
        ``function_end`` (GLM), or with one of whitespace only (Ling 3's ``\n``), the scope's close
        follows the last value (``</arg_value>\n</tool_call>``), as the parsers read it."""
        close = self.param_end[len(self.value_pad_close):]
        fn_end = self.function_end
        end = fn_end.rstrip("\n") if fn_end.strip(" \t\n\r") else fn_end + scope_close.rstrip("\n")
        return (close + self.param_open, close + end)

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

    ``name_as_key``: the call is ``{"N": {...}}`` (Apertus); the other keys are then unused.

    ``id_key``: the object also holds a call id member ``"<id_key>": "ID"``, first (``id_first``,
    Cohere's ``tool_call_id``) or after the arguments (Mistral's and Apriel's ``id``); its value
    matches the anchored regex ``id_pattern``; ``id_required`` says whether the grammar demands it.
    The renderer writes ``id_prefix`` + the call's index padded with zeros to ``id_digits`` there
    (``id_prefix`` None: no id, for an optional one).
    The parsed message numbers its calls ``call_<i>``; ``parse(..., call_ids="model")`` keeps an id written
    first instead (a streamed call's first delta carries its id, so Mistral's, written last, is not kept).
    """

    args_key: str = "arguments"
    name_key: str = "name"
    read_args_keys: tuple[str, ...] = ("arguments", "parameters")
    name_as_key: bool = False
    id_key: str | None = None
    id_first: bool = False
    id_pattern: str = r"^[A-Za-z0-9_\-]{1,64}$"
    id_required: bool = False
    id_prefix: str | None = None
    id_digits: int = 1
    values: Literal["json"] = "json"

    def render(self, name: str, arguments: dict[str, Any], index: int = 0) -> str:
        if self.name_as_key:
            return json.dumps({name: arguments}, ensure_ascii=False)
        ident = None if self.id_key is None or self.id_prefix is None else f"{self.id_prefix}{index:0{self.id_digits}d}"
        obj: dict[str, Any] = {}
        if ident is not None and self.id_first:
            obj[self.id_key] = ident  # type: ignore[index]
        obj[self.name_key] = name
        obj[self.args_key] = arguments
        if ident is not None and not self.id_first:
            obj[self.id_key] = ident  # type: ignore[index]
        return json.dumps(obj, ensure_ascii=False)


@dataclass(frozen=True)
class PythonCall:
    """``N(k=v, ...)``: Python literal values. Tool names are identifiers or dotted identifiers, as
    in a Python call expression (``math.factorial(number=5)``, LFM2's ``Calendar.create_event``)."""

    values: Literal["python"] = "python"

    def render(self, name: str, arguments: dict[str, Any], index: int = 0) -> str:
        for k in arguments:
            if not python_text.KWARG_RE.fullmatch(k):
                raise ValueError(f"argument name {k!r} is not an identifier: a Python call cannot carry it")
        return f"{name}(" + ", ".join(f"{k}={python_text.literal(v)}" for k, v in arguments.items()) + ")"


@dataclass(frozen=True)
class CallId:
    """A call id the model writes in the call head: ``open`` ID ``close``, ID being 1 to 64 of
    ``[A-Za-z0-9_-]``.

    After the name (before ``name_end``) by default: Mistral Small 3.2's ``N[CALL_ID]ID[ARGS]``;
    ``before_name``: between ``head`` and the name (Solar-Open's ``ID<|tool_call:name|>N``).
    ``optional``: the id may be left out (the renderer then writes none; otherwise ``call00001``...).
    Parsers accept any id; the parsed message numbers its calls itself (``call_0``...), or keeps this id
    with ``parse(..., call_ids="model")``.
    """

    open: str = ""
    close: str = ""
    before_name: bool = False
    optional: bool = True


@dataclass(frozen=True)
class NamedJsonCall:
    """``head`` + N + ``name_end`` + the JSON object of the arguments + ``end``.

    The name stands as text before the arguments: DeepSeek V3.1's
    ``<｜tool▁call▁begin｜>N<｜tool▁sep｜>{...}<｜tool▁call▁end｜>``, Mistral's ``N[ARGS]{...}``,
    Functionary's ``<function=N>{...}</function>``, a ``<call name="N">{...}</call>`` block.

    ``counter``: the name is followed by ``name_end``, a decimal call index and then this text
    (Kimi-K2's ``functions.N:0<|tool_call_argument_begin|>``); the renderer writes the call's
    position in the turn, parsers accept any index.
    ``call_id``: a model-written id in the head (see :class:`CallId`).
    ``end`` may start with whitespace (DeepSeek R1's newline before the closing fence): any whitespace,
    or none, may stand there.
    """

    head: str = ""
    name_end: str = ""
    end: str = ""
    counter: str | None = None
    call_id: CallId | None = None
    #: lenient: a call to the tool so named whose body is not a JSON object is raw code, read to the end
    #: of the output as ``{raw_code_key: CODE}`` (Functionary v3.2's ``python`` recipient, llama.cpp's rule)
    raw_code_tool: str | None = None
    raw_code_key: str = "code"
    values: Literal["json"] = "json"

    def render(self, name: str, arguments: dict[str, Any], index: int = 0) -> str:
        number = "" if self.counter is None else f"{index}{self.counter}"
        cid = self.call_id
        ident = "" if cid is None or cid.optional else f"{cid.open}call{index + 1:05d}{cid.close}"
        before, after = (ident, "") if cid is not None and cid.before_name else ("", ident)
        args = json.dumps(arguments, ensure_ascii=False)
        return f"{self.head}{before}{name}{after}{self.name_end}{number}{args}{self.end}"


def json_type_of(value: Any) -> str:
    """The JSON Schema type name of a JSON value (``integer`` for an int, ``number`` for a float)."""
    if value is None:
        return "null"
    for py, name in ((bool, "boolean"), (int, "integer"), (float, "number"), (str, "string"), (dict, "object")):
        if isinstance(value, py):
            return name
    return "array"


CDATA_OPEN, CDATA_CLOSE = "<![CDATA[", "]]>"
#: the characters that make MiniCPM5's template wrap a string in CDATA
CDATA_TRIGGERS = "<&\n"


@dataclass(frozen=True)
class GemmaCall:
    """``head`` N ``open`` k:v,... ``close``: Gemma 4's ``call:N{city:<|"|>Paris<|"|>,days:2}``.

    Values in Gemma 4's syntax (:mod:`.syntax.gemma_text`): ``<|"|>`` strings without escapes,
    bare keys at every depth, no whitespace.  ``key_pattern``: the keys the syntax can carry bare
    (an argument name outside it is a schema error)."""

    head: str = "call:"
    open: str = "{"
    close: str = "}"
    key_pattern: str = gemma_text.KEY_RE.pattern
    values: Literal["gemma"] = "gemma"

    def render(self, name: str, arguments: dict[str, Any], index: int = 0) -> str:
        return f"{self.head}{name}{self.open}{gemma_text.members(arguments)}{self.close}"


@dataclass(frozen=True)
class ElementCall:
    """N ``name_end``, then one element per argument named by its key, ``ns<K>V ns</K>``: MiniMax-M3's
    ``get_weather">]<]minimax[>[<city>Paris]<]minimax[>[</city>`` (the scope's tags stand around it).

    Values in the nested-element syntax (:mod:`.syntax.xml_elements`): strings raw, numbers and
    booleans as JSON text, objects and arrays expanded into elements (``item`` per array item);
    the schema says which a value is. ``ns`` (a special token) leads every tag, so no raw text holds it.
    """

    ns: str
    name_end: str = '">'
    values: Literal["elements"] = "elements"

    def render(self, name: str, arguments: dict[str, Any], index: int = 0) -> str:
        return name + self.name_end + xml_elements.write(arguments, self.ns)


CallSyntax = XmlCall | JsonCall | PythonCall | NamedJsonCall | GemmaCall | ElementCall


@dataclass(frozen=True)
class Wrapper:
    """An optional outer wrapper around the calls, e.g. ``<|python_start|>[...]<|python_end|>``.

    ``close_optional`` (sections of per-call blocks): the output may end without ``close``
    (the DeepSeek R1 Distill Llama template writes no section close after a single call).
    """

    open: str
    close: str = ""
    close_optional: bool = False


@dataclass(frozen=True)
class Scope:
    """How calls are grouped.

    ``per_call=True``: each call in its own ``open``...``close`` block, blocks joined by
    optional whitespace.  ``per_call=False``: one ``open``...``close`` holds every call,
    ``separator`` (with optional whitespace around it) between calls.
    ``canonical_join`` is what the renderer writes between calls.
    ``anchored``: without a wrapper, calls are recognised only at the start of the output.
    ``text_prefix``: an anchored list's free text opens with this recipient line (Functionary
    v3.2's ``all\n``); it is not part of the content.
    ``leading_ws``: optional whitespace may stand before the first call (SPEC section 1). False
    where the first call continues the generation prompt's text (harmony's ``<|start|>assistant``
    + `` to=functions.N``: whitespace there is not harmony, and a space-led opening after free
    whitespace is two spellings of one text, which Lark's lexer cannot split).
    ``joiner``: see the field.
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
    text_prefix: str = ""
    leading_ws: bool = True
    #: per-call blocks: text that stands between two blocks, after the optional whitespace (muse-glimmer
    #: writes each call as its own message: ``<|eom|><|start|>assistant`` before the next `` to=N``)
    joiner: str = ""

    def __post_init__(self) -> None:
        if self.leading_ws and self.open[:1].isspace():
            raise ValueError(f"a scope opening that starts with whitespace ({self.open!r}) needs leading_ws=False")


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

    ``unless``: literals of other families; a template holding any of them is not this format even
    when a clause matches, so a family without a description of its own stays unknown instead of
    being taken for the nearest match (GLM's ``<tool_call>`` is not Hermes').
    """

    clauses: tuple[tuple[str, ...], ...]
    reason: str
    priority: int = 0
    unless: tuple[str, ...] = ()


@dataclass(frozen=True)
class Markup:
    """Protocol markup a format's template writes around text: never content, never reasoning (SPEC section 1).

    ``tokens``: literals dropped wherever they stand in free text or reasoning: content wrappers
    (Cohere's ``<|START_RESPONSE|>``...``<|END_RESPONSE|>``), framing and end-of-message tokens
    (harmony's ``<|end|>``, GigaChat's ``</s>``), empty blocks (Gemma 4's ``<|channel>thought\n<channel|>``).
    ``headers``: message headers ``(open, close)``: the text from ``open`` to the first ``close`` (harmony's
    ``<|channel|>final<|message|>``, ``<|start|>assistant to=python<|channel|>commentary<|message|>``) is
    dropped when at most ``header_max`` characters stand between them; a call head inside it (harmony's
    `` to=functions.N``) ends the header there and starts the call; without its close in reach (or
    by the end of the output) it is no header: text, less any ``tokens`` in it. Headers are tried
    before tokens.
    A marker in the middle of prose is dropped all the same: the text on its two sides joins as written.
    """

    tokens: tuple[str, ...] = ()
    headers: tuple[tuple[str, str], ...] = ()
    header_max: int = 64

    def __bool__(self) -> bool:
        return bool(self.tokens or self.headers)


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
    markup: Markup = Markup()
    #: other spellings of the format's tags that the lenient parser reads as the canonical one,
    #: ``(read, as)`` pairs (vLLM reads Hy3's tags without their ``:opensource`` suffix)
    read_spellings: tuple[tuple[str, str], ...] = ()
    detect: tuple[Fingerprint, ...] = ()
    instructions: str = ""
    order: int = 1000

    @property
    def values(self) -> str:
        """``xml``, ``json``, ``python``, ``gemma`` or ``elements``: how argument values are spelled."""
        return self.call.values

    @property
    def trigger_word(self) -> str | None:
        """For block and section formats: the literal that starts every call block (or the section)."""
        for t in self.triggers:
            if t.type == "word" and (self.scope.per_call or self.scope.section is not None):
                return t.value
        return None

    @property
    def pattern_triggered(self) -> bool:
        """A trigger is a pattern: llama.cpp hands a lazy grammar the text from its capture on, with
        whatever whitespace the same token holds (SPEC's trigger/grammar consistency)."""
        return any(t.type != "word" for t in self.triggers)


@dataclass(frozen=True)
class HeaderJsonCall(NamedJsonCall):
    """A :class:`NamedJsonCall` whose name stands in a message header that models spell in
    several ways (OpenAI harmony: `` to=functions.N<|channel|>commentary json<|message|>`` as the
    template writes it, ``<|channel|>commentary to=functions.N <|constrain|>json<|message|>`` as
    models write it).

    The grammar and the renderer write ``head`` + N + ``name_end`` (one spelling, so a call's
    begin stays one literal).  The lenient parser also starts a call at any of ``read_heads``
    (other header texts that end right before the name), and after the name skips whatever
    header text (channel, content type, ``<|constrain|>``) stands before ``body_open``, up to
    ``header_max`` characters.  ``read_end``: a stop token that may follow the arguments when
    the decoder keeps it (harmony's ``<|call|>``); the parser drops it.  The name is the header's
    first word (up to whitespace or ``<|``); ``glued_types``: content types models glue to the
    name (``functions.Njson``), read off a word that is not a tool's name.
    """

    read_heads: tuple[str, ...] = ()
    glued_types: tuple[str, ...] = ()
    body_open: str = ""
    header_max: int = 64
    read_end: str = ""
