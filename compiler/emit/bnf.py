"""Print the IR as GBNF (llama.cpp) or xgrammar EBNF; the two differ only in a few spellings.

A group the printed grammar would spell out more than once (the JSON whitespace, a punctuation
token, the JSON string ...) is printed once, as a named rule (:func:`plan_shared`): the engines
build states per inline copy.  ``share=False`` prints every copy inline (the same language).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

from ..automaton import until_rules
from ..dfa import Graph, graph_of
from ..factor import left_factor
from ..ir import (
    EMPTY,
    RULE_NAMES,
    Alt,
    Chars,
    Dispatch,
    Expr,
    Grammar,
    Lit,
    Ref,
    Rep,
    Seq,
    Token,
    Until,
    alt,
    seq,
    unbounded_chars,
)


@lru_cache(maxsize=4096)
def _esc_char(cp: int, in_class: bool) -> str:
    ch = chr(cp)
    if ch == "\\":
        return "\\\\"
    if ch == "\n":
        return "\\n"
    if ch == "\r":
        return "\\r"
    if ch == "\t":
        return "\\t"
    if in_class and ch in "]-[":
        return "\\" + ch
    if not in_class and ch == '"':
        return '\\"'
    if cp < 0x20 or cp == 0x7F:
        # in a literal, xgrammar reads \x greedily ("\x7F0" is U+07F0): a fixed-width \u there
        return f"\\x{cp:02X}" if in_class else f"\\u{cp:04X}"
    if 0xD800 <= cp <= 0xDFFF:
        return f"\\u{cp:04X}"
    return ch


@lru_cache(maxsize=65536)
def bnf_literal(text: str) -> str:
    """``text`` as a quoted GBNF/EBNF literal (one escape table for both: :func:`_esc_char`)."""
    return '"' + "".join(_esc_char(ord(c), False) for c in text) + '"'


def quant(lo: int, hi: int | None) -> str:
    """The repetition suffix shared by GBNF, EBNF and Python regexes (never ``{0,-1}``)."""
    if (lo, hi) == (0, None):
        return "*"
    if (lo, hi) == (1, None):
        return "+"
    if (lo, hi) == (0, 1):
        return "?"
    if hi is None:
        return f"{{{lo},}}"
    return f"{{{lo}}}" if lo == hi else f"{{{lo},{hi}}}"


class BnfPrinter:
    """Shared printer; subclasses set :attr:`dialect` and override :meth:`dispatch`."""

    dialect = "gbnf"

    def __init__(self, grammar: Grammar, share: bool = True) -> None:
        self.g = grammar
        self.extra: dict[str, Expr] = {}
        self._until_names: dict[Until, str] = {}
        #: an automaton's rules, named by a placeholder (:meth:`_automaton`) -> its start rule
        self._automata: dict[tuple[str, tuple[tuple[str, Expr], ...]], str] = {}
        self._free: dict[str, str] = {}  # EBNF: TagDispatch rule text -> its name
        self._long: dict[Rep, tuple[str, list[str]]] = {}
        self._used: list[str] = []
        #: repeated inline groups printed as one named rule each (see :func:`plan_shared`): expr -> name
        self._share: dict[Expr, str | None] = {}
        if share:
            self._share.update(plan_shared(grammar, self._kids, self._bodies))
        self._hints: dict[Expr, str] = {}
        self._taken: set[str] = set(grammar.rules)
        self._suffix: dict[str, int] = {}  # per base name, the suffix the next fresh name tries first
        self._loops: dict[tuple[Expr, Expr], str] = {}
        self._runs: set[Expr] = set()  # the whole-group branches EbnfPrinter._seq_items wrote
        self._chunks: dict[tuple[Expr, int], Ref] = {}  # (item, count) -> its rule (EbnfPrinter._counted)
        self._graphs: dict[int, tuple[Graph, str]] = {}  # id(graph) -> (the graph, kept alive; its start rule)

    # -- atoms -------------------------------------------------------------------------------------
    def lit(self, text: str) -> str:
        return bnf_literal(text)

    def chars(self, c: Chars) -> str:
        if not c.ranges:
            return "[^]" if c.negated else '("" [^])'
        body = []
        for lo, hi in c.ranges:
            body.append(_esc_char(lo, True) if lo == hi else f"{_esc_char(lo, True)}-{_esc_char(hi, True)}")
        if body[0].startswith("^"):
            # '^' stands raw (llama.cpp's GBNF rejects "\\^"), but not first, where it would negate
            body = body[1:] + body[:1] if len(body) > 1 else ["\\x5E" + body[0][1:]]
        return "[" + ("^" if c.negated else "") + "".join(body) + "]"

    # -- structure ---------------------------------------------------------------------------------
    #: bounded repetitions with a larger count are written as helper rules (GBNF: llama.cpp refuses
    #: repetitions past its "sane defaults", about 2,000 generated rules)
    rep_inline_max: int | None = None
    #: print ``a (g)* b`` as a right-recursive rule (:meth:`_tail_loop`)
    tail_loops = False
    #: an automaton state's loop before each of its alternatives (:func:`until_rules` ``flat``)
    flat_loops = False
    #: print an expression written from an automaton as that automaton's rules (:meth:`automaton`)
    graphs = True

    def _kids(self, e: Expr) -> tuple[Expr, ...]:
        """The sub-expressions :meth:`expr` prints inline (Tokens looked through), for :func:`plan_shared`."""
        graph = graph_of(e) if self.graphs else None
        if graph is not None:  # printed as its automaton (:meth:`automaton`): the edges' labels
            return tuple(graph[0].values())
        if isinstance(e, (Seq, Alt)):
            return e.items
        if isinstance(e, Rep):
            return (e.item,)
        if isinstance(e, Dispatch):
            return (e.lowered,)
        return ()

    def _bodies(self, e: Expr) -> tuple[Expr, ...]:
        """Sub-expressions :meth:`expr` prints as rules of their own (EBNF: TagDispatch's rule)."""
        return ()

    def shared_name(self, e: Expr) -> str:
        """The rule name of a hoisted group (named on first use, so names follow the printing order)."""
        name = self._share[e]
        if name is None:
            base = RULE_NAMES.get(e) or self._hints.get(e) or "group"
            if base.split("-")[0] in _GENERATED:
                base = "h-" + base
            name = self._fresh(base)
            self._share[e] = name
            self.extra[name] = e
        self._used.append(name)
        return name

    def expr(self, e: Expr, ctx: str = "top", share: bool = True) -> str:
        # the IR classes have no subclasses: dispatch on the exact type, commonest first
        if type(e) is Lit:
            return self.lit(e.text)
        if type(e) is Ref:
            self._used.append(e.name)
            return e.name
        if type(e) is Token:
            if self._share and e.expr not in self._hints:
                self._hints[e.expr] = e.kind.lower()
            return self.expr(e.expr, ctx, share)
        if type(e) is Chars:
            return self.chars(e)
        if type(e) is _Raw:
            return e.text
        graph = graph_of(e) if self.graphs else None
        if graph is not None:
            return self.automaton(graph)
        if share and type(e) in _GROUP_TYPES and e in self._share:
            return self.shared_name(e)
        if type(e) is Seq:
            items = self._seq_items(e)
            items = self._tail_loop(items) if self.tail_loops else items
            text = " ".join([self.expr(i, "seq") for i in items])
            return f"({text})" if ctx == "rep" and len(items) > 1 else text
        if type(e) is Alt:
            if not e.items:
                raise ValueError("empty alternation")
            text = " | ".join([self.expr(i, "alt") for i in e.items])
            return text if ctx == "top" else f"({text})"
        if type(e) is Rep:
            if self.rep_inline_max is not None and (e.max or 0) > self.rep_inline_max:
                return self.long_rep(e, ctx)
            item = e.item.expr if isinstance(e.item, Token) else e.item
            inner = self.expr(e.item, "rep")
            if isinstance(item, Rep) and item not in self._share:
                inner = f"({inner})"  # xgrammar rejects stacked quantifiers such as [^<]{1,3}?
            return inner + quant(e.min, e.max)
        if type(e) is Until:
            return self.until(e)
        if type(e) is Dispatch:
            return self.dispatch(e)
        raise TypeError(e)

    def _seq_items(self, e: Seq) -> tuple[Expr, ...]:
        """The items a sequence is printed as (EBNF: :meth:`EbnfPrinter._seq_items`)."""
        return e.items

    def _tail_loop(self, items: tuple[Expr, ...]) -> tuple[Expr, ...]:
        """``a (g)* b`` as ``a loop`` with ``loop ::= b | g loop``, for the first unbounded repetition
        of a group that something follows (the JSON string's ``[^"\\]* ("\\" esc [^"\\]*)* "\""``).
        The same texts; xgrammar's matcher then goes on by a rule reference at the end of an
        alternative after each ``g``, which its token-mask cache sees through, instead of returning
        from a nested group, which it checks against the stack at run time: 4x less mask time per
        token inside a JSON string with escapes."""
        for i, it in enumerate(items[:-1]):
            if type(it) is Rep and it.min == 0 and it.max is None and type(it.item) not in (Chars, Lit, Token):
                rest = items[i + 1:]
                after = rest[0] if len(rest) == 1 else Seq(rest)
                key = (it.item, after)
                name = self._loops.get(key)
                if name is None:
                    name = self._loops[key] = self._fresh("loop")
                    self.extra[name] = alt(after, seq(it.item, Ref(name)))
                return (*items[:i], Ref(name))
        return items

    def _fresh(self, base: str) -> str:
        """``base``, or ``base-2``, ``base-3``...: the first rule name not taken yet (now taken)."""
        n = self._suffix.get(base, 1)
        name = base if n == 1 else f"{base}-{n}"
        while name in self._taken:
            n += 1
            name = f"{base}-{n}"
        self._suffix[base] = n + 1
        self._taken.add(name)
        return name

    def long_rep(self, e: Rep, ctx: str) -> str:
        """``item{min,max}`` as rules: ``min`` copies of the item rule, then a chain
        ``c_k ::= "" | item c_(k-1)`` (one stack per step; unambiguous).  Beyond :data:`CHUNK` x 2 counts,
        chunks of :data:`CHUNK` (:func:`chunked`): a few thousand rules instead of one per count."""
        assert e.max is not None
        if e.max - e.min > 2 * CHUNK or e.min > 2 * CHUNK:
            return self.expr(chunked(e), ctx)
        hit = self._long.get(e)
        if hit is not None:
            self._used.extend(hit[1])
            return f"({hit[0]})" if ctx in ("rep", "seq", "alt") else hit[0]
        key = f"rpt-{len([n for n in self.extra if n.endswith('-item') and n.startswith('rpt-')]) + 1}"
        while key + "-item" in self.g.rules:
            key += "x"
        item = f"{key}-item"
        self.extra[item] = e.item
        self._used.append(item)
        prev = None
        for k in range(1, e.max - e.min + 1):
            name = f"{key}-{k}"
            self.extra[name] = _Raw('"" | ' + item + (f" {prev}" if prev else ""))
            self._used.append(name)
            prev = name
        text = " ".join([item] * e.min + ([prev] if prev else []))
        self._long[e] = (text, [item] + [f"{key}-{k}" for k in range(1, e.max - e.min + 1)])
        return f"({text})" if ctx in ("rep", "seq", "alt") else text

    def automaton(self, graph: Graph) -> str:
        """The start rule of the automaton an expression was written from (:func:`~..dfa.graph_of`), one rule per
        state: ``dfa-1-3 ::= label dfa-1-5 | label dfa-1-2 | ""`` (``""`` where the state accepts).  State
        elimination's expression shares its parts many times over; printed as its DAG, llama.cpp's sampler walks
        every alternative of every shared part at each character (seconds a token for a key class of nine HTTP
        methods), where the automaton's rules have one alternative per edge, each starting with a character.
        The same language; each graph printed once."""
        hit = self._graphs.get(id(graph))
        if hit is not None:
            self._used.append(hit[1])
            return hit[1]
        edges, src, dst = graph
        out: dict[int, list[tuple[Expr, int]]] = {}
        for (a, b), label in edges.items():
            out.setdefault(a, []).append((label, b))
        base = self._fresh("dfa")
        names: dict[int, str] = {}
        first = out.get(src, [])
        if len(first) == 1 and first[0][0] == EMPTY and first[0][1] != dst:  # the start state is the start rule
            src = first[0][1]

        def name(q: int) -> str:
            if q not in names:
                names[q] = base if q == src else self._fresh(f"{base}-s{len(names)}")
            return names[q]

        for q, moves in out.items():
            if q == graph[1] and q != src:
                continue
            self.extra[name(q)] = alt(*(label if b == dst else seq(label, Ref(name(b))) for label, b in moves))
        self._graphs[id(graph)] = (graph, name(src))
        self._used.append(name(src))
        return name(src)

    def until(self, u: Until) -> str:
        name = self._until_names.get(u) or self._automaton(u)
        assert name is not None  # without a root rule the automaton always has rules
        self._used.append(name)
        return name

    def _automaton(self, u: Until, root: str | None = None) -> str | None:
        """The start rule of ``u``'s automaton (:func:`until_rules`; None where it has none), printed
        once for all the ``Until`` whose automata are the same: a text followed by a stop and one
        that is not often are (llama3_json's content before ``<|python_tag|>`` and content alone),
        and an engine builds states for every copy."""
        shape = until_rules(u, "\0", root, self.flat_loops)
        if shape is None:
            return None
        if shape not in self._automata:
            start, rules = until_rules(u, f"text-{len(self._automata) + 1}", root, self.flat_loops)  # type: ignore[misc]
            self._automata[shape] = start
            self.extra.update(rules)
        self._until_names[u] = self._automata[shape]
        return self._automata[shape]

    def dispatch(self, d: Dispatch) -> str:
        return self.expr(d.lowered, "seq")

    def render(self) -> str:
        """Print the rules reachable from the root, root first, then in discovery order."""
        lines = []
        printed: set[str] = set()
        self._used = [self.g.root]
        at = 0  # the queue's head: names are appended while it is read
        while at < len(self._used):
            name = self._used[at]
            at += 1
            if name in printed:
                continue
            printed.add(name)
            body = self.g.rules[name] if name in self.g.rules else self.extra[name]
            # a shared group's own rule spells it out; any other rule whose body is one names it
            lines.append(f"{name} ::= {self.expr(body, share=self._share.get(body) != name)}")
        return "\n".join(lines) + "\n"


#: repetitions longer than twice this are written in chunks of this many (GBNF)
CHUNK = 1000
#: the counts of a string body's ``(plain | escape)`` group are written in chunks of this many (EBNF)
EBNF_CHUNK = 16
#: the most characters a bounded string body's plain-only branch counts past ``minLength`` (EBNF): OpenVINO's
#: xgrammar runs a count spanning 128 fast and one spanning 256 at ~0.7 s per token
PLAIN_SPAN = 128


def _rep(x: Expr, lo: int, hi: int) -> Expr:
    return EMPTY if hi == 0 else Rep(x, lo, hi)


def chunked(e: Rep, size: int | None = None, chunk: Expr | None = None,
            rep: Callable[[Expr, int, int], Expr] = _rep) -> Expr:
    """``item{min,max}`` with no repetition longer than ``size`` (default :data:`CHUNK`) x 2: ``min`` as whole
    chunks and a rest, then ``span = max - min = q x size + r`` as either fewer than ``q`` chunks and a short
    tail, or ``q`` chunks and at most ``r`` more.  Every count has one parse (the chunk count is the length
    divided by ``size``).  ``chunk`` is the expression for ``item{size}`` (default: that repetition, GBNF; EBNF
    names it as a rule);
    ``rep`` writes each repetition of the result (EBNF chunks the chunk counts again: ``EbnfPrinter._counted``;
    GBNF's printer does so through :meth:`BnfPrinter.long_rep`)."""
    assert e.max is not None
    size = CHUNK if size is None else size  # (read when called: the tests set a small CHUNK)
    chunk = Rep(e.item, size, size) if chunk is None else chunk
    q0, r0 = divmod(e.min, size)
    head = seq(rep(chunk, q0, q0), rep(e.item, r0, r0))
    q, r = divmod(e.max - e.min, size)
    fewer = seq(rep(chunk, 0, q - 1), rep(e.item, 0, size - 1))
    return seq(head, alt(fewer, seq(rep(chunk, q, q), rep(e.item, 0, r))) if q else rep(e.item, 0, r))


class GbnfPrinter(BnfPrinter):
    """llama.cpp GBNF: ``.`` is any character (llama.cpp rejects the empty class ``[^]``)."""

    dialect = "gbnf"
    rep_inline_max = 64

    def chars(self, c: Chars) -> str:
        if not c.ranges and c.negated:
            return "."
        return super().chars(c)


class EbnfPrinter(BnfPrinter):
    """xgrammar EBNF: free text before a trigger becomes the portable ``TagDispatch`` form."""

    dialect = "ebnf"
    tail_loops = True
    flat_loops = True

    def _seq_items(self, e: Seq) -> tuple[Expr, ...]:
        """A counted string body ``(plain | escape){m,n}`` and the literal after it (the closing quote) as
        ``plain{m,n'} "q" | (plain | escape){m,n} "q"`` (``n' = min(n, m + 128)``), and ``(plain | escape){m,}``
        as ``plain{m,} "q" | (plain | escape){m} plain* (escape plain*)* "q"``: the same texts, with the group's
        counts written in :meth:`_counted`'s chunks.  Both xgrammars check a token against a counted group at run
        time: xgrammar 0.2.9 took 20 ms per token inside a string under ``minLength: 1`` and 0.6-0.9 s under
        ``maxLength: 1000`` (SmolLM2's vocabulary; 0.01 ms without bounds), and OpenVINO's older xgrammar 0.25-1 s
        per token under ``maxLength: 1000``.  A counted character class xgrammar 0.2.9 keeps in its token-mask cache,
        and the tokens the plain branch accepts it does not check again in the other; OpenVINO's xgrammar runs
        counts that span at most 128 fast (``benchmarks/bench_mask.py --strings`` measures both)."""
        items = e.items
        if e in self._runs:
            return items
        for i, it in enumerate(items[:-1]):
            after = items[i + 1]
            if (type(it) is Rep and (it.max is None and it.min > 0 or (it.max or 0) > 1) and type(it.item) is Alt
                    and type(it.item.items[0]) is Chars and type(after) in (Lit, Chars)):
                plain, escape = it.item.items[0], alt(*it.item.items[1:])
                if it.max is None:
                    whole = seq(self._counted(it.item, it.min, it.min), unbounded_chars(plain, escape), after)
                    runs = Rep(plain, it.min, None)
                else:
                    whole = seq(self._counted(it.item, it.min, it.max), after)
                    runs = Rep(plain, it.min, min(it.max, it.min + PLAIN_SPAN))
                self._runs.add(whole)  # (printed as it is)
                return (*items[:i], alt(seq(runs, after), whole), *items[i + 2:])
        return items

    def _counted(self, item: Expr, lo: int, hi: int) -> Expr:
        """``item{lo,hi}`` with no count above :data:`EBNF_CHUNK`: :func:`chunked` with chunks of it as rules
        (``c ::= item{16}``, then chunks of chunks), each count with one parse.  OpenVINO's xgrammar copies a
        counted group once per count: written inline, chunks of chunks would multiply out (``bad_alloc`` under
        ``maxLength: 2147483647``); as rules, each level is 16 references."""
        k = EBNF_CHUNK
        if hi == 0:
            return EMPTY
        if hi - lo <= k and lo <= k:
            return item if lo == hi == 1 else Rep(item, lo, hi)
        chunk = self._chunks.get((item, k))
        if chunk is None:
            chunk = self._chunks[(item, k)] = Ref(self._fresh("chunk"))
            self.extra[chunk.name] = Rep(item, k, k)
        return chunked(Rep(item, lo, hi), k, chunk, self._counted)

    def _kids(self, e: Expr) -> tuple[Expr, ...]:
        return () if isinstance(e, Dispatch) else super()._kids(e)

    def _bodies(self, e: Expr) -> tuple[Expr, ...]:
        # TagDispatch's rule after the tag is a rule of its own
        return (e.then,) if isinstance(e, Dispatch) else ()

    def dispatch(self, d: Dispatch) -> str:
        key = f"dispatch-{len([n for n in self.extra if n.startswith('dispatch-')]) + 1}"
        then = d.then if isinstance(d.then, Ref) else None
        then_name = then.name if then else f"{key}-then"
        if then is None:
            self.extra[then_name] = d.then
        excludes = ""
        if d.excludes:
            # OpenVINO's xgrammar rejects a one-element tuple's trailing comma; ("<x>") is read as a
            # one-element list by both xgrammar versions.
            excludes = ", excludes=(" + ", ".join(self.lit(x) for x in d.excludes) + ")"
        self.extra[key] = _Raw(f"TagDispatch(({self.lit(d.tag)}, {then_name}), loop_after_dispatch=false{excludes})")
        self._used += [key, then_name]
        return key

    def until(self, u: Until) -> str:
        """Free text that avoids some strings: xgrammar's own ``TagDispatch`` with no tags and
        ``excludes`` (both xgrammar versions; text that may end anywhere, so the parent rule
        goes on), which compiles ~30x faster than the automaton.  Used where the two are the
        same language: no first-character rule, possibly empty, and no stop that could start
        inside a forbidden string's tail (then the first occurrence is always the one we stop at).
        """
        if u.gap or not _dispatch_safe(u):
            return super().until(u)
        if u in self._until_names:
            self._used.append(self._until_names[u])
            return self._until_names[u]
        excludes = ", ".join(self.lit(x) for x in dict.fromkeys(u.stops + u.excludes))
        free = _Raw(f"TagDispatch(loop_after_dispatch=false, excludes=({excludes}))")
        # one rule per distinct TagDispatch (a text followed by a stop and one that is not often avoid
        # the same strings)
        key = self._free.get(free.text) or f"free-{len(self._free) + 1}"
        name = key
        if u.first_not or u.nonempty:
            # the first character's rule, then the automaton's states short of its root, whose
            # text is the tag-less TagDispatch (~2x faster to compile than the whole automaton)
            made = self._automaton(u, key)
            if made is None:
                return super().until(u)
            name = made
        self._free[free.text] = key
        self.extra[key] = free
        self._used.append(name)
        return name

#: first words of the rule names the printers generate (Until automata, TagDispatch, long repetitions)
_GENERATED = frozenset(("text", "free", "dispatch", "rpt", "root", "loop", "dfa"))
#: a hoisted group has at least this many IR nodes (``[0-9]{4}`` or ``("a" | "b")`` stay inline)
SHARE_MIN_NODES = 4


#: the nodes with inline children (plan_shared walks them; every other node is one leaf)
_GROUP_SET = frozenset((Seq, Alt, Rep, Dispatch))
#: the groups a printer may hoist into a rule of their own
_GROUP_TYPES = frozenset((Seq, Alt, Rep))


def _strip(e: Expr) -> Expr:
    while isinstance(e, Token):
        e = e.expr
    return e


def plan_shared(grammar: Grammar, kids: Callable[[Expr], tuple[Expr, ...]],
                bodies_of: Callable[[Expr], tuple[Expr, ...]], min_nodes: int | None = None) -> dict[Expr, None]:
    """The inline groups to print as named rules: every sequence, choice or repetition of at least
    ``min_nodes`` IR nodes that the printed grammar would otherwise spell out two or more times.

    Same language: a rule reference means exactly its body.  Engines build states (OpenVINO's
    xgrammar also a token-mask cache) per inline copy, so one JSON whitespace rule instead of its
    hundreds of copies is what lets large tool sets compile fast (issue 10).

    ``kids(e)`` are the sub-expressions the printer writes inline, ``bodies_of(e)`` those it writes as
    rules of their own.  Occurrences are counted as printed: a group inside a hoisted group counts
    once for it, not once per use of it.  Identical IR nodes compare equal, so the groups form a
    DAG; deciding each distinct node once, parents before children, is linear in the distinct nodes.
    """
    min_nodes = SHARE_MIN_NODES if min_nodes is None else min_nodes
    # every distinct group gets a number once (one hash per occurrence); the walk uses the numbers
    number: dict[Expr, int] = {}
    nodes: list[Expr] = []
    groups_of: list[tuple[int, ...]] = []  # a group's inline groups
    expanded = bytearray()  # whether groups_of is known yet
    leaves: list[int] = []  # and how many other inline children it has (one node each)
    size: list[int] = []
    occ: list[int] = []  # copies printed: first the rule bodies' own children
    post: list[int] = []  # groups, children before parents
    rules_seen: set[str] = set()
    rule_todo = [grammar.root]
    body_todo: list[Expr] = []

    def num(node: Expr) -> int:
        i = number.get(node)
        if i is None:
            i = number[node] = len(nodes)
            nodes.append(node)
            groups_of.append(())
            expanded.append(0)
            leaves.append(0)
            size.append(0)
            occ.append(0)
        return i

    while rule_todo or body_todo:
        if body_todo:
            top = _strip(body_todo.pop())
        else:
            name = rule_todo.pop()
            if name in rules_seen or name not in grammar.rules:
                continue
            rules_seen.add(name)
            top = _strip(grammar.rules[name])
        if type(top) is Ref:
            rule_todo.append(top.name)
            continue
        if type(top) not in _GROUP_SET:
            continue  # a leaf: never hoisted
        # a rule body counts as one copy of its group (a body equal to a shared group prints as its name)
        first = num(top)
        occ[first] += 1
        stack = [first]  # iterative: an enum can be 50,000 wide, a schema deep; ~i: i's children are done
        while stack:
            i = stack.pop()
            if i < 0:
                i = ~i
                size[i] = 1 + leaves[i] + sum([size[k] for k in groups_of[i]])
                post.append(i)
                continue
            if expanded[i]:
                continue
            node = nodes[i]
            if type(node) is Dispatch:
                body_todo.extend(bodies_of(node))
            found = []
            n_leaves = 0
            for k in kids(node):
                while type(k) is Token:
                    k = k.expr
                if type(k) in _GROUP_SET:
                    found.append(num(k))
                else:
                    n_leaves += 1
                    if type(k) is Ref:
                        rule_todo.append(k.name)
            groups_of[i] = tuple(found)
            expanded[i] = 1
            leaves[i] = n_leaves
            stack.append(~i)
            stack.extend([k for k in found if not expanded[k]])
    out: dict[Expr, None] = {}
    for i in reversed(post):  # parents first: a node's count is final when it is reached
        n = occ[i]
        node = nodes[i]
        if n >= 2 and type(node) in _GROUP_TYPES and size[i] >= min_nodes:
            out[node] = None
            n = 1
        for k in groups_of[i]:
            occ[k] += n
    return out


def _dispatch_safe(u: Until) -> bool:
    """No proper prefix of a stop is a suffix of a forbidden string (so no occurrence straddles
    the end of the text and the stop that follows it)."""
    if not u.followed:
        return True
    forbidden = u.stops + u.excludes
    return not any(stop[:k] == f[-k:] for stop in u.stops for f in forbidden for k in range(1, len(stop)))


class _Raw(Expr):
    """Pre-printed rule text (TagDispatch)."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


def to_gbnf(grammar: Grammar) -> str:
    return GbnfPrinter(left_factor(grammar)).render()


def to_ebnf(grammar: Grammar) -> str:
    return EbnfPrinter(left_factor(grammar)).render()
