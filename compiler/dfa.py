"""A regular IR expression -> DFA -> an unambiguous Python regex (Lark terminals of ``pattern`` strings).

Python's ``re`` backtracks: a schema pattern such as ``^(a+)+$`` printed as it is takes exponential
time on ``aaaa…b``. Here the expression becomes a DFA over character intervals (subset
construction), and state elimination turns the DFA back into a regex. Every word has one path in a
DFA and the elimination keeps paths apart, so the regex is unambiguous and ``re`` explores each
(prefix, position) at most once: matching is linear in the text for a fixed pattern. The DFA and
the regex are capped (:data:`MAX_STATES`, :data:`MAX_REGEX`); beyond them :class:`DfaLimit`.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from .charsets import MAXCP, Ranges, negate
from .ir import EMPTY, GRAPH, Alt, Chars, Expr, Grammar, Lit, Ref, Rep, Seq, Token, alt, seq

#: most DFA states (and NFA nodes x 20) for one pattern
MAX_STATES = 2000
#: longest regex text for one pattern
MAX_REGEX = 200_000
#: caps of a patterns' intersection written out (:func:`.regex.patterns_to_ir`): DFA states, expression nodes
MAX_MEET_STATES = 200
MAX_MEET_NODES = 20_000
#: the first code point past Unicode (and apart from it) that stands for a mark: a run of fixed-length items read as
#: one symbol (:func:`.lengths._marked`); no character class holds one, and the automata keep each apart
MARKS = MAXCP + 0x10001


class DfaLimit(Exception):
    """The pattern's automaton or regex is larger than the caps (or uses a non-regular node)."""


def _ranges(c: Chars) -> Ranges:
    return negate(c.ranges) if c.negated else tuple(sorted(c.ranges))


class _Nfa:
    def __init__(self, grammar: Grammar | None, max_nodes: int = MAX_STATES * 20) -> None:
        self.eps: list[list[int]] = []
        self.moves: list[list[tuple[Ranges, int]]] = []
        self.g = grammar
        self.max_nodes = max_nodes

    def node(self) -> int:
        if len(self.eps) > self.max_nodes:
            raise DfaLimit(f"more than {self.max_nodes} automaton nodes")
        self.eps.append([])
        self.moves.append([])
        return len(self.eps) - 1

    def build(self, e: Expr, start: int, seen: frozenset[str] = frozenset()) -> int:
        """Thompson construction from ``start``; returns the end node."""
        graph = graph_of(e)
        if graph is not None:  # the automaton ``e`` was written from, rather than ``e`` written out as a tree
            edges, src, dst = graph
            nodes: dict[int, int] = {}

            def at(q: int) -> int:  # (``src`` too is a node of its own: no edge leads back into ``start``)
                if q not in nodes:
                    nodes[q] = self.node()
                return nodes[q]

            self.eps[start].append(at(src))
            for (a, b), label in edges.items():
                if isinstance(label, Chars):  # a DFA's edge: one move, so that the DFA built back has its states
                    self.moves[at(a)].append((_ranges(label), at(b)))
                else:
                    self.eps[self.build(label, at(a), seen)].append(at(b))
            return at(dst)
        if isinstance(e, Token):
            return self.build(e.expr, start, seen)
        if isinstance(e, Lit):
            cur = start
            for ch in e.text:
                nxt = self.node()
                self.moves[cur].append((((ord(ch), ord(ch)),), nxt))
                cur = nxt
            return cur
        if isinstance(e, Chars):
            end = self.node()
            rs = _ranges(e)
            if rs:
                self.moves[start].append((rs, end))
            return end
        if isinstance(e, Seq):
            cur = start
            for item in e.items:
                cur = self.build(item, cur, seen)
            return cur
        if isinstance(e, Alt):
            end = self.node()
            for item in e.items:
                s = self.node()
                self.eps[start].append(s)
                self.eps[self.build(item, s, seen)].append(end)
            return end
        if isinstance(e, Rep):
            cur = start
            for _ in range(e.min):
                cur = self.build(e.item, cur, seen)
            if e.max is None:
                loop = self.node()
                self.eps[cur].append(loop)
                self.eps[self.build(e.item, loop, seen)].append(loop)
                return loop
            end = self.node()
            for _ in range(e.max - e.min):
                self.eps[cur].append(end)
                cur = self.build(e.item, cur, seen)
            self.eps[cur].append(end)
            return end
        if isinstance(e, Ref) and self.g is not None and e.name not in seen:
            return self.build(self.g.rules[e.name], start, seen | {e.name})
        raise DfaLimit(f"{type(e).__name__} is not a regular pattern node")


