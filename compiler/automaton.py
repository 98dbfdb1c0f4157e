"""Expand :class:`~toolgram.compiler.ir.Until` into right-linear rules.

The rules recognise exactly the texts an Aho-Corasick automaton over the
forbidden strings accepts without ever reaching a match.  When the text is
``followed`` by a stop string, only end states from which reading a stop
finds that stop as the *first* match are accepting, so a grammar and a
left-to-right parser split ``value</parameter>`` at the same place even for
self-overlapping stops such as ``"\\n</parameter>\\n"``.
"""

from __future__ import annotations

import re
from functools import lru_cache

from .ir import EMPTY, Chars, Expr, Ref, Rep, Until, alt, seq

_START = "\0start"


def forbidden_patterns(node: Until) -> list[list[str | frozenset[str]]]:
    """The forbidden strings as atoms: a character, or (``Until.gap``) a set of characters any run of
    which (even none) stands right after the gap's prefix, in place of the run the string has there."""
    out: list[list[str | frozenset[str]]] = []
    prefix, chars = node.gap or ("", "")
    for f in dict.fromkeys(node.stops + node.excludes):
        if prefix and f.startswith(prefix):
            rest = f[len(prefix):].lstrip(chars)
            out.append([*prefix, frozenset(chars), *rest])
        else:
            out.append(list(f))
    return out


class _GapAutomaton:
    """Subset automaton over :func:`forbidden_patterns` (used when ``Until.gap`` is set); states are
    encoded as strings (``"i:p,..."`` partial matches) so :func:`until_rules` names and orders them."""

    def __init__(self, node: Until) -> None:
        self.node = node
        self.patterns = forbidden_patterns(node)
        chars: set[str] = set()
        for pat in self.patterns:
            for atom in pat:
                chars |= atom if isinstance(atom, frozenset) else {atom}
        self.alphabet = sorted(chars)

    def _close(self, i: int, p: int, out: set[tuple[int, int]]) -> bool:
        """Add position ``p`` of pattern ``i`` (and past a loop); True when the pattern is complete."""
        pat = self.patterns[i]
        while True:
            if p == len(pat):
                return True
            out.add((i, p))
            if not isinstance(pat[p], frozenset):
                return False
            p += 1

    def step(self, state: str, ch: str) -> str | None:
        cur = [] if state in ("", _START) else [tuple(map(int, x.split(":"))) for x in state.split(",")]
        nxt: set[tuple[int, int]] = set()
        for i, pat in enumerate(self.patterns):
            if pat[0] == ch and self._close(i, 1, nxt):
                return None
        for i, p in cur:
            atom = self.patterns[i][p]
            if isinstance(atom, frozenset):
                if ch in atom:
                    self._close(i, p, nxt)
            elif atom == ch and self._close(i, p + 1, nxt):
                return None
        return ",".join(f"{i}:{p}" for i, p in sorted(nxt))

    accepting = None  # set below (shared with _Automaton)


class _Automaton:
    def __init__(self, node: Until) -> None:
        self.node = node
        self.forbidden = tuple(dict.fromkeys(node.stops + node.excludes))
        self.prefixes = {f[:i] for f in self.forbidden for i in range(len(f))}
        self.alphabet = sorted({c for f in self.forbidden for c in f})

    def step(self, state: str, ch: str) -> str | None:
        """Next state, or None when a forbidden string has just been completed."""
        text = ("" if state == _START else state) + ch
        if any(text.endswith(f) for f in self.forbidden):
            return None
        while text not in self.prefixes:
            text = text[1:]
        return text

    def accepting(self, state: str) -> bool:
        if state == _START:
            return not self.node.nonempty
        if not self.node.followed:
            return True
        for stop in self.node.stops:
            cur: str | None = state
            for i, ch in enumerate(stop):
                assert cur is not None
                cur = self.step(cur, ch)
                if cur is None and i < len(stop) - 1:
                    return False
            if cur is not None:
                return False
        return True


