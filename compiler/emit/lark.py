"""Print the IR as a Lark grammar (rule ``start``).

:class:`~toolgram.compiler.ir.Token` nodes become terminals (one regex each);
rules tagged in ``Grammar.meta`` keep their names so the strict parser can read
the tree; every other rule is inlined (``_name``).  :func:`lark_parser_kind`
tells whether the grammar builds under LALR with the contextual lexer and no
conflicts (Lark's ``strict`` mode), else Earley is the parser to use.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import replace
from functools import lru_cache
from re import _parser as sre_parse  # type: ignore[attr-defined]
from typing import Any

from ..automaton import rx_escape, until_regex
from ..dfa import MAX_STATES, DfaLimit, backtracks, class_char, dfa_edges, dfa_regex, graph_of, tree_depth, tree_size
from ..ir import (
    EMPTY,
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
    nullable,
    seq,
)
from .bnf import quant
from .lark_analysis import faster_analysis

#: a token's expression past this many nodes (written out as a tree) prints through its ``within`` look-ahead
WITHIN_MIN_NODES = 2_000
#: a token of more nodes than this written out as a tree is written as its DFA's rules (:meth:`LarkPrinter.automaton`)
TREE_MAX_NODES = 40_000
#: ... and its DFA may have this many states before it is minimized: its regex would be of 10**5 nodes and more, and
#: a spelled graph's subset construction (:func:`..dfa.graph_of`: an escape's characters apart on each edge) has many
#: states that minimizing merges (a JSON key class of nine HTTP methods: 5,600 states, 58 once minimized, in 0.4 s)
TREE_MAX_STATES = 20_000
#: ... as is a token written from an automaton whose regex is longer than this (Python compiles it slowly, Lark's
#: lexer tries it at every key).  A regex as long as its input (a 24,000-value enum: 216 KB) stays one: its automaton
#: costs more to build than the regex (1.6 s; past TREE_MAX_STATES the limit is met, and the regex written anyway)
REGEX_MAX_CHARS = 50_000
#: an expression nested deeper than this is written as its automaton's rules too: its regex's groups would nest as
#: deep, past what a recursive printer and Python's regex parser hold (a key of ``[a-z]{1,255}`` minus the declared
#: names, from its DFA, nests 500 deep)
REGEX_MAX_DEPTH = 100


def _followed(follow: str | tuple[str, ...]) -> str:
    """The look-ahead for the text that always follows a token (none: empty)."""
    if isinstance(follow, tuple):
        return "(?=" + "|".join(rx_escape(f) for f in follow) + ")"
    return f"(?={rx_escape(follow)})" if follow else ""


def _esc(text: str) -> str:
    return rx_escape(text)


class LarkPrinter:
    def __init__(self, grammar: Grammar) -> None:
        self.g = grammar
        self.terminals: dict[str, str] = {}  # regex -> terminal name
        self.priorities: dict[str, int] = {}
        self._regex_cache: dict[Expr, str] = {}
        self._term_count = 0
        self._automata: list[str] = []  # rules of patterns written as automata (:meth:`automaton`)
        self._automaton_count = 0
        self._automaton_of: dict[Expr, str] = {}  # each expression's automaton, written once
        self._reps: dict[str, str] = {}  # a counted repetition's choice -> its rule (:meth:`_rep_rule`)
        self._names = {name: self._rule_name(name) for name in grammar.rules}
        self._hoisted = {name: _hoist(body) for name, body in grammar.rules.items()
                         if grammar.meta.get(name, ("",))[0] == "call"}

    def _rule_name(self, name: str) -> str:
        if name == self.g.root:
            return "start"
        base = name.replace("-", "_")
        return base if name in self.g.meta else "_" + base

    # -- regexes for tokens --------------------------------------------------------------------------
    def regex(self, e: Expr, seen: frozenset[str] = frozenset()) -> str:
        if seen:
            return self._regex(e, seen)
        hit = self._regex_cache.get(e)
        if hit is None:
            hit = self._regex_cache[e] = self._regex(e, seen)
        return hit

    def _regex(self, e: Expr, seen: frozenset[str]) -> str:
        if isinstance(e, Lit):
            return _esc(e.text)
        if isinstance(e, Chars):
            if not e.ranges:
                return "[\\s\\S]" if e.negated else "(?!)"
            body = "".join(
                class_char(lo) if lo == hi else f"{class_char(lo)}-{class_char(hi)}" for lo, hi in e.ranges
            )
            return "[" + ("^" if e.negated else "") + body + "]"
        if isinstance(e, Seq):
            return "".join(self._group(i, seen) if isinstance(i, Alt) else self.regex(i, seen) for i in e.items)
        if isinstance(e, Alt):
            if len(e.items) > 8 and all(isinstance(i, Lit) and len(i.text) < 256 for i in e.items):
                return _trie_regex([i.text for i in e.items])  # e.g. an enum of 50,000 words
            parts = [self.regex(i, seen) for i in e.items]
            # Python's re takes the first alternative that lets the whole pattern match, so put
            # the longest-matching alternatives first (a terminal should take the longest match).
            parts.sort(key=_max_width, reverse=True)
            return "(?:" + "|".join(parts) + ")"
        if isinstance(e, Rep):
            inner = self._group(e.item, seen)
            return inner + quant(e.min, e.max)
        if isinstance(e, Ref):
            if e.name in seen:
                raise ValueError(f"recursive rule {e.name} inside a token")
            return self.regex(self.g.rules[e.name], seen | {e.name})
        if isinstance(e, Token):
            return self.regex(e.expr, seen)
        if isinstance(e, Until):
            r = until_regex(e)
            return r if e.nonempty else f"(?:{r})?"
        raise TypeError(e)

    def _group(self, e: Expr, seen: frozenset[str]) -> str:
        r = self.regex(e, seen)
        if isinstance(e, (Chars, Token)) and (r.startswith("[") and r.endswith("]")):
            return r
        if isinstance(e, Lit) and len(e.text) == 1:
            return r
        return f"(?:{r})"

    def terminal(self, e: Expr, kind: str, follow: str | tuple[str, ...] = "", path: str = "", stop: str = "",
                 unless: tuple[Expr, tuple[Expr, ...]] | None = None, within: tuple[Expr, Expr] | None = None) -> str:
        """A terminal for ``e``; a nullable token becomes ``TERM?`` over its non-empty part.

        A schema pattern (``path`` set) that a backtracking matcher could take exponential time on
        is printed from its DFA (:mod:`..dfa`), an unambiguous regex.  Where that regex would pass the caps
        (an ambiguous pattern with a large DFA: a cron expression's ``(\\d+ ?){5,6}``), the DFA itself is
        written as rules (:meth:`automaton`), so the strict parser exists for every grammar the other dialects
        compile.  Such a token needs no look-ahead after it (``follow``, ``stop``): the parser reads it a character
        at a time, and the text that follows a raw value (``</parameter>``, ``]]>``) starts with a character its
        pattern's characters exclude."""
        optional = nullable(e, self.g)
        if unless is not None and not optional:
            # an extra key (a string that is none of some words): any key, unless it starts like a word
            anything, starts = unless
            rx = "(?!" + "|".join(self.regex(x) for x in starts) + ")" + self.regex(anything) if starts else \
                self.regex(anything)
        elif within is not None and not optional and tree_size(e) > WITHIN_MIN_NODES:
            # a pattern met with its lengths: the pattern alone, under a look-ahead that counts the text to its end
            loose, counted = within
            if nullable(loose, self.g):  # ``e`` is not: its texts are the loose ones that are not empty
                loose = _nonempty(loose, self.g)
            try:
                alone = dfa_regex(loose, self.g) if path and backtracks(loose, self.g) else self.regex(loose)
            except DfaLimit:
                alone = self.regex(loose)
            rx = f"(?={self.regex(counted)}{_followed(follow)})" + alone
        elif path and backtracks(e, self.g):
            try:
                rx = dfa_regex(e, self.g, nonempty=optional)
            except DfaLimit:
                try:
                    return self.automaton(e)
                except DfaLimit:  # past the state limit as rules too: Python's own regex, the same language
                    rx = self.regex(_nonempty(e, self.g) if optional else e)
        else:
            if optional:
                e = _nonempty(e, self.g)
            # shared sub-expressions (a key class's complement) that a regex would write out as a tree, or a regex
            # past REGEX_MAX_CHARS (a key class whose escapes are spelled out on every edge): the automaton's rules
            tree = tree_size(e) > TREE_MAX_NODES or tree_depth(e) > REGEX_MAX_DEPTH
            rx = "" if tree else self.regex(e)
            if tree or len(rx) > REGEX_MAX_CHARS and _from_automaton(e):
                try:
                    automaton = self.automaton(e, TREE_MAX_STATES)
                except DfaLimit:
                    rx = rx or self.regex(e)
                else:
                    return f"[{automaton}]" if optional else automaton
        if stop:
            rx += "(?![" + "".join(class_char(ord(c)) for c in stop) + "])"
        rx += _followed(follow)
        name = self.terminals.get(rx)
        if name is None:
            self._term_count += 1
            name = f"{kind.upper()}_{self._term_count}"
            self.terminals[rx] = name
            self.priorities[name] = _priority(rx, e)
        return f"{name}?" if optional else name

    def automaton(self, e: Expr, max_states: int = MAX_STATES) -> str:
        """``e``'s minimal DFA as left-linear rules, one per state (``_pat1_3: _pat1_0 CHAR_7 | ...``: the text
        that leads to state 3), a character class a terminal: deterministic, so LALR reads it in one pass
        without a conflict, and Lark's tree building extends one list per value (left recursion).  The value's
        text is read back by position, as every value's is."""
        written = self._automaton_of.get(e)
        if written is not None:  # (a key class's token in each place the object's members are read)
            return written
        edges, accepting = dfa_edges(e, self.g, max_states)
        if not accepting:
            return self.terminal(Chars(()), "CHAR")  # no word: a terminal nothing matches
        self._automaton_count += 1
        base = f"_pat{self._automaton_count}"
        into: dict[int, list[str]] = {0: [""]}  # the start: the empty text
        for a, b, chars in edges:
            into.setdefault(b, []).append(f"{base}_{a} {self.terminal(chars, 'CHAR')}")
        for state, alts in into.items():
            self._automata.append(f"{base}_{state}: " + " | ".join(alts))
        written = self._automaton_of[e] = "(" + " | ".join(f"{base}_{s}" for s in sorted(accepting)) + ")"
        return written

    def _rep_rule(self, inner: str) -> str:
        """A counted repetition's choice as a rule of its own (inlined in the tree: ``_rep…``).

        Lark spells ``(a | b)~1..n`` as every sequence of up to ``n`` choices, one expansion each
        (about ``2**n``; Woodpecker CI's ten values of three types took minutes and gigabytes to
        build); repeating one rule name keeps it at ``n`` expansions."""
        name = self._reps.get(inner)
        if name is None:
            name = self._reps[inner] = f"_rep{len(self._reps) + 1}"
        return name

    # -- rules ---------------------------------------------------------------------------------------
    def expr(self, e: Expr, ctx: str = "top") -> str:
        if isinstance(e, Token):
            return self.terminal(e.expr, e.kind, e.follow, e.path, e.stop, e.unless, e.within)
        if isinstance(e, Lit):
            if not e.text:
                return ""
            return self.terminal(e, "LIT")
        if isinstance(e, Chars):
            return self.terminal(e, "CHAR")
        if isinstance(e, Until):
            return self.terminal(e, "TEXT")
        if isinstance(e, Ref):
            hoisted = self._hoisted.get(e.name)
            if hoisted:
                # the call's leading terminals (the one naming the tool among them) stand before the
                # call rule: Lark's LALR analysis is quadratic in the nonterminals one state can start
                lead = " ".join(p for p in (self.expr(i, "seq") for i in hoisted[0]) if p)
                return f"({lead} {self._names[e.name]})" if ctx == "rep" else f"{lead} {self._names[e.name]}"
            return self._names[e.name]
        if isinstance(e, Dispatch):
            return self.expr(e.lowered, ctx)
        if isinstance(e, Seq):
            parts = [p for p in (self.expr(i, "seq") for i in e.items) if p]
            text = " ".join(parts)
            return f"({text})" if ctx == "rep" and len(parts) > 1 else text
        if isinstance(e, Alt):
            parts = [self.expr(i, "alt") or "" for i in e.items]
            if any(p == "" for p in parts):
                nonempty = [p for p in parts if p]
                if not nonempty:
                    return ""
                return f"[{' | '.join(nonempty)}]"
            text = " | ".join(parts)
            return text if ctx == "top" else f"({text})"
        if isinstance(e, Rep):
            inner = self.expr(e.item, "rep")
            if not inner:
                return ""
            if e.max is not None and e.max > 1 and ("|" in inner or "[" in inner):
                inner = self._rep_rule(inner)
            if (e.min, e.max) == (0, 1):
                return f"[{inner}]"
            if (e.min, e.max) == (0, None):
                return f"{inner}*"
            if (e.min, e.max) == (1, None):
                return f"{inner}+"
            if e.max is None:
                return f"{inner}~{e.min} {inner}*" if e.min else f"{inner}*"
            if e.min == e.max:
                return f"{inner}~{e.min}"
            if e.min == 0:
                return f"[{inner}~1..{e.max}]"
            return f"{inner}~{e.min}..{e.max}"
        raise TypeError(e)

    def reachable(self) -> list[str]:
        """Rule names reachable from the root, in definition order."""
        seen: set[str] = set()
        walked: set[int] = set()  # groups already walked (the grammar keeps them alive: ids are stable)
        todo = [self.g.root]
        while todo:
            name = todo.pop()
            if name in seen:
                continue
            seen.add(name)
            stack = [self.g.rules[name]]
            while stack:  # a group shared by many rules (a value, an enum) is walked once
                e = stack.pop()
                if type(e) is Ref:
                    todo.append(e.name)
                elif type(e) in (Seq, Alt, Rep, Token, Dispatch) and id(e) not in walked:
                    walked.add(id(e))
                    stack.extend(_children(e))
        return [n for n in self.g.rules if n in seen]

    def render(self) -> str:
        lines = [EARLEY_MARK] if self.g.earley else []
        for name in self.reachable():
            body = self.g.rules[name]
            if self._hoisted.get(name):
                body = seq(*self._hoisted[name][1])
            text = self.expr(body)
            lines.append(f"{self._names[name]}: {text}" if text else f"{self._names[name]}: ")
        lines += self._automata
        lines += [f"{name}: {inner}" for inner, name in self._reps.items()]
        for rx, name in self.terminals.items():
            # Lark reads \" inside a regex literal as a plain quote, so every quote is written \"
            lines.append(f"{name}.{self.priorities[name]}: /{rx.replace(chr(34), chr(92) + chr(34))}/")
        return "\n".join(lines) + "\n"