def _closure(nfa: _Nfa, nodes: set[int]) -> frozenset[int]:
    todo = list(nodes)
    out = set(nodes)
    while todo:
        for t in nfa.eps[todo.pop()]:
            if t not in out:
                out.add(t)
                todo.append(t)
    return frozenset(out)


def build_dfa(e: Expr, grammar: Grammar | None = None, max_states: int = MAX_STATES
              ) -> tuple[list[dict[int, int]], set[int], list[int]]:
    """``(transitions by interval index, accepting states, interval starts)``; state 0 is the start;
    :class:`DfaLimit` past ``max_states`` states."""
    trans, labels, starts = build_labeled_dfa((e,), grammar, max_states)
    return trans, {s for s, lab in enumerate(labels) if lab}, starts


def build_labeled_dfa(exprs: tuple[Expr, ...], grammar: Grammar | None = None, max_states: int = MAX_STATES
                      ) -> tuple[list[dict[int, int]], list[frozenset[int]], list[int]]:
    """One DFA for several expressions at once: ``(transitions by interval index, labels, interval
    starts)``; ``labels[s]`` holds the indices of the expressions that accept in state ``s``, so a
    word's state tells exactly which of the expressions match it.  State 0 is the start."""
    nfa = _Nfa(grammar, max_states * 20)
    start = nfa.node()
    finals: list[int] = []
    for e in exprs:
        begin, final = nfa.node(), nfa.node()
        nfa.eps[start].append(begin)
        nfa.eps[nfa.build(e, begin)].append(final)
        finals.append(final)
    points = {0}
    for moves in nfa.moves:
        for rs, _ in moves:
            for lo, hi in rs:
                points.add(lo)
                if hi < MAXCP or hi >= MARKS:
                    points.add(hi + 1)
                if hi >= MARKS:  # the gap past Unicode: no class runs into the marks
                    points.add(MAXCP + 1)
    starts = sorted(points)
    first = _closure(nfa, {start})
    ids = {first: 0}
    order = [first]
    trans: list[dict[int, int]] = []
    labels: list[frozenset[int]] = []
    closures: dict[frozenset[int], frozenset[int]] = {}
    k = 0
    while k < len(order):
        state = order[k]
        labels.append(frozenset(i for i, f in enumerate(finals) if f in state))
        targets: dict[int, set[int]] = {}
        for n in state:
            for rs, t in nfa.moves[n]:
                for lo, hi in rs:
                    for iv in range(bisect_right(starts, lo) - 1, bisect_right(starts, hi)):
                        targets.setdefault(iv, set()).add(t)
        row: dict[int, int] = {}
        for iv, ts in targets.items():
            moved = frozenset(ts)  # the intervals of a class (any letter but G) mostly move alike: one closure each
            nxt = closures.get(moved)
            if nxt is None:
                nxt = closures[moved] = _closure(nfa, ts)
            if nxt not in ids:
                if len(order) >= max_states:
                    raise DfaLimit(f"more than {max_states} DFA states")
                ids[nxt] = len(order)
                order.append(nxt)
            row[iv] = ids[nxt]
        trans.append(row)
        k += 1
    return trans, labels, starts


def run(trans: list[dict[int, int]], starts: list[int], word: str) -> int | None:
    """The state ``word`` ends in, from state 0; None when it leaves the DFA."""
    state: int | None = 0
    for ch in word:
        state = trans[state].get(bisect_right(starts, ord(ch)) - 1)
        if state is None:
            return None
    return state


