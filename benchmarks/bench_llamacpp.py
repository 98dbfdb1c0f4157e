"""llama.cpp decode with toolgram's GBNF vs a minimal hand-written GBNF (a script, not a test).

``python benchmarks/bench_llamacpp.py [--quick] [--reps 3] [--tokens 64] [--threads 2] [--formats a,b] [--replay-only]``

llama-cpp-python, ``Llama(smollm2_gguf_path(), n_threads=--threads)``, greedy (temperature 0),
the same prompt per format (toolgram's template for the format, one tool ``write_note`` whose only
argument is an unbounded string, "required"). Three runs per repetition, interleaved (order
rotates): ``free`` (no grammar, EOS banned by ``logit_bias`` so it runs to ``--tokens``),
``hand`` (a minimal hand-written GBNF for the same single call) and ``toolgram``
(``toolgram.compile(fmt, tools, dialect="gbnf", tool_choice="required", parallel_tool_calls=False)``).
tok/s is streamed tokens after the first ÷ time from first to last streamed token (grammar
parsing and prompt processing are outside it). Median over ``--reps``. Target: toolgram ÷ hand
>= 0.97.

The hand-written grammar is the format's canonical call (``render_calls`` of ``write_note``) as a
literal with the argument value replaced by one rule: a JSON string for the JSON formats, a
single-quoted Python string for the pythonic ones, ``([^<] | "<" [^/])*`` for the XML ones. It is
what a person would write for this one call (e.g. no whitespace variants, no parallel calls),
so its language is smaller than toolgram's; it is a speed reference, not an equivalent grammar.

The decode runs choose their own tokens, so where the two grammars' languages differ their outputs
part (glm4: after ``</arg_value>`` the model starts another ``<arg_key>``; the hand-written grammar
forbids ``</`` in a value and so ends the call, toolgram's keeps ``<arg_`` as value text, since the
tool has no second argument). A second decode table removes that: both grammars (and ``free``) are
replayed along the same text, the canonical call with a prose argument of ~120 tokens (the calls:
150-230 tokens), token by token: sampler over the full vocabulary, accept, ``llm.eval``
(``replay_table``); it also prints the sampler's own ms per token, steadier than tok/s.

A third table isolates the grammar from the model (steady on a loaded machine too): the time of
one ``llama_sampler_apply`` of the grammar sampler over the full 49,152-token candidate array
(what llama-cpp-python does once per generated token), in two states: at the start of the
output, and inside the string argument after the canonical call's prefix has been accepted.
Median of ``--apply-reps``.

A fourth table shows what a grammar costs where it branches per tool: the apply time right before the
tool's name with 1/10/100 tools, toolgram's GBNF (left-factored, ``compiler/factor.py``) beside the
same IR printed without factoring.
"""

from __future__ import annotations

import argparse
import ctypes
import json
import sys
import time
from typing import Any

from _common import (
    UNBOUNDED,
    interleaved,
    machine_footer,
    machine_header,
    make_tools,
    median,
    ratio,
    reasoning_off,
    stream_rate,
)
from toolgram.grammars import FORMATS
from toolgram.grammars.render import render_calls
from toolgram.runtime.prompts import render_prompt

import toolgram
from toolgram.engines import smollm2_gguf_path

MESSAGES = [{"role": "user", "content": "Write a long note about the history of Paris. Use the write_note tool."}]
MARK = "QQMARKQQ"
VALUE_RULES = {
    "json": r'value ::= "\"" ( [^"\\\x00-\x1f] | "\\" ["\\/bfnrt] | "\\u" [0-9a-fA-F]{4} )* "\""',
    "python": r"""value ::= "'" ( [^'\\\n] | "\\" [^\n] )* "'" """.strip(),
    "xml": r'value ::= ( [^<] | "<" [^/] )*',
}