def _hoist(body: Expr) -> tuple[tuple[Expr, ...], tuple[Expr, ...]] | None:
    """A call rule's leading terminals (literals and tokens) and the rest, or None when it has none."""
    items = body.items if isinstance(body, Seq) else (body,)
    k = 0
    while k < len(items) and isinstance(items[k], (Lit, Token)):
        k += 1
    if k == 0 or not any(isinstance(i, Lit) or (isinstance(i, Token) and _literals(i)) for i in items[:k]):
        return None
    return items[:k], items[k:]


def _trie_regex(words: list[str]) -> str:
    """One regex for a set of literal words, as a trie (shared prefixes once; a longer word is tried
    before its prefix, as Lark's longest match would): linear to match, fast to compile."""
    trie: dict = {}
    for w in words:
        node = trie
        for ch in w:
            node = node.setdefault(ch, {})
        node[""] = {}

    def emit(node: dict) -> str:
        # iterative over single-child chains; recursion only at branches (depth <= distinct branch points)
        out = ""
        while len(node) == 1 and "" not in node:
            (ch, node), = node.items()
            out += _esc(ch)
        if not node or list(node) == [""]:
            return out
        end = "" in node
        alts = [_esc(ch) + emit(child) for ch, child in node.items() if ch != ""]
        body = alts[0] if len(alts) == 1 else "(?:" + "|".join(alts) + ")"
        if end:
            body = f"(?:{body})?"
        return out + body

    return "(?:" + emit(trie) + ")"


