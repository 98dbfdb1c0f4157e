"""Undeclared-key rules: the text of an extra member's key, excluding the declared names (SPEC section 2).

An object whose ``additionalProperties`` allows extra keys still gives each declared key its own
schema, so an extra key is never a declared name, in any spelling the syntax has: ``"a"``,
``"\\u0061"`` and ``"\\u0041"``-with-the-right-case are all the key ``a`` in JSON, ``'a'``, ``"a"``,
``'\\x61'`` in Python.  The rule is built from the trie of the declared names (its complement):
at each node, a character that leads out of the trie followed by any text, or a character of the
trie followed by the complement below it, or (when the node is not a name) the end.  The result
is plain regular IR (:mod:`.ir`), so every dialect prints it.  Its regex grows with the trie times the
spellings of "a character that is not one of these" (a few hundred characters a node), so for Lark, the strict
parser, the same language is also given as the texts that start a rejected key (:func:`json_key_spellings`,
:func:`python_key_spellings`): any key behind a negative look-ahead for them (``Token.unless``).

One narrowing, documented: in JSON a declared name holding a character outside the BMP excludes,
at that position, every ``\\uD8xx`` escape with that character's high surrogate (also ones that
pair with another low surrogate): such an extra key must write that character raw.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import lru_cache

from ..errors import UnsupportedSchemaError
from ..grammars.syntax import gemma_text, json_text, python_text
from .dfa import DfaLimit, build_dfa, build_labeled_dfa, dfa_expr, intersection, run
from .ir import EMPTY, Chars, Expr, Lit, Rep, Until, alt, opt, seq, unbounded_chars

Trie = dict  # char -> Trie; the key "" marks a complete name (characters are never "")
HEXDIGITS = "0123456789abcdef"
_HEX = Chars(((48, 57), (65, 70), (97, 102)))


def _trie(names: Iterable[str]) -> Trie:
    root: Trie = {}
    for name in names:
        node = root
        for ch in name:
            node = node.setdefault(ch, {})
        node[""] = {}
    return root


def complement(names: Iterable[str], one: Callable[[frozenset[str], int], Expr], spell: Callable[[str], Expr],
               rest: Callable[[int], Expr], min_len: int = 0) -> Expr:
    """Texts (as sequences of spelled characters) whose decoded value is none of ``names``.

    ``one(C, depth)``: one character (any spelling) not in ``C`` at ``depth``; ``spell(c)``: every
    spelling of ``c``; ``rest(depth)``: any text from ``depth`` on; ``min_len``: fewest characters."""

    def below(node: Trie, depth: int) -> Expr:
        kids = frozenset(k for k in node if k)
        parts: list[Expr] = [seq(one(kids, depth), rest(depth + 1))]
        parts += [seq(spell(ch), below(node[ch], depth + 1)) for ch in sorted(kids)]
        body = alt(*parts)
        return opt(body) if "" not in node and depth >= min_len else body

    return below(_trie(names), 0)


def _chars_not(base: Chars, excluded: Iterable[str]) -> Chars:
    """``base`` (a negated or plain class) without the characters ``excluded``."""
    cps = sorted({ord(c) for c in excluded})
    if base.negated:
        return Chars(tuple(sorted(set(base.ranges) | {(c, c) for c in cps})), negated=True)
    out: list[tuple[int, int]] = []
    for lo, hi in base.ranges:
        cur = lo
        for c in cps:
            if cur <= c <= hi:
                if c > cur:
                    out.append((cur, c - 1))
                cur = c + 1
        if cur <= hi:
            out.append((cur, hi))
    return Chars(tuple(out))


def _hex_digit(d: str) -> Expr:
    return Lit(d) if d.isdigit() else Chars.of(d + d.upper())


def hex_equal(value: int, digits: int) -> Expr:
    """``value`` in exactly ``digits`` hex digits, either letter case."""
    return seq(*(_hex_digit(d) for d in f"{value:0{digits}x}"))


def hex_not(values: Iterable[int], digits: int) -> Expr:
    """Any ``digits`` hex digits (either case) spelling none of ``values``."""
    words = {f"{v:0{digits}x}" for v in values if 0 <= v < 16**digits}
    if not words:
        return Rep(_HEX, digits, digits)

    def below(prefix: str) -> Expr | None:
        left = digits - len(prefix)
        kids = sorted({w[len(prefix)] for w in words if w.startswith(prefix)})
        others = "".join(d for d in HEXDIGITS if d not in kids)
        parts: list[Expr] = []
        if others:
            parts.append(seq(Chars.of(others + others.upper()), Rep(_HEX, left - 1, left - 1)))
        for d in kids:
            sub = below(prefix + d) if left > 1 else None
            if sub is not None:
                parts.append(seq(_hex_digit(d), sub))
        return alt(*parts) if parts else None

    return below("") or _NEVER


_NEVER = Chars(())  # matches nothing (left out of an alternation by the callers)


class _Escaped:
    """A quoted string syntax with backslash escapes (JSON, a Python quote style)."""

    def __init__(self, must_escape: Chars, single: dict[str, str], hexes: dict[str, int],
                 pairs: bool, body: Expr) -> None:
        self.plain = must_escape  # negated class of the characters that stand raw
        self.single = single
        self.hexes = hexes
        self.pairs = pairs  # JSON: \\uD83D\\uDE00 is one character
        self.body = body

    def one(self, excluded: frozenset[str], depth: int) -> Expr:
        parts: list[Expr] = [_chars_not(self.plain, excluded)]
        letters = "".join(k for k, v in self.single.items() if v not in excluded)
        if letters:
            parts.append(seq(Lit("\\"), Chars.of(letters)))
        for letter, digits in self.hexes.items():
            barred = {ord(c) for c in excluded}
            if self.pairs:
                barred |= {0xD800 + ((ord(c) - 0x10000) >> 10) for c in excluded if ord(c) > 0xFFFF}
            tail = hex_not(barred, digits)
            if tail != _NEVER:
                parts.append(seq(Lit("\\" + letter), tail))
        return alt(*parts)

    def spell(self, ch: str) -> Expr:
        cp = ord(ch)
        parts: list[Expr] = []
        if self.plain.contains(cp):
            parts.append(Lit(ch))
        parts += [Lit("\\" + k) for k, v in self.single.items() if v == ch]
        for letter, digits in self.hexes.items():
            if cp < 16**digits and not (self.pairs and cp > 0xFFFF):
                parts.append(seq(Lit("\\" + letter), hex_equal(cp, digits)))
            elif self.pairs and cp > 0xFFFF:
                hi, lo = 0xD800 + ((cp - 0x10000) >> 10), 0xDC00 + ((cp - 0x10000) & 0x3FF)
                parts.append(seq(Lit("\\" + letter), hex_equal(hi, digits), Lit("\\" + letter), hex_equal(lo, digits)))
        return alt(*parts)

    def rest(self, depth: int) -> Expr:
        return self.body


@lru_cache(maxsize=256)
def json_key_body(names: tuple[str, ...]) -> Expr:
    """The inside of a JSON string (between its quotes) whose value is none of ``names``."""
    e = _json_escaped()
    return complement(names, e.one, e.spell, e.rest)


def _key_spellings(names: tuple[str, ...], e: _Escaped, quote: str) -> tuple[Expr, ...]:
    """The texts that start a quoted string (with its opening ``quote``) the key rule of ``names`` rejects: every
    spelling of a name with its closing quote, and (JSON) a name's prefix before a character outside the BMP
    followed by that character's high surrogate escape and no low surrogate escape of a name there (the
    narrowing the module docstring documents).  A string that starts with none of them is an extra key:
    :func:`json_key_body`'s language as a negative look-ahead before any string (Lark's terminal)."""
    out: list[Expr] = []
    for name in names:
        spelled = [e.spell(ch) for ch in name]
        out.append(seq(Lit(quote), *spelled, Lit(quote)))
    if e.pairs:
        letter, digits = next(iter(e.hexes.items()))
        prefixes: dict[tuple[str, int], set[int]] = {}  # (name prefix, high surrogate) -> the low ones there
        for name in names:
            for i, ch in enumerate(name):
                cp = ord(ch)
                if cp > 0xFFFF:
                    hi, lo = 0xD800 + ((cp - 0x10000) >> 10), 0xDC00 + ((cp - 0x10000) & 0x3FF)
                    prefixes.setdefault((name[:i], hi), set()).add(lo)
        for (prefix, hi), lows in sorted(prefixes.items()):
            not_low = alt(seq(Lit("\\" + letter), hex_not(lows, digits)), Chars.of("\\", negated=True),
                          seq(Lit("\\"), Chars.of(letter, negated=True)))
            out.append(seq(Lit(quote), *(e.spell(c) for c in prefix), Lit("\\" + letter), hex_equal(hi, digits),
                           not_low))
    return tuple(out)


@lru_cache(maxsize=256)
def json_key_spellings(names: tuple[str, ...]) -> tuple[Expr, ...]:
    """The starts of the JSON strings :func:`json_key_body` (between ``"``) rejects (:func:`_key_spellings`)."""
    return _key_spellings(names, _json_escaped(), '"')


@lru_cache(maxsize=256)
def python_key_spellings(names: tuple[str, ...], quote: str) -> tuple[Expr, ...]:
    """The starts of the Python strings :func:`python_key_body` (between ``quote``) rejects."""
    return _key_spellings(names, _python_escaped(quote), quote)


def _json_escaped() -> _Escaped:
    from .values import JSON_ESC, JSON_PLAIN

    return _Escaped(JSON_PLAIN, json_text.SINGLE_ESCAPES, {json_text.HEX_ESCAPE[0]: json_text.HEX_ESCAPE[1]}, True,
                    unbounded_chars(JSON_PLAIN, JSON_ESC))


def _python_escaped(quote: str) -> _Escaped:
    from .values import _PY_ESC, py_plain

    return _Escaped(py_plain(quote), python_text.SINGLE_ESCAPES, python_text.HEX_ESCAPES, False,
                    unbounded_chars(py_plain(quote), _PY_ESC))


@lru_cache(maxsize=256)
def python_key_body(names: tuple[str, ...], quote: str) -> Expr:
    """The inside of a Python string quoted with ``quote`` whose value is none of ``names``."""
    e = _python_escaped(quote)
    return complement(names, e.one, e.spell, e.rest)


@lru_cache(maxsize=256)
def plain_name(names: tuple[str, ...], first: Chars, more: Chars) -> Expr:
    """A name of one or more raw characters (``first`` then ``more``; no escapes) that is none of ``names``
    (an XML parameter name, a Python identifier, a bare Gemma 4 key)."""
    names = tuple(n for n in names if n and first.contains(ord(n[0])) and all(more.contains(ord(c)) for c in n[1:]))

    def one(excluded: frozenset[str], depth: int) -> Expr:
        return _chars_not(first if depth == 0 else more, excluded)

    return complement(names, one, Lit, lambda depth: Rep(more, 0, None), min_len=1)


@lru_cache(maxsize=256)
def gemma_quoted_body(names: tuple[str, ...]) -> Expr:
    """The inside of a quoted Gemma 4 key (``<|"|>K<|"|>``: raw text up to the first closing quote)
    that is none of ``names``.  Declared names stand bare, so they hold no ``<``: text after a
    name's prefix cannot form a closing quote with it."""
    q = gemma_text.QUOTE
    names = tuple(n for n in names if q[0] not in n)

    def one(excluded: frozenset[str], depth: int) -> Expr:
        return Until((q,), first_not="".join(sorted(excluded)), nonempty=True)

    return complement(names, one, Lit, lambda depth: EMPTY, min_len=0)


@dataclass(frozen=True)
class KeyClass:
    """The undeclared keys that match exactly the ``patternProperties`` patterns ``matches`` (indices in
    schema order; none: the keys ``additionalProperties`` governs), as a decoded regular expression
    (:func:`.regex.spell` writes it in a syntax)."""

    matches: tuple[int, ...]
    decoded: Expr


def key_classes(declared: tuple[str, ...], patterns: tuple[Expr, ...], extra: bool,
                allowed: Expr | None = None) -> tuple[list[KeyClass], dict[str, tuple[int, ...]]]:
    """Split the keys an object may hold besides ``declared`` by the ``patterns`` (decoded expressions)
    they match: one class per set of patterns (keys matching two patterns take both schemas), and the
    keys matching none when ``extra`` (``additionalProperties`` not false).  ``allowed``: the names the
    syntax can write (an identifier, an XML name), None for any text.  Also returns, for each declared
    name, the patterns it matches (its value must satisfy those schemas too).

    One labelled DFA over all the expressions (:func:`.dfa.build_labeled_dfa`) gives each key exactly
    one class, so the classes are disjoint and a grammar's choice between them is unambiguous."""
    names = tuple(dict.fromkeys(declared))
    exprs = list(patterns)
    if names:
        exprs.append(alt(*(Lit(n) for n in names)))
    if allowed is not None:
        exprs.append(allowed)
    n, d_label, a_label = len(patterns), len(patterns) if names else -2, len(exprs) - 1 if allowed is not None else -2
    try:
        trans, labels, starts = build_labeled_dfa(tuple(exprs))
    except DfaLimit as exc:
        raise UnsupportedSchemaError(f"patternProperties: the key automaton is too large ({exc})") from None
    groups: dict[tuple[int, ...], set[int]] = {}
    for s, lab in enumerate(labels):
        if d_label in lab or (allowed is not None and a_label not in lab):
            continue
        groups.setdefault(tuple(sorted(i for i in lab if i < n)), set()).add(s)
    if extra and allowed is None:
        groups.setdefault((), set()).add(-1)  # keys that leave the DFA match nothing: the sink
    out = []
    for matches, states in sorted(groups.items()):
        if not matches and not extra:
            continue
        try:
            decoded = dfa_expr(trans, states, starts, complete=allowed is None, minimal=True)
        except DfaLimit as exc:
            raise UnsupportedSchemaError(f"patternProperties: the key automaton is too large ({exc})") from None
        if decoded != Chars(()):
            out.append(KeyClass(matches, decoded))
    matched = {}
    for name in names:
        state = run(trans, starts, name)
        matched[name] = () if state is None else tuple(sorted(i for i in labels[state] if i < n))
    return out, matched


@lru_cache(maxsize=256)
def intersect(a: Expr, b: Expr) -> Expr:
    """The words both decoded expressions match (Gemma 4's bare keys of a key class)."""
    return intersection(a, b)


@lru_cache(maxsize=256)
def _dfa(e: Expr) -> tuple[list[dict[int, int]], set[int], list[int]]:
    return build_dfa(e)


def matches(e: Expr, word: str) -> bool:
    """Whether the decoded expression ``e`` matches ``word`` (a declared name against ``propertyNames``)."""
    trans, accepting, starts = _dfa(e)
    return run(trans, starts, word) in accepting
