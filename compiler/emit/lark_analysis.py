"""Faster equivalents of two of Lark's grammar analyses, for the large grammars real schemas give.

Lark 1.x computes NULLABLE, FIRST and FOLLOW by sweeping every rule until nothing changes, one
sweep per link of the longest dependency chain; an object of ``n`` optional members in order is
such a chain (``m_k: KEY_k v c | m_(k-1)``), so the sweeps cost ``n`` times the grammar
(gitlab-ci's Earley parser took 33 s to build).  Its LALR ``includes``/``lookback`` step scans a
state's whole closure once per nonterminal the state can go to, cubic in ``n`` (renovate's LALR
parser: 56 s).

:func:`calculate_sets` and :func:`compute_includes_lookback` compute the same sets with worklists
and per-state indexes; :func:`faster_analysis` puts them in place while one parser is built.
``tests/test_lark_analysis.py`` checks that they give Lark's own results.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any


def _propagate(sets: dict[Any, set], edges: dict[Any, list[Any]]) -> None:
    """Close ``sets`` under ``sets[b] |= sets[a]`` for every edge ``a -> b``."""
    todo = list(edges)
    queued = set(todo)
    while todo:
        a = todo.pop()
        queued.discard(a)
        source = sets[a]
        for b in edges[a]:
            target = sets[b]
            if not source <= target:
                target |= source
                if b not in queued and b in edges:
                    queued.add(b)
                    todo.append(b)


def calculate_sets(rules: Sequence[Any]) -> tuple[dict[Any, set], dict[Any, set], set]:
    """FIRST, FOLLOW and NULLABLE, as :func:`lark.parsers.grammar_analysis.calculate_sets` gives them."""
    symbols = {sym for rule in rules for sym in rule.expansion} | {rule.origin for rule in rules}
    first: dict[Any, set] = {sym: ({sym} if sym.is_term else set()) for sym in symbols}
    follow: dict[Any, set] = {sym: set() for sym in symbols}

    # NULLABLE: a rule's origin, once every distinct symbol of its expansion is nullable
    nullable: set[Any] = set()
    waiting = [len(set(rule.expansion)) for rule in rules]
    uses: dict[Any, list[int]] = defaultdict(list)
    for k, rule in enumerate(rules):
        for sym in set(rule.expansion):
            uses[sym].append(k)
    todo = [rule.origin for k, rule in enumerate(rules) if not waiting[k]]
    while todo:
        sym = todo.pop()
        if sym in nullable:
            continue
        nullable.add(sym)
        for k in uses.get(sym, ()):
            waiting[k] -= 1
            if not waiting[k]:
                todo.append(rules[k].origin)

    # FIRST flows into a rule's origin from its nullable prefix and the symbol after it
    into_first: dict[Any, list[Any]] = defaultdict(list)
    # FOLLOW flows from a rule's origin into each symbol whose suffix is nullable
    into_follow: dict[Any, list[Any]] = defaultdict(list)
    for rule in rules:
        exp = rule.expansion
        for sym in exp:
            into_first[sym].append(rule.origin)
            if sym not in nullable:
                break
        for sym in reversed(exp):
            into_follow[rule.origin].append(sym)
            if sym not in nullable:
                break
    _propagate(first, into_first)
    # FOLLOW of a symbol starts with FIRST of what may come next in a rule: up to the first non-nullable symbol
    for rule in rules:
        exp = rule.expansion
        for i, sym in enumerate(exp):
            for nxt in exp[i + 1:]:
                follow[sym] |= first[nxt]
                if nxt not in nullable:
                    break
    _propagate(follow, into_follow)
    return first, follow, nullable


def compute_includes_lookback(self: Any) -> None:
    """:meth:`lark.parsers.lalr_analysis.LALR_Analyzer.compute_includes_lookback`, with each state's
    closure indexed by rule origin (and its finished items by rule) instead of scanned per transition."""
    by_origin: dict[int, dict[Any, list[Any]]] = {}
    done_by_rule: dict[int, dict[Any, list[Any]]] = {}
    for nt in self.nonterminal_transitions:
        state, nonterminal = nt
        groups = by_origin.get(id(state))
        if groups is None:
            groups = by_origin[id(state)] = defaultdict(list)
            for rp in state.closure:
                groups[rp.rule.origin].append(rp)
        includes = []
        lookback = self.lookback[nt]
        for rp in groups.get(nonterminal, ()):
            state2 = state
            exp = rp.rule.expansion
            for i in range(rp.index, len(exp)):
                s = exp[i]
                nt2 = (state2, s)
                state2 = state2.transitions[s]
                if nt2 not in self.reads:
                    continue
                if all(exp[j] in self.NULLABLE for j in range(i + 1, len(exp))):
                    includes.append(nt2)
            if rp.index == 0:  # state2 is the state where rp.rule is finished
                done = done_by_rule.get(id(state2))
                if done is None:
                    done = done_by_rule[id(state2)] = defaultdict(list)
                    for rp2 in state2.closure:
                        if rp2.is_satisfied:
                            done[rp2.rule].append(rp2)
                for rp2 in done.get(rp.rule, ()):
                    lookback.add((state2, rp2.rule))
        for nt2 in includes:
            self.includes[nt2].add(nt)


@contextmanager
def faster_analysis() -> Iterator[None]:
    """Lark builds with :func:`calculate_sets` and :func:`compute_includes_lookback` inside the block.

    Both give Lark's own results, so a parser built elsewhere meanwhile (another thread) is only
    slower, never different."""
    from lark.parsers import grammar_analysis, lalr_analysis

    saved = grammar_analysis.calculate_sets, lalr_analysis.LALR_Analyzer.compute_includes_lookback
    grammar_analysis.calculate_sets = calculate_sets
    lalr_analysis.LALR_Analyzer.compute_includes_lookback = compute_includes_lookback
    try:
        yield
    finally:
        grammar_analysis.calculate_sets, lalr_analysis.LALR_Analyzer.compute_includes_lookback = saved