def dfa_expr(trans: list[dict[int, int]], accepting: set[int], starts: list[int], complete: bool = False,
             max_nodes: int | None = None, max_states: int | None = None, minimal: bool = False) -> Expr:
    """The words that end in an ``accepting`` state, as regular IR over :class:`Chars` (state
    elimination, as :func:`dfa_regex`; every word keeps its one path, so the expression is
    unambiguous).  ``complete``: a word that leaves the DFA (a missing transition) ends in a sink
    state, which counts as accepting when ``-1`` is in ``accepting`` (a complement).  ``max_nodes``
    caps the expression's size written out as a tree (:func:`tree_size`: what a regex printer writes),
    ``max_states`` the live states eliminated (elimination is cubic in them), else :class:`DfaLimit`.
    ``minimal``: minimize first (a DFA built for several languages at once, as the key classes' is, has states
    that one of them does not tell apart; the automaton noted on the result is then minimal too)."""
    trans = [dict(row) for row in trans]
    if complete:
        sink = len(trans)
        everything = range(len(starts))
        trans.append(dict.fromkeys(everything, sink))
        for row in trans[:sink]:
            for iv in everything:
                row.setdefault(iv, sink)
        if -1 in accepting:
            accepting = (accepting - {-1}) | {sink}
    if minimal:
        trans, accepting = minimize(trans, accepting)
    live = _live(trans, accepting)
    never = Chars(())
    if 0 not in live:
        return never
    if max_states is not None and len(live) > max_states:
        raise DfaLimit(f"more than {max_states} states to eliminate")
    edges: dict[tuple[int, int], Expr] = {k: Chars(_spans(ivs, starts)) for k, ivs in _edges(trans, live).items()}
    src, dst = len(trans), len(trans) + 1
    edges[(src, 0)] = EMPTY
    for s in accepting & live:
        edges[(s, dst)] = EMPTY

    graph = (dict(edges), src, dst)

    def path(a: Expr, loop: Expr | None, b: Expr) -> Expr:
        return _then(_then(a, EMPTY if loop is None else Rep(loop, 0, None)), b)

    def check(label: Expr) -> None:
        if len(edges) > MAX_STATES * 20:
            raise DfaLimit(f"more than {MAX_STATES * 20} automaton edges")
        if max_nodes is not None and tree_size(label) > max_nodes:
            raise DfaLimit(f"an expression of more than {max_nodes} nodes")

    _eliminate(edges, live, path, _either, check)
    return with_graph(edges.get((src, dst), never), graph)


#: an expression's automaton: labelled edges ``(from, to) -> expression``, the start and the end node
Graph = tuple[dict[tuple[int, int], Expr], int, int]


def with_graph(e: Expr, graph: Graph) -> Expr:
    """``e``, noting on it the automaton it was written from (``graph``: the same language).  State elimination
    writes an expression whose parts are shared many times over (a key class's complement: 10**5 nodes written
    out as a tree, from 30 states); an automaton built from ``e`` (:class:`_Nfa`) follows the graph instead.
    Kept on the node itself, as its hash and :func:`tree_size` are: an equal expression built elsewhere has the
    same language, so either's graph serves both."""
    if isinstance(e, (Seq, Alt, Rep)):
        e.__dict__[GRAPH] = graph
    return e


def graph_of(e: Expr) -> Graph | None:
    """The automaton :func:`with_graph` noted on ``e``, if any."""
    return e.__dict__.get(GRAPH) if isinstance(e, (Seq, Alt, Rep)) else None


def minimize(trans: list[dict[int, int]], accepting: set[int]) -> tuple[list[dict[int, int]], set[int]]:
    """The minimal DFA of the same language (Hopcroft's partition refinement; state 0 stays the start, the others
    are numbered in the order of their first state): fewer states, so state elimination writes a smaller expression.
    States that reach no accepting one are left out with the edges into them.

    Moore's refinement, which this replaced, takes a round per state along a chain: the other keys beside a key
    pattern of up to 255 characters (``[a-z]{1,255}``) took 1,021 rounds over 2,900 states, and that Lark grammar
    18 s to write (1.1 s now); this takes O(edges * log states).  The predecessor table is dense (states times
    symbol classes), within the callers' state caps."""
    n = len(trans)
    sink = n  # the missing edges' target: makes the automaton complete, as the refinement needs
    symbols = sorted({iv for row in trans for iv in row})
    into: dict[int, list[list[int]]] = {iv: [[] for _ in range(n + 1)] for iv in symbols}
    for s in range(n):
        row = trans[s]
        for iv in symbols:
            into[iv][row.get(iv, sink)].append(s)
    for iv in symbols:
        into[iv][sink].append(sink)
    finals = set(accepting)
    blocks = [b for b in (set(finals), set(range(n + 1)) - finals) if b]
    block_of = [0] * (n + 1)
    for i, b in enumerate(blocks):
        for s in b:
            block_of[s] = i
    work = [min(range(len(blocks)), key=lambda i: len(blocks[i]))] if len(blocks) == 2 else []
    waiting = set(work)
    while work:
        splitter = list(blocks[work[-1]])
        waiting.discard(work.pop())
        for iv in symbols:
            pre = into[iv]
            touched: dict[int, list[int]] = {}
            for t in splitter:
                for s in pre[t]:
                    touched.setdefault(block_of[s], []).append(s)
            for b, members in touched.items():
                if len(members) == len(blocks[b]):
                    continue
                moved = set(members)
                blocks[b] -= moved
                blocks.append(moved)
                new = len(blocks) - 1
                for s in moved:
                    block_of[s] = new
                # b waiting: both halves must be (b is now one of them); else the smaller half is enough
                add = new if b in waiting or len(moved) <= len(blocks[b]) else b
                if add not in waiting:
                    waiting.add(add)
                    work.append(add)
    dead = block_of[sink]
    if block_of[0] == dead:
        return [{}], set()
    renumber: dict[int, int] = {block_of[0]: 0}
    for s in range(n):
        if block_of[s] != dead:
            renumber.setdefault(block_of[s], len(renumber))
    out: list[dict[int, int]] = [{} for _ in renumber]
    for s in range(n):
        if block_of[s] != dead:
            out[renumber[block_of[s]]] = {iv: renumber[block_of[t]] for iv, t in trans[s].items()
                                          if block_of[t] != dead}
    return out, {renumber[block_of[s]] for s in finals}


