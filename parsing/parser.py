"""Read model output back into the SPEC section 4 message: :func:`parse` and :class:`StreamParser`.

Lenient parsing (the default) is the incremental :class:`~toolgram.parsing.scanner.Scanner`
fed the whole text, so the whole-output parse and the stream parser agree by construction.
Strict parsing (``mode="strict"``) is the compiler's Lark grammar (:mod:`toolgram.parsing.strict`).
"""

from __future__ import annotations

from typing import Any

from ..compiler.options import CALL_IDS, WHITESPACE, XML_VALUES, choose, resolve
from ..compiler.schema import load_tools
from ..errors import OptionError, ToolgramError
from ..grammars import get_format
from .scanner import AnyTool, Scanner
from .values import model_text

__all__ = ["StreamParser", "parse"]

Message = dict[str, Any]
Delta = dict[str, Any]


def _scanner(format: str, tools: Any, tool_choice: Any, parallel_tool_calls: bool | None,
             reasoning: str | None, allowed_tools: list[str] | None, max_tool_calls: int | None,
             xml_values: str | None = None, whitespace: str | None = None, any_tool: bool = False,
             call_ids: str | None = None) -> Scanner:
    spec = get_format(format)
    model_ids = choose(call_ids, CALL_IDS, "call_ids") == "model"
    tool_list = load_tools(tools if tools is not None else [])
    enabled = True
    # xml_values and whitespace are checked, not used: the lenient reader takes both languages (SPEC 1)
    choose(xml_values, XML_VALUES, "xml_values")
    choose(whitespace, WHITESPACE, "whitespace")
    try:
        opts = resolve(spec, tool_list, tool_choice=tool_choice, parallel_tool_calls=parallel_tool_calls,
                       reasoning=reasoning, allowed_tools=allowed_tools, max_tool_calls=max_tool_calls)
    except OptionError:
        if tool_choice != "none" and tool_list:
            raise
        enabled = False  # no tools at all: nothing can be a call
        opts = resolve(spec, tool_list, tool_choice="none", parallel_tool_calls=parallel_tool_calls,
                       reasoning=reasoning, allowed_tools=None, max_tool_calls=max_tool_calls)
    callable_tools = {t.name: t.reading_schema() for t in opts.tools} if opts.choice != "none" else {}
    calls_enabled = enabled and opts.choice != "none"
    if any_tool and tool_choice != "none":  # every name is callable, even with no tools at all
        callable_tools, calls_enabled = AnyTool(callable_tools), True
    return Scanner(
        spec,
        callable_tools,
        reasoning=opts.reasoning,
        calls_enabled=calls_enabled,
        parallel=opts.parallel,
        needs_call=opts.needs_call,
        all_names=frozenset(t.name for t in tool_list),
        loose=frozenset(t.name for t in tool_list if not t.strict),
        max_calls=opts.max_calls,
        model_ids=model_ids,
    )