def _children(e: Expr) -> tuple[Expr, ...]:
    """The sub-expressions of a group (a token's expression, a dispatch's lowered form)."""
    if isinstance(e, (Seq, Alt)):
        return e.items
    if isinstance(e, Rep):
        return (e.item,)
    if isinstance(e, Token):
        return (e.expr,)
    if isinstance(e, Dispatch):
        return (e.lowered,)
    return ()


_PUNCT = set("{}[](),:;")


def _priority(rx: str, e: Expr) -> int:
    """Lark tries terminals by priority, then by longest *possible* match -- not by actual match
    length -- so the order is set here: bounded tokens holding a name or word (keys, tags,
    ``true``) first; then unbounded tokens with a literal (strings, ``, "any key":``); then
    punctuation (``, `` must lose to ``, "key":``, which it prefixes); then bare text and whitespace.
    """
    lits = [t for t in _literals(e) if t]
    if not lits:
        return 1
    if all(set(t) <= _PUNCT for t in lits):
        return 2
    return 4 if _max_width(rx) < (1 << 30) - 1 else 3


@lru_cache(maxsize=65536)
def _literals(e: Expr) -> frozenset[str]:
    """The literal texts in ``e`` (stripped), each part of a shared expression read once."""
    if isinstance(e, Lit):
        return frozenset((e.text.strip(),))
    if isinstance(e, (Seq, Alt)):
        return frozenset().union(*(_literals(i) for i in e.items))
    if isinstance(e, Rep):
        return _literals(e.item)
    if isinstance(e, Token):
        return _literals(e.expr)
    return frozenset()