Dfa = tuple[list[dict[int, int]], set[int], list[int]]


def product(a: Dfa, b: Dfa) -> Dfa:
    """The DFA of the words both DFAs accept (``(transitions, accepting, interval starts)`` each, over
    their own intervals): states are pairs, intervals the common refinement of both."""
    (ta, aa, sa), (tb, ab, sb) = a, b
    starts = sorted(set(sa) | set(sb))
    ia = [bisect_right(sa, p) - 1 for p in starts]
    ib = [bisect_right(sb, p) - 1 for p in starts]
    ids = {(0, 0): 0}
    order = [(0, 0)]
    trans: list[dict[int, int]] = []
    for x, y in order:  # grows while it is read
        row: dict[int, int] = {}
        for iv in range(len(starts)):
            nx, ny = ta[x].get(ia[iv]), tb[y].get(ib[iv])
            if nx is None or ny is None:
                continue
            if (nx, ny) not in ids:
                if len(order) >= MAX_STATES:
                    raise DfaLimit(f"more than {MAX_STATES} DFA states")
                ids[(nx, ny)] = len(order)
                order.append((nx, ny))
            row[iv] = ids[(nx, ny)]
        trans.append(row)
    return trans, {i for i, (x, y) in enumerate(order) if x in aa and y in ab}, starts


def intersection(a: Expr, b: Expr, max_states: int | None = None, max_nodes: int | None = None) -> Expr:
    """The words both regular expressions match, as one unambiguous expression (product DFA, minimized);
    :class:`DfaLimit` past the caps (:func:`dfa_expr`)."""
    trans, labels, starts = build_labeled_dfa((a, b))
    trans, accepting = minimize(trans, {s for s, lab in enumerate(labels) if len(lab) == 2})
    return dfa_expr(trans, accepting, starts, max_states=max_states, max_nodes=max_nodes)


def tree_size(e: Expr) -> int:
    """The number of IR nodes in ``e`` written out as a tree (shared sub-expressions counted each time).

    Kept on the node itself (as its hash is), not in a cache keyed by the expression: a lookup there
    compares an equal tree built elsewhere node by node, which costs the whole tree's size at every level
    (state elimination asks for each new label's size, and a second compile builds the same labels anew)."""
    stack = [e]
    while stack:
        x = stack[-1]
        if not isinstance(x, (Seq, Alt, Rep, Token)) or "_size" in x.__dict__:
            stack.pop()
            continue
        kids = x.items if isinstance(x, (Seq, Alt)) else (x.item if isinstance(x, Rep) else x.expr,)
        todo = [k for k in kids if isinstance(k, (Seq, Alt, Rep, Token)) and "_size" not in k.__dict__]
        if todo:  # sizes below first: a walk with its own stack, as a pattern's expression nests deep
            stack.extend(todo)
            continue
        stack.pop()
        inner = [k.__dict__ for k in kids if isinstance(k, (Seq, Alt, Rep, Token))]
        x.__dict__["_size"] = 1 + len(kids) - len(inner) + sum(d["_size"] for d in inner)
        x.__dict__["_depth"] = 1 + max((d["_depth"] for d in inner), default=1)
    return e.__dict__["_size"] if isinstance(e, (Seq, Alt, Rep, Token)) else 1