def parse(
    format: str,
    text: str | bytes,
    tools: Any,
    *,
    mode: str = "lenient",
    tool_choice: Any = "auto",
    parallel_tool_calls: bool | None = None,
    reasoning: str | None = None,
    allowed_tools: list[str] | None = None,
    max_tool_calls: int | None = None,
    xml_values: str | None = None,
    whitespace: str | None = None,
    permissive: bool = False,
    any_tool: bool = False,
    call_ids: str = "index",
    any_order: bool = False,
) -> Message:
    """Parse one whole model output into the SPEC section 4 message. Model output never raises;
    bad options or tools raise :class:`~toolgram.errors.ToolgramError`.

    ``text`` is ``str`` or UTF-8 ``bytes`` (invalid sequences become U+FFFD), in both modes;
    ``tools=None`` means no tools.  ``xml_values`` and ``whitespace`` choose the grammar of
    ``mode="strict"``; the lenient parser reads every spelling of both (SPEC section 1).
    ``permissive``: ``mode="strict"`` reads with the grammar ``compile(..., permissive=True)`` writes (schema
    keywords no grammar can enforce relaxed, not refused); the lenient parser never refuses a schema.
    ``any_order``: ``mode="strict"`` takes object members in any order, as ``compile(..., any_order=True)`` does;
    the lenient parser reads any order always.
    ``any_tool`` (lenient only): a call to any name is a call, as vLLM's and SGLang's parsers read one
    (the declared tools keep their schemas, other names' arguments are read untyped); by default a call
    is committed only at a known tool's name (SPEC section 4). The vLLM plugin reads this way.
    ``call_ids`` (lenient only): ``"index"`` numbers the calls ``call_0``, ``call_1``... (SPEC section 4);
    ``"model"`` keeps the id the model wrote in a call's head where its format writes one (Kimi-K2's
    ``functions.get_weather:0``, Mistral's ``[CALL_ID]``, Solar-Open's, Command R7B's ``tool_call_id``),
    so a template that renders ids back sees the model's own; other calls keep ``call_<index>``."""
    text = model_text(text)
    if mode == "strict":
        from .strict import parse_strict

        if any_tool:
            raise OptionError("any_tool reads names no grammar lists: it is lenient only", "any_tool")
        if choose(call_ids, CALL_IDS, "call_ids") != "index":
            raise OptionError("call_ids='model' is lenient only", "call_ids")

        def lenient(whole: str) -> Message:  # tool_choice none: both modes split reasoning the same way
            return parse(format, whole, tools, tool_choice=tool_choice, parallel_tool_calls=parallel_tool_calls,
                         reasoning=reasoning, allowed_tools=allowed_tools, max_tool_calls=max_tool_calls,
                         xml_values=xml_values, whitespace=whitespace)

        return parse_strict(format, text, tools, tool_choice=tool_choice, parallel_tool_calls=parallel_tool_calls,
                            reasoning=reasoning, allowed_tools=allowed_tools, max_tool_calls=max_tool_calls,
                            xml_values=xml_values, whitespace=whitespace, permissive=permissive, no_grammar=lenient,
                            any_order=any_order)
    if mode != "lenient":
        raise OptionError(f"mode must be lenient or strict, got {mode!r}", "mode")
    sc = _scanner(format, tools, tool_choice, parallel_tool_calls, reasoning, allowed_tools, max_tool_calls,
                  xml_values, whitespace, any_tool, call_ids)
    sc.feed(text)
    sc.finish()
    return sc.message()


class StreamParser:
    """Lenient streaming parser: ``feed(chunk)`` returns OpenAI ``choices[0].delta`` objects.

    Chunks are ``str`` or UTF-8 ``bytes`` (decoded incrementally, with replacement); the two may be
    mixed and are read in order (a ``str`` after an incomplete UTF-8 sequence ends it as U+FFFD).
    Anything else raises :class:`~toolgram.errors.ToolgramError`.  After :meth:`finish`,
    :attr:`message` is the final message, equal to :func:`parse` of the whole text.
    """

    def __init__(
        self,
        format: str,
        tools: Any,
        *,
        mode: str = "lenient",
        tool_choice: Any = "auto",
        parallel_tool_calls: bool | None = None,
        reasoning: str | None = None,
        allowed_tools: list[str] | None = None,
        max_tool_calls: int | None = None,
        xml_values: str | None = None,
        whitespace: str | None = None,
        permissive: bool = False,
        any_order: bool = False,
        any_tool: bool = False,
        call_ids: str = "index",
    ) -> None:
        # ``permissive`` and ``any_order`` are :func:`parse`'s keywords, taken so the same options serve both; the
        # lenient reading never refuses a schema and reads members in any order, so they change nothing here
        if mode != "lenient":
            raise OptionError("the stream parser is lenient; parse strictly with parse(mode='strict')", "mode")
        self._sc = _scanner(format, tools, tool_choice, parallel_tool_calls, reasoning, allowed_tools,
                            max_tool_calls, xml_values, whitespace, any_tool, call_ids)
        self._done = False

    def feed(self, chunk: str | bytes) -> list[Delta]:
        """Consume a chunk of output; return the deltas it completes."""
        if self._done:
            raise RuntimeError("feed() after finish()")
        if not isinstance(chunk, (str, bytes, bytearray)):
            raise ToolgramError(f"chunk must be str or bytes (UTF-8), got {type(chunk).__name__}", "chunk")
        return self._sc.feed(chunk)

    def finish(self) -> list[Delta]:
        """Signal the end of output; return the last deltas."""
        if self._done:
            return []
        self._done = True
        return self._sc.finish()

    @property
    def message(self) -> Message:
        """The message so far (final after :meth:`finish`)."""
        return self._sc.message()
