"""Output tokens per call under toolgram's grammars (issue 24; a script, not a test).

``python benchmarks/bench_tokens.py [--quick] [--formats a,b] [--max-new-tokens 256]``

SmolLM2-135M (GGUF), greedy, ``tool_choice`` required, one call (parallel off), the weather tool, no
``stop_after_whitespace``: generation ends only where the grammar lets end-of-sequence be the one
choice (or at ``--max-new-tokens``). Per format, engine (OpenVINO through ``Generator.chat``, and
llama.cpp through llama-cpp-python with the GBNF) and option set (the default ``canonical`` /
``first_close``, and ``flexible`` / ``lookahead``, the language before issue 24):

- ``written``: tokens generated, the end-of-sequence token left out in both engines (OpenVINO's count includes
  the token that ended generation, llama-cpp-python's does not; the canonical rendering has none either);
- ``canon``: tokens of the canonical rendering of the same call (``render_calls`` of the parsed call);
- ``ratio``: written ÷ canon (target <= 1.05 with the default options);
- ``after``: tokens of the text after the last call (target <= 2), and ``max`` when generation ran
  to ``--max-new-tokens``.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from _common import machine_footer, machine_header, reasoning_off
from toolgram.grammars import FORMATS
from toolgram.grammars.render import render_calls

import toolgram
from toolgram.engines import smollm2_gguf_path

MESSAGES = [{"role": "user", "content": "What is the weather in Paris?"}]
WEATHER = [{"type": "function", "function": {
    "name": "get_weather", "description": "Get the current weather in a city",
    "parameters": {"type": "object", "properties": {
        "location": {"type": "string", "maxLength": 40},
        "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}}, "required": ["location"]}}}]
OPTION_SETS = {"canonical": {}, "flexible": {"whitespace": "flexible", "xml_values": "lookahead"}}


def _opts(fmt: str) -> dict[str, Any]:
    return {"tool_choice": "required", "parallel_tool_calls": False, "reasoning": reasoning_off(fmt)}


def measure(fmt: str, text: str, written: int, hit_max: bool, count: Any) -> str:
    """One table row's figures for ``text`` (the generated output)."""
    msg = toolgram.parse(fmt, text, WEATHER, mode="lenient", **_opts(fmt))
    calls = [(c["function"]["name"], json.loads(c["function"]["arguments"])) for c in msg["tool_calls"]
             if _is_json(c["function"]["arguments"])]
    if not calls:
        return f"{written:8d} {'-':>6} {'-':>6} {'-':>6}  no call: {text[:40]!r}"
    canonical = render_calls(fmt, calls)
    canon = count(canonical)
    # the call's last character (``}``, ``]``, ``>``): the model may spell values otherwise (``"Paris"`` for
    # ``'Paris'``), so the canonical rendering's tail need not occur in the text
    end = canonical.rstrip()[-1]
    after = text[text.rindex(end) + 1:] if end in text else text
    return (f"{written:8d} {canon:6d} {written / canon:6.2f} {count(after) if after else 0:6d}"
            f"{'  max' if hit_max else ''}")


def _is_json(s: str) -> bool:
    try:
        json.loads(s)
    except ValueError:
        return False
    return True


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="smoke run: three formats, 96 tokens")
    ap.add_argument("--formats", default="", help="comma-separated subset (default: every format)")
    ap.add_argument("--max-new-tokens", type=int, default=256)
    ap.add_argument("--no-llamacpp", action="store_true", help="OpenVINO only")
    args = ap.parse_args()
    formats = [f for f in args.formats.split(",") if f] or list(FORMATS)
    max_new = args.max_new_tokens
    if args.quick:
        formats = formats if args.formats else ["hermes", "qwen3_coder", "pythonic"]
        max_new = min(max_new, 96)
    machine_header("bench_tokens: output tokens per call and after the last call (SmolLM2, greedy, required)",
                   "Generator.chat (OpenVINO) and llama-cpp-python create_completion, no stop_after_whitespace")
    from toolgram.runtime.generator import Generator
    from toolgram.runtime.prompts import render_prompt

    gen = Generator(smollm2_gguf_path(), "CPU")
    llm = None
    if not args.no_llamacpp:
        from llama_cpp import Llama, LlamaGrammar

        llm = Llama(smollm2_gguf_path(), n_ctx=2048, n_threads=2, verbose=False)
    print(f"{'format':<16} {'options':<10} {'engine':<9} {'written':>8} {'canon':>6} {'ratio':>6} {'after':>6}")
    for fmt in formats:
        for name, lang in OPTION_SETS.items():
            try:
                out = gen.chat(MESSAGES, WEATHER, format=fmt, max_new_tokens=max_new, stop_after_whitespace=None,
                               **_opts(fmt), **lang)
                n = out["usage"]["completion_tokens"]
                hit = n >= max_new
                # OpenVINO counts the end-of-sequence token that ended generation; llama.cpp does not
                row = measure(fmt, out["text"], n if hit else n - 1, hit, gen.count_tokens)
            except toolgram.ToolgramError as e:
                row = f"error: {e}"
            print(f"{fmt:<16} {name:<10} {'openvino':<9} {row}", flush=True)
            if llm is None:
                continue
            try:
                gbnf = toolgram.compile(fmt, WEATHER, dialect="gbnf", **_opts(fmt), **lang).grammar
                llm.reset()
                res = llm.create_completion(render_prompt(fmt, MESSAGES, WEATHER, model_template=gen.chat_template)[0],
                                            max_tokens=max_new, temperature=0.0,
                                            grammar=LlamaGrammar.from_string(gbnf, verbose=False))
                n = res["usage"]["completion_tokens"]
                count = lambda s: len(llm.tokenize(s.encode(), add_bos=False, special=True))  # noqa: E731
                row = measure(fmt, res["choices"][0]["text"], n, res["choices"][0]["finish_reason"] == "length",
                              count)
            except (toolgram.ToolgramError, ValueError, RuntimeError) as e:
                row = f"error: {e}"
            print(f"{fmt:<16} {name:<10} {'llama.cpp':<9} {row}", flush=True)
    if llm is not None:
        llm.close()
    machine_footer()
    return 0


if __name__ == "__main__":
    sys.exit(main())