def tree_depth(e: Expr) -> int:
    """How deep ``e`` nests (a leaf is 1): what a recursive printer's stack holds.  Kept as :func:`tree_size` is."""
    tree_size(e)
    return e.__dict__["_depth"] if isinstance(e, (Seq, Alt, Rep, Token)) else 1


def _live(trans: list[dict[int, int]], accepting: set[int]) -> set[int]:
    """The states from which an accepting state can be reached."""
    live = set(accepting)
    changed = True
    while changed:
        changed = False
        for s in range(len(trans)):
            if s not in live and any(t in live for t in trans[s].values()):
                live.add(s)
                changed = True
    return live


def _edges(trans: list[dict[int, int]], live: set[int]) -> dict[tuple[int, int], list[int]]:
    """The intervals of each edge between live states."""
    out: dict[tuple[int, int], list[int]] = {}
    for s in sorted(live):
        for iv, t in trans[s].items():
            if t in live:
                out.setdefault((s, t), []).append(iv)
    return out


def _eliminate(edges: dict[tuple[int, int], Any], states: set[int], path: Callable[[Any, Any, Any], Any],
               union: Callable[[Any, Any], Any], check: Callable[[Any], None]) -> None:
    """State elimination over ``edges`` (labels of any kind: regex text, IR), in place: each of ``states``
    is removed, its in-edges joined to its out-edges by ``path(in, loop or None, out)``, parallel edges
    by ``union``; ``check(new label)`` enforces the size caps.  Fewest in x out edges first (small output);
    each state's neighbours are kept (in the edges' order), so a choice costs a pass over the states, not over
    the edges."""
    ins: dict[int, dict[int, None]] = {}
    outs: dict[int, dict[int, None]] = {}
    for a, b in edges:
        outs.setdefault(a, {})[b] = None
        ins.setdefault(b, {})[a] = None
    remaining = set(states)

    def cost(k: int) -> tuple[int, int]:
        i, o = ins.get(k, {}), outs.get(k, {})
        return (len(i) - (k in i)) * (len(o) - (k in o)), k

    while remaining:
        k = min(remaining, key=cost)
        remaining.remove(k)
        loop = edges.pop((k, k), None)
        into = [(a, edges.pop((a, k))) for a in ins.pop(k, {}) if a != k]
        out_of = [(b, edges.pop((k, b))) for b in outs.pop(k, {}) if b != k]
        for a, _ in into:
            del outs[a][k]
        for b, _ in out_of:
            del ins[b][k]
        for a, x1 in into:
            for b, x2 in out_of:
                label = path(x1, loop, x2)
                old = edges.get((a, b))
                edges[(a, b)] = label if old is None else union(old, label)
                outs.setdefault(a, {})[b] = None
                ins.setdefault(b, {})[a] = None
                check(edges[(a, b)])


def count_of(e: Expr) -> tuple[Chars, int, int | None] | None:
    """``e`` as one character class repeated ``lo`` to ``hi`` times (None: unbounded), if it is one."""
    if isinstance(e, Chars):
        return e, 1, 1
    if isinstance(e, Rep) and isinstance(e.item, Chars):
        return e.item, e.min, e.max
    return None


def _counted(c: Chars, lo: int, hi: int | None) -> Expr:
    return c if lo == hi == 1 else EMPTY if hi == 0 else Rep(c, lo, hi)


def _then(a: Expr, b: Expr) -> Expr:
    """``a`` then ``b``; a class counted twice in a row is counted once (``C C{0,2}`` is ``C{1,3}``), so a chain of
    states that each read the same class (a length bound: ``maxLength: 1024``) is one bounded repetition, not an
    expression nested a level per character (which engines then unroll, and Python's recursion cannot walk)."""
    if a == EMPTY or b == EMPTY:
        return b if a == EMPTY else a
    head = a.items[-1] if isinstance(a, Seq) else a
    tail = b.items[0] if isinstance(b, Seq) else b
    x, y = count_of(head), count_of(tail)
    if x is None or y is None or x[0] != y[0]:
        return seq(a, b)
    hi = None if x[2] is None or y[2] is None else x[2] + y[2]
    joined = _counted(x[0], x[1] + y[1], hi)
    before = a.items[:-1] if isinstance(a, Seq) else ()
    after = b.items[1:] if isinstance(b, Seq) else ()
    return seq(*before, joined, *after)