@lru_cache(maxsize=8192)
def _max_width(rx: str) -> int:
    try:
        return int(min(sre_parse.parse(rx).getwidth()[1], 1 << 30))
    except Exception:  # pragma: no cover - our regexes always parse
        return 0


def _from_automaton(e: Expr) -> bool:
    """Whether ``e`` or a part of it was written from an automaton (:func:`..dfa.graph_of`), one node of the DAG
    at a time."""
    todo, seen = [e], set()
    while todo:
        x = todo.pop()
        if id(x) in seen:
            continue
        seen.add(id(x))
        if graph_of(x) is not None:
            return True
        if isinstance(x, (Seq, Alt)):
            todo.extend(x.items)
        elif isinstance(x, Rep):
            todo.append(x.item)
    return False


def _nonempty(e: Expr, g: Grammar) -> Expr:
    """The non-empty part of a nullable token expression."""
    if isinstance(e, Rep):
        if not nullable(e.item, g) and e.min == 0:
            return Rep(e.item, 1, e.max)
        return Rep(_nonempty(e.item, g), max(e.min, 1), e.max)
    if isinstance(e, Alt):
        return alt(*(_nonempty(i, g) if nullable(i, g) else i for i in e.items if i != EMPTY))
    if isinstance(e, Until):
        return replace(e, nonempty=True)
    if isinstance(e, Token):
        return _nonempty(e.expr, g)
    if isinstance(e, Seq):
        items = list(e.items)
        if len(items) == 2 and all(nullable(i, g) for i in items):
            a, b = items
            return alt(seq(_nonempty(a, g), b), _nonempty(b, g))
    raise ValueError(f"cannot make {e!r} non-empty for a Lark terminal")


