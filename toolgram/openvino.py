"""toolgram's parsers as OpenVINO GenAI parsers (``GenerationConfig.parsers``, ``TextParserStreamer``).

OpenVINO GenAI ships tool parsers for Llama 3 only; these adapters give runtimes that pick a
parser by protocol name every toolgram format::

    import openvino_genai as ov
    from toolgram.openvino import ToolParser, IncrementalToolParser, parser_for

    config.parsers = [ToolParser("hermes", tools)]          # result.parsed[0] is the SPEC §4 message
    parser = parser_for("toolgram:qwen3_coder", tools, incremental=True)
    streamer = MyStreamer(pipe.get_tokenizer(), [parser])   # a TextParserStreamer subclass

- :class:`ToolParser` (``openvino_genai.Parser``) replaces the message's ``content`` with toolgram's
  message for the whole text: ``content``, ``reasoning_content``, ``tool_calls``, ``finish_reason``
  and ``diagnostics``, exactly :func:`toolgram.parse` (a ``reasoning_content`` set by an earlier
  parser in the chain is kept when toolgram finds none).
- :class:`IncrementalToolParser` (``openvino_genai.IncrementalParser``) feeds each decoded delta to
  :class:`toolgram.StreamParser`. Its return value is the content delta (OpenVINO takes the
  returned string as the delta's ``content``); ``reasoning_content`` and ``tool_calls`` go into the
  delta message. OpenVINO accumulates delta messages by concatenating strings and merging objects,
  and cannot merge arrays or numbers (a second ``tool_calls`` array aborts the process), so call
  fragments are keyed by their position, with strings only:
  ``{"tool_calls": {"0": {"id": "call_0", "type": "function", "function": {"name": "f", "arguments": "{"}}}}``.
  :func:`openai_delta` turns a delta message into OpenAI's ``choices[0].delta`` shape and
  :func:`message_from_parsed` the accumulated ``get_parsed_message()`` into a SPEC §4 message.
  OpenVINO signals no end of generation to incremental parsers: call :meth:`IncrementalToolParser.finish`
  after ``generate()`` for the held-back tail (e.g. the rest of a call cut off by
  ``max_new_tokens``) and fold it in with :func:`merge_delta`; :attr:`IncrementalToolParser.message`
  is then the final message, equal to :func:`toolgram.parse` of the text.

Importing :mod:`toolgram` does not import this module (nor OpenVINO).
"""

from __future__ import annotations

from typing import Any

import openvino_genai

from .parsing.parser import StreamParser, parse

__all__ = ["PROTOCOL_PREFIX", "IncrementalToolParser", "ToolParser", "merge_delta", "message_from_parsed",
           "openai_delta", "parser_for"]

#: Protocol names are ``toolgram:<format id>``.
PROTOCOL_PREFIX = "toolgram:"


class ToolParser(openvino_genai.Parser):
    """Whole-output tool-call parser for ``GenerationConfig.parsers`` (SPEC §4 message).

    ``options`` are :func:`toolgram.parse`'s keyword arguments (``mode``, ``tool_choice``,
    ``parallel_tool_calls``, ``reasoning``, ``allowed_tools`` ...). Keep a reference to the parser
    while the config is in use: OpenVINO holds only the C++ side.
    """

    def __init__(self, format: str, tools: Any, **options: Any) -> None:  # noqa: A002 - SPEC name
        super().__init__()
        parse(format, "", tools, **options)  # validates the format, tools and options now
        self.format, self.tools, self.options = format, tools, options

    def parse(self, message: dict) -> None:  # type: ignore[override]
        """Replace ``message`` (``{"content": text, ...}``) by toolgram's parse of its content."""
        text = message.get("content") or ""
        parsed = parse(self.format, text, self.tools, **self.options)
        earlier_reasoning = message.get("reasoning_content")
        message.update(parsed)
        if parsed.get("reasoning_content") is None and earlier_reasoning:
            message["reasoning_content"] = earlier_reasoning


def _merge_calls(into: dict[str, Any], fragments: list[dict[str, Any]]) -> None:
    for tc in fragments:
        slot = into.setdefault(str(tc["index"]), {})
        for key in ("id", "type"):
            if tc.get(key):
                slot[key] = slot.get(key, "") + tc[key]
        fn = tc.get("function") or {}
        if fn:
            dest = slot.setdefault("function", {})
            for key in ("name", "arguments"):
                if fn.get(key) is not None:
                    dest[key] = dest.get(key, "") + fn[key]