def _either(a: Expr, b: Expr) -> Expr:
    """``a | b``, written ``b?`` when ``a`` is the empty word (and the other way round); one class counted over
    two ranges of counts that meet is counted over their union (``C | C{2,3}`` is ``C{1,3}``, ``ε | C{1,3}`` is
    ``C{0,3}``): still one parse per word."""
    x = count_of(a) if a != EMPTY else None
    y = count_of(b) if b != EMPTY else None
    if a == EMPTY and y is not None and y[1] <= 1:
        return _counted(y[0], 0, y[2])
    if b == EMPTY and x is not None and x[1] <= 1:
        return _counted(x[0], 0, x[2])
    if a == EMPTY:
        return Rep(b, 0, 1)
    if b == EMPTY:
        return Rep(a, 0, 1)
    if x is not None and y is not None and x[0] == y[0]:
        (lo1, hi1), (lo2, hi2) = sorted([(x[1], x[2]), (y[1], y[2])], key=lambda r: r[0])
        if hi1 is None or lo2 <= hi1 + 1:  # the counts meet: one range
            return _counted(x[0], lo1, None if hi1 is None or hi2 is None else max(hi1, hi2))
    return alt(a, b)


def _spans(ivs: list[int], starts: list[int]) -> tuple[tuple[int, int], ...]:
    spans: list[tuple[int, int]] = []
    for iv in sorted(ivs):
        lo = starts[iv]
        hi = starts[iv + 1] - 1 if iv + 1 < len(starts) else MAXCP
        if spans and spans[-1][1] + 1 == lo:
            spans[-1] = (spans[-1][0], hi)
        else:
            spans.append((lo, hi))
    return tuple(spans)


def first_of_class(e: Expr) -> tuple[tuple[Chars, Chars] | None, Chars, Chars, Chars] | None:
    """``(head, N, X, C)`` when ``e``'s language is ``N* X C*`` (``head`` None) or ``X0 C* | N0 N* X C*`` (``head``:
    ``(N0, X0)``, a first character read on its own), ``N`` and ``X`` disjoint, none of them empty: its minimal DFA
    has a state that loops on ``N`` and goes on ``X`` to an accepting state that loops on ``C`` (an unanchored
    one-character pattern, ``\\S``, ``[*?]``, ``.*[^ ].*$``), maybe after a start of its own (``^(?!\\s*$).+``);
    else None."""
    dfa = small_dfa(e, 3, max_built=64)
    if dfa is None:
        return None
    moves, ends = dfa
    live = set(moves)
    if len(ends) != 1 or 0 in ends or len(live) < 2:
        return None
    (end,) = ends
    rest = moves[end].get(end)
    if rest is None or set(moves[end]) != {end}:
        return None
    (loop,) = live - {end} if len(live) == 2 else live - {end, 0}
    n, x = moves[loop].get(loop), moves[loop].get(end)
    if n is None or x is None or set(moves[loop]) != {loop, end}:
        return None
    if loop == 0:
        return None, n, x, rest
    x0, n0 = moves[0].get(end), moves[0].get(loop)
    if n0 is None or not set(moves[0]) <= {loop, end}:
        return None
    return (n0, x0 if x0 is not None else Chars(())), n, x, rest


def small_dfa(e: Expr, max_states: int, max_built: int = MAX_STATES
              ) -> tuple[dict[int, dict[int, Chars]], set[int]] | None:
    """``e``'s minimal DFA, live states only, as ``(moves, accepting)``: ``moves[q][r]`` the characters that go from
    ``q`` to ``r``; the start is 0.  None past ``max_states`` live states, or when ``e`` matches nothing, or when its
    DFA before minimizing has more than ``max_built`` states (the minimizing is quadratic in them: a caller that
    wants a small automaton says how large a start it will pay for)."""
    dfa = _live_dfa(e, max_built)
    return None if dfa is None or len(dfa[0]) > max_states else dfa


def language_from(e: Expr, state: int, max_nodes: int, max_built: int = MAX_STATES) -> Expr:
    """The words that take ``e``'s minimal DFA (:func:`small_dfa`'s states) from ``state`` to acceptance, as one
    unambiguous expression (:func:`dfa_expr`, the state put first); :class:`DfaLimit` past ``max_nodes``."""
    dfa = _minimal(e, max_built)
    if dfa is None:
        raise DfaLimit("no automaton")
    trans, accepting, starts = dfa
    swap = {0: state, state: 0}  # an involution: new state q is old state swap(q)
    moved = [{iv: swap.get(t, t) for iv, t in trans[swap.get(q, q)].items()} for q in range(len(trans))]
    return dfa_expr(moved, {swap.get(a, a) for a in accepting}, starts, max_nodes=max_nodes)


