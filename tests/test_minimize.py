"""``dfa.minimize`` (Hopcroft's refinement) on random partial automata: the same language, and minimal."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from toolgram.compiler.dfa import minimize

Trans = list[dict[int, int]]


@st.composite
def automata(draw: st.DrawFn) -> tuple[Trans, set[int], int]:
    n = draw(st.integers(1, 9))
    k = draw(st.integers(1, 3))
    trans = [{a: t for a in range(k) if (t := draw(st.one_of(st.none(), st.integers(0, n - 1)))) is not None}
             for _ in range(n)]
    accepting = draw(st.sets(st.integers(0, n - 1)))
    return trans, accepting, k


def words(trans: Trans, accepting: set[int], k: int, length: int, start: int = 0) -> frozenset[tuple[int, ...]]:
    """The accepted words of up to ``length`` symbols from ``start``."""
    out: set[tuple[int, ...]] = set()
    frontier: list[tuple[tuple[int, ...], int]] = [((), start)]
    for _ in range(length + 1):
        out.update(w for w, s in frontier if s in accepting)
        frontier = [(w + (a,), trans[s][a]) for w, s in frontier for a in range(k) if a in trans[s]]
    return frozenset(out)


@settings(max_examples=400, deadline=None)
@given(automata())
def test_the_language_is_kept_and_no_two_states_are_alike(case: tuple[Trans, set[int], int]) -> None:
    trans, accepting, k = case
    small, finals = minimize(trans, accepting)
    n = len(trans)
    # two automata of at most n states that agree on the words up to 2n symbols are equal
    assert words(small, finals, k, 2 * n) == words(trans, accepting, k, 2 * n)
    assert len(small) <= n
    if not finals:
        assert small == [{}]
        return
    # minimal: every state reaches an accepting one, and no two states accept the same words
    languages = [words(small, finals, k, len(small), s) for s in range(len(small))]
    assert all(languages), (small, finals)
    assert len(set(languages)) == len(small), (small, finals)


def test_a_long_chain_is_one_state_per_length() -> None:
    """``[ab]{1,300}`` written as a DFA with a copy of each state per letter read: one state per length."""
    trans: Trans = [{} for _ in range(601)]
    for i in range(300):
        for a in (0, 1):
            for s in (2 * i - 1, 2 * i) if i else (0,):
                trans[s][a] = 2 * i + 1 + a
    small, finals = minimize(trans, set(range(1, 601)))
    assert len(small) == 301 and finals == set(range(1, 301))
