"""The grammar IR: a small algebra of expressions that every dialect can print.

A :class:`Grammar` is an ordered set of named rules.  Expressions are frozen
dataclasses, so identical sub-expressions compare equal and can be shared.

Two nodes carry meaning beyond plain regular/context-free structure:

* :class:`Until` -- text that does not contain some strings (raw XML values,
  reasoning text, free text before a trigger).  Emitters expand it into an
  automaton (GBNF, EBNF) or a look-ahead regex (Lark).
* :class:`Dispatch` -- free text until a trigger word, then the rest of the
  grammar from that word on.  EBNF prints it as xgrammar's ``TagDispatch``;
  the other dialects print ``Until`` followed by the word.

:class:`Token` marks a lexical unit (a JSON string, a number, a raw value).
GBNF and EBNF ignore it; Lark turns it into one terminal.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from operator import attrgetter

ANY_CHAR_MAX = 0x10FFFF


class Expr:
    """Base class of IR expressions."""

    __slots__ = ()


def _cached_hash(*fields: str) -> Callable[[Expr], int]:
    """A ``__hash__`` computed once per node (rule interning hashes deep trees many times), equal to
    the hash of ``(class name, *fields)``; stored in the instance dict (the node stays frozen)."""
    get = attrgetter(*fields)
    single = len(fields) == 1

    def __hash__(self: Expr) -> int:  # noqa: N807 - installed as a dunder
        d = self.__dict__
        h = d.get("_hash")
        if h is None:
            h = d["_hash"] = hash((type(self).__name__, get(self)) if single else (type(self).__name__, *get(self)))
        return h

    return __hash__


@dataclass(frozen=True)
class Lit(Expr):
    """A literal string (may be empty)."""

    text: str


@dataclass(frozen=True)
class Chars(Expr):
    """One character from ``ranges`` (inclusive code-point pairs), or not from them if ``negated``."""

    ranges: tuple[tuple[int, int], ...]
    negated: bool = False

    @staticmethod
    def of(chars: str, negated: bool = False) -> Chars:
        return Chars(tuple((ord(c), ord(c)) for c in sorted(set(chars))), negated)

    def contains(self, cp: int) -> bool:
        inside = any(lo <= cp <= hi for lo, hi in self.ranges)
        return inside != self.negated


@dataclass(frozen=True)
class Seq(Expr):
    items: tuple[Expr, ...]

    __hash__ = _cached_hash("items")


@dataclass(frozen=True)
class Alt(Expr):
    items: tuple[Expr, ...]

    __hash__ = _cached_hash("items")


@dataclass(frozen=True)
class Rep(Expr):
    """``item`` repeated ``min`` to ``max`` times (``max=None``: unbounded)."""

    item: Expr
    min: int = 0
    max: int | None = None

    __hash__ = _cached_hash("item", "min", "max")


@dataclass(frozen=True)
class Ref(Expr):
    """A reference to a named rule."""

    name: str


@dataclass(frozen=True)
class Until(Expr):
    """Text containing none of ``stops`` (nor ``excludes``).

    With ``followed=True`` the text is always followed by one of ``stops`` and
    must end so that this stop is the *first* occurrence of any stop (the
    split a left-to-right parser makes).  ``first_not`` lists characters the
    text may not start with.  ``nonempty`` requires at least one character.
    """

    stops: tuple[str, ...]
    followed: bool = True
    excludes: tuple[str, ...] = ()
    first_not: str = ""
    nonempty: bool = False
    #: ``(prefix, chars)``: in a forbidden string starting with ``prefix``, any run of ``chars`` (even
    #: none) may stand right after it (raw XML values: ``</parameter>``, whitespace, ``<parameter=``)
    gap: tuple[str, str] = ()  # type: ignore[assignment]

    __hash__ = _cached_hash("stops", "followed", "excludes", "first_not", "nonempty", "gap")


@dataclass(frozen=True)
class Dispatch(Expr):
    """Free text without ``tag`` (nor ``excludes``); optionally ``tag`` and then ``then`` to the end.

    ``lowered`` is the same language written with :class:`Until` (for dialects without
    xgrammar's ``TagDispatch``); the builder fills it so the free text carries its
    ``content`` tag for the parser.
    """

    tag: str
    then: Expr
    excludes: tuple[str, ...]
    lowered: Expr

    __hash__ = _cached_hash("tag", "then", "excludes", "lowered")


@dataclass(frozen=True)
class Token(Expr):
    """A lexical unit; ``kind`` names it for Lark terminals (``STRING``, ``RAW`` ...).

    ``follow`` is text that always comes right after the token: Lark's lexer takes the
    first (greedy) regex match, so a token that could also eat the start of ``follow``
    (a raw value before ``"\n</parameter>"``) gets a look-ahead for it.  A tuple means one
    of these texts (the closing tag of a raw XML value, which a value may also contain).

    ``stop`` holds characters that never come right after the token (a numeral is never followed
    by a digit): Lark's regex gets a negative look-ahead for them, so that Python's backtracking
    matcher takes the whole word of an expression whose alternatives a shorter match could satisfy
    first (a DFA's, :mod:`.multiples`).  Grammar dialects need no such hint.
    """

    expr: Expr
    kind: str
    follow: str | tuple[str, ...] = ""
    #: the JSON path of a schema ``pattern`` this token spells (Lark prints it through a DFA; see dfa.py)
    path: str = field(default="", compare=False)
    stop: str = ""
    #: ``(any, starts)``: ``expr``'s language again, as the texts of ``any`` that start with none of ``starts``
    #: (an extra key: any key, but no declared name in any spelling).  Lark prints that as a negative
    #: look-ahead, a regex a fraction of the size of ``expr``'s (a complement trie); the grammar dialects
    #: print ``expr``.  Built next to ``expr`` from the same names (:mod:`..keys`), and tested equal.
    unless: tuple[Expr, tuple[Expr, ...]] | None = None
    #: ``(loose, counted)``: ``expr``'s language again, as the texts of ``loose`` (a pattern's token without its
    #: lengths) that ``counted`` (any text of the lengths, in the same quotes) matches whole.  Lark prints a large
    #: ``expr`` (a pattern met with its lengths, :func:`..regex.restrict_length`) as ``(?=counted)loose``, a regex a
    #: fraction of its size; the grammar dialects print ``expr``, which shares its parts as rules.
    within: tuple[Expr, Expr] | None = None

    __hash__ = _cached_hash("expr", "kind", "follow", "stop", "unless", "within")


EMPTY = Lit("")
ANY = Chars((), negated=True)

#: preferred rule names for shared sub-expressions, when a printer writes them as a rule of their
#: own (GBNF and EBNF print a group used more than once as one named rule; see emit/bnf.py)
RULE_NAMES: dict[Expr, str] = {}


def named(expr: Expr, name: str) -> Expr:
    """Register ``name`` as the rule name for ``expr`` wherever a printer hoists it; returns ``expr``."""
    RULE_NAMES[expr] = sanitize(name)
    return expr


#: the attribute an expression written from an automaton notes that automaton under (:func:`.dfa.with_graph`);
#: :func:`seq` and :func:`alt` keep such a node whole, since the printers write it as that automaton
GRAPH = "_graph"


def seq(*items: Expr) -> Expr:
    """A flattened sequence, dropping empty literals and merging adjacent literals."""
    out: list[Expr] = []
    for it in items:  # the IR classes have no subclasses: exact type tests
        for p in it.items if type(it) is Seq and GRAPH not in it.__dict__ else (it,):
            if type(p) is Lit:
                if not p.text:
                    continue
                if out and type(out[-1]) is Lit:
                    out[-1] = Lit(out[-1].text + p.text)
                    continue
            out.append(p)
    if not out:
        return EMPTY
    return out[0] if len(out) == 1 else Seq(tuple(out))


def alt(*items: Expr) -> Expr:
    """A flattened, de-duplicated alternation."""
    out: dict[Expr, None] = {}  # insertion-ordered set: linear in the number of items
    for it in items:
        for p in it.items if type(it) is Alt and GRAPH not in it.__dict__ else (it,):
            out.setdefault(p, None)
    keys = tuple(out)
    return keys[0] if len(keys) == 1 else Alt(keys)


def opt(item: Expr) -> Expr:
    return Rep(item, 0, 1)


def unbounded_chars(plain: Chars, escape: Expr) -> Expr:
    """``(plain | escape)*`` written as ``plain* (escape plain*)*``: the same language, but the
    engines' matchers (OpenVINO's xgrammar most of all) run the plain-character loop far faster."""
    return seq(Rep(plain, 0, None), Rep(seq(escape, Rep(plain, 0, None)), 0, None))


def up_to(item: Expr, n: int | None) -> Expr:
    """``item`` repeated at most ``n`` times (``None``: any number; ``0``: nothing)."""
    if n == 0:
        return EMPTY
    return Rep(item, 0, n)


@dataclass
class Grammar:
    """Named rules plus the root rule's name and per-rule semantic tags for the parser.

    ``meta`` maps a rule name to a tuple describing what it holds, e.g.
    ``("call", tool_index)`` or ``("arg", tool_index, key)``; the strict parser
    reads the Lark tree through it.  An ``arg``, ``args`` or ``extra`` rule may be shared by tools
    (:meth:`tagged`): its index is the first tool's.
    """

    rules: dict[str, Expr] = field(default_factory=dict)
    root: str = "root"
    meta: dict[str, tuple] = field(default_factory=dict)
    _interned: dict[Expr, str] = field(default_factory=dict, repr=False)
    _counts: dict[str, int] = field(default_factory=dict, repr=False)
    #: expressions already built, by what they were built from (see :meth:`once`)
    memo: dict[tuple, Expr] = field(default_factory=dict, repr=False)
    _tagged: dict[tuple, str] = field(default_factory=dict, repr=False)
    #: whether Lark must parse with Earley: alternatives of objects where a key one branch declares is an extra
    #: key in another (two terminals for the same text in one LALR state, which the lexer would pick between)
    earley: bool = False

    def add(self, name: str, expr: Expr, meta: tuple | None = None) -> Ref:
        """Add a rule under a unique name derived from ``name``; return a reference to it."""
        base = sanitize(name)
        unique = base
        n = self._counts.get(base, 1)
        while unique in self.rules:
            n += 1
            unique = f"{base}-{n}"
        self._counts[base] = n
        self.rules[unique] = expr
        if meta is not None:
            self.meta[unique] = meta
        return Ref(unique)

    def shared(self, name: str, expr: Expr) -> Ref:
        """Add a rule, or reuse the one already holding exactly ``expr``."""
        if isinstance(expr, Ref):
            return expr
        hit = self._interned.get(expr)
        if hit is not None:
            return Ref(hit)
        ref = self.add(name, expr)
        self._interned[expr] = ref.name
        return ref

    def once(self, key: tuple | None, build: Callable[[], Expr], relaxed: list) -> Expr:
        """``build()``, or what it gave before under ``key`` (None: never kept).

        ``key`` must name everything the expression depends on but rule names (a schema's text, the
        syntax, the options).  Rebuilding would then give the same expression, since every rule
        such a build makes is interned (:meth:`shared`, :meth:`tagged`), so the grammar text is the
        same either way.  Not kept: a build that adds a rule of its own (recursion, any-value), or
        that relaxes a schema keyword (``relaxed`` grew: each relaxation names its own path)."""
        if key is None:
            return build()
        hit = self.memo.get(key)
        if hit is not None:
            return hit
        rules, interned, n_relaxed = len(self.rules), len(self._interned) + len(self._tagged), len(relaxed)
        out = build()
        if len(self.rules) - rules == len(self._interned) + len(self._tagged) - interned and len(relaxed) == n_relaxed:
            self.memo[key] = out
        return out

    def tagged(self, name: str, expr: Expr, meta: tuple, share: tuple) -> Ref:
        """A rule tagged ``meta`` for the parser, or the one already holding ``expr`` under the same
        ``share`` key: tools whose argument has the same key and value share its rule (and then the
        rules above it), since the strict parser reads an argument by its key under its call."""
        key = (share, expr)
        hit = self._tagged.get(key)
        if hit is not None:
            return Ref(hit)
        ref = self.add(name, expr, meta)
        self._tagged[key] = ref.name
        return ref

    def reserve(self, name: str) -> str:
        """Reserve a unique rule name (for recursive rules defined later)."""
        ref = self.add(name, EMPTY)
        return ref.name


@lru_cache(maxsize=16384)
def sanitize(name: str) -> str:
    """A rule name every dialect accepts: lowercase letters, digits and ``-``, starting with a letter."""
    out = []
    for ch in name.lower():
        if ("a" <= ch <= "z") or ("0" <= ch <= "9"):
            out.append(ch)
        elif out and out[-1] != "-":
            out.append("-")
    text = "".join(out).strip("-") or "r"
    if not text[0].isalpha():
        text = "r-" + text
    return text


def nullable(expr: Expr, grammar: Grammar, _seen: frozenset[str] = frozenset(),
             _memo: dict[tuple[int, frozenset[str]], tuple[Expr, bool]] | None = None) -> bool:
    """Whether ``expr`` can match the empty string.  A DAG (state elimination's expressions share their parts many
    times over: 10**12 nodes as a tree) is walked once per node (``_memo``, by identity, holding the node so that
    no other takes its identity meanwhile); an expression noted with its automaton is read on the automaton: whether
    a path of nullable labels joins its ends."""
    if isinstance(expr, Lit):
        return expr.text == ""
    if isinstance(expr, Chars):
        return False
    if isinstance(expr, (Seq, Alt, Rep)):
        if _memo is None:
            _memo = {}
        key = (id(expr), _seen)
        hit = _memo.get(key)
        if hit is None:
            hit = _memo[key] = (expr, _nullable_node(expr, grammar, _seen, _memo))
        return hit[1]
    if isinstance(expr, Ref):
        if expr.name in _seen:
            return False
        return nullable(grammar.rules[expr.name], grammar, _seen | {expr.name}, _memo)
    if isinstance(expr, Until):
        return not expr.nonempty
    if isinstance(expr, Dispatch):
        return nullable(expr.lowered, grammar, _seen, _memo)
    if isinstance(expr, Token):
        return nullable(expr.expr, grammar, _seen, _memo)
    raise TypeError(expr)


def _nullable_node(expr: Seq | Alt | Rep, grammar: Grammar, seen: frozenset[str],
                   memo: dict[tuple[int, frozenset[str]], tuple[Expr, bool]]) -> bool:
    """:func:`nullable` of a sequence, a choice or a repetition."""
    graph = expr.__dict__.get(GRAPH)
    if graph is not None:  # (``dfa.Graph``: labelled edges, the start, the end)
        edges, src, dst = graph
        out: dict[int, list[int]] = {}
        for (a, b), label in edges.items():
            if nullable(label, grammar, seen, memo):
                out.setdefault(a, []).append(b)
        reached, todo = {src}, [src]
        while todo:
            for b in out.get(todo.pop(), ()):
                if b not in reached:
                    reached.add(b)
                    todo.append(b)
        return dst in reached
    if isinstance(expr, Seq):
        return all(nullable(i, grammar, seen, memo) for i in expr.items)
    if isinstance(expr, Alt):
        return any(nullable(i, grammar, seen, memo) for i in expr.items)
    return expr.min == 0 or nullable(expr.item, grammar, seen, memo)