#: the first line of a grammar that Lark must parse with Earley (:attr:`Grammar.earley`)
EARLEY_MARK = "// earley: object alternatives whose keys overlap"


def to_lark(grammar: Grammar) -> str:
    return LarkPrinter(grammar).render()


def new_lark(text: str, parser: str = "lalr", **options: object):  # noqa: ANN201 - lark.Lark
    """Build a :class:`lark.Lark` for a toolgram grammar (``start`` rule; contextual lexer for LALR).

    When ``interegular`` is installed, Lark compares every pair of terminal regexes while
    building the contextual lexer, only to log possible collisions; on toolgram's
    unicode-class-heavy terminals that takes seconds to minutes.  Terminal overlaps are
    resolved here by priorities, so the comparison is switched off for this build.  Two of
    Lark's grammar analyses are replaced by equivalents that scale (:mod:`.lark_analysis`).
    """
    import lark
    import lark.lexer

    kwargs: dict[str, object] = {"parser": parser}
    if parser == "lalr":
        kwargs["lexer"] = "contextual"
    kwargs.update(options)
    saved = lark.lexer.has_interegular
    lark.lexer.has_interegular = False
    try:
        with faster_analysis():
            return lark.Lark(text, **kwargs)
    finally:
        lark.lexer.has_interegular = saved


