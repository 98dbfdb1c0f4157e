"""toolgram inside vLLM (0.33): one tool parser and one reasoning parser per format, through vLLM's plugin points.

Load it with ``vllm serve ... --tool-parser-plugin toolgram.vllm --tool-call-parser toolgram_<format>``
(and, for a format with reasoning tags, ``--reasoning-parser-plugin toolgram.vllm --reasoning-parser
toolgram_<format>``). Importing this module imports vLLM; ``import toolgram`` never does.

* :class:`ToolgramToolParser` ``toolgram_<format>``: ``extract_tool_calls`` is :func:`toolgram.parse`;
  ``extract_tool_calls_streaming`` feeds a :class:`toolgram.StreamParser` with vLLM's ``delta_text`` and
  ``finish_streaming`` flushes it, so the deltas add up to the whole-output parse; ``adjust_request``
  sets ``structured_outputs.structural_tag`` to toolgram's structural tag for the request's tools,
  ``tool_choice`` and ``parallel_tool_calls``. Every format has a structural-tag form, so the parser
  reads ``required`` and named choices in the native format: ``supports_required_and_named`` is False
  (vLLM then reads them with ``extract_tool_calls`` instead of its JSON-list reader).
* Calls are read as vLLM's own parsers read them (``parse(..., any_tool=True)``): a call to any name is a
  call, not content with its markup; the request's tools (else those vLLM made the parser with) type the
  arguments of the names they declare. A request without tools (vLLM's server never asks then, but a
  direct caller may) is read with ``tool_choice`` ``auto``, not the ``none`` vLLM fills in. A call keeps the
  id its model wrote (``call_ids="model"``: Kimi-K2's ``functions.get_weather:0``, Mistral's ``[CALL_ID]``),
  as vLLM's parsers keep it; other calls get vLLM's own fresh ids.
* Reasoning follows vLLM's rule: the reasoning parser splits the reasoning block off and the structured
  output starts after it, so the tool grammar and the tool parser both use ``reasoning="none"``.
* :class:`ToolgramReasoningParser` ``toolgram_<format>`` (formats with reasoning tags): the block is the
  format's open tag (after optional whitespace) up to its close tag or, where the format says a call
  trigger ends reasoning (``Reasoning.trigger_ends``), up to the trigger.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, ClassVar

from vllm.entrypoints.generate.base.protocol import (
    DeltaFunctionCall,
    DeltaMessage,
    DeltaToolCall,
    ExtractedToolCallInformation,
    FunctionCall,
    ToolCall,
)
from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest
from vllm.reasoning import ReasoningParser, ReasoningParserManager
from vllm.renderers.chat_utils.tool_call import make_tool_call_id
from vllm.sampling_params import StructuredOutputsParams
from vllm.tool_parsers.abstract_tool_parser import ToolParser, ToolParserManager

from .compiler import compile as compile_grammar
from .grammars import FORMATS
from .grammars.spec import FormatSpec
from .parsing.parser import StreamParser, parse

__all__ = ["ToolgramReasoningParser", "ToolgramToolParser", "parser_name", "split_reasoning"]

PREFIX = "toolgram_"


def parser_name(format_id: str) -> str:
    """The name a format's parsers are registered under (``toolgram_<format>``)."""
    return PREFIX + format_id


# -- request -> toolgram options -------------------------------------------------------------------


def request_tools(request: Any) -> list[dict[str, Any]]:
    """The request's function tools as an OpenAI ``tools`` array (none for no request: vLLM's parsers take
    None)."""
    return functions(tools_array(getattr(request, "tools", None)))


def tools_array(tools: Any) -> list[dict[str, Any]]:
    """vLLM's tool objects (a request's, or those a parser was made with) as an OpenAI ``tools`` array."""
    return [t.model_dump(exclude_none=True) if hasattr(t, "model_dump") else dict(t) for t in tools or []]


def _is_function(entry: Any) -> bool:
    """A function tool or choice (not a Responses API custom one, which takes free text)."""
    return not isinstance(entry, dict) or entry.get("type", "function") == "function"