@lru_cache(maxsize=256)
def _minimal(e: Expr, max_built: int = MAX_STATES) -> tuple[list[dict[int, int]], set[int], list[int]] | None:
    """``e``'s minimal DFA as ``(trans, accepting, starts)``, built once per expression; None past the caps."""
    try:
        trans, accepting, starts = build_dfa(e, max_states=max_built)
    except DfaLimit:
        return None
    trans, accepting = minimize(trans, accepting)
    return trans, accepting, starts


@lru_cache(maxsize=256)
def _live_dfa(e: Expr, max_built: int = MAX_STATES) -> tuple[dict[int, dict[int, Chars]], set[int]] | None:
    """:func:`small_dfa` without the cap, built once per expression (a length meet asks for the same pattern's
    shape and then its counted product)."""
    dfa = _minimal(e, max_built)
    if dfa is None:
        return None
    trans, accepting, starts = dfa
    live = _live(trans, accepting)
    if 0 not in live:
        return None
    moves: dict[int, dict[int, Chars]] = {}
    for q in live:
        by: dict[int, list[int]] = {}
        for iv, t in trans[q].items():
            if t in live:
                by.setdefault(t, []).append(iv)
        moves[q] = {t: Chars(_spans(ivs, starts)) for t, ivs in by.items()}
    return moves, accepting & live


def class_char(cp: int) -> str:
    """One code point inside a regex character class (Python ``re`` and Lark), escaped where it must be."""
    ch = chr(cp)
    if ch in "\\]^-[":
        return "\\" + ch
    if ch == "\n":
        return "\\n"
    if ch == "\t":
        return "\\t"
    if cp < 0x20 or cp == 0x7F or 0xD800 <= cp <= 0xDFFF or cp in (0x2028, 0x2029, 0x85):
        return f"\\x{cp:02x}" if cp < 0x100 else f"\\u{cp:04x}"
    if ch == "/":
        return "\\/"
    return ch


def _class_rx(spans: tuple[tuple[int, int], ...]) -> str:
    if spans == ((0, MAXCP),):
        return "[\\s\\S]"
    body = "".join(class_char(a) if a == b else f"{class_char(a)}-{class_char(b)}" for a, b in spans)
    return f"[{body}]"


def dfa_regex(e: Expr, grammar: Grammar | None = None, nonempty: bool = False) -> str:
    """An unambiguous regex for ``e`` (without the empty string when ``nonempty``)."""
    classes, accepting, live = _minimal_edges(e, grammar)
    if not accepting:
        return "(?!)"
    edges: dict[tuple[int, int], str] = {k: _class_rx(spans) for k, spans in classes.items()}
    src, dst = -1, -2  # (no state's number)
    if nonempty:
        # a copy of the start state that is not accepting: the empty word is gone, nothing else
        for (a, b), rx in list(edges.items()):
            if a == 0:
                edges[(src, b)] = rx
    else:
        edges[(src, 0)] = ""
    for s in accepting:
        edges[(s, dst)] = ""
    size = [0]

    def path(r1: str, loop: str | None, r2: str) -> str:
        star = "" if loop is None else (f"{loop}*" if _atomic(loop) else f"(?:{loop})*")
        return _cat(r1, star, r2)

    def check(rx: str) -> None:
        size[0] += len(rx)
        if size[0] > MAX_REGEX * 4 or len(rx) > MAX_REGEX:
            raise DfaLimit(f"the regex would exceed {MAX_REGEX} characters")

    _eliminate(edges, live, path, _union, check)
    out = edges.get((src, dst))
    if out is None:
        return "(?!)"
    return f"(?:{out})"


def _minimal_edges(e: Expr, grammar: Grammar | None, max_states: int = MAX_STATES
                   ) -> tuple[dict[tuple[int, int], tuple[tuple[int, int], ...]], set[int], set[int]]:
    """``e``'s minimal DFA: its live edges (the code point spans of each pair of states), live accepting states and
    live states; the start is state 0 (no edges and no accepting state: no word)."""
    trans, accepting, starts = build_dfa(e, grammar, max_states)
    trans, accepting = minimize(trans, accepting)
    live = _live(trans, accepting)
    if 0 not in live:
        return {}, set(), set()
    return {k: _spans(ivs, starts) for k, ivs in _edges(trans, live).items()}, accepting & live, live


