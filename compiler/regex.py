"""JSON-schema ``pattern`` -> grammar IR over the *decoded* string characters.

Supported: literals, ``.``, classes (ranges, negation, ``\\d \\w \\s`` and their negations),
groups, alternation, greedy or lazy ``? * + {m,n}``, ``^``/``$`` at the ends, and look-arounds in
the top-level sequence (met with the text after or before them by product automata).
Unanchored patterns match anywhere (JSON Schema semantics), so they get any text around them.
ECMAScript syntax Python's parser lacks is translated first (``\\p{…}`` classes, ``(?<name>…)``, ``[^]``, ``[]``:
:func:`_ecmascript`), and the inline flags ``(?i)``/``(?s)`` of patterns written for Python or Java are applied
(:func:`_flagged`).  Look-arounds inside groups, back-references, anchors inside the pattern and ``(?m)`` raise
:class:`UnsupportedSchemaError`.  ``.`` means any character but a newline, as in ECMAScript.

The result is a :class:`CharSpace` expression: the caller says how one decoded character
is spelled (a JSON escape, a Python escape, or raw text that must avoid a delimiter).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from functools import cache, lru_cache
from re import _constants as c  # type: ignore[attr-defined]
from re import _parser as sre  # type: ignore[attr-defined]
from typing import NamedTuple

from ..errors import EmptySchemaError, UnsupportedSchemaError
from ..grammars.syntax import json_text, python_text
from .dfa import DfaLimit, build_dfa, build_labeled_dfa, dfa_expr, intersection, minimize
from .ir import EMPTY, Alt, Chars, Expr, Lit, Rep, Seq, alt, seq

MAXCP = 0x10FFFF
_DIGIT = ((48, 57),)
_WORD = ((48, 57), (65, 90), (95, 95), (97, 122))
_SPACE = (
    (9, 13),
    (32, 32),
    (0xA0, 0xA0),
    (0x1680, 0x1680),
    (0x2000, 0x200A),
    (0x2028, 0x2029),
    (0x202F, 0x202F),
    (0x205F, 0x205F),
    (0x3000, 0x3000),
    (0xFEFF, 0xFEFF),
)


def _negate(ranges: tuple[tuple[int, int], ...]) -> tuple[tuple[int, int], ...]:
    out = []
    prev = 0
    for lo, hi in sorted(ranges):
        if lo > prev:
            out.append((prev, lo - 1))
        prev = max(prev, hi + 1)
    if prev <= MAXCP:
        out.append((prev, MAXCP))
    return tuple(out)


def _merge(ranges: list[tuple[int, int]]) -> tuple[tuple[int, int], ...]:
    out: list[list[int]] = []
    for lo, hi in sorted(ranges):
        if out and lo <= out[-1][1] + 1:
            out[-1][1] = max(out[-1][1], hi)
        else:
            out.append([lo, hi])
    return tuple((a, b) for a, b in out)


_CATEGORIES = {
    c.CATEGORY_DIGIT: _DIGIT,
    c.CATEGORY_WORD: _WORD,
    c.CATEGORY_SPACE: _SPACE,
    c.CATEGORY_NOT_DIGIT: _negate(_DIGIT),
    c.CATEGORY_NOT_WORD: _negate(_WORD),
    c.CATEGORY_NOT_SPACE: _negate(_SPACE),
}


class Patterns(NamedTuple):
    """The strings that match every pattern of ``all`` and none of ``none`` (a string schema's ``pattern``
    met with another, or with a negated one: ``not``, a condition's else)."""

    all: tuple[str, ...]
    none: tuple[str, ...] = ()


def pattern_to_ir(
    pattern: str | Patterns, char: Callable[[tuple[tuple[int, int], ...]], Expr], path: str,
    length: tuple[int, int | None] = (0, None),
) -> Expr:
    """The language of strings matching ``pattern`` (or a :class:`Patterns`: :func:`patterns_to_ir`);
    ``char(ranges)`` spells one character from ``ranges``.
    ``length``: only strings of that many characters (``minLength``/``maxLength``; an
    :class:`UnsupportedSchemaError` when the pattern's shape does not allow the intersection).
    Built once per pattern and spelling (a format's call-id pattern recurs in every call)."""
    if isinstance(pattern, Patterns):
        return patterns_to_ir(pattern.all, char, path, length, pattern.none)
    try:
        if length == (0, None):
            return _pattern_ir(pattern, char)
        decoded = restrict_length(_pattern_ir(pattern, decoded_char), length[0], length[1], pattern)
        if decoded is None:
            raise UnsupportedSchemaError(f"no string of length {length[0]}..{length[1]} matches pattern {pattern!r}")
        return spell(decoded, char)
    except UnsupportedSchemaError as exc:
        raise UnsupportedSchemaError(exc.message, path) from None


def writable(pattern: str | Patterns, length: tuple[int, int | None] = (0, None)) -> bool:
    """Whether :func:`pattern_to_ir` can write ``pattern`` with ``length`` (else it raises
    :class:`UnsupportedSchemaError`; a pattern no string of that length matches is writable: it is empty)."""
    try:
        pattern_to_ir(pattern, decoded_char, "", length)
    except UnsupportedSchemaError as exc:
        return exc.message.startswith("no string of length")
    except EmptySchemaError:
        return True
    return True


#: caps of a patterns' intersection written out (:func:`patterns_to_ir`): DFA states, expression nodes
MAX_MEET_STATES = 200
MAX_MEET_NODES = 20_000


def patterns_to_ir(
    patterns: tuple[str, ...], char: Callable[[tuple[tuple[int, int], ...]], Expr], path: str,
    length: tuple[int, int | None] = (0, None), excluded: tuple[str, ...] = (),
) -> Expr:
    """The strings matching every one of ``patterns`` (a ``format``'s and a ``pattern``) and none of ``excluded``,
    of ``length`` characters (restricted on the last pattern, as :func:`pattern_to_ir` does; with none, on the
    result): the product of their automata, written back as one unambiguous expression.
    :class:`UnsupportedSchemaError` at ``path`` past :data:`MAX_MEET_STATES` / :data:`MAX_MEET_NODES`;
    :class:`~toolgram.errors.EmptySchemaError` when no string matches them all."""
    shown = [*patterns, *(f"not {x}" for x in excluded)]
    try:
        decoded = [_pattern_ir(p, decoded_char) for p in patterns] or [_ANY_TEXT]
        if length != (0, None) and patterns:
            last = restrict_length(decoded[-1], length[0], length[1], patterns[-1])
            if last is None:
                raise EmptySchemaError(f"no string of length {length[0]}..{length[1]} matches {patterns[-1]!r}", path)
            decoded[-1] = last
        met = decoded[0]
        for d in decoded[1:]:
            met = intersection(met, d, max_states=MAX_MEET_STATES, max_nodes=MAX_MEET_NODES)
        for x in excluded:
            met = _meet(met, _pattern_ir(x, decoded_char), True, x, path)
        if length != (0, None) and not patterns:
            met = restrict_length(met, length[0], length[1], " and ".join(shown))
            if met is None:
                raise EmptySchemaError(f"no string of length {length[0]}..{length[1]} matches {shown!r}", path)
    except DfaLimit as exc:
        raise UnsupportedSchemaError(f"the patterns {shown!r} together: {exc}", path) from None
    except UnsupportedSchemaError as exc:
        raise UnsupportedSchemaError(exc.message, path) from None
    if met == Chars(()):
        raise EmptySchemaError(f"no string matches all of {shown!r}", path)
    return spell(met, char)


def decoded_char(ranges: tuple[tuple[int, int], ...]) -> Expr:
    """One decoded character (the spelling of the length-restricted patterns and of key patterns,
    re-spelled after by :func:`spell`)."""
    return Chars(ranges, False)


def spell(e: Expr, char: Callable[[tuple[tuple[int, int], ...]], Expr]) -> Expr:
    """A decoded regular expression (of :class:`Chars`, literals, sequences, choices, repetitions)
    with each character spelled by ``char(ranges)``, as a value syntax writes it."""
    if isinstance(e, Chars):
        return char(e.ranges if not e.negated else _negate(tuple(sorted(e.ranges))))
    if isinstance(e, Lit):
        return seq(*(char(((ord(ch), ord(ch)),)) for ch in e.text))
    if isinstance(e, Seq):
        return seq(*(spell(i, char) for i in e.items))
    if isinstance(e, Alt):
        return alt(*(spell(i, char) for i in e.items))
    if isinstance(e, Rep):
        return Rep(spell(e.item, char), e.min, e.max)
    return e  # EMPTY


def _span(e: Expr) -> tuple[int, int | None]:
    """The fewest and most characters of a decoded pattern expression (None: unbounded)."""
    if isinstance(e, Chars):
        return 1, 1
    if isinstance(e, Lit):
        return len(e.text), len(e.text)
    if isinstance(e, Seq):
        lo, hi = 0, 0
        for i in e.items:
            a, b = _span(i)
            lo += a
            hi = None if hi is None or b is None else hi + b
        return lo, hi
    if isinstance(e, Alt):
        spans = [_span(i) for i in e.items]
        his = [b for _, b in spans]
        return min(a for a, _ in spans), None if None in his else max(his)  # type: ignore[type-var]
    if isinstance(e, Rep):
        a, b = _span(e.item)
        return a * e.min, None if e.max is None or b is None else b * e.max
    raise TypeError(e)


#: Most alternatives one length intersection may spell out (a bounded repetition, a sequence's choices).
MAX_LENGTH_BRANCHES = 64


def restrict_length(e: Expr, lo: int, hi: int | None, pattern: str) -> Expr | None:
    """The strings of decoded expression ``e`` with ``lo`` to ``hi`` characters; None when there are
    none.  Exact for the shapes patterns have (one variable part per sequence, repetitions of a
    fixed-length item, alternatives of them); :class:`UnsupportedSchemaError` otherwise."""
    a, b = _span(e)
    if (hi is not None and a > hi) or (b is not None and b < lo):
        return None
    if a >= lo and (hi is None or (b is not None and b <= hi)):
        return e
    if isinstance(e, Alt):
        kept = [r for r in (restrict_length(i, lo, hi, pattern) for i in e.items) if r is not None]
        return alt(*kept) if kept else None
    if isinstance(e, Rep):
        ia, ib = _span(e.item)
        if ia == ib and ia > 0:
            n_lo = max(e.min, -(-lo // ia))
            n_hi = e.max if hi is None else (hi // ia if e.max is None else min(e.max, hi // ia))
            return None if n_hi is not None and n_lo > n_hi else Rep(e.item, n_lo, n_hi)
        if e.max is not None and e.max - e.min < 8:
            return restrict_length(alt(*(seq(*[e.item] * n) for n in range(e.min, e.max + 1))), lo, hi, pattern)
    if isinstance(e, Seq):
        items = list(e.items)
        spans = [_span(i) for i in items]
        variable = [k for k, (x, y) in enumerate(spans) if x != y]
        if len(variable) == 1:
            k = variable[0]
            fixed = sum(x for j, (x, _) in enumerate(spans) if j != k)
            inner = restrict_length(items[k], max(lo - fixed, 0), None if hi is None else hi - fixed, pattern)
            return None if inner is None else seq(*items[:k], inner, *items[k + 1:])
        for k in variable:  # spell out one choice (an alternation, a short repetition) and retry
            item = items[k]
            if isinstance(item, Rep) and item.max is not None and item.max - item.min < 8:
                item = alt(*(seq(*[item.item] * n) for n in range(item.min, item.max + 1)))
            elif isinstance(item, Rep) and hi is not None and _span(item.item)[0] > 0:
                top = hi // _span(item.item)[0] if item.max is None else min(item.max, hi // _span(item.item)[0])
                if top - item.min < MAX_LENGTH_BRANCHES:  # each count of its own (at most hi characters)
                    item = alt(*(Rep(item.item, n, n) for n in range(item.min, top + 1)))
            if isinstance(item, Alt) and len(item.items) <= MAX_LENGTH_BRANCHES:
                kept = [restrict_length(seq(*items[:k], choice, *items[k + 1:]), lo, hi, pattern)
                        for choice in item.items]
                found = [r for r in kept if r is not None]
                return alt(*found) if found else None
    raise UnsupportedSchemaError(f"pattern {pattern!r} together with minLength/maxLength: the intersection "
                                 "has no grammar toolgram can write")


@lru_cache(maxsize=1024)
def _pattern_ir(pattern: str, char: Callable[[tuple[tuple[int, int], ...]], Expr], path: None = None) -> Expr:
    try:
        tree = sre.parse(_ecmascript(pattern))
    except UnsupportedSchemaError:
        raise
    except Exception as exc:  # re.error
        raise UnsupportedSchemaError(f"pattern {pattern!r} is not a valid regex: {exc}", path) from None
    branches = _anchored(_flagged(list(tree), tree.state.flags, pattern))
    if any(op in _LOOK for _, _, items in branches for op, _ in items):
        looking = alt(*(_looking(start, end, items, pattern, path) for start, end, items in branches))
        return spell(_minimal(looking, pattern, path), char)
    any_text = Rep(char(((0, MAXCP),)), 0, None)
    return alt(*(seq(EMPTY if start else any_text, _seq(items, char, pattern, path), EMPTY if end else any_text)
                 for start, end, items in branches))


_LOOK = (c.ASSERT, c.ASSERT_NOT)
_ANY_TEXT = Rep(Chars(((0, MAXCP),), False), 0, None)


def _looking(start: bool, end: bool, items: list, pattern: str, path: str | None) -> Expr:
    """The decoded language of one top-level branch whose sequence holds look-arounds (``(?=…)``,
    ``(?!…)``, ``(?<=…)``, ``(?<!…)``).  A look-behind tests all the text before its place: the last one
    meets (or, negated, strips) the branch's head with ``Σ*·test``; a look-ahead tests all the text after
    it: the first one meets the rest with ``test·Σ*``.  Exact, by product automata
    (:data:`MAX_MEET_STATES`), when every look-behind comes before every look-ahead (adjacent ones are
    swapped: both are zero-width); the other order, and a look-around inside a group or a repetition,
    is refused."""
    items = _behind_first(items)
    behind = [i for i, (op, av) in enumerate(items) if op in _LOOK and av[0] == -1]
    ahead = [i for i, (op, av) in enumerate(items) if op in _LOOK and av[0] == 1]
    if behind and ahead and ahead[0] < behind[-1]:
        raise UnsupportedSchemaError(f"pattern {pattern!r}: a look-behind after a look-ahead", path)
    if behind:
        k = behind[-1]
        op, (_, sub) = items[k]
        parts = _anchored(list(sub))
        if any(b_end for _, b_end, _ in parts) and not (end and k == len(items) - 1):
            raise UnsupportedSchemaError(f"pattern {pattern!r}: $ inside a look-behind before the end", path)
        test = alt(*(_looking(b_start, True, _only(b_items, -1, pattern, path), pattern, path)
                     for b_start, _, b_items in parts))
        head = _meet(_looking(start, True, items[:k], pattern, path), test, op == c.ASSERT_NOT, pattern, path)
        return seq(head, _looking(True, end, items[k + 1:], pattern, path))
    head = seq(EMPTY if start else _ANY_TEXT, _seq(items[:ahead[0]] if ahead else items, decoded_char, pattern, path))
    if not ahead:
        return seq(head, EMPTY if end else _ANY_TEXT)
    k = ahead[0]
    op, (_, sub) = items[k]
    parts = _anchored(list(sub))
    if any(b_start for b_start, _, _ in parts) and not (start and k == 0):
        raise UnsupportedSchemaError(f"pattern {pattern!r}: ^ inside a look-ahead after the start", path)
    test = alt(*(_looking(True, b_end, _only(b_items, 1, pattern, path), pattern, path) for _, b_end, b_items in parts))
    return seq(head, _meet(_looking(True, end, items[k + 1:], pattern, path), test, op == c.ASSERT_NOT, pattern, path))


def _behind_first(items: list) -> list:
    """``items`` with each run of adjacent look-arounds reordered look-behinds first (zero-width: the
    same language)."""
    out: list = []
    run: list = []
    for item in [*items, None]:
        if item is not None and item[0] in _LOOK:
            run.append(item)
            continue
        out.extend(sorted(run, key=lambda i: i[1][0]))
        run = []
        if item is not None:
            out.append(item)
    return out


def _only(items: list, direction: int, pattern: str, path: str | None) -> list:
    """A look-around's body, whose own look-arounds must look the same way (a look-behind inside a
    look-ahead would see text before the look-ahead's body, which the body's expression does not hold)."""
    if any(op in _LOOK and av[0] != direction for op, av in items):
        raise UnsupportedSchemaError(f"pattern {pattern!r}: a look-around facing the other way inside a look-around",
                                     path)
    return items


def _minimal(e: Expr, pattern: str, path: str | None) -> Expr:
    """Decoded ``e`` written back from its minimal DFA: one unambiguous expression, which every dialect and
    the strict parser's linear-time terminals can hold (the text around a look-around's meet no longer
    multiplies its states when a matcher determinizes it); :class:`UnsupportedSchemaError` past the caps."""
    try:
        trans, accepting, starts = build_dfa(e)
        trans, accepting = minimize(trans, accepting)
        return dfa_expr(trans, accepting, starts, max_states=MAX_MEET_STATES, max_nodes=MAX_MEET_NODES)
    except DfaLimit as exc:
        raise UnsupportedSchemaError(f"pattern {pattern!r}: its look-around has no grammar toolgram can "
                                     f"write ({exc})", path) from None


def _meet(base: Expr, test: Expr, negated: bool, pattern: str, path: str | None) -> Expr:
    """The words of decoded ``base`` that ``test`` matches (does not match, ``negated``), written back as
    one unambiguous expression; :class:`UnsupportedSchemaError` past the meet caps."""
    try:
        trans, labels, starts = build_labeled_dfa((base, test))
        trans, accepting = minimize(trans, {s for s, lab in enumerate(labels)
                                            if 0 in lab and (1 in lab) != negated})
        return dfa_expr(trans, accepting, starts, max_states=MAX_MEET_STATES, max_nodes=MAX_MEET_NODES)
    except DfaLimit as exc:
        raise UnsupportedSchemaError(f"pattern {pattern!r}: the strings it {'excludes' if negated else 'tests'} "
                                     f"have no grammar toolgram can write ({exc})", path) from None


#: ECMAScript's General_Category values (``\p{L}``, ``\p{Letter}``, ``\p{gc=Lu}``): long name -> short name
_GENERAL = {
    "Letter": "L", "Cased_Letter": "LC", "Uppercase_Letter": "Lu", "Lowercase_Letter": "Ll", "Titlecase_Letter": "Lt",
    "Modifier_Letter": "Lm", "Other_Letter": "Lo", "Mark": "M", "Combining_Mark": "M", "Nonspacing_Mark": "Mn",
    "Spacing_Mark": "Mc", "Enclosing_Mark": "Me", "Number": "N", "Decimal_Number": "Nd", "digit": "Nd",
    "Letter_Number": "Nl", "Other_Number": "No", "Punctuation": "P", "punct": "P", "Connector_Punctuation": "Pc",
    "Dash_Punctuation": "Pd", "Open_Punctuation": "Ps", "Close_Punctuation": "Pe", "Initial_Punctuation": "Pi",
    "Final_Punctuation": "Pf", "Other_Punctuation": "Po", "Symbol": "S", "Math_Symbol": "Sm",
    "Currency_Symbol": "Sc", "Modifier_Symbol": "Sk", "Other_Symbol": "So", "Separator": "Z",
    "Space_Separator": "Zs", "Line_Separator": "Zl", "Paragraph_Separator": "Zp", "Other": "C", "Control": "Cc",
    "cntrl": "Cc", "Format": "Cf", "Surrogate": "Cs", "Private_Use": "Co", "Unassigned": "Cn",
}
_SHORT = set(_GENERAL.values()) | {"L&"}


@cache
def _categories() -> dict[str, tuple[tuple[int, int], ...]]:
    """Every code point's General_Category, as ranges per category (Python's Unicode database; read once)."""
    spans: dict[str, list[tuple[int, int]]] = {}
    start, current = 0, unicodedata.category(chr(0))
    for cp in range(1, MAXCP + 2):
        cat = unicodedata.category(chr(cp)) if cp <= MAXCP else None
        if cat != current:
            spans.setdefault(current, []).append((start, cp - 1))
            start, current = cp, cat
    return {k: tuple(v) for k, v in spans.items()}


def _property(name: str, pattern: str) -> tuple[tuple[int, int], ...]:
    """The code points of ECMAScript's ``\\p{name}`` (a General_Category, ``Any``, ``ASCII``)."""
    if name.startswith(("gc=", "General_Category=")):
        name = name.split("=", 1)[1]
    if name == "Any":
        return ((0, MAXCP),)
    if name == "ASCII":
        return ((0, 0x7F),)
    short = _GENERAL.get(name, name)
    if short not in _SHORT:
        raise UnsupportedSchemaError(f"pattern {pattern!r}: the Unicode property \\p{{{name}}} is not supported "
                                     "(General_Category values, Any and ASCII are)")
    table = _categories()
    if short in ("LC", "L&"):
        return _merge([r for c in ("Lu", "Ll", "Lt") for r in table.get(c, ())])
    return _merge([r for c, rs in table.items() if c.startswith(short) for r in rs])


def _ranges_text(ranges: tuple[tuple[int, int], ...]) -> str:
    return "".join(f"\\U{lo:08x}" if lo == hi else f"\\U{lo:08x}-\\U{hi:08x}" for lo, hi in ranges)


def _ecmascript(pattern: str) -> str:
    """``pattern`` (ECMAScript) in the syntax Python's regex parser reads, where they differ: ``\\p{…}`` /
    ``\\P{…}`` as the class of their code points, named groups ``(?<name>…)`` as ``(?P<name>…)``, and the
    classes ``[^]`` (any character) and ``[]`` (none)."""
    if not any(s in pattern for s in ("\\p", "\\P", "(?<", "[]", "[^]")):
        return pattern
    out: list[str] = []
    i, in_class = 0, False
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\" and i + 1 < len(pattern):
            nxt = pattern[i + 1]
            if nxt in "pP" and i + 2 < len(pattern) and pattern[i + 2] == "{":
                end = pattern.find("}", i + 3)
                if end < 0:
                    raise UnsupportedSchemaError(f"pattern {pattern!r} is not a valid regex: unterminated \\{nxt}{{")
                ranges = _property(pattern[i + 3:end], pattern)
                if nxt == "P":
                    ranges = _negate(ranges)
                body = _ranges_text(ranges)
                out.append(body if in_class else f"[{body}]" if body else _NOTHING)
                i = end + 1
                continue
            out.append(pattern[i:i + 2])
            i += 2
            continue
        if not in_class and pattern.startswith("[^]", i):
            out.append("[\\s\\S]")
            i += 3
            continue
        if not in_class and pattern.startswith("[]", i):
            out.append(_NOTHING)
            i += 2
            continue
        if ch == "[" and not in_class:
            in_class = True
            out.append(ch)
            i += 1
            if pattern.startswith("^", i):
                out.append("^")
                i += 1
            continue
        if ch == "]" and in_class:
            in_class = False
        if not in_class and pattern.startswith("(?<", i) and not pattern.startswith(("(?<=", "(?<!"), i):
            out.append("(?P<")
            i += 3
            continue
        out.append(ch)
        i += 1
    return "".join(out)


#: a class no character is in (``[]``, a ``\\p{…}`` of no code point)
_NOTHING = "[^\\x00-\\U0010ffff]"


@cache
def _case_groups() -> dict[int, tuple[int, ...]]:
    """Each cased code point's case variants, itself included (simple case mappings: ``k``, ``K`` and the
    Kelvin sign ``K`` are one group), as an ignore-case match reads them."""
    parent: dict[int, int] = {}

    def find(x: int) -> int:
        while parent.get(x, x) != x:
            x = parent[x]
        return x

    for cp in range(0x20000):
        ch = chr(cp)
        for other in (ch.lower(), ch.upper()):
            if len(other) == 1 and other != ch:
                a, b = find(cp), find(ord(other))
                if a != b:
                    parent[max(a, b)] = min(a, b)
    groups: dict[int, list[int]] = {}
    for cp in parent:
        groups.setdefault(find(cp), []).append(cp)
    out: dict[int, tuple[int, ...]] = {}
    for root, members in groups.items():
        every = tuple(sorted({root, *members}))
        for m in every:
            out[m] = every
    return out


def _case_closed(ranges: tuple[tuple[int, int], ...]) -> tuple[tuple[int, int], ...]:
    """``ranges`` with every case variant of the characters in them."""
    cased = _case_groups()
    extra = [(v, v) for cp in sorted(cased) if any(lo <= cp <= hi for lo, hi in ranges) for v in cased[cp]]
    return _merge([*ranges, *extra])


def _flagged(items: list, flags: int, pattern: str) -> list:
    """A parsed pattern with the inline flags it sets applied to its nodes: ``(?i)`` (also scoped, ``(?i:…)``) as
    classes holding every case variant, ``(?s)`` as a ``.`` that matches a newline; ``(?m)`` changes what the
    anchors mean and is refused.  (ECMAScript has no inline flags; patterns written for Python or Java do.)"""
    if flags & c.SRE_FLAG_MULTILINE:
        raise UnsupportedSchemaError(f"pattern {pattern!r}: the multi-line flag (?m) is not supported")
    if not flags & (c.SRE_FLAG_IGNORECASE | c.SRE_FLAG_DOTALL):
        return [_flag_node(op, av, flags, pattern) for op, av in items] if any(
            op in (c.SUBPATTERN, c.BRANCH, c.MAX_REPEAT, c.MIN_REPEAT, *_LOOK) for op, _ in items) else items
    return [_flag_node(op, av, flags, pattern) for op, av in items]


def _flag_node(op, av, flags: int, pattern: str) -> tuple:  # noqa: C901 - one case per opcode
    fold = flags & c.SRE_FLAG_IGNORECASE
    if op == c.LITERAL and fold:
        return (c.IN, [(c.RANGE, r) for r in _case_closed(((av, av),))])
    if op == c.NOT_LITERAL and fold:
        return (c.IN, [(c.NEGATE, None), *((c.RANGE, r) for r in _case_closed(((av, av),)))])
    if op == c.ANY and flags & c.SRE_FLAG_DOTALL:
        return (c.IN, [(c.RANGE, (0, MAXCP))])
    if op == c.IN and fold:
        negate = any(iop == c.NEGATE for iop, _ in av)
        ranges = _class_ranges([(iop, iav) for iop, iav in av if iop != c.NEGATE], pattern)
        return (c.IN, [*([(c.NEGATE, None)] if negate else []), *((c.RANGE, r) for r in _case_closed(ranges))])
    if op == c.SUBPATTERN:
        group, add, remove, sub = av
        return (op, (group, 0, 0, _flagged(list(sub), (flags | add) & ~remove, pattern)))
    if op == c.BRANCH:
        return (op, (av[0], [_flagged(list(b), flags, pattern) for b in av[1]]))
    if op in (c.MAX_REPEAT, c.MIN_REPEAT, getattr(c, "POSSESSIVE_REPEAT", None)):
        return (op, (av[0], av[1], _flagged(list(av[2]), flags, pattern)))
    if op in _LOOK:
        return (op, (av[0], _flagged(list(av[1]), flags, pattern)))
    return (op, av)


def _anchored(items: list) -> list[tuple[bool, bool, list]]:
    """A pattern's top-level alternatives as ``(anchored at the start, at the end, items)``: ECMAScript
    anchors bind inside an alternation (``^dev|alpha|stable$`` is ``(^dev)|(alpha)|(stable$)``),
    also inside one group that is the whole pattern."""
    if len(items) == 1 and items[0][0] == c.BRANCH:
        return [part for branch in items[0][1][1] for part in _anchored(list(branch))]
    if len(items) == 1 and items[0][0] == c.SUBPATTERN:
        inner = list(items[0][1][-1])
        if any(op == c.AT for op, _ in inner) or (len(inner) == 1 and inner[0][0] == c.BRANCH):
            return _anchored(inner)
    start = bool(items) and items[0] == (c.AT, c.AT_BEGINNING)
    if start:
        items = items[1:]
    end = bool(items) and items[-1][0] == c.AT and items[-1][1] in (c.AT_END, c.AT_END_STRING)
    if end:
        items = items[:-1]
    return [(start, end, items)]


def _seq(items: list, char: Callable, pattern: str, path: str) -> Expr:
    return seq(*(_node(op, av, char, pattern, path) for op, av in items))


def _node(op, av, char: Callable, pattern: str, path: str) -> Expr:  # noqa: C901 - one case per opcode
    if op == c.LITERAL:
        return char(((av, av),))
    if op == c.NOT_LITERAL:
        return char(_negate(((av, av),)))
    if op == c.ANY:
        return char(_negate(((10, 10),)))
    if op == c.IN:
        negate = any(iop == c.NEGATE for iop, _ in av)
        merged = _class_ranges([(iop, iav) for iop, iav in av if iop != c.NEGATE], pattern, path)
        return char(_negate(merged) if negate else merged)
    if op == c.SUBPATTERN:
        return _seq(list(av[-1]), char, pattern, path)
    if op == c.BRANCH:
        return alt(*(_seq(list(b), char, pattern, path) for b in av[1]))
    if op in (c.MAX_REPEAT, c.MIN_REPEAT, getattr(c, "POSSESSIVE_REPEAT", None)):
        lo, hi, sub = av
        return Rep(_seq(list(sub), char, pattern, path), lo, None if hi == c.MAXREPEAT else hi)
    raise UnsupportedSchemaError(f"pattern {pattern!r}: {str(op).lower()} cannot be expressed in a grammar", path)


def _class_ranges(items: list, pattern: str, path: str | None = None) -> tuple[tuple[int, int], ...]:
    """The code points a class's items (literals, ranges, ``\\d \\w \\s``) name, merged."""
    ranges: list[tuple[int, int]] = []
    for iop, iav in items:
        if iop == c.LITERAL:
            ranges.append((iav, iav))
        elif iop == c.RANGE:
            ranges.append(iav)
        elif iop == c.CATEGORY and iav in _CATEGORIES:
            ranges.extend(_CATEGORIES[iav])
        else:
            raise UnsupportedSchemaError(f"pattern {pattern!r}: unsupported class item {iop}", path)
    return _merge(ranges)


def subtract(ranges: tuple[tuple[int, int], ...], remove: tuple[tuple[int, int], ...]) -> tuple[tuple[int, int], ...]:
    """``ranges`` minus ``remove``."""
    out = []
    for lo, hi in ranges:
        pieces = [(lo, hi)]
        for rlo, rhi in remove:
            nxt = []
            for a, b in pieces:
                if rhi < a or rlo > b:
                    nxt.append((a, b))
                    continue
                if a < rlo:
                    nxt.append((a, rlo - 1))
                if rhi < b:
                    nxt.append((rhi + 1, b))
            pieces = nxt
        out.extend(pieces)
    return tuple(out)


def chars_expr(ranges: tuple[tuple[int, int], ...]) -> Expr:
    """A :class:`Chars` for ``ranges``, written negated when that is shorter."""
    if not ranges:
        return Chars((), False)
    neg = _negate(ranges)
    if len(neg) < len(ranges):
        return Chars(neg, True)
    return Chars(ranges, False)




@lru_cache(maxsize=1024)
def json_char(ranges: tuple[tuple[int, int], ...]) -> Expr:
    """One decoded character from ``ranges`` as it appears inside a JSON string (``json.dumps`` escapes)."""
    special = json_text.MUST_ESCAPE
    plain = subtract(ranges, special)
    parts: list[Expr] = [chars_expr(plain)] if plain else []
    top = max(hi for _, hi in special)
    for lo, hi in ranges:
        for cp in range(lo, min(hi, top) + 1):
            if any(a <= cp <= b for a, b in special):
                parts.append(Lit(json_text.written(cp)))
    return alt(*parts)


@cache
def python_char(quote: str) -> Callable[[tuple[tuple[int, int], ...]], Expr]:
    """Spell one decoded character inside a Python string quoted with ``quote``."""
    esc = {**{ord(ch): python_text.WRITTEN[ch] for ch in python_text.MUST_ESCAPE}, ord(quote): "\\" + quote}
    # characters the writer escapes that may also stand raw (a tab)
    also = {ord(ch): text for ch, text in python_text.WRITTEN.items() if ch not in python_text.MUST_ESCAPE}

    def char(ranges: tuple[tuple[int, int], ...]) -> Expr:
        special = tuple((k, k) for k in sorted(esc))
        parts: list[Expr] = []
        plain = subtract(ranges, special)
        if plain:
            parts.append(chars_expr(plain))
        for k, text in {**esc, **also}.items():
            if any(lo <= k <= hi for lo, hi in ranges):
                parts.append(Lit(text))
        return alt(*parts)

    return char


@cache
def raw_char(forbidden: str) -> Callable[[tuple[tuple[int, int], ...]], Expr]:
    """Spell one character of raw text that may not contain any of ``forbidden``."""
    remove = tuple((ord(ch), ord(ch)) for ch in forbidden)

    def char(ranges: tuple[tuple[int, int], ...]) -> Expr:
        return chars_expr(subtract(ranges, remove))

    return char
