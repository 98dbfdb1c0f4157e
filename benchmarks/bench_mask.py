"""xgrammar's per-token mask time inside a call, toolgram's EBNF vs the builtin structural tag (a script, not a test).

``python benchmarks/bench_mask.py [--quick] [--reps 5] [--formats hermes,qwen3_coder]``
``python benchmarks/bench_mask.py --strings [--openvino]``: a string argument under ``minLength``/``maxLength``
(:func:`strings`)

A grammar's cost at compile time and its cost per generated token trade against each other in
xgrammar: what the compiler does not precompute for a grammar position, the matcher checks against
the stack at every token there. So a change that makes a grammar compile faster must be measured
per token as well (on 2 Dec a one-rule regular expression for the XML raw value compiled 6x faster
and made every token inside a value cost 4-6 ms instead of 0.007 ms; it was reverted; the EBNF tail
loops then took JSON strings from 0.04-0.07 to 0.01-0.02 ms per token). This script prints that
per-token cost, without a model:

- the text: the format's canonical rendering (``grammars.render``) of one call of one tool whose
  single argument is an unbounded string holding delimiter-like text (``<`` and partial closing
  tags, quotes, braces, newlines), once and 16 times over, so the matcher sits
  inside a value most of the time, as it does while a model writes an argument;
- the grammar: toolgram's EBNF (``tool_choice="required"``, no reasoning) and, for a format with an
  xgrammar builtin (``bench_compile.BUILTIN``), the builtin structural tag for the same tool when it
  accepts the same text (the builtin's own spelling and its value rule may differ: "n/a" then);
- the measure: ``GrammarMatcher.fill_next_token_bitmask`` then ``accept_token`` for every token of the
  text, one ``GrammarCompiler`` (cache off, 1 thread) over SmolLM2's 49,152-token vocabulary; per
  token the median of ``--reps`` passes; printed: the mean per token for the short text (~170
  tokens) and the long one (the value 16 times, ~2,300 tokens), long ÷ short (about 1 when the
  cost does not grow with the output: it grew ~10x per 1,000 tokens of an XML raw value before
  the automaton's loops were printed flat, see ``compiler/automaton.py``), and the long text's maximum.

For scale: one decode step of SmolLM2-135M on this machine's 2 cores takes ~15 ms (OpenVINO), so
0.15 ms per mask is 1% of a step.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from typing import Any

from _common import machine_footer, machine_header, reasoning_off
from bench_compile import BUILTIN, _compiler
from toolgram.grammars import FORMATS
from toolgram.grammars.render import render_calls

from toolgram import compile as tg_compile

#: the argument: delimiter-like text that stays one value in every format (no full closing tag)
VALUE = ("Note <b>bold</b> and <todo id=1>buy milk</todo>; a partial </param and <paramet, "
         "\"quotes\", {braces: [1, 2]}, (x < 2) & y > 3,\nthen a new line <|python and <tool_ call\n") * 2
#: the long text repeats the value this many times (~2,300 tokens)
LONG = 16
TOOL = [{"type": "function", "function": {"name": "note", "description": "Save a note",
         "parameters": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}}}]


#: ``--strings``: a string argument under each of these bounds, and the text it holds (plain words, a quote, a
#: newline: the escapes a counted group must also admit)
STRING_CASES = [("no bounds", {}, 200), ("minLength 1", {"minLength": 1}, 200), ("maxLength 64", {"maxLength": 64}, 60),
                ("maxLength 1000", {"maxLength": 1000}, 200),
                ("minLength 100, maxLength 1000", {"minLength": 100, "maxLength": 1000}, 200),
                ("maxLength 2147483647", {"maxLength": 2147483647}, 200)]
WORDS = 'Paris is the capital of France, "the city of light",\nwith a river. '


def _string_tool(bounds: dict[str, int]) -> list[dict[str, Any]]:
    return [{"type": "function", "function": {"name": "note", "parameters": {
        "type": "object", "properties": {"text": {"type": "string", **bounds}}, "required": ["text"]}}}]


def _one_group(tools: list[dict[str, Any]]) -> str:
    """The EBNF with each counted string body as one counted group (toolgram before 7 Dec (f))."""
    from toolgram.compiler.emit import bnf

    kept = bnf.EbnfPrinter._seq_items
    bnf.EbnfPrinter._seq_items = bnf.BnfPrinter._seq_items  # type: ignore[method-assign]
    try:
        return tg_compile("hermes", tools, dialect="ebnf", tool_choice="required").grammar
    finally:
        bnf.EbnfPrinter._seq_items = kept  # type: ignore[method-assign]


def strings(reps: int, openvino: bool) -> None:
    """xgrammar's mask time per token along a hermes call whose string argument (200 characters) is counted,
    toolgram's EBNF against the same language as one counted group (1 pass); with ``openvino``, OpenVINO GenAI
    generating 60 tokens of SmolLM2 under each (greedy: the same text both ways)."""
    import xgrammar as xgr

    compiler, vocab = _compiler()
    print(f"vocabulary: {vocab}")
    print(f"{'string argument':<31} {'tokens':>6} | {'mask ms/token: toolgram':>23} {'one group':>10}"
          + (f" | {'OpenVINO 60 tokens, s: toolgram':>31} {'one group':>10}" if openvino else ""))
    if openvino:
        from toolgram.engines.openvino_engine import get_checker
    pipe = get_checker().pipeline if openvino else None  # (SmolLM2 on CPU, the pipeline the checks load)
    for label, bounds, size in STRING_CASES:
        tools = _string_tool(bounds)
        text = render_calls("hermes", [("note", {"text": (WORDS * 20)[:size]})])
        tokens = _tokens(text)
        cells = []
        grammars = [tg_compile("hermes", tools, dialect="ebnf", tool_choice="required").grammar, _one_group(tools)]
        for ebnf, passes in zip(grammars, (reps, 1), strict=True):  # (one group: up to 1 s per token)
            times = per_token_ms(compiler.compile_grammar(xgr.Grammar.from_ebnf(ebnf)), tokens, passes)
            cells.append("refused" if times is None else f"{statistics.mean(times):.3f}")
        row = f"{label:<31} {len(tokens):>6} | {cells[0]:>23} {cells[1]:>10}"
        if pipe is not None:
            row += " | " + " ".join(f"{s:>{w}.2f}" for s, w in zip(
                [_openvino_seconds(pipe, g, bounds) for g in grammars], (31, 10), strict=True))
        print(row, flush=True)


def _openvino_seconds(pipe: Any, grammar: str, bounds: dict[str, int]) -> float:
    """Seconds for 60 greedy tokens under ``grammar`` (compiled by a 1-token run first)."""
    import openvino_genai as ov

    prompt = ("<|im_start|>user\nSave a long note about Paris.<|im_end|>\n<|im_start|>assistant\n")
    config = ov.GenerationConfig()
    config.do_sample = False
    config.structured_output_config = ov.StructuredOutputConfig(grammar=grammar)
    config.max_new_tokens = 1
    pipe.generate(prompt, config)
    config.max_new_tokens = 60
    t0 = time.perf_counter()
    pipe.generate(prompt, config)
    return time.perf_counter() - t0


def _tokens(text: str) -> list[int]:
    from toolgram.engines import llamacpp_engine

    return list(llamacpp_engine._llama().tokenize(text.encode(), add_bos=False, special=True))


def per_token_ms(compiled: Any, tokens: list[int], reps: int) -> list[float] | None:
    """Median over ``reps`` passes of each token's ``fill_next_token_bitmask`` ms; None if a token is refused."""
    import xgrammar as xgr

    mask = xgr.allocate_token_bitmask(1, compiled.tokenizer_info.vocab_size)
    passes = []
    for _ in range(reps):
        matcher = xgr.GrammarMatcher(compiled)
        times = []
        for tok in tokens:
            t0 = time.perf_counter()
            matcher.fill_next_token_bitmask(mask)
            times.append((time.perf_counter() - t0) * 1000)
            if not matcher.accept_token(tok):
                return None
        passes.append(times)
    return [statistics.median(col) for col in zip(*passes, strict=True)]