def dfa_edges(e: Expr, grammar: Grammar | None = None, max_states: int = MAX_STATES
              ) -> tuple[list[tuple[int, int, Chars]], set[int]]:
    """``e``'s minimal DFA as its live edges ``(from, to, class)`` and its live accepting states (start: state 0).
    For a printer that writes the automaton itself, as rules, where its regex would be too large
    (:mod:`.emit.lark`).  ``max_states`` caps the DFA before it is minimized."""
    classes, accepting, _ = _minimal_edges(e, grammar, max_states)
    return [(a, b, Chars(spans)) for (a, b), spans in classes.items()], accepting


def _atomic(rx: str) -> bool:
    """Whether ``rx`` is one unit for a quantifier (a class, or one group)."""
    if rx.startswith("[") and rx.endswith("]") and rx.count("[") == 1:
        return True
    return rx in ("[\\s\\S]",)


def _group(rx: str) -> str:
    return rx if "|" not in rx or _atomic(rx) else f"(?:{rx})"


def _cat(*parts: str) -> str:
    return "".join(_group(p) for p in parts)


def _union(a: str, b: str) -> str:
    if a == "":
        return f"(?:{b})?"
    if b == "":
        return f"(?:{a})?"
    return f"(?:{a}|{b})"


__all__ = ["DfaLimit", "backtracks", "build_dfa", "build_labeled_dfa", "class_char", "dfa_edges", "dfa_expr",
           "dfa_regex"]


def _first(e: Expr, grammar: Grammar | None) -> Ranges | None:
    """Characters ``e`` can start with (None: unknown / could be empty-led)."""
    if isinstance(e, Token):
        return _first(e.expr, grammar)
    if isinstance(e, Lit):
        return ((ord(e.text[0]), ord(e.text[0])),) if e.text else None
    if isinstance(e, Chars):
        return _ranges(e)
    if isinstance(e, Seq) and e.items:
        return _first(e.items[0], grammar)
    if isinstance(e, Rep) and e.min > 0:
        return _first(e.item, grammar)
    return None


def _overlap(a: Ranges, b: Ranges) -> bool:
    return any(lo1 <= hi2 and lo2 <= hi1 for lo1, hi1 in a for lo2, hi2 in b)


def _repeats(e: Expr) -> bool:
    """Whether ``e`` holds a quantifier of variable count."""
    if isinstance(e, Token):
        return _repeats(e.expr)
    if isinstance(e, Rep):
        return e.max != e.min or _repeats(e.item)
    if isinstance(e, (Seq, Alt)):
        return any(_repeats(i) for i in e.items)
    return False


def _branching(e: Expr, grammar: Grammar | None) -> bool:
    """Whether ``e`` holds an alternation whose branches may start alike."""
    if isinstance(e, Token):
        return _branching(e.expr, grammar)
    if isinstance(e, Alt):
        lits = [i.text for i in e.items if isinstance(i, Lit)]
        others = [i for i in e.items if not isinstance(i, Lit)]
        # two literals clash only when one is a prefix of the other (escapes such as \n, \u0000 do not)
        if any(a.startswith(b) for a in lits for b in lits if a is not b) or "" in lits:
            return True
        firsts = [_first(i, grammar) for i in others] + [((ord(t[0]), ord(t[0])),) for t in lits]
        if any(f is None for f in firsts):
            return True
        pairs = [(i, j) for i in range(len(others)) for j in range(i + 1, len(firsts))]
        if any(_overlap(firsts[i], firsts[j]) for i, j in pairs):  # type: ignore[arg-type]
            return True
        return any(_branching(i, grammar) for i in e.items)
    if isinstance(e, Seq):
        return any(_branching(i, grammar) for i in e.items)
    if isinstance(e, Rep):
        return _branching(e.item, grammar)
    return False


def backtracks(e: Expr, grammar: Grammar | None = None) -> bool:
    """Whether a backtracking matcher may take exponential time on ``e`` printed as it is: a
    repetition of something that itself repeats, or that branches with alike first characters
    (``(a+)+``, ``(a|aa)*``, ``(\\w+\\s?)+``). Conservative: False means the plain regex is safe."""
    if isinstance(e, Token):
        return backtracks(e.expr, grammar)
    if isinstance(e, Rep):
        if (e.max is None or e.max > 1) and (_repeats(e.item) or _branching(e.item, grammar)):
            return True
        return backtracks(e.item, grammar)
    if isinstance(e, (Seq, Alt)):
        return any(backtracks(i, grammar) for i in e.items)
    return False