@lru_cache(maxsize=512)
def until_rules(node: Until, prefix: str, root: str | None = None,
                flat: bool = False) -> tuple[str, tuple[tuple[str, Expr], ...]] | None:
    """Rules for ``node``: returns the start rule's name and ``(name, expr)`` pairs, names from ``prefix``.

    ``root``: the name of a rule for text that avoids the forbidden strings and may end anywhere
    (xgrammar's tag-less ``TagDispatch``), standing for the automaton's root state, which then gets
    no rule of its own; None (no rules) when that is not the same language, i.e. when some state
    may not end the text.

    A state that loops on some characters reads them first: ``[<]* ("" | [^/<] s0 | "/" s2)``, or
    with ``flat`` (xgrammar) ``[<]* | [<]* [^/<] s0 | [<]* "/" s2``: xgrammar's matcher keeps a
    frame for the group after a repetition each time the automaton passes through such a state, so
    inside a raw value its mask time grew with every ``<`` (0.14 ms per token after 1,000 tokens,
    ~1 ms after 9,000), where the flat rule stays at 0.008 ms.  llama.cpp keeps a stack per live
    alternative, so GBNF keeps the group."""
    auto = _GapAutomaton(node) if node.gap else _Automaton(node)
    start = _START if (node.first_not or node.nonempty) else ""
    names = {start: prefix}
    if root is not None:
        # the root rule reads like the automaton from its root state only if every state may end the text
        if start == "" or isinstance(auto, _GapAutomaton) or not all(map(auto.accepting, auto.prefixes)):
            return None
        names[""] = root
    states = [start]
    todo = [start]
    transitions: dict[str, dict[str, str]] = {}
    while todo:
        state = todo.pop()
        barred = set(node.first_not) if state == _START else set()
        moves = {}
        for ch in auto.alphabet:
            if ch in barred:
                continue
            nxt = auto.step(state, ch)
            if nxt is not None:
                moves[ch] = nxt
        transitions[state] = moves
        for t in sorted(set(moves.values()) | {""}):
            if t not in names:
                names[t] = f"{prefix}-{len(names)}"
                states.append(t)
                todo.append(t)
    rules: list[tuple[str, Expr]] = []
    for state in states:
        if root is not None and state == "":
            continue
        moves = transitions[state]
        special = set(auto.alphabet) | (set(node.first_not) if state == _START else set())
        by_target: dict[str, set[str]] = {"": set()}
        for ch, t in moves.items():
            by_target.setdefault(t, set()).add(ch)
        branches: list[tuple[str, Chars]] = []
        for t, chs in sorted(by_target.items()):
            if t == "":
                branches.append((t, Chars.of("".join(sorted(special - chs)), negated=True)))
            else:
                branches.append((t, Chars.of("".join(sorted(chs)))))
        loop = [cls for t, cls in branches if t == state]
        parts: list[Expr] = [EMPTY] if auto.accepting(state) else []
        parts += [seq(cls, Ref(names[t])) for t, cls in branches if t != state]
        if loop and flat:
            body = alt(*(seq(Rep(loop[0], 0, None), part) for part in parts))
        elif loop:
            body = seq(Rep(loop[0], 0, None), alt(*parts))
        else:
            body = alt(*parts)
        rules.append((names[state], body))
    return names[start], tuple(rules)


_GapAutomaton.accepting = _Automaton.accepting  # type: ignore[assignment]


def rx_escape(text: str) -> str:
    """``re.escape`` that also spells control characters and ``/`` as escapes (Lark regex literals)."""
    out = []
    for ch in text:
        cp = ord(ch)
        if ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ch == "\r":
            out.append("\\r")
        elif cp < 0x20 or cp == 0x7F:
            out.append(f"\\x{cp:02x}")
        elif ch == "/":
            out.append("\\/")
        elif cp in (0x2028, 0x2029, 0x85):
            out.append(f"\\u{cp:04x}")
        else:
            out.append(re.escape(ch))
    return "".join(out)


def until_regex(node: Until) -> str:
    """A Python regex (for Lark) matching the same texts as :func:`until_rules` (non-empty form)."""
    forbidden = tuple(dict.fromkeys(node.stops + node.excludes))
    if node.gap:
        prefix, chars = node.gap
        gap = "[" + "".join(_re_class_char(c) for c in chars) + "]*"
        looks = [rx_escape(prefix) + gap + rx_escape(f[len(prefix):].lstrip(chars)) if f.startswith(prefix)
                 else rx_escape(f) for f in forbidden]
        look = "|".join(dict.fromkeys(looks))
    else:
        look = "|".join(rx_escape(f) for f in sorted(forbidden, key=len, reverse=True))
    body = f"(?:(?!{look})[\\s\\S])" if look else "[\\s\\S]"
    first = ""
    if node.first_not:
        first = "(?![" + "".join(_re_class_char(c) for c in node.first_not) + "])"
    return f"{first}{body}+"


def _re_class_char(c: str) -> str:
    return "\\" + c if c in "\\]^-[" else rx_escape(c)


__all__ = ["until_rules", "until_regex"]
