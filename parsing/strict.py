"""Strict parsing (SPEC section 4): exactly the compiler's Lark grammar built with the same options.

The grammar's meta rules (``call-*``, ``arg-*``, ``args-*``, ``extra-*``, ``content``,
``reasoning``; see :mod:`toolgram.compiler.build`) keep their names in Lark, so the tree is read
by name; each value's source text (by position) goes through the shared converter in
:mod:`toolgram.parsing.values`.  Text the grammar rejects is returned as content, with a
``strict_rejected`` diagnostic: model output never raises.

Bounded cost: Lark's tree building is quadratic in bracket nesting and its memory is about 100
bytes per input character, so strict parsing refuses (as content, ``strict_rejected``) an output
longer than :data:`MAX_STRICT_CHARS` characters or with brackets nested deeper than
:data:`MAX_STRICT_DEPTH`; lenient parsing reads such outputs in linear time.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable
from typing import Any

from ..compiler import compile as compile_tools
from ..compiler.emit.lark import STRICT_OPTIONS, new_lark, take_lalr
from ..compiler.schema import load_tools
from ..errors import OptionError
from ..grammars.spec import Markup
from ..grammars.syntax import gemma_text, xml_elements
from .diagnostics import Diagnostic
from .element_values import convert_element_value
from .markup import strip_markup
from .pyliteral import unlimited_int_digits
from .values import (
    convert_gemma_value,
    convert_python_value,
    convert_xml_value,
    dumps_arguments,
    loads_json,
    member_schema,
    model_text,
)

WS = " \t\n\r"

#: Longest output strict mode parses (Lark holds ~100 bytes per character).
MAX_STRICT_CHARS = 2_000_000
#: Deepest ``[``/``{``/``(`` nesting strict mode parses (counted over the whole text; beyond it Lark's
#: tree building is quadratic, and no JSON or Python value that deep can be converted anyway).
MAX_STRICT_DEPTH = 1000
_BRACKETS_RE = re.compile(r"[\[\]{}()]")


def _too_costly(text: str) -> str | None:
    """Why strict mode refuses ``text`` (see the module docstring), or None."""
    if len(text) > MAX_STRICT_CHARS:
        return f"the output is longer than {MAX_STRICT_CHARS} characters (strict mode's limit)"
    if text.count("[") + text.count("{") + text.count("(") <= MAX_STRICT_DEPTH:
        return None
    depth = 0
    for m in _BRACKETS_RE.finditer(text):
        if m.group() in "[{(":
            depth += 1
            if depth > MAX_STRICT_DEPTH:
                return f"brackets nest deeper than {MAX_STRICT_DEPTH} levels (strict mode's limit)"
        elif depth:
            depth -= 1
    return None


@functools.lru_cache(maxsize=64)
def _lark(grammar: str, parser: str) -> Any:
    """The Lark parser for a compiled grammar, once per grammar text: the LALR parser that the
    compiler built to choose LALR or Earley (:func:`toolgram.compiler.emit.lark.take_lalr`), else
    one built by the same constructor with the same options."""
    built = take_lalr(grammar) if parser == "lalr" else None
    return built if built is not None else new_lark(grammar, parser=parser, **STRICT_OPTIONS)


@functools.lru_cache(maxsize=64)
def _bundle(format: str, key: str) -> Any:  # noqa: A002 - SPEC name
    """The compiled Lark bundle for ``format`` and the JSON ``key`` of the tools and options (cached:
    strict parsing a stream of outputs for the same request compiles once)."""
    args = json.loads(key)
    try:
        return compile_tools(format, args["tools"], dialect="lark", **args["options"])
    except OptionError:
        if args["options"]["tool_choice"] == "none" or load_tools(args["tools"]):
            raise
        # no tools at all: nothing can be a call (as in lenient mode)
        return compile_tools(format, args["tools"], dialect="lark", **{**args["options"], "tool_choice": "none"})


def _compiled(format: str, tools: Any, options: dict[str, Any]) -> Any:  # noqa: A002
    try:
        # key order is kept: it is meaningful (the schema's property order is the arguments' order)
        key = json.dumps({"tools": tools, "options": options}, allow_nan=False)
    except (TypeError, ValueError):  # not JSON (a caller's own objects): compile without the cache
        return _bundle.__wrapped__(format, json.dumps({"tools": tools, "options": options}, default=repr))
    return _bundle(format, key)


def _message(content: str, reasoning: str, calls: list[tuple[str, str]], diags: list[Diagnostic],
             markup: Markup | None = None) -> dict[str, Any]:
    if markup:  # protocol markup is never text (SPEC section 1)
        content = strip_markup(markup, content, before_call=bool(calls))
        reasoning = strip_markup(markup, reasoning)
    content = content.strip(WS)
    reasoning = reasoning.strip(WS)
    return {
        "role": "assistant",
        "content": content or None,
        "reasoning_content": reasoning or None,
        "tool_calls": [
            {"id": f"call_{i}", "type": "function", "function": {"name": n, "arguments": a}}
            for i, (n, a) in enumerate(calls)
        ],
        "finish_reason": "tool_calls" if calls else "stop",
        "diagnostics": [d.to_json() for d in diags],
    }


def _span(node: Any, text: str) -> str:
    start = getattr(node.meta, "start_pos", None) if hasattr(node, "meta") else getattr(node, "start_pos", None)
    end = getattr(node.meta, "end_pos", None) if hasattr(node, "meta") else getattr(node, "end_pos", None)
    if start is None or end is None or getattr(getattr(node, "meta", None), "empty", False):
        return ""
    return text[start:end]


def parse_strict(
    format: str,
    text: str,
    tools: Any,
    *,
    tool_choice: Any = "auto",
    parallel_tool_calls: bool | None = None,
    reasoning: str | None = None,
    allowed_tools: list[str] | None = None,
    max_tool_calls: int | None = None,
    xml_values: str | None = None,
    whitespace: str | None = None,
    permissive: bool = False,
    no_grammar: Callable[[str], dict[str, Any]] | None = None,
    any_order: bool = False,
) -> dict[str, Any]:
    """Parse ``text`` with the Lark grammar of the same options (``permissive``: the relaxed grammar
    ``compile(..., permissive=True)`` writes; ``any_order``: members in any order); see the module docstring.
    ``no_grammar``: how to read the text when the options leave no grammar (``tool_choice`` none);
    by default it is all content."""
    text = model_text(text)
    tools = tools if tools is not None else []
    bundle = _compiled(format, tools, {"tool_choice": tool_choice, "parallel_tool_calls": parallel_tool_calls,
                                       "reasoning": reasoning, "allowed_tools": allowed_tools,
                                       "max_tool_calls": max_tool_calls, "xml_values": xml_values,
                                       "whitespace": whitespace, **({"permissive": True} if permissive else {}),
                                       **({"any_order": True} if any_order else {})})
    if bundle.grammar is None:
        # tool_choice none: no grammar; the text is content with its reasoning split off, by the lenient
        # reader the caller passes (SPEC section 2: none still splits reasoning)
        return no_grammar(text) if no_grammar is not None else _message(text, "", [], [], _markup(format))
    import lark

    refused = _too_costly(text)
    if refused is not None:
        return _message(text, "", [], [Diagnostic("strict_rejected", f"not parsed: {refused}; use lenient mode", 0)],
                        _markup(format))
    parser = _lark(bundle.grammar, bundle.lark_parser or "lalr")
    try:
        with unlimited_int_digits():
            tree = parser.parse(text)
    except (lark.exceptions.LarkError, RecursionError) as exc:
        offset = getattr(exc, "pos_in_stream", None)
        return _message(text, "", [], [Diagnostic("strict_rejected", f"the grammar rejects the output: "
                                                  f"{type(exc).__name__}", offset)], _markup(format))
    meta = {name.replace("-", "_"): tag for name, tag in bundle.ir.meta.items()}
    from ..grammars import get_format

    spec = get_format(format)
    spec_values = spec.values
    tool_list = bundle.tools
    content: list[str] = []
    reasoning_parts: list[str] = []
    calls: list[tuple[str, str]] = []
    diags: list[Diagnostic] = []
    for node in tree.iter_subtrees_topdown():
        tag = meta.get(node.data if isinstance(node.data, str) else node.data.value)
        if tag is None:
            continue
        if tag[0] == "content":
            content.append(_span(node, text))
        elif tag[0] == "reasoning":
            reasoning_parts.append(_span(node, text))
        elif tag[0] == "call":
            tool = tool_list[tag[1]]
            args = _read_call(node, text, meta, tool.reading_schema(), spec_values, diags, spec.call, not tool.strict)
            calls.append((tool.name, str(args) if isinstance(args, Raw) else dumps_arguments(args)))
    return _message("".join(content), "".join(reasoning_parts), calls, diags, spec.markup)


def _markup(format: str) -> Markup:  # noqa: A002 - SPEC name
    from ..grammars import get_format

    return get_format(format).markup


class Raw(str):
    """Arguments text kept exactly as written (not valid JSON): nothing is invented."""


def _read_call(node: Any, text: str, meta: dict[str, Any], params: Any, kind: str,
               diags: list[Diagnostic], call: Any, hint: bool) -> Any:
    args: dict[str, Any] = {}
    for sub in node.iter_subtrees_topdown():
        tag = meta.get(sub.data if isinstance(sub.data, str) else sub.data.value)
        if tag is None or tag[0] not in ("arg", "args", "extra"):
            continue
        src = _span(sub, text)
        start = getattr(sub.meta, "start_pos", None)
        if tag[0] == "args":
            try:
                value, d = loads_json(src, lenient=False, offset=start)
            except ValueError:
                # the grammar took it, JSON does not: keep the text as written, never {}
                diags.append(Diagnostic("invalid_arguments", "arguments are not valid JSON; kept as written", start))
                return Raw(src)
            diags.extend(d)
            return value
        if tag[0] == "arg":
            key, raw = tag[2], src
        else:
            key, raw = _split_extra(src, kind, call)
        if kind == "xml":
            raw = call.read_raw(raw)  # MiniCPM5's CDATA wrapper
        if kind == "elements":  # MiniMax-M3's nested elements
            value, d = convert_element_value(raw, member_schema(params, key), ns=call.ns, lenient=False, root=params,
                                             name=key, offset=start, hint=hint)
        else:
            value, d = _convert(raw, member_schema(params, key), params, kind, key, start, hint)
        diags.extend(d)
        args[key] = value
    return args


def _convert(src: str, schema: Any, root: Any, kind: str, key: str, start: int | None,
             hint: bool = False) -> tuple[Any, list[Diagnostic]]:
    if kind == "xml":
        return convert_xml_value(src, schema, lenient=False, root=root, name=key, offset=start, hint=hint)
    if kind == "python":
        return convert_python_value(src, lenient=True, offset=start or 0)
    if kind == "gemma":
        return convert_gemma_value(src, lenient=False, offset=start or 0)
    return loads_json(src, lenient=False, offset=start)


def _split_extra(src: str, kind: str, c: Any) -> tuple[str, str]:
    """An undeclared member's key and value text: ``<parameter=K>V</parameter>`` or ``k=v``."""
    if kind == "python":
        key, _, value = src.partition("=")
        return key.strip(), value
    if kind == "gemma":  # a bare key holds no ':'; a quoted one is <|"|>...<|"|>
        if src.startswith(gemma_text.QUOTE):
            end = src.index(gemma_text.QUOTE, len(gemma_text.QUOTE))
            return src[len(gemma_text.QUOTE):end], src[end + len(gemma_text.QUOTE) + 1:]
        key, _, value = src.partition(":")
        return key, value
    if kind == "elements":  # ns<K>V ns</K>
        (key, raw), = xml_elements.split(src, c.ns) or [("", src)]
        return key, raw
    body = src[len(c.param_open):]
    # the key ends at the first of the texts that may follow it (DSML's string="true|false", Kimi-K3's type words)
    found = [(body.find(e.rstrip(WS) or ">"), e) for e in c.name_ends]
    found = [(i, e) for i, e in found if i >= 0]
    name_end = min(found)[1] if found else c.param_name_end
    gt = name_end.rstrip(WS) or ">"
    key, _, rest = body.partition(gt)
    end_tag = c.param_end.strip(WS)
    pad_open = name_end[len(gt):]
    raw = rest[:rest.rfind(end_tag)]
    pad_close = c.param_end[:c.param_end.index(end_tag)]
    if pad_open and raw.startswith(pad_open):
        raw = raw[len(pad_open):]
    if pad_close and raw.endswith(pad_close):
        raw = raw[: -len(pad_close)]
    return key, raw