#: LALR parsers that :func:`lark_parser_kind` built, kept for :func:`take_lalr` (newest last; a
#: few, since a parser for a large schema holds ~100 MB and a ``compile`` may never parse)
_BUILT: OrderedDict[str, Any] = OrderedDict()
_BUILT_MAX = 4
_BUILT_LOCK = threading.Lock()
#: the options the strict parser builds with (:mod:`toolgram.parsing.strict`); the LALR check builds
#: with the same ones so that its parser can be handed over
STRICT_OPTIONS: dict[str, object] = {"propagate_positions": True}


def take_lalr(text: str) -> Any | None:
    """The LALR parser (built with :data:`STRICT_OPTIONS`) that :func:`lark_parser_kind` built for
    ``text`` and no caller has taken yet, else None: strict parsing right after a ``compile`` builds
    the parser once, not twice."""
    with _BUILT_LOCK:
        return _BUILT.pop(text, None)


@lru_cache(maxsize=256)
def lark_parser_kind(text: str) -> str:
    """``lalr`` when ``text`` builds with LALR and the contextual lexer with no parser conflict, else ``earley``.

    Lark resolves a shift/reduce conflict silently as a shift, which can reject valid input, so a
    conflict (Lark logs it at debug level) means Earley.  Terminal overlaps are resolved by the
    priorities this printer assigns, so Lark's slower ``strict`` collision check is not used.  A
    conflict-free parser is kept for :func:`take_lalr`.
    """
    import logging

    from lark import logger
    from lark.exceptions import GrammarError

    if text.startswith(EARLEY_MARK):
        return "earley"
    records: list[logging.LogRecord] = []

    class _Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(record)

    saved = (logger.level, logger.handlers[:], logger.propagate)
    logger.handlers = [_Collect(logging.DEBUG)]
    logger.setLevel(logging.DEBUG)
    logger.propagate = False
    try:
        # not ``debug=True``: its parser keeps a slower parse table and prints a state dump on errors;
        # without it Lark still reports each conflict, at debug level
        built = new_lark(text, parser="lalr", **STRICT_OPTIONS)
    except GrammarError:
        return "earley"
    finally:
        logger.handlers, logger.propagate = saved[1], saved[2]
        logger.setLevel(saved[0])  # setLevel (not .level =) also clears logging's isEnabledFor cache
    if any("Shift/Reduce" in r.getMessage() or "conflict" in r.getMessage().lower() for r in records):
        return "earley"
    with _BUILT_LOCK:
        _BUILT[text] = built
        while len(_BUILT) > _BUILT_MAX:
            _BUILT.popitem(last=False)
    return "lalr"