def _lit(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t") + '"'


def hand_grammar(fmt: str) -> tuple[str, str]:
    """``(family, gbnf)``: the canonical single call with its string argument as one rule."""
    text = render_calls(fmt, [("write_note", {"text": MARK})])
    for family, quoted in (("json", f'"{MARK}"'), ("python", f"'{MARK}'"), ("xml", MARK)):
        if quoted in text:
            pre, post = text.split(quoted, 1)
            parts = [_lit(p) for p in (pre, post) if p]
            body = " value ".join(parts) if pre and post else (f"value {parts[0]}" if post else f"{parts[0]} value")
            return family, f"root ::= {body}\n{VALUE_RULES[family]}\n"
    raise ValueError(f"cannot find the argument in the {fmt} rendering: {text!r}")


class FullVocab:
    """The full candidate array (every token, logit 0) that llama-cpp-python hands the grammar
    sampler at each step; :meth:`apply` runs one sampler over a fresh copy of it."""

    def __init__(self) -> None:
        import llama_cpp

        from toolgram.engines import llamacpp_engine as le

        self.n = n = le._llama().n_vocab()
        self.pristine = (llama_cpp.llama_token_data * n)()
        for i in range(n):
            self.pristine[i].id, self.pristine[i].logit, self.pristine[i].p = i, 0.0, 0.0
        self.work = (llama_cpp.llama_token_data * n)()
        self.arr = llama_cpp.llama_token_data_array()

    def reset(self) -> None:
        import llama_cpp

        ctypes.memmove(self.work, self.pristine, ctypes.sizeof(self.pristine))
        self.arr.data = ctypes.cast(self.work, ctypes.POINTER(llama_cpp.llama_token_data))
        self.arr.size, self.arr.selected, self.arr.sorted = self.n, -1, False

    def apply(self, smpl: Any) -> None:
        import llama_cpp

        llama_cpp.llama_sampler_apply(smpl, ctypes.byref(self.arr))

    def allowed(self, tok: int) -> bool:
        return self.work[tok].logit != float("-inf")


def toolgram_gbnf(fmt: str) -> str:
    """toolgram's GBNF for the benchmark's single call: one unbounded-string tool, required, no reasoning."""
    return toolgram.compile(fmt, UNBOUNDED, dialect="gbnf", tool_choice="required", parallel_tool_calls=False,
                            reasoning=reasoning_off(fmt)).grammar


def apply_ms(gbnf: str, prefix: str, reps: int) -> float:
    """Median ms of one grammar-sampler apply over the full vocabulary after accepting ``prefix``."""
    import llama_cpp

    from toolgram.engines import llamacpp_engine as le

    vocab = FullVocab()
    smpl = le._init_sampler(gbnf, "root", None, None)
    try:
        for tok in le.tokenize(prefix) if prefix else []:
            llama_cpp.llama_sampler_accept(smpl, tok)
        times = []
        for _ in range(reps):
            vocab.reset()
            t0 = time.perf_counter()
            vocab.apply(smpl)
            times.append((time.perf_counter() - t0) * 1000)
        allowed = any(vocab.allowed(i) for i in range(vocab.n))
        if not allowed and prefix:
            return float("nan")  # the prefix left the grammar (tokenisation mismatch): no figure
        return median(times)
    finally:
        llama_cpp.llama_sampler_free(smpl)


def apply_table(formats: list[str], reps: int) -> None:
    print(f"\n## grammar cost alone: ms per llama_sampler_apply over the full vocabulary (median of {reps})")
    print(f"{'format':<16} {'start: hand':>11} {'toolgram':>9} {'tg/hand':>8} {'in string: hand':>15} "
          f"{'toolgram':>9} {'tg/hand':>8}")
    value = "The history of Paris began long ago and"
    for fmt in formats:
        _, hand = hand_grammar(fmt)
        ours = toolgram_gbnf(fmt)
        call = render_calls(fmt, [("write_note", {"text": value + " more"})])
        prefix = call[:call.index(value) + len(value)]
        row = []
        for state in ("", prefix):
            h, o = apply_ms(hand, state, reps), apply_ms(ours, state, reps)
            row += [h, o, ratio(h, o)]
        print(f"{fmt:<16} {row[0]:11.2f} {row[1]:9.2f} {row[2]:8.2f} {row[3]:15.2f} {row[4]:9.2f} {row[5]:8.2f}",
              flush=True)
    print("(tg/hand = hand time ÷ toolgram time: >= 0.97 means toolgram's grammar costs no more)")


PROSE = ("Paris began as a settlement of the Parisii on an island in the Seine; by the year 1200 it was the "
         "largest city in Europe, and its streets, squares and bridges (fewer than 5 < 6 km apart) hold two "
         "thousand years of history, from the Roman baths to the towers of La Defense. ")


def replay_table(llm: Any, formats: list[str], reps: int) -> None:
    """Decode along one text: the canonical call of ``write_note`` whose argument is :data:`PROSE`
    twice over, replayed token by token with the model. Each step applies the grammar sampler over
    the full vocabulary, accepts the text's next token and evaluates it (``llm.eval``): a greedy
    decode that is given its token instead of choosing it, so hand-written and toolgram's grammar
    (and ``free``, no sampler) run the very same tokens. Median over ``reps`` interleaved runs."""
    import llama_cpp

    from toolgram.engines import llamacpp_engine as le

    vocab = FullVocab()
    template = llm.metadata.get("tokenizer.chat_template")

    def run(prompt_tokens: list[int], tokens: list[int], gbnf: str | None) -> tuple[float, float]:
        """(tok/s of the whole step, ms per token of the sampler alone)"""
        smpl = le._init_sampler(gbnf, "root", None, None) if gbnf else None
        llm.reset()
        llm.eval(prompt_tokens)
        sampler = 0.0
        t0 = time.perf_counter()
        for tok in tokens:
            if smpl is not None:
                t1 = time.perf_counter()
                vocab.reset()
                vocab.apply(smpl)
                if not vocab.allowed(tok):
                    raise AssertionError("the grammar rejects the replayed text")
                llama_cpp.llama_sampler_accept(smpl, tok)
                sampler += time.perf_counter() - t1
            llm.eval([tok])
        dt = time.perf_counter() - t0
        if smpl is not None:
            llama_cpp.llama_sampler_free(smpl)
        return len(tokens) / dt, sampler * 1000 / len(tokens)

    print(f"\n## decode along the same text: the canonical call, argument {len(PROSE) * 2} characters of prose, "
          f"replayed token by token (sampler over the full vocabulary + accept + llm.eval; median of {reps})")
    print(f"{'format':<16} {'tokens':>6} {'free tok/s':>10} {'hand tok/s':>10} {'toolgram':>9} {'tg/hand':>8} "
          f"{'sampler ms/token: hand':>22} {'toolgram':>9} {'tg/hand':>8}")
    worst = (float("inf"), "")
    for fmt in formats:
        _, hand = hand_grammar(fmt)
        ours = toolgram_gbnf(fmt)
        text = render_calls(fmt, [("write_note", {"text": PROSE * 2})])
        if not all(le.accepts_gbnf(g, text)[0] for g in (hand, ours)):
            print(f"{fmt:<16} (a grammar rejects the rendered call: no figure)")
            continue
        prompt, _ = render_prompt(fmt, MESSAGES, UNBOUNDED, model_template=template)
        prompt_tokens = llm.tokenize(prompt.encode("utf-8"), add_bos=False, special=True)
        tokens = le.tokenize(text)
        results = interleaved({k: lambda g=g, p=prompt_tokens, t=tokens: run(p, t, g)
                               for k, g in (("free", None), ("hand", hand), ("toolgram", ours))}, reps)
        m = {k: median([r[0] for r in v]) for k, v in results.items()}
        g = {k: median([r[1] for r in v]) for k, v in results.items()}
        tg_hand = ratio(m["toolgram"], m["hand"])
        worst = min(worst, (tg_hand, fmt))
        print(f"{fmt:<16} {len(tokens):6d} {m['free']:10.1f} {m['hand']:10.1f} {m['toolgram']:9.1f} {tg_hand:8.2f} "
              f"{g['hand']:22.2f} {g['toolgram']:9.2f} {ratio(g['hand'], g['toolgram']):8.2f}", flush=True)
    print(f"worst toolgram ÷ hand along the same text: {worst[0]:.2f} ({worst[1]}); target >= 0.97")


def tools_table(formats: list[str], reps: int, sizes: tuple[int, ...] = (1, 10, 100)) -> None:
    """Apply ms right before the tool's name (where a grammar branches per tool), 1/10/100 tools:
    toolgram's GBNF (left-factored: one stack up to the name) and the same IR printed unfactored."""
    from toolgram.compiler.emit.bnf import GbnfPrinter

    print(f"\n## per-tool branching: ms per apply before the tool name, {'/'.join(map(str, sizes))} tools, "
          f"toolgram GBNF (factored) vs the same IR unfactored (median of {reps})")
    print(f"{'format':<16} " + " ".join(f"{f'{n} fact.':>9} {f'{n} unf.':>9}" for n in sizes))
    for fmt in formats:
        row = []
        for n in sizes:
            tools = make_tools(n)
            b = toolgram.compile(fmt, tools, dialect="gbnf", tool_choice="required", parallel_tool_calls=False,
                                 reasoning=reasoning_off(fmt))
            call = render_calls(fmt, [("tool_0", {"location": "Paris"})])
            prefix = call[:call.index("tool_0")]
            row += [apply_ms(b.grammar, prefix, reps), apply_ms(GbnfPrinter(b.ir).render(), prefix, reps)]
        print(f"{fmt:<16} " + " ".join(f"{x:9.2f}" for x in row), flush=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="smoke run: 1 repetition, 32 tokens, three formats")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--tokens", type=int, default=64)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--formats", default="")
    ap.add_argument("--show-grammars", action="store_true")
    ap.add_argument("--apply-reps", type=int, default=20)
    ap.add_argument("--skip-decode", action="store_true", help="only the grammar-apply table")
    ap.add_argument("--replay-only", action="store_true", help="only the decode along the same text")
    args = ap.parse_args()
    formats = [f for f in args.formats.split(",") if f] or list(FORMATS)
    reps, tokens = args.reps, args.tokens
    if args.quick:
        reps, tokens = 1, 32
        formats = formats if args.formats else ["hermes", "qwen3_coder", "pythonic"]
    from llama_cpp import Llama, LlamaGrammar

    machine_header("bench_llamacpp: llama.cpp decode tok/s, toolgram GBNF vs hand-written GBNF vs free",
                   f"llama-cpp-python, SmolLM2 GGUF, {args.threads} threads, greedy, {tokens} max tokens, median of "
                   f"{reps} interleaved repetitions; tok/s from first to last streamed token")
    llm = Llama(smollm2_gguf_path(), n_ctx=2048, n_threads=args.threads, n_threads_batch=args.threads,
                verbose=False, seed=0)
    template = llm.metadata.get("tokenizer.chat_template")
    eos = llm.token_eos()

    def run(prompt: str, grammar: Any) -> tuple[float, int, str]:
        llm.reset()
        stamps: list[float] = []
        pieces: list[str] = []
        extra: dict[str, Any] = {"grammar": grammar} if grammar is not None else {"logit_bias": {eos: -1e9}}
        for chunk in llm.create_completion(prompt, max_tokens=tokens, temperature=0.0, stream=True, **extra):
            if chunk["choices"][0].get("finish_reason") is None:  # the closing chunk is not a token
                stamps.append(time.perf_counter())
            pieces.append(chunk["choices"][0]["text"])
        return stream_rate(stamps), len(stamps), "".join(pieces)

    if args.skip_decode:
        apply_table(formats, args.apply_reps)
        tools_table(formats, max(3, args.apply_reps // 2))
        machine_footer()
        return 0
    if args.replay_only:
        replay_table(llm, formats, reps)
        machine_footer()
        return 0
    print(f"{'format':<16} {'free tok/s':>10} {'hand tok/s':>10} {'toolgram':>9} {'hand/free':>9} "
          f"{'tg/free':>8} {'tg/hand':>8}  tokens (free/hand/tg)")
    worst = (float("inf"), "")
    for fmt in formats:
        prompt, _ = render_prompt(fmt, MESSAGES, UNBOUNDED, model_template=template)
        family, hand = hand_grammar(fmt)
        ours = toolgram_gbnf(fmt)
        if args.show_grammars:
            print(f"--- {fmt} hand-written ({family}):\n{hand}--- {fmt} toolgram:\n{ours}")
        grammars = {"free": None, "hand": LlamaGrammar.from_string(hand, verbose=False),
                    "toolgram": LlamaGrammar.from_string(ours, verbose=False)}
        run(prompt, grammars["hand"])  # warm-up
        results = interleaved({k: lambda g=g, p=prompt: run(p, g) for k, g in grammars.items()}, reps)
        rates = {k: [r[0] for r in v] for k, v in results.items()}
        counts = {k: [r[1] for r in v] for k, v in results.items()}
        texts = {k: v[-1][2] for k, v in results.items()}
        m = {k: median(v) for k, v in rates.items()}
        tg_hand = ratio(m["toolgram"], m["hand"])
        worst = min(worst, (tg_hand, fmt))
        print(f"{fmt:<16} {m['free']:10.1f} {m['hand']:10.1f} {m['toolgram']:9.1f} {ratio(m['hand'], m['free']):9.2f} "
              f"{ratio(m['toolgram'], m['free']):8.2f} {tg_hand:8.2f}  "
              f"{min(counts['free'])}/{min(counts['hand'])}/{min(counts['toolgram'])}", flush=True)
        for kind in ("hand", "toolgram"):
            if not texts[kind].strip():
                print(f"  ({kind}: empty output -- the grammar may be rejected by llama.cpp)")
        if args.show_grammars:
            print("  samples: " + json.dumps({k: v[:80] for k, v in texts.items()}))
    print(f"worst toolgram ÷ hand: {worst[0]:.2f} ({worst[1]}); target >= 0.97")
    replay_table(llm, formats, reps)
    apply_table(formats, 5 if args.quick else args.apply_reps)
    tools_table(formats, 3 if args.quick else max(3, args.apply_reps // 2))
    machine_footer()
    return 0


if __name__ == "__main__":
    sys.exit(main())
