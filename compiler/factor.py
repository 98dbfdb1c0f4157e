"""Left factoring: alternatives that begin alike share their beginning (issue 10: llama.cpp speed).

llama.cpp keeps one grammar stack per alternative it is inside, and its sampler checks every
candidate token against every stack.  ``call ::= call-a | call-b | ...`` whose rules all begin with
``"{" ws "\\"name\\"" ws ":" ws`` keeps one stack per tool (three per tool where ``ws`` branches)
through those tokens, so each token there cost ~28x more with 100 tools than with one.  Factored,
``call ::= ename ecolon ("\\"tool_" ("0\\"" call-a | "1\\"" call-b ...))`` keeps one stack up
to the first character that tells the tools apart.

:func:`left_factor` rewrites every alternation in a grammar that way: equal first items are taken
out once, literals sharing a first character are split at their longest common prefix.  A
referenced rule used by that alternation alone is looked into, and what remains of it keeps its
name.  ``A B | A C`` and ``A (B | C)`` are the same language, so the grammar's language is unchanged
(tests/test_left_factor.py checks it in llama.cpp and xgrammar).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

from .ir import EMPTY, Alt, Dispatch, Expr, Grammar, Lit, Ref, Rep, Seq, Token, alt, seq

__all__ = ["left_factor"]

#: an alternative: its items, and the rule it was read from (None: written in the alternation)
_Branch = tuple[tuple[Expr, ...], "str | None"]


def _items(e: Expr) -> tuple[Expr, ...]:
    if e == EMPTY:
        return ()
    return e.items if type(e) is Seq else (e,)


def _open(items: tuple[Expr, ...]) -> tuple[Expr, ...]:
    """``items`` with a leading Token looked through (Tokens only mark Lark's terminals)."""
    while items and type(items[0]) is Token:
        items = _items(items[0].expr) + items[1:]  # type: ignore[attr-defined]
    return items


def _refs(e: Expr) -> Iterator[str]:
    stack = [e]
    while stack:
        x = stack.pop()
        t = type(x)
        if t is Ref:
            yield x.name  # type: ignore[attr-defined]
        elif t is Seq or t is Alt:
            stack.extend(x.items)  # type: ignore[attr-defined]
        elif t is Rep:
            stack.append(x.item)  # type: ignore[attr-defined]
        elif t is Token:
            stack.append(x.expr)  # type: ignore[attr-defined]
        elif t is Dispatch:
            stack += [x.then, x.lowered]  # type: ignore[attr-defined]


class _Factor:
    def __init__(self, g: Grammar) -> None:
        self.g = g
        self.uses: dict[str, int] = {}
        for body in g.rules.values():
            for name in _refs(body):
                self.uses[name] = self.uses.get(name, 0) + 1
        self.rules = dict(g.rules)
        #: rules looked into by an alternation (their remainder is set by it, never rewritten alone)
        self.taken: set[str] = set()

    def run(self) -> Grammar:
        for name in list(self.g.rules):
            if name not in self.taken:
                self.rules[name] = self.expr(self.rules[name])
        return replace(self.g, rules=self.rules, _interned={}, memo={}, _tagged={})

    def expr(self, e: Expr) -> Expr:
        t = type(e)
        if t is Alt:
            return self.alternation(e)  # type: ignore[arg-type]
        if t is Seq:
            return seq(*(self.expr(i) for i in e.items))  # type: ignore[attr-defined]
        if t is Rep:
            return replace(e, item=self.expr(e.item))  # type: ignore[arg-type, attr-defined]
        if t is Token:
            return replace(e, expr=self.expr(e.expr))  # type: ignore[arg-type, attr-defined]
        return e  # Dispatch (EBNF prints its parts as they are), atoms, Until, Ref

    def alternation(self, a: Alt) -> Expr:
        branches: list[_Branch] = []
        for item in a.items:
            if type(item) is Ref and self._inlinable(item.name):
                body = self.rules[item.name]
                if type(body) is not Alt:
                    self.taken.add(item.name)
                    branches.append((_items(body), item.name))
                    continue
            branches.append((_items(item), None))
        return self.factor(branches)

    def _inlinable(self, name: str) -> bool:
        return (self.uses.get(name) == 1 and name != self.g.root and name not in self.taken
                and name in self.rules)

    def factor(self, branches: list[_Branch]) -> Expr:
        groups: dict[object, list[_Branch]] = {}
        for b in branches:
            items = _open(b[0])
            head = items[0] if items else None
            key: object = ("lit", head.text[0]) if type(head) is Lit else ("item", head)  # type: ignore[union-attr]
            groups.setdefault(key, []).append(b)
        parts = []
        for key, members in groups.items():
            if len(members) == 1 or key == ("item", None):
                parts += [self.leaf(b) for b in members]
                continue
            members = [(_open(b[0]), b[1]) for b in members]
            if key[0] == "lit":  # type: ignore[index]
                texts = [b[0][0].text for b in members]  # type: ignore[attr-defined]
                k = len(_common_prefix(texts))
                common: Expr = Lit(texts[0][:k])
                rests = [(_items(seq(Lit(b[0][0].text[k:]), *b[0][1:])), b[1]) for b in members]  # type: ignore[attr-defined]
            else:
                common = members[0][0][0]
                rests = [(b[0][1:], b[1]) for b in members]
            parts.append(seq(self.expr(common), self.factor(rests)))
        return alt(*parts)

    def leaf(self, b: _Branch) -> Expr:
        """One branch left: its items, under the name of the rule it came from (if any)."""
        items, origin = b
        body = seq(*(self.expr(i) for i in items))
        if origin is None:
            return body
        self.rules[origin] = body
        return Ref(origin)


def _common_prefix(texts: list[str]) -> str:
    lo, hi = min(texts), max(texts)
    k = 0
    while k < len(lo) and lo[k] == hi[k]:
        k += 1
    return lo[:k]


def left_factor(g: Grammar) -> Grammar:
    """``g`` with every alternation's common beginnings taken out once (same language)."""
    return _Factor(g).run()