def functions(tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The function tools of an OpenAI ``tools`` array."""
    return [t for t in tools if _is_function(t)]


def function_tools_only(request: Any) -> bool:
    """Whether the request's tools and ``tool_choice`` are all functions (no Responses API custom tool)."""
    return _functions_only(tools_array(getattr(request, "tools", None)), request_tool_choice(request))


def _functions_only(tools: list[dict[str, Any]], choice: Any) -> bool:
    return len(functions(tools)) == len(tools) and _is_function(choice)


def request_tool_choice(request: Any) -> Any:
    """``auto`` / ``required`` / ``none`` or the OpenAI named-function object."""
    choice = getattr(request, "tool_choice", None)
    if choice is None:
        return "auto"
    if isinstance(choice, str):
        return choice
    if hasattr(choice, "model_dump"):
        return choice.model_dump(exclude_none=True)
    return choice


def request_options(request: Any) -> dict[str, Any]:
    """The toolgram options (``compile``/``parse`` keywords) a request asks for."""
    parallel = getattr(request, "parallel_tool_calls", None)
    return {"tool_choice": request_tool_choice(request), "parallel_tool_calls": parallel, "reasoning": "none"}


# -- tool parser -----------------------------------------------------------------------------------


class ToolgramToolParser(ToolParser):
    """A vLLM tool parser made from one toolgram format description (subclassed per format below)."""

    format_id: ClassVar[str] = ""
    # extra toolgram.compile keywords for the structural tag (e.g. whitespace, xml_values)
    compile_options: ClassVar[dict[str, Any]] = {}
    supports_required_and_named = False
    engine_based_streaming = True  # vLLM calls finish_streaming() at the end of a stream

    def __init__(self, tokenizer: Any, tools: Any = None) -> None:
        super().__init__(tokenizer, tools)
        self._stream: StreamParser | None = None
        self._ids: dict[int, str] = {}

    # vLLM: request -> structured outputs
    def adjust_request(self, request: Any) -> Any:
        if not request.tools or request_tool_choice(request) == "none":
            return request
        # the format's markup may be special tokens (Kimi's <|tool_call_begin|>, Mistral's [TOOL_CALLS] ...):
        # vLLM would drop them from the text the parser reads, as vLLM's own parsers say; the parser keeps
        # protocol markup out of the content itself
        request.skip_special_tokens = False
        so = getattr(request, "structured_outputs", None)
        if so is not None and so.structural_tag is not None:
            return request
        if not function_tools_only(request):
            return request  # Responses API custom tools take free text: no grammar describes them
        tag = self.structural_tag(request)
        request.structured_outputs = StructuredOutputsParams(structural_tag=tag)
        if isinstance(request, ChatCompletionRequest):
            request.response_format = None
        else:
            request.text = None
        return request

    def structural_tag(self, request: Any) -> str:
        """toolgram's structural tag (JSON text) for the request's tools and options."""
        bundle = compile_grammar(self.format_id, request_tools(request), dialect="structural-tag",
                                 **request_options(request), **self.compile_options)
        assert bundle.grammar is not None
        return bundle.grammar

    # vLLM: whole output
    def extract_tool_calls(self, model_output: str, request: Any) -> ExtractedToolCallInformation:
        tools, options = self._reading(request)
        msg = parse(self.format_id, model_output, tools or None, **options)
        calls = [
            ToolCall(id=_vllm_id(i, c["id"]), function=FunctionCall(name=c["function"]["name"],
                                                                    arguments=c["function"]["arguments"]))
            for i, c in enumerate(msg["tool_calls"])
        ]
        return ExtractedToolCallInformation(tools_called=bool(calls), tool_calls=calls, content=msg["content"])

    # vLLM: streaming
    def extract_tool_calls_streaming(
        self,
        previous_text: str,
        current_text: str,
        delta_text: str,
        previous_token_ids: Sequence[int],
        current_token_ids: Sequence[int],
        delta_token_ids: Sequence[int],
        request: Any,
    ) -> DeltaMessage | None:
        if self._stream is None:
            tools, options = self._reading(request)
            self._stream = StreamParser(self.format_id, tools or None, **options)
            delta_text = current_text  # vLLM may hand the first text as current_text only
        if not delta_text:
            return None
        return self._merge(self._stream.feed(delta_text))

    def finish_streaming(self) -> DeltaMessage | None:
        """Flush what the stream parser held back (whitespace, a partial tag, an unfinished call)."""
        if self._stream is None:
            return None
        return self._merge(self._stream.finish())

    def _reading(self, request: Any) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        """The tools calls are read against (the request's, else those vLLM made the parser with) and the
        parse options. A call to any name is read as a call, as vLLM's own parsers read one (declared tools
        keep their schemas); protocol markup never ends up in the content. A call keeps the id the model wrote
        in its head (Kimi-K2's ``functions.get_weather:0``), which the model's template renders back."""
        given = tools_array(getattr(request, "tools", None))
        options = {**request_options(request), "any_tool": True, "call_ids": "model"}
        if not given or not _functions_only(given, options["tool_choice"]):
            # a request without tools (vLLM's server never asks then, and fills in tool_choice "none"; a
            # direct caller, such as vLLM's own parser tests, may), or with custom ones: read the calls the
            # format writes
            options["tool_choice"] = "auto"
        return functions(given) or functions(tools_array(self.tools)), options

    def _merge(self, deltas: Iterable[dict[str, Any]]) -> DeltaMessage | None:
        """toolgram deltas -> one vLLM DeltaMessage (content, reasoning and tool-call fragments)."""
        content: list[str] = []
        reasoning: list[str] = []
        calls: list[DeltaToolCall] = []
        for d in deltas:
            if d.get("content"):
                content.append(d["content"])
            if d.get("reasoning_content"):
                reasoning.append(d["reasoning_content"])
            for tc in d.get("tool_calls") or []:
                index = tc["index"]
                fn = tc.get("function") or {}
                call_id = None
                if index not in self._ids:
                    call_id = self._ids[index] = _vllm_id(index, tc["id"])
                    self._record(index, fn.get("name"))
                args = fn.get("arguments")
                if args:
                    self.streamed_args_for_tool[index] += args
                    self.prev_tool_call_arr[index]["arguments"] += args
                calls.append(DeltaToolCall(index=index, id=call_id, type="function" if call_id else None,
                                           function=DeltaFunctionCall(name=fn.get("name"), arguments=args)))
        if not (content or reasoning or calls):
            return None
        return DeltaMessage(content="".join(content) or None, reasoning="".join(reasoning) or None, tool_calls=calls)

    def _record(self, index: int, name: str | None) -> None:
        # vLLM's bookkeeping (get_remaining_unstreamed_args): arguments are always streamed in full here
        while len(self.prev_tool_call_arr) <= index:
            self.prev_tool_call_arr.append({"name": None, "arguments": ""})
            self.streamed_args_for_tool.append("")
        self.prev_tool_call_arr[index]["name"] = name
        self.current_tool_id = index


def _vllm_id(index: int, parsed: str) -> str:
    """A call's id for vLLM: the one its model wrote (``parse(..., call_ids="model")``), else a fresh vLLM id
    (toolgram's own ``call_<index>`` repeats from turn to turn)."""
    return make_tool_call_id() if parsed == f"call_{index}" else parsed


# -- reasoning parser ------------------------------------------------------------------------------


def split_reasoning(spec: FormatSpec, text: str, *, final: bool = True) -> tuple[str | None, str, bool]:
    """``(reasoning, rest, ended)`` of ``text`` by the format's reasoning rule.

    ``reasoning`` is None when the text does not open a block. With ``final=False`` (streaming) a
    suffix that may be the start of the closing tag is held back from the reasoning."""
    r = spec.reasoning
    assert r is not None
    stripped = text.lstrip()
    if not stripped.startswith(r.open):
        if not final and r.open.startswith(stripped):
            return None, "", False  # maybe the opening tag, not complete yet
        return None, text, True
    body_start = len(text) - len(stripped) + len(r.open)
    ends = [(text.find(r.close, body_start), len(r.close))]
    trigger = spec.trigger_word
    if r.trigger_ends and trigger:
        ends.append((text.find(trigger, body_start), 0))  # the trigger stays in the content
    found = [(i, n) for i, n in ends if i >= 0]
    if found:
        i, n = min(found)
        return text[body_start:i], text[i + n:], True
    body = text[body_start:]
    if not final:
        stops = [r.close] + ([trigger] if r.trigger_ends and trigger else [])
        hold = max((k for s in stops for k in range(1, len(s)) if body.endswith(s[:k])), default=0)
        body = body[:len(body) - hold]
    return body, "", False


class ToolgramReasoningParser(ReasoningParser):
    """A vLLM reasoning parser for a format with reasoning tags (subclassed per format below)."""

    format_id: ClassVar[str] = ""

    def __init__(self, tokenizer: Any, *args: Any, **kwargs: Any) -> None:
        super().__init__(tokenizer, *args, **kwargs)
        self.spec = FORMATS[self.format_id]
        self._sent_reasoning = 0
        self._sent_content = 0

    @property
    def reasoning_start_str(self) -> str:
        return self.spec.reasoning.open  # type: ignore[union-attr]

    @property
    def reasoning_end_str(self) -> str:
        return self.spec.reasoning.close  # type: ignore[union-attr]

    def _text(self, ids: Sequence[int]) -> str:
        return self.model_tokenizer.decode(list(ids), skip_special_tokens=False)

    def is_reasoning_end(self, input_ids: Sequence[int]) -> bool:
        """True when the last opening tag in the token ids is closed (or there is none)."""
        text = self._text(input_ids)
        r = self.spec.reasoning
        assert r is not None
        opened = text.rfind(r.open)
        return opened < 0 or text.find(r.close, opened + len(r.open)) >= 0

    def is_reasoning_end_streaming(self, input_ids: Sequence[int], delta_ids: Iterable[int]) -> bool:
        """True when the closing tag ends inside ``delta_ids`` (the tokens just generated)."""
        delta = list(delta_ids)
        if not delta:
            return False
        close = self.spec.reasoning.close  # type: ignore[union-attr]
        window = list(input_ids)[-(len(delta) + len(close) + 8):]
        before = self._text(window[:len(window) - len(delta)])
        text = self._text(window)
        at = text.rfind(close)
        return at >= 0 and at + len(close) > len(before)

    def extract_content_ids(self, input_ids: list[int]) -> list[int]:
        close = self.spec.reasoning.close  # type: ignore[union-attr]
        for i in range(len(input_ids)):
            if close in self._text(input_ids[: i + 1]):
                return input_ids[i + 1:]
        return []

    def extract_reasoning(self, model_output: str, request: Any) -> tuple[str | None, str | None]:
        reasoning, rest, _ = split_reasoning(self.spec, model_output)
        return reasoning, rest or None

    def extract_reasoning_streaming(
        self,
        previous_text: str,
        current_text: str,
        delta_text: str,
        previous_token_ids: Sequence[int],
        current_token_ids: Sequence[int],
        delta_token_ids: Sequence[int],
    ) -> DeltaMessage | None:
        reasoning, rest, _ = split_reasoning(self.spec, current_text, final=False)
        reasoning = reasoning or ""
        new_reasoning = reasoning[self._sent_reasoning:]
        new_content = rest[self._sent_content:]
        self._sent_reasoning = max(self._sent_reasoning, len(reasoning))
        self._sent_content = max(self._sent_content, len(rest))
        if not (new_reasoning or new_content):
            return None
        return DeltaMessage(reasoning=new_reasoning or None, content=new_content or None)


# -- registration ----------------------------------------------------------------------------------


def _class_name(format_id: str, kind: str) -> str:
    return "Toolgram" + "".join(p.capitalize() for p in format_id.split("_")) + kind


def _register() -> tuple[dict[str, type[ToolgramToolParser]], dict[str, type[ToolgramReasoningParser]]]:
    tools: dict[str, type[ToolgramToolParser]] = {}
    reasoning: dict[str, type[ToolgramReasoningParser]] = {}
    for fid, spec in FORMATS.items():
        name = parser_name(fid)
        tcls = type(_class_name(fid, "ToolParser"), (ToolgramToolParser,), {"format_id": fid, "__module__": __name__})
        ToolParserManager.register_module(name=name, module=tcls)
        tools[fid] = tcls
        globals()[tcls.__name__] = tcls
        if spec.reasoning is not None:
            rcls = type(_class_name(fid, "ReasoningParser"), (ToolgramReasoningParser,),
                        {"format_id": fid, "__module__": __name__})
            ReasoningParserManager.register_module(name=name, module=rcls)
            reasoning[fid] = rcls
            globals()[rcls.__name__] = rcls
    return tools, reasoning


TOOL_PARSERS, REASONING_PARSERS = _register()
