"""Left factoring: alternatives that begin alike share their beginning (issue 10: llama.cpp speed).

llama.cpp keeps one grammar stack per alternative it is inside, and its sampler checks every
candidate token against every stack.  ``call ::= call-a | call-b | ...`` whose rules all begin with
``"{" ws "\\"name\\"" ws ":" ws`` keeps one stack per tool (three per tool where ``ws`` branches)
through those tokens, so each token there cost ~28x more with 100 tools than with one.  Factored,
``call ::= "{" ws "\\"name\\"" ws ":" ws "\\"tool_" ("0\\"" call-a | "1\\"" call-b ...)`` keeps one
stack up to the first character that tells the tools apart (a leading Token, such as ``ename``, is
looked through, so its items print inline).

:func:`left_factor` rewrites every alternation in a grammar that way: equal first items are taken
out once, literals sharing a first character are split at their longest common prefix.  A
referenced rule used by that alternation alone is looked into, and what remains of it keeps its
name.  ``A B | A C`` and ``A (B | C)`` are the same language, so the grammar's language is unchanged
(tests/test_left_factor.py checks it in llama.cpp and xgrammar).
"""

from __future__ import annotations

from dataclasses import replace

from .dfa import graph_of
from .ir import EMPTY, Alt, Dispatch, Expr, Grammar, Lit, Ref, Rep, Seq, Token, alt, seq

__all__ = ["left_factor"]

#: an alternative: its items, and the rule it was read from (None: written in the alternation)
_Branch = tuple[tuple[Expr, ...], "str | None"]


def _items(e: Expr) -> tuple[Expr, ...]:
    if e == EMPTY:
        return ()
    return e.items if type(e) is Seq and graph_of(e) is None else (e,)


def _open(items: tuple[Expr, ...]) -> tuple[Expr, ...]:
    """``items`` with a leading Token looked through (Tokens only mark Lark's terminals)."""
    while items and type(items[0]) is Token:
        items = _items(items[0].expr) + items[1:]  # type: ignore[attr-defined]
    return items


def _key(items: tuple[Expr, ...]) -> tuple[str, object] | None:
    """What a branch begins with, for grouping: a literal's first character, or its first item."""
    items = _open(items)
    if not items:
        return None
    head = items[0]
    return ("lit", head.text[0]) if type(head) is Lit else ("item", head)  # type: ignore[attr-defined]


def count_uses(rules: dict[str, Expr]) -> dict[str, int]:
    """How many times each rule is referenced.  A node shared by several rules (the JSON ``ws`` and
    string groups are one object each) is walked once and its references counted per use."""
    inside: dict[int, tuple[str, ...]] = {}

    def kids(e: Expr) -> tuple[Expr, ...]:
        t = type(e)
        if t is Seq or t is Alt:
            return e.items  # type: ignore[attr-defined]
        if t is Rep:
            return (e.item,)  # type: ignore[attr-defined]
        if t is Token:
            return (e.expr,)  # type: ignore[attr-defined]
        if t is Dispatch:
            return (e.then, e.lowered)  # type: ignore[attr-defined]
        return ()

    def refs(root: Expr) -> tuple[str, ...]:
        """The references under ``root``, in order; a walk with its own stack (a pattern's expression
        can nest hundreds deep)."""
        stack: list[tuple[Expr, bool]] = [(root, False)]
        while stack:
            e, done = stack.pop()
            if id(e) in inside:
                continue
            if type(e) is Ref:
                inside[id(e)] = (e.name,)  # type: ignore[attr-defined]
            elif done:
                inside[id(e)] = tuple(n for k in kids(e) for n in inside[id(k)])
            else:
                stack.append((e, True))
                stack.extend((k, False) for k in kids(e) if id(k) not in inside)
        return inside[id(root)]

    uses: dict[str, int] = {}
    for body in rules.values():
        for name in refs(body):
            uses[name] = uses.get(name, 0) + 1
    return uses


