"""A key class printed as its automaton against its DAG of shared rules (a script, not a test).

``python benchmarks/bench_automaton.py [--methods 9] [--reps 3]``

State elimination writes a key class (``patternProperties`` with an unanchored pattern, no ``properties``) as an
expression whose parts are shared many times over.  GBNF and EBNF used to print those parts as rules (the DAG);
they now print the automaton the expression was written from, one rule per state (``BnfPrinter.automaton``).
Both are the same language.  This script prints, side by side in one run, for the keys that do and do not contain
one of ``--methods`` HTTP methods and a blank (SchemaStore ``1e850a80d2c4``'s pattern with nine):

- the grammar size (hermes, ``required``);
- xgrammar: ``compile_grammar`` (one ``GrammarCompiler``, cache off, 1 thread, SmolLM2's vocabulary), median of
  ``--reps``; then ``fill_next_token_bitmask`` + ``accept_token`` for every token of a call with 30 keys of both
  classes, the mean and the largest per-token median over ``--reps`` passes;
- llama.cpp: ``accepts_gbnf`` (the sampler over SmolLM2's vocabulary along the same call's tokens), one pass.  The DAG
  takes minutes on nine methods (over 14 minutes here on 7 Dec), so it runs only with ``--methods`` 4 or fewer,
  unless ``--llamacpp-dag``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

from _common import machine_footer, machine_header
from bench_compile import _compiler
from bench_mask import _tokens, per_token_ms
from toolgram.compiler.bundle import compile
from toolgram.compiler.emit.bnf import BnfPrinter
from toolgram.grammars.render import render_calls

METHODS = ["GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH"]


def _tools(methods: list[str]) -> list[dict]:
    keys = {"type": "object", "patternProperties": {f"({'|'.join(methods)})\\s.*": {"type": "string"}},
            "additionalProperties": {"type": "integer"}}
    return [{"type": "function", "function": {"name": "f", "parameters": {
        "type": "object", "properties": {"routes": keys}, "required": ["routes"]}}}]


def _call(methods: list[str]) -> str:
    routes: dict[str, object] = {}
    for i in range(6):
        m = methods[i % len(methods)]
        routes.update({f"{m} /api/v1/items/{i}": "list items", f"x-{m}ed-{i}": i, f"{m}\t/users/{i}": "create",
                       f"trace-id-{i}": 7, f"{m.lower()} {i}": i})
    return render_calls("hermes", [("f", {"routes": routes})])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--methods", type=int, default=9)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--llamacpp-dag", action="store_true", help="run llama.cpp on the DAG whatever --methods")
    args = ap.parse_args()
    import xgrammar as xgr

    from toolgram.engines import llamacpp_engine

    methods = METHODS[:args.methods]
    tools, text = _tools(methods), _call(methods)
    machine_header("bench_automaton: a key class as its automaton's rules vs its DAG of shared rules",
                   f"hermes, required, {len(methods)} methods; xgrammar compile median of {args.reps}; mask per "
                   f"token: median of {args.reps} passes; llama.cpp: accepts_gbnf along the call, one pass")
    compiler, vocab = _compiler()
    tokens = _tokens(text)
    print(f"vocabulary: {vocab}; the call: {len(text)} characters, {len(tokens)} tokens")
    print(f"{'printed as':<12} {'EBNF bytes':>10} {'GBNF bytes':>10} {'xgr compile ms':>15} {'mask mean ms':>13} "
          f"{'mask max ms':>12} {'llama.cpp s':>12}")
    saved = BnfPrinter.graphs
    try:
        for graphs in (False, True):
            BnfPrinter.graphs = graphs
            ebnf = compile("hermes", tools, dialect="ebnf", tool_choice="required").grammar
            gbnf = compile("hermes", tools, dialect="gbnf", tool_choice="required").grammar
            times = []
            for _ in range(args.reps):
                t0 = time.perf_counter()
                compiled = compiler.compile_grammar(xgr.Grammar.from_ebnf(ebnf))
                times.append((time.perf_counter() - t0) * 1000)
            mask = per_token_ms(compiled, tokens, args.reps)
            cells = "refused" if mask is None else f"{statistics.mean(mask):>13.3f} {max(mask):>12.2f}"
            if graphs or len(methods) <= 4 or args.llamacpp_dag:
                t0 = time.perf_counter()
                ok, _ = llamacpp_engine.accepts_gbnf(gbnf, text)
                llama = f"{time.perf_counter() - t0:.2f}" + ("" if ok else " refused")
            else:
                llama = "minutes"
            print(f"{'automaton' if graphs else 'DAG':<12} {len(ebnf):>10} {len(gbnf):>10} "
                  f"{statistics.median(times):>15.0f} {cells} {llama:>12}", flush=True)
    finally:
        BnfPrinter.graphs = saved
    machine_footer()


if __name__ == "__main__":
    sys.exit(main())
