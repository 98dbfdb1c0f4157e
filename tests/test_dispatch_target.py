"""xgrammar's ``TagDispatch`` is printed only with a rule after its tag that cannot be empty.

OpenVINO GenAI 2026.4.1's embedded xgrammar crashes the process (segfault, 4 runs of 5 with
SmolLM2) on a ``TagDispatch`` sub-rule whose dispatched rule may match the empty string and that
is followed by more text (ENGINE_NOTES.md); xgrammar 0.2.9 reads it fine.  No format builds one
today: this holds every format's ``auto`` grammar, with and without reasoning and parallel calls,
for every schema set, to that (a new format or trigger whose text after the trigger may be empty
must keep the lowered free-text form instead).
"""

from __future__ import annotations

import itertools

import pytest
from strategies import SCHEMAS, ir_nodes
from toolgram.compiler.bundle import compile
from toolgram.compiler.ir import Dispatch, Grammar, nullable
from toolgram.grammars import FORMATS


def _all_dispatches(g: Grammar) -> list[Dispatch]:
    return [x for body in g.rules.values() for x in ir_nodes(body) if isinstance(x, Dispatch)]


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_dispatched_rule_is_never_empty(fmt: str) -> None:
    reasonings = ["none", "optional", "forced"] if FORMATS[fmt].reasoning else ["none"]
    for schema, parallel, reasoning in itertools.product(SCHEMAS, (True, False), reasonings):
        bundle = compile(fmt, SCHEMAS[schema], dialect="ebnf", tool_choice="auto",
                         parallel_tool_calls=parallel, reasoning=reasoning)
        assert bundle.ir is not None
        found = _all_dispatches(bundle.ir)
        # every TagDispatch with a tag in the text comes from a Dispatch node this walk sees
        assert bool(found) == ("TagDispatch((" in bundle.grammar), (schema, parallel, reasoning)
        for d in found:
            assert not nullable(d.then, bundle.ir), (schema, parallel, reasoning, d.tag)


def test_empty_dispatched_rule_is_caught() -> None:
    """The check above sees an empty-able rule after a tag (it is not vacuous)."""
    from toolgram.compiler.ir import EMPTY, Lit, alt

    g = Grammar()
    then = g.add("then", alt(EMPTY, Lit("x")))
    d = Dispatch("<t>", then, (), EMPTY)
    g.add("root", d)
    assert _all_dispatches(g) == [d]
    assert nullable(d.then, g)