class _Factor:
    def __init__(self, g: Grammar) -> None:
        self.g = g
        self.uses = count_uses(g.rules)
        self.rules = dict(g.rules)
        #: rules looked into by an alternation (their remainder is set by it, never rewritten alone)
        self.taken: set[str] = set()
        self.memo: dict[Expr, Expr] = {}

    def run(self) -> Grammar:
        for name in list(self.g.rules):
            if name not in self.taken:
                self.rules[name] = self.expr(self.rules[name])
        return replace(self.g, rules=self.rules, _interned={}, memo={}, _tagged={})

    def expr(self, e: Expr) -> Expr:
        """``e`` factored; ``e`` itself when nothing in it changes (its hash and printed name kept)."""
        t = type(e)
        if t is not Alt and t is not Seq and t is not Rep and t is not Token or graph_of(e) is not None:
            return e  # Dispatch (EBNF prints its parts as they are), atoms, Until, Ref; an automaton's expression
            # (printed as that automaton: :func:`~.dfa.graph_of`) is kept as it is
        hit = self.memo.get(e)
        if hit is not None:
            return hit
        if t is Alt:
            out = self.alternation(e)  # type: ignore[arg-type]
        elif t is Seq:
            items = [self.expr(i) for i in e.items]  # type: ignore[attr-defined]
            out = e if all(a is b for a, b in zip(items, e.items, strict=True)) else seq(*items)  # type: ignore[attr-defined]
        elif t is Rep:
            item = self.expr(e.item)  # type: ignore[attr-defined]
            out = e if item is e.item else replace(e, item=item)  # type: ignore[attr-defined, arg-type]
        else:
            inner = self.expr(e.expr)  # type: ignore[attr-defined]
            out = e if inner is e.expr else replace(e, expr=inner)  # type: ignore[attr-defined, arg-type]
        self.memo[e] = out
        return out

    def alternation(self, a: Alt) -> Expr:
        branches: list[_Branch] = []
        for item in a.items:
            origin = item.name if type(item) is Ref and self._inlinable(item.name) else None  # type: ignore[attr-defined]
            # the rule as written, even if it was factored already: the memo maps an alternation as written
            # to its factored form, so the rule's remainder is factored again consistently, where looking
            # into the factored body would find an equal alternation whose branches' rules have lost their
            # common beginning, and take it out twice
            if origin is not None and type(self.g.rules[origin]) is not Alt:
                branches.append((_items(self.g.rules[origin]), origin))
            else:
                branches.append((_items(item), None))
        keys = [k for k in (_key(b[0]) for b in branches) if k is not None]
        if len(set(keys)) == len(keys):  # nothing to share: the branches as they are
            items = [self.expr(i) for i in a.items]
            return a if all(x is y for x, y in zip(items, a.items, strict=True)) else alt(*items)
        self.taken.update(b[1] for b in branches if b[1] is not None)
        return self.factor(branches)

    def _inlinable(self, name: str) -> bool:
        return (self.uses.get(name) == 1 and name != self.g.root and name not in self.taken
                and name in self.rules)

    def factor(self, branches: list[_Branch]) -> Expr:
        if all(len(b[0]) == 1 and type(b[0][0]) is Lit and b[1] is None for b in branches):
            return _factor_texts([b[0][0].text for b in branches])  # type: ignore[attr-defined]
        groups: dict[object, list[_Branch]] = {}
        for b in branches:
            groups.setdefault(_key(b[0]), []).append(b)
        parts = []
        for key, members in groups.items():
            if len(members) == 1 or key is None:
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


def _factor_texts(texts: list[str]) -> Expr:
    """:meth:`_Factor.factor` over literals alone (an enum's values, issue 13): the same trie, built
    on the strings rather than on IR sequences, which cost ~10x more per level."""
    groups: dict[str, list[str]] = {}
    for t in texts:
        groups.setdefault(t[:1], []).append(t)
    parts: list[Expr] = []
    for first, members in groups.items():
        if len(members) == 1 or not first:
            parts += [Lit(m) if m else EMPTY for m in members]
            continue
        k = len(_common_prefix(members))
        parts.append(seq(Lit(members[0][:k]), _factor_texts([m[k:] for m in members])))
    return alt(*parts)


def _common_prefix(texts: list[str]) -> str:
    lo, hi = min(texts), max(texts)
    k = 0
    while k < len(lo) and lo[k] == hi[k]:
        k += 1
    return lo[:k]


def left_factor(g: Grammar) -> Grammar:
    """``g`` with every alternation's common beginnings taken out once (same language)."""
    return _Factor(g).run()