class IncrementalToolParser(openvino_genai.IncrementalParser):
    """Streaming tool-call parser for ``openvino_genai.TextParserStreamer`` (see the module docstring)."""

    def __init__(self, format: str, tools: Any, **options: Any) -> None:  # noqa: A002 - SPEC name
        super().__init__()
        self.format, self.tools, self.options = format, tools, options
        self._stream = StreamParser(format, tools, **options)  # validates now
        self.deltas: list[dict[str, Any]] = []  #: every SPEC §4 delta so far (OpenAI shape)

    def reset(self) -> None:
        """Start a new output (OpenVINO calls this when a generation starts)."""
        self._stream = StreamParser(self.format, self.tools, **self.options)
        self.deltas = []

    def parse(self, delta_message: dict, delta_text: str, delta_tokens: Any = None) -> str:  # type: ignore[override]
        """Feed ``delta_text``; fill ``delta_message``; return the content delta."""
        return self._apply(delta_message, self._stream.feed(delta_text))

    def _apply(self, delta_message: dict, deltas: list[dict[str, Any]]) -> str:
        self.deltas.extend(deltas)
        content: list[str] = []
        reasoning: list[str] = []
        calls: dict[str, Any] = {}
        for d in deltas:
            content.append(d.get("content") or "")
            reasoning.append(d.get("reasoning_content") or "")
            _merge_calls(calls, d.get("tool_calls") or [])
        if any(reasoning):
            delta_message["reasoning_content"] = "".join(reasoning)
        if calls:
            delta_message["tool_calls"] = calls
        return "".join(content)

    def finish(self) -> dict[str, Any]:
        """End of output: the held-back tail as a delta message (``content`` included)."""
        delta: dict[str, Any] = {}
        delta["content"] = self._apply(delta, self._stream.finish())
        return delta

    @property
    def message(self) -> dict[str, Any]:
        """The SPEC §4 message so far (final after :meth:`finish`)."""
        return self._stream.message


def openai_delta(delta_message: dict[str, Any]) -> dict[str, Any]:
    """A delta message of :class:`IncrementalToolParser` in OpenAI's ``choices[0].delta`` shape."""
    out: dict[str, Any] = {}
    if delta_message.get("content"):
        out["content"] = delta_message["content"]
    if delta_message.get("reasoning_content"):
        out["reasoning_content"] = delta_message["reasoning_content"]
    calls = delta_message.get("tool_calls")
    if isinstance(calls, dict) and calls:
        out["tool_calls"] = [{"index": int(i), **c} for i, c in sorted(calls.items(), key=lambda kv: int(kv[0]))]
    return out


def merge_delta(parsed: dict[str, Any], delta: dict[str, Any]) -> dict[str, Any]:
    """Fold a delta message into an accumulated one as OpenVINO does (strings concatenate, objects merge)."""
    for key, value in delta.items():
        if key not in parsed or parsed[key] is None:
            parsed[key] = value
        elif isinstance(value, str) and isinstance(parsed[key], str):
            parsed[key] += value
        elif isinstance(value, dict) and isinstance(parsed[key], dict):
            merge_delta(parsed[key], value)
        elif value is not None:
            parsed[key] = value
    return parsed


def message_from_parsed(parsed: dict[str, Any]) -> dict[str, Any]:
    """The accumulated ``TextParserStreamer.get_parsed_message()`` as content / reasoning / tool_calls.

    Content and reasoning are trimmed as in SPEC §4 (``None`` when empty); ``tool_calls`` is the
    OpenAI list in position order.
    """
    calls = parsed.get("tool_calls")
    items = sorted(calls.items(), key=lambda kv: int(kv[0])) if isinstance(calls, dict) else []
    content = (parsed.get("content") or "").strip() or None
    reasoning = (parsed.get("reasoning_content") or "").strip() or None
    return {"role": "assistant", "content": content, "reasoning_content": reasoning,
            "tool_calls": [{"id": c.get("id", ""), "type": c.get("type", "function"),
                            "function": {"name": (c.get("function") or {}).get("name", ""),
                                         "arguments": (c.get("function") or {}).get("arguments", "")}}
                           for _, c in items]}


def parser_for(protocol: str, tools: Any, incremental: bool = False,
               **options: Any) -> ToolParser | IncrementalToolParser:
    """The parser for protocol ``toolgram:<format id>`` (``incremental``: for ``TextParserStreamer``)."""
    from .errors import OptionError
    from .grammars import get_format

    if not isinstance(protocol, str) or not protocol.startswith(PROTOCOL_PREFIX):
        raise OptionError(f"unknown parser protocol {protocol!r}; toolgram's are 'toolgram:<format id>'", "protocol")
    fmt = get_format(protocol[len(PROTOCOL_PREFIX) :]).id
    return IncrementalToolParser(fmt, tools, **options) if incremental else ToolParser(fmt, tools, **options)