def _cells(short: list[float] | None, long: list[float] | None) -> str:
    if short is None or long is None:
        return f"{'n/a':>9} {'':>9} {'':>6} {'':>8}"
    a, b = statistics.mean(short), statistics.mean(long)
    return f"{a:9.4f} {b:9.4f} {b / a:6.2f} {max(long):8.3f}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="smoke run: 1 pass, three formats")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--formats", default="", help="comma-separated subset (default: all)")
    ap.add_argument("--strings", action="store_true",
                    help="hermes, a string argument under minLength/maxLength: toolgram's EBNF vs one counted group")
    ap.add_argument("--openvino", action="store_true", help="with --strings: also 60 tokens of SmolLM2 in OpenVINO")
    args = ap.parse_args()
    reps = 1 if args.quick else args.reps
    if args.strings:
        machine_header("bench_mask --strings: counted string bodies, toolgram EBNF vs one counted group",
                       f"fill_next_token_bitmask per token of a hermes call, mean of the per-token medians of {reps} "
                       "passes" + ("; OpenVINO GenAI: seconds for 60 greedy tokens" if args.openvino else ""))
        strings(reps, args.openvino)
        machine_footer()
        return
    formats = [f for f in args.formats.split(",") if f] or (
        ["hermes", "qwen3_coder", "llama3_json"] if args.quick else list(FORMATS))
    import xgrammar as xgr

    machine_header("bench_mask: xgrammar per-token mask time inside a call, toolgram EBNF vs builtin tag",
                   f"fill_next_token_bitmask per token of a rendered call (one string argument of "
                   f"delimiter-like text), median of {reps} passes")
    compiler, vocab = _compiler()
    print(f"vocabulary: {vocab}")
    print(f"{'format':<18} {'tokens':>12} | {'toolgram EBNF: short':>20} {'long':>9} {'l/s':>6} {'max':>8} | "
          f"{'builtin: short':>14} {'long':>9} {'l/s':>6} {'max':>8}")
    worst = (0.0, "")
    for fmt in formats:
        texts = [render_calls(fmt, [("note", {"text": VALUE * k})]) for k in (1, LONG)]
        tokens = [_tokens(t) for t in texts]
        ebnf = tg_compile(fmt, TOOL, dialect="ebnf", tool_choice="required", reasoning=reasoning_off(fmt)).grammar
        compiled = compiler.compile_grammar(xgr.Grammar.from_ebnf(ebnf))
        ours = [per_token_ms(compiled, t, reps) for t in tokens]
        theirs: list[list[float] | None] = [None, None]
        if fmt in BUILTIN:
            tag = xgr.get_builtin_structural_tag(BUILTIN[fmt], tools=TOOL, tool_choice="required", reasoning=False,
                                                 parallel_tool_calls=False)
            built = compiler.compile_structural_tag(tag.model_dump_json())
            theirs = [per_token_ms(built, t, reps) for t in tokens]
        if ours[0] is None or ours[1] is None:
            print(f"{fmt:<18} toolgram's grammar refused its own rendering", flush=True)
            continue
        worst = max(worst, (statistics.mean(ours[1]), fmt))
        sizes = f"{len(tokens[0])}/{len(tokens[1])}"
        print(f"{fmt:<18} {sizes:>12} | {_cells(*ours):>45} | {_cells(*theirs)}", flush=True)
    print(f"worst toolgram mean over the long text: {worst[0]:.4f} ms per token ({worst[1]})")
    machine_footer()


if __name__ == "__main__":
    sys.exit(main())
