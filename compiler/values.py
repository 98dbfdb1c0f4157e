"""JSON schema -> grammar IR for argument values, in JSON, Python-literal or Gemma 4 spelling.

Gemma 4 (``gemma``, :mod:`toolgram.grammars.syntax.gemma_text`): strings ``<|"|>raw<|"|>``, bare
keys, no whitespace.  A string cannot hold ``<|"|>`` (the first one ends it); a length-bounded or
pattern string cannot hold ``<`` at all (as the XML formats' bounded raw strings).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from decimal import Decimal
from functools import cache, lru_cache
from typing import Any, Literal, TypeVar

from ..errors import EmptySchemaError, SchemaError, UnsupportedSchemaError
from ..grammars.syntax import gemma_text, json_text, python_text
from .conditional import expand, negation, pending
from .dfa import DfaLimit, build_dfa
from .exclusive import exclusive
from .formats import format_pattern
from .ir import ANY, EMPTY, Chars, Expr, Grammar, Lit, Ref, Rep, Token, Until, alt, named, opt, seq, unbounded_chars
from .keys import (
    KeyClass,
    gemma_quoted_body,
    intersect,
    json_key_body,
    json_key_spellings,
    key_classes,
    matches,
    plain_name,
    python_key_body,
    python_key_spellings,
)
from .keywords import annotation
from .multiples import exact_decimal, integer_step, is_multiple, multiples, valid_step
from .numbers import DIGIT, DIGIT19, FRAC, MAX_INT_DIGITS, decimal_range, int_range, number_range
from .regex import (
    Char,
    Patterns,
    decoded_char,
    json_char,
    matcher,
    pattern_to_ir,
    python_char,
    raw_char,
    spell,
    unambiguous,
    within,
    writable,
)
from .schema import (
    ALSO_PATTERNS,
    CONDITIONS,
    MAX_SCHEMA_DEPTH,
    NOT_MULTIPLES,
    NOT_PATTERNS,
    TYPES,
    SchemaContext,
    deeper_than,
    flatten,
    forbids,
    may_overlap,
    meet,
    merge_all_of,
    met_branch,
    ref_siblings,
    type_hint,
    vacuous,
    values_of,
)

Syntax = Literal["json", "python", "gemma"]
T = TypeVar("T")

#: Largest count xgrammar holds: xgrammar 0.2.9 refuses ``{0,2147483648}`` and reads ``{0,4294967296}`` as
#: ``{0,0}`` (a 32-bit count); OpenVINO's older xgrammar refuses ``2**32``.  ``maxLength: 2147483647`` is the
#: "no limit" of many OpenAPI and CloudFormation schemas.
INT32_MAX = 2**31 - 1
#: Largest ``minLength``/``maxLength`` a grammar carries: xgrammar and Lark's regexes count natively;
#: GBNF writes long repetitions as chunks of at most 1,000, chunks of chunks past 2,000,000 (llama.cpp's own
#: expansion ignores bounds above 2,000: ``[a-z]{0,5000}`` accepts 5,001 characters in llama-cpp-python 0.3.36).
MAX_LENGTH = INT32_MAX
#: Largest ``minItems``/``maxItems`` (arrays repeat a whole value rule; the same forms as strings).
MAX_ITEMS = INT32_MAX
#: Largest ``minProperties``/``maxProperties``: a count tracked across the declared members is at most their
#: number (:meth:`ValueBuilder.counted_body`, bounded by :data:`MAX_OBJECT_STATES`); extra members past them are
#: one counted repetition, as array items are.
MAX_PROPERTIES = INT32_MAX
#: Most multiples an integer ``multipleOf`` with bounds spells out.
MAX_MULTIPLES = 1_000
#: In ``dependentRequired``'s member indices: a required name that cannot appear (its trigger cannot either).
CANNOT = -1
#: Most member states of one object (``minProperties``/``maxProperties``/``dependentRequired`` expansion).
MAX_OBJECT_STATES = 4000
#: Most ``$ref``s met with keywords beside them (``{"$ref": …, "type": …}``, or an ``allOf`` that follows one) whose
#: rules are being built one inside another: each such meet is a rule of its own (memoized by the reference *and*
#: the keywords), so a schema whose meets gather new keywords at every level (JetBrains Web-Types: ``oneOf``
#: branches met with their outer ``type``, through definitions that are ``oneOf``s of each other) never meets one it
#: built before.  Past this depth: refused, naming the path (permissive: the target alone, a superset, the keywords
#: beside it listed under ``relaxed``), where Python's recursion limit ended the build with no path at ~90 levels.
MAX_MET_REFS = 24
#: Most values built one inside another (``properties`` in ``properties``, a ``$ref``'s rule inside another's): the
#: real-world corpora reach 37 (SchemaStore, CloudFormation).  Deeper, the meets of a schema's keywords keep making
#: new schemas that reach no rule built before (a ``$ref`` met with ``properties`` that name the same ``$ref``):
#: refused, naming the path (permissive: any value there, listed under ``relaxed``), where Python's recursion limit
#: ended the build with no path.
MAX_VALUE_DEPTH = 96
#: ``any_order``: objects of at most this many members take them in any order (a rule per set of members
#: written: 2**n); larger ones keep the ``properties`` order (llama.cpp permutes at most 6 required arguments)
MAX_ANY_ORDER = 6

HEX = Chars(((ord("0"), ord("9")), (ord("a"), ord("f")), (ord("A"), ord("F"))))
# llama.cpp's bounded JSON whitespace: nothing, a space, or 1-2 newlines and up to 20 indents.
# GBNF and EBNF print it as one rule ``ws`` (issue 10: engines expand every inline copy).
JSON_WS = named(alt(EMPTY, Lit(" "), seq(Rep(Lit("\n"), 1, 2), Rep(Chars.of(" \t"), 0, 20))), "ws")
WS = Rep(Chars.of(" \t\n"), 0, None)  # SPEC section 1: between calls and before them

#: SPEC section 1: after the last call at most one newline, so every engine's matcher completes there
END_WS = Rep(Lit("\n"), 0, 1)


def template_gap(whitespace: str) -> Expr:
    """Whitespace where the template writes none (inside a wrapper word such as ``<|python_tag|>``, ``>>>`` or
    ``<|python_start|>...<|python_end|>``, inside a pythonic call's parentheses): nothing under ``canonical``,
    JSON whitespace under ``flexible``."""
    return EMPTY if whitespace == "canonical" else JSON_WS


def list_gaps(whitespace: str, captured: bool) -> tuple[Expr, Expr, Expr]:
    """Whitespace around a call list's brackets: (between a section's opening word and the list, after the
    opening bracket, before the closing one). ``canonical``: the templates' spellings, so at most one space
    before the list (Mistral v3 writes ``[TOOL_CALLS] [``, Nemo ``[TOOL_CALLS][``) and none inside the brackets
    (``[f(a=1)]``; Command R7B's ``[\\n    {...}\\n]`` has its padding in the brackets); ``flexible``: JSON
    whitespace in all three. ``captured``: a lazy pattern trigger's capture starts at the bracket and hands
    the grammar the rest of its token (``[\\n``), so the opening admits JSON whitespace."""
    if whitespace != "canonical":
        return JSON_WS, JSON_WS, JSON_WS
    return opt(Lit(" ")), (JSON_WS if captured else EMPTY), EMPTY


INT_RE = seq(opt(Lit("-")), alt(Lit("0"), seq(DIGIT19, Rep(DIGIT, 0, None))))
EXP = seq(Chars.of("eE"), opt(Chars.of("+-")), Rep(DIGIT, 1, None))
NUMBER = seq(INT_RE, opt(FRAC), opt(EXP))

JSON_PLAIN = Chars(json_text.MUST_ESCAPE, negated=True)
# (names for the part after the backslash: sequences are flattened into the string's loop)
JSON_ESC = seq(
    Lit("\\"),
    named(alt(Chars.of("".join(json_text.SINGLE_ESCAPES)),
              seq(Lit(json_text.HEX_ESCAPE[0]), Rep(HEX, json_text.HEX_ESCAPE[1], json_text.HEX_ESCAPE[1]))),
          "json-escape"),
)
JSON_CHAR = named(alt(JSON_PLAIN, JSON_ESC), "json-char")
_PY_ESC = seq(
    Lit("\\"),
    named(alt(
        Chars.of("".join(python_text.SINGLE_ESCAPES)),
        *(seq(Lit(letter), Rep(HEX, digits, digits)) for letter, digits in python_text.HEX_ESCAPES.items()),
    ), "py-escape"),
)
_QUOTE_NAMES = {"'": "sq", '"': "dq"}
#: what a bare Gemma 4 key may not be or hold (for error messages)
GEMMA_KEY_RULE = "empty, whitespace, a control character, ':', ',', a bracket, a quote, '<' or '>'"
#: a bare Gemma 4 key and its colon (undeclared members, any-value objects)
GEMMA_KEY_CHAR = Chars.of(gemma_text.KEY_EXCLUDED, negated=True)
GEMMA_BARE_KEY = Rep(GEMMA_KEY_CHAR, 1, None)
GEMMA_ANYKEY = Token(seq(alt(Rep(GEMMA_KEY_CHAR, 1, None),
                            seq(Lit(gemma_text.QUOTE), Until((gemma_text.QUOTE,)), Lit(gemma_text.QUOTE))),
                        Lit(":")), "ANYKEY")


def py_char(quote: str) -> Expr:
    """One character of a Python string literal quoted with ``quote``."""
    return named(alt(py_plain(quote), _PY_ESC), f"{_QUOTE_NAMES[quote]}-char")


def py_plain(quote: str) -> Chars:
    return Chars.of(quote + python_text.MUST_ESCAPE, negated=True)


def json_literal(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


python_literals = python_text.spellings


def schema_text(schema: Any) -> str | None:
    """A schema's canonical JSON text, the key of the per-grammar memos; ``None`` for a schema that
    cannot be one: with a ``$ref`` (it resolves against its own document) or not JSON."""
    try:
        text = json.dumps(schema, sort_keys=True)
    except (TypeError, ValueError):
        return None
    return None if '"$ref"' in text else text


class ValueBuilder:
    """Builds value rules for one tool's schema in ``json`` or ``python`` spelling."""

    def __init__(self, grammar: Grammar, syntax: Syntax, ctx: SchemaContext, prefix: str,
                 whitespace: str = "canonical") -> None:
        self.g = grammar
        self.syntax = syntax
        #: ``canonical``: punctuation spelled as ``json.dumps`` writes it (``, `` and ``: ``);
        #: ``flexible``: llama.cpp's bounded JSON whitespace around it (SPEC section 1)
        self.canonical = whitespace == "canonical"
        self.ctx = ctx
        self.prefix = prefix
        self._refs: dict[str, Ref] = {}
        #: $refs being built with no value text read since (a cycle back to one is left recursion)
        self._head: set[str] = set()
        #: ``$ref`` rules met with sibling keywords being built, one inside another (:data:`MAX_MET_REFS`)
        self._met_depth = 0
        #: values being built, one inside another (:data:`MAX_VALUE_DEPTH`)
        self._depth = 0

    # -- punctuation -------------------------------------------------------------------------
    def punct(self, text: str) -> Expr:
        """``text`` with optional JSON whitespace around it, as one token (Gemma 4: none; canonical:
        the template's spelling, ``, `` and ``: ``)."""
        if self.syntax == "gemma":
            return _bare(text)
        return _canonical(text) if self.canonical else _punct(text)

    def open_(self, text: str) -> Expr:
        return _bare(text) if self.syntax == "gemma" or self.canonical else _open(text)

    def close_(self, text: str) -> Expr:
        return _bare(text) if self.syntax == "gemma" or self.canonical else _close(text)

    # -- scalars -----------------------------------------------------------------------------
    def string(self, min_len: int = 0, max_len: int | None = None) -> Expr:
        return _string(self.syntax, min_len, max_len)

    def literal(self, value: Any, where: str = "") -> Expr:
        """The spelling(s) of a const/enum value; a value the syntax cannot write (a Gemma 4 string
        holding ``<|"|>``, a key that cannot stand bare) is a :class:`SchemaError` at ``where``."""
        if self.syntax == "gemma":
            try:
                return Lit(gemma_text.literal(value))
            except (ValueError, TypeError) as exc:
                raise SchemaError(str(exc), where) from None
        if isinstance(value, (dict, list)):
            return _literal(self.syntax, value)
        return _literal_cached(self.syntax, value, type(value))

    def boolean(self) -> Expr:
        return alt(self.literal(True), self.literal(False))

    def null(self) -> Expr:
        return self.literal(None)

    # -- containers --------------------------------------------------------------------------
    def key(self, name: str) -> Expr:
        return Lit(name) if self.syntax == "gemma" else self.literal(name)

    def any_key(self, excluding: tuple[str, ...] = ()) -> Expr:
        """An undeclared member's key and its colon, as one token; a key is none of the declared
        names ``excluding``, in any spelling (SPEC section 2; :mod:`.keys`)."""
        if not excluding:
            if self.syntax == "gemma":
                return GEMMA_ANYKEY
            return Token(seq(self.string().expr, self.punct(":").expr), "ANYKEY")
        names = tuple(sorted(set(excluding)))
        if self.syntax == "gemma":
            q = Lit(gemma_text.QUOTE)
            bare = plain_name(names, GEMMA_KEY_CHAR, GEMMA_KEY_CHAR)
            return Token(seq(alt(bare, seq(q, gemma_quoted_body(names), q)), Lit(":")), "ANYKEY")
        key, (anystring, starts) = self._quoted_not(names)
        colon = self.punct(":").expr
        return Token(seq(key, colon), "ANYKEY", unless=(seq(anystring, colon), starts))

    def _quoted_not(self, words: tuple[str, ...]) -> tuple[Expr, tuple[Expr, tuple[Expr, ...]]]:
        """A quoted string (JSON or Python syntax) whose value is none of ``words``, in any spelling: the
        complement of their trie (:mod:`.keys`), and the same language as a :class:`Token`'s ``unless``."""
        if self.syntax == "json":
            body = seq(Lit('"'), json_key_body(words), Lit('"'))
            starts = json_key_spellings(words)
        else:
            body = alt(*(seq(Lit(q), python_key_body(words, q), Lit(q)) for q in "'\""))
            starts = tuple(x for q in "'\"" for x in python_key_spellings(words, q))
        return body, (self.string().expr, starts)

    def object_body(
        self, members: list[tuple[Expr, Expr, bool]], sep: Expr, extra: tuple[Expr, Expr] | None, hint: str
    ) -> Expr:
        """Members in order; optional ones may be left out; ``extra`` members may follow them.

        A member is ``(lead, rest, required)``: its key token and the rest.  The separator is
        factored out in front of the choice of the next member, so after ``sep`` the key token
        alone tells which member comes next (LALR(1) with a contextual lexer, and no two
        terminals that match the same text after a value):

        * ``M(k)``: one member at index ``k`` or later (an optional ``k`` may be skipped), then ``C``;
        * ``C(k)``: nothing (when no required member is left) or ``sep`` and ``M(k)``.
        """
        n = len(members)
        required_after = [False] * (n + 1)
        for k in range(n - 1, -1, -1):
            required_after[k] = members[k][2] or required_after[k + 1]
        m_next: Expr | None = None
        c_next: Expr = EMPTY
        if extra is not None:
            tail = Rep(seq(sep, *extra), 0, None)
            m_next = self.g.shared(f"{hint}-x", seq(*extra, tail))
            c_next = tail
        for k in range(n - 1, -1, -1):
            lead, rest, required = members[k]
            here = seq(lead, rest, c_next)
            m_k = here if (required or m_next is None) else alt(here, m_next)
            m_next = self.g.shared(f"{hint}-m", m_k)
            c_k = seq(sep, m_next)
            c_next = self.g.shared(f"{hint}-c", c_k if required_after[k] else opt(c_k))
        if m_next is None:
            return EMPTY
        return m_next if required_after[0] else opt(m_next)

    def any_order_body(self, members: list[tuple[Expr, Expr, bool]], sep: Expr, extra: tuple[Expr, Expr] | None,
                       hint: str) -> Expr:
        """:meth:`object_body` with the members in any order (``any_order``), each at most once, extra ones
        anywhere among them.  A rule per set of members written (``C(s)``: the end, when every required one
        is in ``s``, or ``sep`` and the next member); after ``sep`` the key token still tells which member
        comes (LALR(1)).  ``2**n`` sets: :data:`MAX_ANY_ORDER` members at most (the caller keeps the order past
        it)."""
        n = len(members)
        required = frozenset(i for i in range(n) if members[i][2])
        rules: dict[frozenset[int], Expr] = {}

        def next_(written: frozenset[int]) -> Expr | None:  # one more member (or an extra one), then C
            parts = [seq(lead, rest, after(written | {i}))
                     for i, (lead, rest, _) in enumerate(members) if i not in written]
            if extra is not None:
                parts.append(seq(*extra, after(written)))
            return alt(*parts) if parts else None

        def after(written: frozenset[int]) -> Expr:
            if written in rules:
                return rules[written]
            if extra is None:  # no way back to a set: shared expressions
                more = next_(written)
                tail = None if more is None else seq(sep, more)
                out = EMPTY if tail is None else self.g.shared(f"{hint}-o", opt(tail) if required <= written else tail)
                rules[written] = out
                return out
            name = self.g.reserve(f"{hint}-o")
            rules[written] = Ref(name)  # an extra member comes back to the same set: a rule
            tail = seq(sep, next_(written))
            self.g.rules[name] = opt(tail) if required <= written else tail
            return rules[written]

        first = next_(frozenset())
        assert first is not None  # (n > 1)
        return first if required else opt(first)

    def counted_body(self, members: list[tuple[Expr, Expr, bool]], sep: Expr, extra: tuple[Expr, Expr] | None,
                     hint: str, lo: int, hi: int | None,
                     deps: dict[int, frozenset[int]], path: str) -> Expr | None:
        """:meth:`object_body` with between ``lo`` and ``hi`` members (``minProperties``/``maxProperties``) and
        ``deps`` (member index -> the members it requires: ``dependentRequired``); None when nothing fits.

        ``M(k, s)``: the next member at index ``k`` or later (or an extra one) in state ``s``; ``C(k, s)``: the
        end (when allowed) or ``sep`` and ``M(k, s)``.  The state is the count so far (it stops at ``lo`` when
        ``hi`` is None), the later members a written one requires, and the later members that may not be
        written because a member they require was left out.  Extra members repeat as the count allows.  The count
        is at most the members written, so the states grow with the declared members, not with ``hi``; past
        :data:`MAX_OBJECT_STATES` an :class:`UnsupportedSchemaError` names ``path``."""
        n = len(members)
        cap = hi if hi is not None else lo
        required_after = [False] * (n + 1)
        for k in range(n - 1, -1, -1):
            required_after[k] = members[k][2] or required_after[k + 1]
        needed_by = {j: frozenset(a for a, ds in deps.items() if j in ds) for j in range(n)}
        State = tuple[int, frozenset[int], frozenset[int]]
        memo_m: dict[tuple[int, State], Expr | None] = {}
        memo_c: dict[tuple[int, State], Expr | None] = {}

        def bump(c: int) -> int | None:
            if hi is not None:
                return c + 1 if c + 1 <= hi else None
            return min(c + 1, cap)

        def guard() -> None:
            if len(memo_m) + len(memo_c) > MAX_OBJECT_STATES:
                raise UnsupportedSchemaError(f"more than {MAX_OBJECT_STATES} member states (minProperties, "
                                             "maxProperties, dependentRequired)", path)

        def m(k: int, st: State) -> Expr | None:
            if (k, st) in memo_m:
                return memo_m[k, st]
            guard()
            c, req, forb = st
            parts: list[Expr] = []
            if k == n:
                c1 = bump(c)
                if extra is not None and c1 is not None:
                    more_lo = max(lo - c1, 0)
                    more_hi = None if hi is None else hi - c1
                    parts.append(seq(*extra, Rep(seq(sep, *extra), more_lo, more_hi)))
            else:
                lead, rest, required = members[k]
                c1 = bump(c)
                if c1 is not None and k not in forb and CANNOT not in deps.get(k, ()):
                    after = c_(k + 1, (c1, (req - {k}) | {j for j in deps.get(k, ()) if j > k}, forb))
                    if after is not None:
                        parts.append(seq(lead, rest, after))
                if not required and k not in req:
                    skip = m(k + 1, (c, req, forb | {a for a in needed_by[k] if a > k}))
                    if skip is not None:
                        parts.append(skip)
            out = self.g.shared(f"{hint}-m", alt(*parts)) if parts else None
            memo_m[k, st] = out
            return out

        def c_(k: int, st: State) -> Expr | None:
            if (k, st) in memo_c:
                return memo_c[k, st]
            guard()
            nxt = m(k, st)
            more = seq(sep, nxt) if nxt is not None else None
            can_end = not required_after[k] and st[0] >= lo and not st[1]
            if more is None:
                out = EMPTY if can_end else None
            else:
                out = self.g.shared(f"{hint}-c", opt(more) if can_end else more)
            memo_c[k, st] = out
            return out

        start: State = (0, frozenset(), frozenset())
        first = m(0, start)
        if lo == 0 and not required_after[0]:
            return EMPTY if first is None else opt(first)
        return first

    def obj(self, schema: dict[str, Any], path: str, hint: str) -> Expr:
        keys = object_keys(schema, self.ctx, path)
        self.g.earley |= keys.overlaps_alternatives
        members, names = [], []
        for k, sub in keys.props.items():
            if self.syntax == "gemma" and not gemma_text.writable_key(k):
                raise SchemaError(f"property name {k!r} cannot stand bare in Gemma 4's syntax ({GEMMA_KEY_RULE})",
                                  f"{path}.properties")
            v = keys.member(k, lambda k=k, sub=sub: self.value(sub, f"{path}.properties.{k}", f"{hint}-{k}"))
            if v is not None:
                members.append((Token(seq(self.key(k), self.punct(":").expr), "KEY"), v, k in keys.required))
                names.append(k)
        body = self.members_body(schema, path, members, self.punct(","), self.extra_members(keys, hint), hint,
                                 names)
        return seq(self.open_("{"), body, self.close_("}"))

    def extra_members(self, keys: ObjectKeys, hint: str) -> tuple[Expr, Expr] | None:
        """``(key, value)`` of an undeclared member (:meth:`object_body`'s ``extra``): any key but a declared
        one with the ``additionalProperties`` value, or, with ``patternProperties``, a choice of key classes,
        each with its value; None when the object takes no undeclared key."""
        classes = keys.classes()
        if not classes:
            return None
        if classes[0][0] is None:
            _, schema, where = classes[0]
            value = self.any_value() if schema is True else keys.extra_member(
                lambda: self.value(schema, where, f"{hint}-extra"))
            return None if value is None else (self.any_key(keys.declared), value)
        out = []
        for n, (decoded, schema, where) in enumerate(classes):
            value = self.any_value() if schema is True else keys.extra_member(
                lambda schema=schema, where=where, n=n: self.value(schema, where, f"{hint}-x{n}"))
            if value is not None:  # keys whose schemas admit no value (in common) cannot appear
                out.append(seq(self.class_key(decoded), value))  # type: ignore[arg-type]
        return (EMPTY, alt(*out)) if out else None

    def class_key(self, decoded: Expr) -> Expr:
        """A key of one class (a decoded expression: :func:`.keys.key_classes`) and its colon, as one token.
        Characters are written as the writer writes them (a pattern-constrained string's rule); Gemma 4's
        keys bare where they can be, else quoted (without ``<``)."""
        colon = self.punct(":").expr
        if self.syntax == "json":
            key = seq(Lit('"'), spell(decoded, json_char), Lit('"'))
        elif self.syntax == "python":
            key = alt(*(seq(Lit(q), spell(decoded, python_char(q)), Lit(q)) for q in "'\""))
        else:
            q = Lit(gemma_text.QUOTE)
            key = seq(q, spell(decoded, raw_char("<")), q)
            bare = intersect(decoded, GEMMA_BARE_KEY)
            if bare != Chars(()):
                key = alt(bare, key)
            colon = Lit(":")
        return Token(seq(key, colon), "ANYKEY")

    def members_body(self, schema: dict[str, Any], path: str, members: list[tuple[Expr, Expr, bool]], sep: Expr,
                     extra: tuple[Expr, Expr] | None, hint: str, names: list[str]) -> Expr:
        """:meth:`object_body`, or :meth:`counted_body` under ``minProperties``/``maxProperties`` or
        ``dependentRequired`` (``dependencies`` in its array form); ``names``: the members' names, in order."""
        lo = count(schema, "minProperties", path, MAX_PROPERTIES, self.ctx)
        hi = count(schema, "maxProperties", path, MAX_PROPERTIES, self.ctx)
        deps = self._dependencies(schema, path, names)
        if lo is None and hi is None and not deps:
            if self.ctx.any_order and 1 < len(members) <= MAX_ANY_ORDER:
                return self.any_order_body(members, sep, extra, hint)
            return self.object_body(members, sep, extra, hint)
        lo = lo or 0
        if hi is not None and hi < lo:
            raise SchemaError("maxProperties is smaller than minProperties", f"{path}.maxProperties")
        body = self.counted_body(members, sep, extra, hint, lo, hi, deps, path)
        if body is None:
            where = "minProperties" if lo else "maxProperties" if hi is not None else "dependentRequired"
            raise EmptySchemaError("no object has the members minProperties, maxProperties, required and "
                              "dependentRequired ask for", f"{path}.{where}")
        return body

    def _dependencies(self, schema: dict[str, Any], path: str, names: list[str]) -> dict[int, frozenset[int]]:
        """``dependentRequired`` (and ``dependencies`` in its array form) over the members ``names`` (in order):
        member index -> the indices it requires; :data:`CANNOT` when a required name cannot appear (it is no
        member: :func:`object_shape` made a member of every name that may appear as an undeclared key)."""
        index = {name: i for i, name in enumerate(names)}
        out: dict[int, frozenset[int]] = {}
        for key in ("dependentRequired", "dependencies"):
            spec = schema.get(key)
            if spec is None:
                continue
            if not isinstance(spec, dict):
                raise SchemaError(f"{key} must be an object", f"{path}.{key}")
            for trigger, needs in spec.items():
                where = f"{path}.{key}.{trigger}"
                if key == "dependencies" and isinstance(needs, (dict, bool)):
                    continue  # the schema form: a condition (schema.conditions_of, conditional.expand)
                if not isinstance(needs, list) or not all(isinstance(x, str) for x in needs):
                    raise SchemaError(f"{key} values must be arrays of property names", where)
                if trigger not in index:
                    continue  # a key that cannot appear requires nothing
                i = index[trigger]
                out[i] = out.get(i, frozenset()) | {index.get(x, CANNOT) for x in needs if x != trigger}
        return out

    def array(self, schema: dict[str, Any], path: str, hint: str) -> Expr:
        prefix = schema.get("prefixItems") or []
        if not isinstance(prefix, list):
            raise SchemaError("prefixItems must be an array of schemas", f"{path}.prefixItems")
        items = schema.get("items", {})
        prefix_key = "prefixItems"
        if isinstance(items, list) and "prefixItems" not in schema:
            # draft 7's tuple form: items [a, b] then additionalItems for the rest (absent: any)
            prefix, items, prefix_key = items, schema.get("additionalItems", {}), "items"
            if not isinstance(items, (dict, bool)):
                raise SchemaError("additionalItems must be a schema (an object or a boolean)",
                                  f"{path}.additionalItems")
        if not isinstance(items, (dict, bool)):
            raise SchemaError("items must be a schema (an object or a boolean)", f"{path}.items")
        lo = count(schema, "minItems", path, MAX_ITEMS, self.ctx) or 0
        hi = count(schema, "maxItems", path, MAX_ITEMS, self.ctx)
        if hi is not None and hi < lo:
            raise SchemaError("maxItems is smaller than minItems", f"{path}.maxItems")
        comma = self.punct(",")
        if "contains" in schema and not vacuous("contains", schema):
            found = self.containing(schema, items, prefix, lo, hi, path, hint)
            if found is not None:
                return found
        if schema.get("uniqueItems") is True:
            unique = self.unique_items(schema, items, prefix, lo, hi, path, hint)
            if unique is not None:
                return unique
        elems: list[Expr] = [self.value(s, f"{path}.{prefix_key}.{i}", f"{hint}-{i}") for i, s in enumerate(prefix)]
        if items is False:
            tail_item = None
        else:
            where = f"{path}.additionalItems" if prefix_key == "items" else f"{path}.items"
            try:
                tail_item = self.value(items if isinstance(items, dict) else {}, where, f"{hint}-item")
            except EmptySchemaError:
                if lo > len(prefix):
                    raise
                tail_item = None  # no item admits a value: the array ends after its prefix (as items: false)
        n_prefix = len(elems)
        if n_prefix:
            members = [(EMPTY, e, i < lo) for i, e in enumerate(elems)]
            rest_lo = max(lo - n_prefix, 0)
            rest_hi = None if hi is None else max(hi - n_prefix, 0)
            extra_ok = tail_item is not None and rest_hi != 0
            del members
            # positions cannot be skipped: element k comes only after elements 0..k-1 (and at most maxItems)
            shown = elems if hi is None else elems[:hi]
            follow: Expr = EMPTY
            if extra_ok and tail_item is not None:  # the items after the prefix, counted by min/maxItems
                follow = Rep(seq(comma, tail_item), rest_lo, rest_hi)
            for k in range(len(shown) - 1, 0, -1):
                nxt = seq(comma, shown[k], follow)
                follow = nxt if k < lo else opt(nxt)
            body = seq(shown[0], follow) if shown else EMPTY
            if lo == 0 and shown:
                body = opt(body)
        else:
            if tail_item is None:
                body = EMPTY
            elif hi == 0:
                body = EMPTY
            else:
                first = tail_item
                more_lo = max(lo - 1, 0)
                more_hi = None if hi is None else hi - 1
                nonempty = seq(first, Rep(seq(comma, tail_item), more_lo, more_hi))
                body = nonempty if lo > 0 else opt(nonempty)
        return seq(self.open_("["), body, self.close_("]"))

    def containing(self, schema: dict[str, Any], items: Any, prefix: list[Any], lo: int, hi: int | None,
                   path: str, hint: str) -> Expr | None:
        """``contains`` with ``minContains`` (default 1) and ``maxContains``: each item either matches the
        ``contains`` schema or misses it (the values it rejects: :func:`.conditional.negation`), and the matches
        are counted: the misses before the first match, the first match, then ``minContains - 1`` to
        ``maxContains - 1`` more, each with the misses after it.  Where the misses cannot be written, any item
        stands for a miss (parsed with Earley): exact for ``minContains``, and ``maxContains`` is unsupported.
        With ``maxItems``: one match (:meth:`_first_match`), else unsupported.  With ``prefixItems``,
        ``uniqueItems: true``, or a ``minItems`` above the matches it needs: unsupported, None (``--permissive``:
        the array without it, a superset)."""
        least = count(schema, "minContains", path, MAX_ITEMS, self.ctx)
        least = 1 if least is None else least
        most = count(schema, "maxContains", path, MAX_ITEMS, self.ctx)
        if least == 0 and most is None:
            return None  # no match needed: the plain array
        if most is not None and most < least:
            raise EmptySchemaError("maxContains is smaller than minContains: no array has the matches",
                                   f"{path}.maxContains")
        # with maxItems: one match somewhere in the bounded list (minContains 1, no maxContains), written below
        capped = hi is not None and least == 1 and most is None
        if prefix or schema.get("uniqueItems") is True or not capped and (hi is not None or lo > max(least, 1)):
            for key in ("contains", "minContains", "maxContains"):
                if key in schema:
                    self.ctx.unsupported(key, path)
            return None
        item = items if isinstance(items, dict) else {} if items is True else None
        wanted = schema["contains"]
        if item is None or wanted is False:
            if least == 0:
                return seq(self.open_("["), self.close_("]"))  # no item matches: none may appear
            raise EmptySchemaError("no item matches contains (items or contains false)", f"{path}.contains")
        match = self.value(item if wanted is True or wanted == {} else {"allOf": [item, wanted]}, f"{path}.contains",
                           f"{hint}-match")
        negs = negation(wanted, self.ctx, f"{path}.contains")
        miss: Expr | None = None  # (none: every item matches)
        if negs is None:
            if most is not None:
                self.ctx.unsupported("maxContains", path)  # (permissive: any number of matches, a superset)
                most = None
                if least == 0:
                    return None
            self.g.earley = True  # any items first: the first match is not where the parse can tell
            miss = self.value(item, f"{path}.items", f"{hint}-item")
        elif negs:
            try:
                miss = self.value({"allOf": [item, {"anyOf": negs}]}, f"{path}.contains", f"{hint}-miss")
            except EmptySchemaError:
                pass
        comma = self.punct(",")
        if capped:
            return seq(self.open_("["), self._first_match(item, match, miss, lo, hi or 0, path, hint), self.close_("]"))
        misses = Rep(seq(comma, miss), 0, None) if miss is not None else EMPTY  # (after a first item)
        first = alt(seq(miss, misses, comma, match), match) if miss is not None else match  # misses, a match
        matched = seq(first, misses, Rep(seq(comma, match, misses), max(least - 1, 0),
                                         None if most is None else most - 1))
        if least > 0:
            body = matched
        else:  # no match, or up to maxContains of them
            none = seq(miss, misses) if miss is not None else EMPTY
            body = opt(alt(none, matched) if most else none)
        return seq(self.open_("["), body, self.close_("]"))

    def _first_match(self, item: dict[str, Any], match: Expr, miss: Expr | None, lo: int, hi: int, path: str,
                     hint: str) -> Expr:
        """At most ``hi`` (and at least ``lo``) items, one of them a match: ``i`` misses, the first match, then
        any items up to the bounds, for each place ``i`` the first match can take (linear in ``maxItems``)."""
        if hi < 1:
            raise EmptySchemaError("maxItems leaves no room for the item contains needs", f"{path}.maxItems")
        comma = self.punct(",")
        anything = self.value(item, f"{path}.items", f"{hint}-item")
        places = []
        for i in range(hi):
            if i and miss is None:
                break  # every item matches: the first item is the first match
            before = seq(miss, Rep(seq(comma, miss), i - 1, i - 1), comma) if i else EMPTY
            places.append(seq(before, match, Rep(seq(comma, anything), max(lo - 1 - i, 0), hi - 1 - i)))
        return alt(*places)

    def unique_items(self, schema: dict[str, Any], items: Any, prefix: list[Any], lo: int, hi: int | None,
                     path: str, hint: str) -> Expr | None:
        """``uniqueItems: true`` over items of finitely many values (``enum``, ``const``, ``boolean``, ``null``):
        each value at most once, in any order, as many as ``minItems``/``maxItems`` allow.  A rule per set of
        values written so far (at most :data:`MAX_OBJECT_STATES`).  Any other ``uniqueItems: true`` is
        unsupported: None (``--permissive``: the array without it, a superset).  Where no array can repeat an item
        (``maxItems`` 1, or positions of a closed tuple that admit no common value) it constrains nothing: None."""
        if hi is not None and hi <= 1 or items is False and not any(
                may_overlap(a, b, self.ctx, path) for n, a in enumerate(prefix) for b in prefix[n + 1:hi]):
            return None
        values = None if prefix or not isinstance(items, dict) else finite_values(items, self.ctx, f"{path}.items")
        n = 0 if values is None else len(values)
        cap = n if hi is None else min(hi, n)
        if values is None or sum(math.comb(n, k) for k in range(cap + 1)) > MAX_OBJECT_STATES:
            self.ctx.unsupported("uniqueItems", path)
            return None
        lits = [self.literal(v, f"{path}.items") for v in values]
        comma = self.punct(",")
        memo: dict[frozenset[int], Expr | None] = {}

        def after(used: frozenset[int]) -> Expr | None:  # what may follow once the values ``used`` are written
            if used not in memo:
                parts: list[Expr] = [EMPTY] if len(used) >= lo else []
                if len(used) < cap:
                    for i in range(n):
                        if i not in used and (rest := after(used | {i})) is not None:
                            parts.append(seq(comma, lits[i], rest))
                memo[used] = self.g.shared(f"{hint}-u", alt(*parts)) if parts else None
            return memo[used]

        firsts = [seq(lits[i], rest) for i in range(n) if cap and (rest := after(frozenset({i}))) is not None]
        if lo == 0:
            firsts.append(EMPTY)
        if not firsts:
            raise EmptySchemaError(f"no array of distinct items has minItems {lo}", f"{path}.minItems")
        return seq(self.open_("["), alt(*firsts), self.close_("]"))

    # -- any value -----------------------------------------------------------------------------
    def any_value(self) -> Expr:
        key = f"any-{self.syntax}"
        if key in self._refs:
            return self._refs[key]
        name = self.g.reserve(f"{self.syntax}-value")
        ref = Ref(name)
        self._refs[key] = ref
        comma = self.punct(",")
        # keys use the same tokens as declared objects' extra members (see obj), so the
        # contextual lexer never has to choose between ", " and ', "key": '
        any_key = self.any_key()
        obj = seq(self.open_("{"), self.object_body([], comma, (any_key, ref), f"{name}-obj"), self.close_("}"))
        arr = seq(self.open_("["), opt(seq(ref, Rep(seq(comma, ref), 0, None))), self.close_("]"))
        self.g.rules[name] = alt(obj, arr, self.string(), Token(NUMBER, "NUMBER"), self.boolean(), self.null())
        return ref

    # -- dispatch ------------------------------------------------------------------------------
    def value_once(self, schema: Any, path: str, hint: str) -> Expr:
        """:meth:`value`, built once per grammar for a schema text met before (tools repeat parameter
        schemas: ``{"type": "string"}`` ...; see ``Grammar.once``).  Not kept: schemas with ``$ref``
        (they resolve against their own document) or ``pattern`` (its token names its path), and
        builds in a builder that holds rules of its own already (its any-value rule would be reused
        without a trace in the key)."""
        text = schema_text(schema)
        key = None if text is None or '"pattern"' in text or self._refs else (
            "value", self.syntax, self.ctx.permissive, self.ctx.any_order, text)
        return self.g.once(key, lambda: self.value(schema, path, hint), self.ctx.relaxed)

    # -- dispatch ------------------------------------------------------------------------------
    def value(self, schema: Any, path: str, hint: str) -> Expr:
        """The grammar of one value valid under ``schema``."""
        if self._depth >= MAX_VALUE_DEPTH:
            if not self.ctx.permissive:
                raise UnsupportedSchemaError(
                    f"the schema's values nest more than {MAX_VALUE_DEPTH} deep here: its keywords' meets make new "
                    "schemas at every level, reaching no rule built before (pass permissive=True / --permissive to "
                    "take any value there)", path)
            self.ctx.relax(path, "depth")
            return self.any_value()
        self._depth += 1
        try:
            return self._value(schema, path, hint)
        finally:
            self._depth -= 1

    def _value(self, schema: Any, path: str, hint: str) -> Expr:
        if schema is True or schema == {}:
            return self.any_value()
        if schema is False:
            raise EmptySchemaError("schema 'false' admits no value", path)
        if not isinstance(schema, dict):
            raise SchemaError("a schema must be an object or a boolean", path)
        schema = self.ctx.settled(schema, path)  # unevaluated*: additionalProperties / items of the met schema
        self.ctx.check_keywords(schema, path)
        if "$ref" in schema:
            return self._ref(schema, path)
        if "allOf" in schema:
            ref = _branch_ref(schema["allOf"])
            if ref is None:
                return self.value(merge_all_of(schema, path, self.ctx), path, hint)
            # an allOf that follows a $ref may lead back to itself (a recursive definition with a description
            # beside it): a rule, memoized as a $ref with siblings is
            if self._met_depth >= MAX_MET_REFS or deeper_than(schema, MAX_SCHEMA_DEPTH):
                return self._met_too_deep(ref, [k for k in schema if not annotation(k)], path)
            key = f"{ref} allOf {json.dumps(schema, sort_keys=True, default=repr)}"
            return self._rule(key, ref, path, lambda name: self.value(merge_all_of(schema, path, self.ctx),
                                                                      path, name))
        if pending(schema, path):  # if/then/else, dependentSchemas: as anyOf branches
            return self.value(expand(schema, self.ctx, path), path, hint)
        if "not" in schema:
            return self.value(self._without_not(schema, path), path, hint)
        for key in ("anyOf", "oneOf"):
            if key in schema:
                return self._any_of(schema, key, path, hint)
        if "const" in schema or "enum" in schema:
            values = enum_values(schema, path)
            if "const" in schema and len(values) == 1 and "enum" not in schema:
                return self.literal(values[0], f"{path}.const")
            # one token: Lark then builds one terminal (a trie regex), not one per value
            return Token(alt(*(self.literal(v, f"{path}.enum") for v in values)), "ENUM")
        types = schema.get("type")
        if isinstance(types, list):
            if not types:
                raise SchemaError("type must not be an empty array", f"{path}.type")
            return alt(*(self.value({**schema, "type": t}, path, f"{hint}-{t}") for t in types))
        if schema.get("nullable") is True and types is not None:
            rest = {k: v for k, v in schema.items() if k != "nullable"}
            return alt(self.value(rest, path, hint), self.null())
        if types is None:
            types = infer_type(schema)
            if types is None:
                return self.any_value()
        if types not in TYPES:
            raise SchemaError(f"unrecognized type {types!r}{type_hint(types)}", f"{path}.type")
        return getattr(self, f"_t_{types}")(schema, path, hint)

    def _any_of(self, schema: dict[str, Any], key: str, path: str, hint: str) -> Expr:
        """``anyOf``/``oneOf`` (read as any-of): each branch met with the keywords beside it (a
        ``multipleOf`` on both sides needs both; :func:`.schema.meet`).  A branch that admits no value
        is left out; when every one is, the schema admits none.  Permissive, a branch whose keywords
        cannot be met with the outer ones stands alone (a superset), the keyword listed as relaxed."""
        alts = self._per_branch(schema, key, path, lambda branch, where, i: self.value(branch, where, f"{hint}-{i}"))
        return self.g.shared(hint, alt(*alts))

    def object_branches(self, schema: dict[str, Any], path: str) -> list[tuple[dict[str, Any], str]]:
        """The alternatives of an arguments object whose members a format writes one by one (XML parameters,
        keyword arguments): ``schema`` with its ``anyOf``/``oneOf`` (each branch met with the keywords beside it,
        as :meth:`value` reads them), ``not`` and ``allOf`` written out, each with its path; branches that admit
        no value left out.  ``[(schema, path)]`` when there are none."""
        if not isinstance(schema, dict):
            return [(schema, path)]
        schema = self.ctx.settled(schema, path)
        self.ctx.check_keywords(schema, path)
        if "$ref" in schema or "allOf" in schema:
            return self.object_branches(merge_all_of(schema, path, self.ctx), path)
        if pending(schema, path):
            return self.object_branches(expand(schema, self.ctx, path), path)
        if "not" in schema:
            return self.object_branches(self._without_not(schema, path), path)
        key = next((k for k in ("anyOf", "oneOf") if k in schema), None)
        if key is None:
            return [(schema, path)]
        found = self._per_branch(schema, key, path, lambda branch, where, i: self.object_branches(branch, where))
        return [alternative for each in found for alternative in each]

    def _per_branch(self, schema: dict[str, Any], key: str, path: str,
                    build: Callable[[Any, str, Any], T]) -> list[T]:
        """``build(branch, its path, its index)`` for each ``anyOf``/``oneOf`` (``key``) branch met with the keywords
        beside it; a branch that admits no value is left out, and when every one is, the schema admits none.
        Overlapping ``oneOf`` branches are split into the values only one admits where toolgram can write them
        (:func:`.exclusive.exclusive`; a split that needs a keyword toolgram cannot write: read as ``anyOf``)."""
        outer = {k: v for k, v in schema.items() if k != key}
        branches = schema[key]
        if not isinstance(branches, list) or not branches:
            raise SchemaError(f"{key} must be a non-empty array", f"{path}.{key}")
        empty: list[EmptySchemaError] = []
        mets: list[tuple[int, Any]] = []
        for i, b in enumerate(branches):
            try:
                mets.append((i, self._met_branch(outer, b, f"{path}.{key}[{i}]")))
            except EmptySchemaError as exc:
                empty.append(exc)
        split = exclusive(outer, branches, mets, self.ctx, path) if key == "oneOf" and len(mets) > 1 else None
        out: list[T] = []
        for i, met in mets:
            where = f"{path}.{key}[{i}]"
            pieces = split.get(i) if split is not None else None
            if pieces is not None:
                try:
                    out += self._pieces(pieces, where, i, build, empty)
                    continue
                except UnsupportedSchemaError:
                    pass  # a piece toolgram cannot write: this branch as it is (a superset of its pieces)
            try:
                out.append(build(met, where, i))
            except EmptySchemaError as exc:
                empty.append(exc)
        if not out:
            raise EmptySchemaError(f"{key} admits no value: no branch does ({empty[0].message})", f"{path}.{key}")
        return out

    def _pieces(self, pieces: list[Any], where: str, i: int, build: Callable[[Any, str, Any], T],
                empty: list[EmptySchemaError]) -> list[T]:
        """``build`` over the pieces of split ``oneOf`` branch ``i``, strictly (a piece relaxes nothing: where one
        would, the branch is built as it is); those that admit no value are left out, their errors in ``empty``."""
        out: list[T] = []
        if not pieces:
            empty.append(EmptySchemaError("another branch admits every value this one does", where))
        with self.ctx.strictly():
            for k, piece in enumerate(pieces):
                try:
                    out.append(build(piece, where, f"{i}_{k}" if k else i))
                except EmptySchemaError as exc:
                    empty.append(exc)
        return out

    def _met_branch(self, outer: dict[str, Any], b: Any, where: str) -> Any:
        try:
            return met_branch(outer, b, where, self.ctx)
        except UnsupportedSchemaError as exc:
            if not self.ctx.permissive or not exc.path:
                raise
            self.ctx.unsupported(exc.path.rsplit(".", 1)[1], where)
            return b

    def _without_not(self, schema: dict[str, Any], path: str) -> dict[str, Any]:
        return without_not(schema, self.ctx, path)

    def _ref(self, schema: dict[str, Any], path: str) -> Expr:
        ref = schema["$ref"]
        if not isinstance(ref, str):
            raise SchemaError("$ref must be a string", f"{path}.$ref")
        siblings = ref_siblings(schema)
        if siblings and deeper_than(siblings, MAX_SCHEMA_DEPTH):  # (before json.dumps writes them into the key)
            return self._met_too_deep(ref, list(siblings), path)
        # with sibling keywords a $ref means allOf [target, siblings]: a rule of its own, memoized
        # by the reference and the siblings (the target's rule stays as it is for its other uses)
        key = ref if not siblings else f"{ref} {json.dumps(siblings, sort_keys=True, default=repr)}"
        if key in self._refs:  # built, or being built (a left recursion is refused there)
            return self._rule(key, ref, path, lambda _: EMPTY)
        if siblings and self._met_depth >= MAX_MET_REFS:
            return self._met_too_deep(ref, list(siblings), path)
        if siblings:
            target, tpath = merge_all_of(schema, path, self.ctx), path
        else:
            target, tpath = self.ctx.resolve(ref, f"{path}.$ref")
        chain = {ref}
        while isinstance(target, dict) and "$ref" in target and not ref_siblings(target):
            if target["$ref"] in chain:  # a == b == a: a rule that derives only itself
                raise SchemaError(f"$ref cycle through {target['$ref']!r}", f"{path}.$ref")
            chain.add(target["$ref"])
            target, tpath = self.ctx.resolve(target["$ref"], f"{path}.$ref")
        return self._rule(key, ref, path, lambda name: self.value(target, tpath, name))

    def _met_too_deep(self, ref: str, keywords: list[str], path: str) -> Expr:
        """A ``$ref`` met with ``keywords`` past :data:`MAX_MET_REFS` meets deep, or with keywords nested deeper than an
        input schema may be (each meet nesting the last one's ``allOf`` deeper): refused, or (permissive) its target
        alone, every keyword beside it relaxed."""
        if not self.ctx.permissive:
            raise UnsupportedSchemaError(
                f"$ref {ref!r} is met with the keywords beside it ({', '.join(keywords)}) inside {self._met_depth} "
                "other such meets, each a rule of its own: the meets do not close (pass permissive=True / "
                "--permissive to drop the keywords beside the deepest ones)", f"{path}.$ref")
        for keyword in keywords:
            self.ctx.unsupported(keyword, path)
        return self._ref({"$ref": ref}, path)

    def _rule(self, key: str, ref: str, path: str, build: Callable[[str], Expr]) -> Ref:
        """The rule of a schema reached by ``ref`` (memoized by ``key``: the reference, and the keywords met
        with its target), built once by ``build(rule name)``; a use inside its own build refers to it, so a
        recursive schema is a recursive rule."""
        if key in self._refs:
            if key in self._head:
                raise SchemaError(f"$ref cycle through {ref!r} that reads no value text (left recursion)",
                                  f"{path}.$ref")
            return self._refs[key]
        name = self.g.reserve(f"{self.prefix}-{ref.rsplit('/', 1)[-1] or 'root'}")
        self._refs[key] = Ref(name)
        self._head.add(key)
        met = key != ref  # (a target met with keywords beside it: :data:`MAX_MET_REFS`)
        self._met_depth += met
        try:
            self.g.rules[name] = build(name)
        except BaseException:
            del self._refs[key]  # no rule: a later use builds it afresh (a failed oneOf split is rebuilt)
            raise
        finally:
            self._head.discard(key)
            self._met_depth -= met
        return Ref(name)

    def _t_string(self, schema: dict[str, Any], path: str, hint: str) -> Expr:
        if NOT_STRINGS in schema:
            return self._string_not(schema, path, hint)
        spec, key, lengths = string_spec(schema, path, self.ctx)
        if spec is None:
            return self.string(*lengths)
        return self.g.shared(hint, self.pattern_string(spec, key, path, lengths))

    def _string_not(self, schema: dict[str, Any], path: str, hint: str) -> Expr:
        """A string that is none of the values ``not`` excludes (:data:`NOT_STRINGS`), in any spelling (the
        excluded-name rule of undeclared keys, :mod:`.keys`); beside a length, a ``pattern`` or a ``format``,
        or in Gemma 4: each value becomes a pattern the string must not match (:data:`NOT_PATTERNS`)."""
        words = tuple(schema[NOT_STRINGS])
        rest = {k: v for k, v in schema.items() if k != NOT_STRINGS}
        if self.syntax == "gemma" or any(k in rest for k in ("minLength", "maxLength", "pattern", ALSO_PATTERNS,
                                                                NOT_PATTERNS)) or \
                format_pattern(rest.get("format")) is not None:
            return self._t_string(words_as_patterns(schema), path, hint)
        body, unless = self._quoted_not(words)
        return self.g.shared(hint, Token(body, "STRING", unless=unless))

    def pattern_string(self, pattern: str | Patterns, keyword: str, path: str,
                       length: tuple[int, int | None] = (0, None)) -> Expr:
        """A string matching ``pattern`` (ECMAScript syntax; a ``format``'s pattern too; :class:`Patterns`: all of
        them and none of its others), named by ``keyword`` at ``path`` (:func:`pattern_paths`), of ``length``
        characters, in this builder's syntax: one token."""
        where, tag = pattern_paths(pattern, keyword, path)

        def quoted(body: Callable[[Char], Expr]) -> Expr:
            if self.syntax == "json":
                return seq(Lit('"'), body(json_char), Lit('"'))
            if self.syntax == "gemma":
                q = Lit(gemma_text.QUOTE)
                return seq(q, body(raw_char("<")), q)
            return alt(*(seq(Lit(q), body(python_char(q)), Lit(q)) for q in "'\""))

        met = quoted(lambda char: pattern_to_ir(pattern, char, where, length))
        return Token(met, "STRING", path=tag, within=within(quoted, pattern, where, length))

    def _t_integer(self, schema: dict[str, Any], path: str, hint: str) -> Expr:
        lo, hi = _int_bounds(schema, path)
        if lo is not None and hi is not None and lo > hi:
            raise EmptySchemaError("minimum is larger than maximum", path)
        m = self._multiple_of(schema, path)
        nots = _not_multiples(schema)
        step = 1 if m is None else integer_step(m)  # 1: every integer is a multiple
        if (step > 1 or nots) and lo is not None and hi is not None:
            first = -(-lo // step) * step
            if (hi - first) // step < MAX_MULTIPLES:  # few enough to list
                values = [str(v) for v in range(first, hi + 1, step) if not any(is_multiple(v, n) for n in nots)]
                if not values:
                    raise _no_multiple(m, nots, True, f"{path}.multipleOf" if m is not None else path)
                # longer spellings first: a Lark terminal takes the first alternative that matches
                return Token(alt(*(Lit(v) for v in sorted(values, key=len, reverse=True))), "INT")
        bounded = None if lo is None and hi is None else int_range(lo, hi)
        if step > 1 or nots:
            multiples = self._multiples(m if step > 1 else None, True, bounded, path, nots)
            if multiples is not None:
                return multiples
        return Token(INT_RE if bounded is None else bounded, "INT")

    def _t_number(self, schema: dict[str, Any], path: str, hint: str) -> Expr:
        lo, lo_ex, hi, hi_ex = number_bounds(schema, path)
        try:
            bounded = None if lo is None and hi is None else decimal_range(lo, lo_ex, hi, hi_ex)
        except ValueError:
            raise EmptySchemaError("no number lies between minimum and maximum", path) from None
        m = self._multiple_of(schema, path)
        nots = _not_multiples(schema)
        if m is not None or nots:  # multiples: plain decimal spellings only (no exponent), as llguidance writes them
            multiples = self._multiples(m, False, bounded, path, nots)
            if multiples is not None:
                return multiples
        if bounded is None:
            return Token(NUMBER, "NUMBER")
        # bounded: plain decimal and normalized scientific spellings (``1e-05``, as json.dumps writes it); Lark's
        # regex must not end the number where a spelling of its mantissa alone would (``1e-0`` of ``1e-07``)
        return Token(number_range(lo, lo_ex, hi, hi_ex), "NUMBER", stop="0123456789.eE")

    @staticmethod
    def _multiple_of(schema: dict[str, Any], path: str) -> Decimal | None:
        """``multipleOf`` as an exact decimal; None when absent."""
        if "multipleOf" not in schema:
            return None
        m = schema["multipleOf"]
        if not valid_step(m):
            raise SchemaError("multipleOf must be a number larger than 0", f"{path}.multipleOf")
        return exact_decimal(m)

    def _multiples(self, m: Decimal | None, integer: bool, bounded: Expr | None, path: str,
                   nots: tuple[Decimal, ...] = ()) -> Expr | None:
        """The integers or numbers (within ``bounded``, a range's expression) that are multiples of ``m`` (None:
        any) and of none of ``nots`` (:mod:`.multiples`), one token.  Past the caps the keyword is unsupported
        (permissive: without ``nots``, or None: the bounds alone)."""
        try:
            e = multiples(m, integer, bounded, nots)
        except DfaLimit:
            self.ctx.unsupported("multipleOf", path)
            return self._multiples(m, integer, bounded, path) if nots and m is not None else None
        if e == Chars(()):
            raise _no_multiple(m, nots, bounded is not None, f"{path}.multipleOf" if m is not None else path)
        return Token(e, "INT" if integer else "NUMBER", stop="0123456789.")

    def _t_boolean(self, schema: dict[str, Any], path: str, hint: str) -> Expr:
        return self.boolean()

    def _t_null(self, schema: dict[str, Any], path: str, hint: str) -> Expr:
        return self.null()

    def _t_object(self, schema: dict[str, Any], path: str, hint: str) -> Expr:
        saved, self._head = self._head, set()  # "{" is read first: a $ref inside is not left recursion
        try:
            return self.g.shared(hint, self.obj(schema, path, hint))
        finally:
            self._head = saved

    def _t_array(self, schema: dict[str, Any], path: str, hint: str) -> Expr:
        saved, self._head = self._head, set()
        try:
            return self.g.shared(hint, self.array(schema, path, hint))
        finally:
            self._head = saved


_PUNCT_NAMES = {"{": "LBRACE", "}": "RBRACE", "[": "LSQB", "]": "RSQB", ",": "COMMA", ":": "COLON"}


def _branch_ref(branches: Any) -> str | None:
    """The first ``$ref`` among ``allOf`` ``branches`` (at their top level), if any."""
    if isinstance(branches, list):
        for b in branches:
            if isinstance(b, dict) and isinstance(b.get("$ref"), str):
                return b["$ref"]
    return None


@cache
def _punct(text: str) -> Expr:
    return Token(seq(JSON_WS, Lit(text), JSON_WS), "P" + _PUNCT_NAMES[text])


@cache
def _bare(text: str) -> Token:
    """Punctuation without whitespace (Gemma 4)."""
    return Token(Lit(text), "G" + _PUNCT_NAMES[text])


@cache
def _canonical(text: str) -> Token:
    """Punctuation as ``json.dumps`` and Python's ``repr`` write it: a space after ``,`` and ``:``."""
    return Token(Lit(text + " "), "K" + _PUNCT_NAMES[text]) if text in ",:" else _bare(text)


@cache
def _open(text: str) -> Expr:
    return Token(seq(Lit(text), JSON_WS), "O" + _PUNCT_NAMES[text])


@cache
def _close(text: str) -> Expr:
    return Token(seq(JSON_WS, Lit(text)), "C" + _PUNCT_NAMES[text])


@lru_cache(maxsize=1024)
def _string(syntax: Syntax, min_len: int, max_len: int | None) -> Expr:
    unbounded = min_len == 0 and max_len is None
    if syntax == "gemma":
        # raw text up to the first closing <|"|>; a bounded string holds no '<' (see the module doc)
        q = Lit(gemma_text.QUOTE)
        body = Until((gemma_text.QUOTE,)) if unbounded else Rep(Chars.of("<", negated=True), min_len, max_len)
        return Token(seq(q, body, q), "STRING")
    if syntax == "json":
        body = unbounded_chars(JSON_PLAIN, JSON_ESC) if unbounded else Rep(JSON_CHAR, min_len, max_len)
        return Token(seq(Lit('"'), body, Lit('"')), "STRING")
    quoted = []
    for q in "'\"":
        body = unbounded_chars(py_plain(q), _PY_ESC) if unbounded else Rep(py_char(q), min_len, max_len)
        quoted.append(named(seq(Lit(q), body, Lit(q)), f"{_QUOTE_NAMES[q]}-string") if unbounded else
                      seq(Lit(q), body, Lit(q)))
    return Token(alt(*quoted), "STRING")


def _literal(syntax: Syntax, value: Any) -> Expr:
    if syntax == "json":
        return Lit(json_literal(value))
    return alt(*(Lit(s) for s in python_literals(value)))


@lru_cache(maxsize=4096)
def _literal_cached(syntax: Syntax, value: Any, _type: type) -> Expr:
    return _literal(syntax, value)


def _pattern_text(schema: dict[str, Any], path: str) -> str:
    """``schema``'s ``pattern``; a :class:`SchemaError` when it is not a string."""
    pattern = schema["pattern"]
    if not isinstance(pattern, str):
        raise SchemaError("pattern must be a string", f"{path}.pattern")
    return pattern


def string_patterns(schema: dict[str, Any], path: str) -> str | Patterns | None:
    """What a string schema's patterns admit: its ``pattern`` alone, or a :class:`Patterns` with the others a
    meet gave it (:data:`ALSO_PATTERNS`) and those a negation forbids (:data:`NOT_PATTERNS`); None without any."""
    mine = ((_pattern_text(schema, path),) if "pattern" in schema else ()) + tuple(schema.get(ALSO_PATTERNS, ()))
    none = tuple(schema.get(NOT_PATTERNS, ()))
    if not none and len(mine) <= 1:
        return mine[0] if mine else None
    return Patterns(tuple(dict.fromkeys(mine)), tuple(dict.fromkeys(none)))


def string_spec(schema: dict[str, Any], path: str, ctx: SchemaContext
                ) -> tuple[str | Patterns | None, str, tuple[int, int | None]]:
    """What a string's text must match under ``schema``'s ``pattern``, ``format`` and the patterns a meet or a
    ``not`` gave it, the keyword that names it in an error (``format`` where a format is part of it), and the
    lengths the text keeps; None: any text of those lengths.  The one home of this choice for every syntax (JSON
    strings, raw XML values).  Strict: everything, as it is (the builder refuses what it cannot write, at that
    keyword's path).  Permissive, where the whole cannot be written at the schema's lengths: first the lengths
    are dropped (``minLength``/``maxLength`` listed under ``relaxed``) if what the text must match can be written
    alone: an email stays an email, at any length; else one keyword dropped at a time, the lengths kept, each step
    a superset of the last, each listed under ``relaxed``: the ``format`` beside a pattern, then the patterns
    ``not`` forbids, then the ``pattern`` (or a lone ``format``)."""
    lengths = length_bounds(schema, path, ctx)
    fmt = format_pattern(schema.get("format"))
    spec = string_patterns(schema, path)
    whole = spec if fmt is None else fmt if spec is None else with_format(fmt, spec)
    key = "format" if fmt is not None else "pattern"
    if whole is None or not ctx.permissive or writable(whole, lengths):
        return whole, key, lengths
    if lengths != (0, None) and writable(whole, (0, None)):
        for keyword in ("minLength", "maxLength"):
            if keyword in schema:
                ctx.unsupported(keyword, path)  # relaxed: the patterns at any length
        return whole, key, (0, None)
    if spec is None:
        ctx.unsupported("format", path)  # relaxed: a string of those lengths
        return None, "format", lengths
    if fmt is not None:
        ctx.unsupported("format", path)  # relaxed: the patterns alone
    if writable(spec, lengths):
        return spec, "pattern", lengths
    if isinstance(spec, Patterns) and spec.none:
        ctx.unsupported("not", path)  # relaxed: the patterns it must not match dropped
        spec = string_patterns({k: v for k, v in schema.items() if k != NOT_PATTERNS}, path)
        if spec is None or writable(spec, lengths):
            return spec, "pattern", lengths
    ctx.unsupported("pattern", path)  # relaxed: a string of those lengths
    return None, "pattern", lengths


def pattern_paths(spec: str | Patterns, keyword: str, path: str) -> tuple[str, str]:
    """For :func:`string_spec`'s ``(spec, keyword)`` at ``path``: the path an error names (the keyword's), and the
    path its token names for Lark, which prints a named pattern through a DFA where a backtracking matcher could
    take exponential time on it; none for a lone ``format``'s own pattern (vetted, :mod:`.formats`: only bounded
    repetitions are ambiguous) or an unambiguous one (an intersection: already a DFA's expression)."""
    where = f"{path}.{keyword}"
    vetted = keyword == "format" and isinstance(spec, str)
    return where, "" if vetted or unambiguous(spec) else where


def words_as_patterns(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` with the strings ``not`` excludes (:data:`NOT_STRINGS`) as patterns it must not match, each the
    whole text (for a builder that meets them with other patterns, or spells raw text)."""
    if NOT_STRINGS not in schema:
        return schema
    rest = {k: v for k, v in schema.items() if k != NOT_STRINGS}
    return {**rest, NOT_PATTERNS: [*rest.get(NOT_PATTERNS, []), *(f"^{re.escape(w)}$" for w in schema[NOT_STRINGS])]}


def with_format(fmt: str, spec: str | Patterns) -> Patterns:
    """``spec`` met with a ``format``'s pattern."""
    return Patterns((fmt, spec), ()) if isinstance(spec, str) else Patterns((fmt, *spec.all), spec.none)


def without_not(schema: dict[str, Any], ctx: SchemaContext, path: str) -> dict[str, Any]:
    """``schema`` with its ``not`` (over ``type``/``const``/``enum``) written as positive keywords: the enum values
    it excludes dropped, the types it excludes taken out of ``type``, scalar values taken out of their type
    (:func:`_excluding`).  Any other ``not`` is unsupported (permissive: ignored, a superset)."""
    rest = {k: v for k, v in schema.items() if k != "not"}
    neg = schema["not"]
    keys = {k for k in neg if not annotation(k)} if isinstance(neg, dict) else None
    if keys == {"anyOf"} and isinstance(neg["anyOf"], list) and neg["anyOf"] and all(
            values_of(b) is not None for b in neg["anyOf"]):  # not (a or b): none of their values
        return without_not({**rest, "not": {"enum": [v for b in neg["anyOf"] for v in values_of(b) or []]}}, ctx,
                           path)
    if not keys or not keys <= {"type", "const", "enum"}:
        # any other test: the values it rejects, as a condition (if N then false) that :mod:`.conditional`
        # writes out, or refuses with the path of not
        cond = {"if": neg, "then": False, "else": True, "keyword": "not"}
        return {**rest, CONDITIONS: [*rest.get(CONDITIONS, []), cond]}
    if "const" in rest or "enum" in rest:
        return {**rest, "enum": enum_values(schema, path)}  # the values 'not' excludes dropped
    if keys == {"type"}:
        excluded = set(neg["type"] if isinstance(neg["type"], list) else [neg["type"]])
        t = rest.get("type", list(TYPES))
        allowed = [x for x in (t if isinstance(t, list) else [t]) if x not in excluded]
        if "number" in excluded:
            allowed = [x for x in allowed if x != "integer"]
        if "integer" in excluded and "number" in allowed:
            ctx.unsupported("not", path)  # a number that is not an integer: no grammar here
            return rest
        if not allowed:
            raise EmptySchemaError("the schema admits no value: 'not' excludes every type it allows", f"{path}.not")
        return {**rest, "type": allowed if len(allowed) > 1 else allowed[0]}
    values = [neg["const"]] if "const" in neg else neg["enum"] if isinstance(neg.get("enum"), list) else None
    if values is None or "type" in keys or any(isinstance(v, (dict, list)) for v in values):
        ctx.unsupported("not", path)  # excluding an object or array value: no grammar here
        return rest
    t = rest.get("type", list(TYPES))
    allowed = [x for x in (t if isinstance(t, list) else [t]) if isinstance(x, str)]
    if "number" in allowed:
        allowed = [x for x in allowed if x != "integer"]  # (the number branch holds the integers)
    branches: list[dict[str, Any]] = []
    for x in allowed:
        branches += _excluding({**rest, "type": x}, x, values, path)
    if not branches:
        raise EmptySchemaError("the schema admits no value: 'not' excludes all of it", f"{path}.not")
    return branches[0] if len(branches) == 1 else {"anyOf": branches}


#: where a string schema holds the values ``not`` excludes from it (:func:`_excluding`; :meth:`ValueBuilder._t_string`)
NOT_STRINGS = "$toolgram:not-strings"


def _excluding(schema: dict[str, Any], kind: str, values: list[Any], path: str) -> list[dict[str, Any]]:
    """``schema`` (of the one type ``kind``) without the scalar ``values``, as positive schemas: ``null``
    dropped, the booleans left as an ``enum``, numbers as the ranges between the excluded ones (exclusive
    bounds, met with the schema's own), strings under :data:`NOT_STRINGS`."""
    if kind == "null":
        return [] if None in values else [schema]
    if kind == "boolean":
        left = [b for b in (True, False) if not any(v is b for v in values)]
        return [] if not left else [schema] if len(left) == 2 else [{**schema, "enum": left}]
    if kind in ("integer", "number"):
        cuts = sorted({exact_decimal(v) for v in values
                       if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)})
        if not cuts:
            return [schema]
        pieces: list[dict[str, Any]] = []
        bounds = [(None, cuts[0]), *zip(cuts, cuts[1:], strict=False), (cuts[-1], None)]
        for lo, hi in bounds:
            piece: dict[str, Any] = {}
            if lo is not None:
                piece["exclusiveMinimum"] = int(lo) if lo == lo.to_integral_value() else float(lo)
            if hi is not None:
                piece["exclusiveMaximum"] = int(hi) if hi == hi.to_integral_value() else float(hi)
            try:
                pieces.append(meet(schema, piece, path))
            except EmptySchemaError:
                continue
        return pieces
    if kind == "string":
        words = [v for v in values if isinstance(v, str)]
        if not words:
            return [schema]
        return [{**schema, NOT_STRINGS: sorted({*schema.get(NOT_STRINGS, []), *words})}]
    return [schema]


def finite_values(schema: Any, ctx: SchemaContext, path: str) -> list[Any] | None:
    """The values ``schema`` admits when they are few and listed (``enum``/``const``, ``boolean``, ``null``),
    distinct under JSON equality; None otherwise."""
    schema = ctx.deref(schema, path)
    if not isinstance(schema, dict) or any(k in schema for k in ("allOf", "anyOf", "oneOf", "not")) or \
            pending(schema, path):
        return None
    if "const" in schema or "enum" in schema:
        values = enum_values(schema, path)
    else:
        types = schema.get("type")
        types = types if isinstance(types, list) else [types]
        if not types or not set(types) <= {"boolean", "null"}:
            return None
        values = [v for t in types for v in ((True, False) if t == "boolean" else (None,))]
    out: dict[str, Any] = {}
    for v in values:
        out.setdefault(json.dumps(v, sort_keys=True), v)
    return list(out.values())


def enum_values(schema: dict[str, Any], path: str) -> list[Any]:
    """The ``const``/``enum`` values of ``schema`` that its other keywords admit too (``{"type":
    "integer", "enum": [1, "a"]}`` admits 1 only); a :class:`SchemaError` when none is."""
    if "const" in schema:
        values = [schema["const"]]
        if "enum" in schema:
            values = [v for v in _enum_list(schema, path) if _same(v, schema["const"])]
    else:
        values = _enum_list(schema, path)
    kept = [v for v in values if admits(schema, v)]
    if not kept:
        where = f"{path}.const" if "const" in schema else f"{path}.enum"
        raise EmptySchemaError("no const/enum value satisfies the schema's other keywords", where)
    return kept


def _enum_list(schema: dict[str, Any], path: str) -> list[Any]:
    values = schema["enum"]
    if not isinstance(values, list) or not values:
        raise SchemaError("enum must be a non-empty array", f"{path}.enum")
    return values


def _same(a: Any, b: Any) -> bool:
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def _json_type(v: Any) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, int) or (isinstance(v, float) and v.is_integer()):
        return "integer"
    if isinstance(v, float):
        return "number"
    if isinstance(v, str):
        return "string"
    return "array" if isinstance(v, list) else "object"


def admits(schema: dict[str, Any], v: Any) -> bool:
    """Whether the scalar keywords of ``schema`` (type, bounds, lengths, pattern, multipleOf, not
    over const/enum/type) admit ``v``; keywords about members and items are not looked at."""
    t = schema.get("type")
    if t is not None:
        kinds = {_json_type(v)}
        if "integer" in kinds:
            kinds.add("number")
        if not kinds & set(t if isinstance(t, list) else [t]):
            return False
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        lo, lo_ex, hi, hi_ex = number_bounds(schema, "$")
        d = exact_decimal(v)
        if lo is not None and (d < lo or (lo_ex and d == lo)):
            return False
        if hi is not None and (d > hi or (hi_ex and d == hi)):
            return False
        m = schema.get("multipleOf")
        if valid_step(m) and not is_multiple(v, exact_decimal(m)):
            return False
        if any(is_multiple(v, n) for n in _not_multiples(schema)):
            return False
    if isinstance(v, str):
        n = len(v)
        if isinstance(schema.get("minLength"), int) and n < schema["minLength"]:
            return False
        if isinstance(schema.get("maxLength"), int) and n > schema["maxLength"]:
            return False
        pattern = schema.get("pattern")
        matches = matcher(pattern) if isinstance(pattern, str) else None
        if matches is not None and not matches(v):  # (a pattern toolgram cannot write is refused where it is built)
            return False
    neg = schema.get("not")
    if isinstance(neg, dict) and set(neg) <= {"type", "enum", "const"} and neg and admits_not(neg, v):
        return False
    return True


def admits_not(neg: dict[str, Any], v: Any) -> bool:
    """Whether ``v`` matches ``neg`` (a schema of ``type``/``enum``/``const`` only)."""
    if "const" in neg and not _same(neg["const"], v):
        return False
    if "enum" in neg and isinstance(neg["enum"], list) and not any(_same(e, v) for e in neg["enum"]):
        return False
    return admits({"type": neg["type"]} if "type" in neg else {}, v)


#: Keywords that may admit keys beyond ``properties`` when ``additionalProperties`` is absent (JSON
#: Schema's default: any extra key); relaxing one (``--permissive``) must then admit any extra key.
_KEY_ADMITTING = ("dependentSchemas", "dependencies", "if", "then", "else", "unevaluatedProperties")


def object_shape(schema: dict[str, Any], ctx: SchemaContext, path: str) -> tuple[dict[str, Any], set[str], Any]:
    """``(properties, required names, extra)`` of an object schema; ``extra`` is ``False`` (no
    undeclared keys), ``True`` (any key, any value) or the non-empty schema of an undeclared key's value.

    ``additionalProperties`` absent means no extra keys (SPEC) -- except an object with no
    ``properties`` at all, which llama.cpp and OpenAI read as "any object".  A required name that
    ``properties`` does not declare is a member with any value (the ``additionalProperties`` schema
    when there is one), after the declared ones; with ``additionalProperties: false`` no object is
    valid: a :class:`SchemaError` (unless ``patternProperties`` may give it: :func:`object_keys`).  So is an
    optional one a name ``dependentRequired`` mentions, when it may appear as an undeclared key.  Under
    ``--permissive`` a relaxed keyword never narrows: relaxed keywords that could admit keys
    (:data:`_KEY_ADMITTING`) admit any extra key and value when ``additionalProperties`` is absent (a relaxed
    ``patternProperties``: :func:`object_keys`).
    """
    props = schema.get("properties")
    if props is None:
        props = {}
    if not isinstance(props, dict):
        raise SchemaError("properties must be an object mapping names to schemas", f"{path}.properties")
    req = schema.get("required")
    if req is None:
        req = []
    if not isinstance(req, list) or not all(isinstance(r, str) for r in req):
        raise SchemaError("required must be an array of property names", f"{path}.required")
    required = set(req)
    ap = schema.get("additionalProperties")
    if ap is not None and not isinstance(ap, (bool, dict)):
        raise SchemaError("additionalProperties must be a boolean or a schema", f"{path}.additionalProperties")
    extra: Any = ap not in (None, False) or (ap is None and "properties" not in schema)
    if isinstance(ap, dict) and ap:
        extra = ap
    if ctx.permissive and ap is None and any(k in schema and not vacuous(k, schema) for k in _KEY_ADMITTING):
        extra = True
    undeclared = [name for name in dict.fromkeys(req) if name not in props]
    if undeclared and ap is False and "patternProperties" not in schema:
        raise EmptySchemaError(f"required property {undeclared[0]!r} is not in properties and "
                               "additionalProperties is false: no object is valid", f"{path}.required")
    if extra is not False or "patternProperties" in schema:  # a name that may appear as an undeclared key
        undeclared += [name for name in dependency_names(schema) if name not in props and name not in undeclared]
    if undeclared:
        value = ap if isinstance(ap, dict) else {}
        props = {**props, **{name: value for name in undeclared}}
    return props, required, extra


def dependency_names(schema: dict[str, Any]) -> list[str]:
    """The names ``dependentRequired`` (``dependencies`` in its array form) mentions, triggers and required
    ones, in order of appearance: :func:`object_shape` makes members of those that can appear, so that the
    dependencies are counted member by member."""
    names: list[str] = []
    for key in ("dependentRequired", "dependencies"):
        spec = schema.get(key)
        if not isinstance(spec, dict):
            continue
        for trigger, needs in spec.items():
            if isinstance(needs, list) and all(isinstance(x, str) for x in needs):
                names += [trigger, *needs]
    return list(dict.fromkeys(names))


@dataclass
class ObjectKeys:
    """An object schema's keys: the declared members (``properties`` and undeclared ``required`` names, each
    schema met with the ``patternProperties`` its name matches), and the undeclared keys by class
    (:func:`.keys.key_classes`): those matching some patterns take their schemas, the others the
    ``additionalProperties`` one.  Without ``patternProperties`` there is one class, "any name but a declared
    one" (``decoded`` None), when ``extra`` allows it."""

    props: dict[str, Any]
    required: set[str]
    extra: Any  # False, True (any value) or the additionalProperties schema
    path: str
    patterns: tuple[tuple[str, Any, Expr], ...] = ()  # (pattern, schema, decoded expression)
    met: frozenset[str] = frozenset()  # the declared names whose schema was met with patterns
    ctx: SchemaContext | None = None
    names: Expr | None = None  # the decoded names propertyNames admits (None: any)
    gone: tuple[str, ...] = ()  # declared names that admit no value: neither members nor extra keys

    @property
    def overlaps_alternatives(self) -> bool:
        """Whether this object admits extra keys and is one of several alternatives (an ``anyOf``/``oneOf`` branch,
        conditions written out): another branch may declare a name it takes as an extra key, and LALR's lexer
        cannot wait to see which branch holds, so the grammar needs Earley (:attr:`.ir.Grammar.earley`)."""
        return (self.extra is not False or bool(self.patterns)) and (".anyOf[" in self.path or ".oneOf[" in self.path)

    @property
    def declared(self) -> tuple[str, ...]:
        """The names no undeclared key may take."""
        return (*self.props, *self.gone)

    def member(self, name: str, build: Callable[[], T]) -> T | None:
        """``build()`` for the declared property ``name``; None when its schema (as written, or met by toolgram
        with the patterns its name matches) admits no value: the key cannot appear, as JSON Schema reads it
        (``{"allOf": [{"type": "string"}, {"type": "boolean"}]}`` is ``false``); an :class:`EmptySchemaError`
        when that property is required (no object is valid)."""
        try:
            return build()
        except EmptySchemaError:
            if name not in self.required:
                return None
            forbidden = forbids(self.props.get(name))
            if name not in self.met and not forbidden:
                raise
            why = "is false" if forbidden else "and the patternProperties it matches share none"
            raise EmptySchemaError(f"required property {name!r} admits no value (its schema {why}): "
                                   "no object is valid", f"{self.path}.properties.{name}") from None

    @staticmethod
    def extra_member(build: Callable[[], T]) -> T | None:
        """``build()`` for one class of undeclared keys (:meth:`classes`); None when the class's schema (the
        ``additionalProperties`` one, or its patterns' met by toolgram) admits no value: such keys cannot
        appear."""
        try:
            return build()
        except EmptySchemaError:
            return None

    def classes(self, allowed: Expr | None = None) -> list[tuple[Expr | None, Any, str]]:
        """``(decoded key expression or None, value schema (True: any), its path)`` per class of undeclared
        keys; ``allowed``: the names the syntax can write (None: any text)."""
        if not self.patterns and self.names is None:
            return [(None, self.extra, f"{self.path}.additionalProperties")] if self.extra is not False else []
        if self.names is not None:
            allowed = self.names if allowed is None else intersect(allowed, self.names)
        found, _ = _key_classes(self.declared, tuple(p[2] for p in self.patterns), self.extra is not False,
                                allowed)
        out = []
        for kc in found:
            if not kc.matches:
                out.append((kc.decoded, self.extra, f"{self.path}.additionalProperties"))
                continue
            schemas = [self.patterns[i][1] for i in kc.matches]
            if any(sub is False for sub in schemas):
                continue  # a key matching a pattern whose schema is false cannot appear
            where = f"{self.path}.patternProperties" + (f".{self.patterns[kc.matches[0]][0]}"
                                                        if len(kc.matches) == 1 else "")
            schema = schemas[0] if len(schemas) == 1 else _met({"allOf": schemas}, self.ctx, where, self.path)
            if schema is not None:  # (None: the patterns' schemas share no value; such keys cannot appear)
                out.append((kc.decoded, schema, where))
        return out


@lru_cache(maxsize=256)
def _key_classes(declared: tuple[str, ...], patterns: tuple[Expr, ...], extra: bool,
                 allowed: Expr | None) -> tuple[list[KeyClass], dict[str, tuple[int, ...]]]:
    return key_classes(declared, patterns, extra, allowed)


def object_keys(schema: dict[str, Any], ctx: SchemaContext, path: str) -> ObjectKeys:
    """:func:`object_shape` with ``patternProperties`` and ``propertyNames``: a key matching a pattern takes
    its schema (two patterns: both), a declared one too; the others fall to ``additionalProperties``; every key
    (declared ones too) must be a name ``propertyNames`` admits.  A pattern no grammar can hold is refused
    with its path (``--permissive``: relaxed, a superset)."""
    keys = _pattern_keys(schema, ctx, path)
    pn = schema.get("propertyNames")
    if pn is None or pn is True or pn == {}:
        return keys
    names = _property_names(pn, ctx, path)
    if names is None:
        return keys
    props = {n: sub for n, sub in keys.props.items() if matches(names, n)}
    for n in keys.props:
        if n not in props and n in keys.required:
            raise EmptySchemaError(f"required property {n!r} is not a name propertyNames admits: no object is valid",
                                   f"{path}.required")
    return replace(keys, props=props, names=names, met=keys.met & set(props),
                   gone=(*keys.gone, *(n for n in keys.props if n not in props)))


#: the keywords a ``propertyNames`` schema may use (a key is a string: its name language is regular)
_NAME_KEYWORDS = frozenset({"type", "pattern", "minLength", "maxLength", "enum", "const", "allOf", "anyOf", "not",
                            "$ref", ALSO_PATTERNS, NOT_PATTERNS})


def _property_names(pn: Any, ctx: SchemaContext, path: str) -> Expr | None:
    """The decoded names ``propertyNames`` admits (:func:`.keys.key_classes`' ``allowed``); None when it was
    relaxed (``--permissive``: any name, a superset)."""
    try:
        return _name_language(pn, ctx, f"{path}.propertyNames")
    except UnsupportedSchemaError:
        if not ctx.permissive:
            raise
        ctx.unsupported("propertyNames", path)
        return None


def _name_language(pn: Any, ctx: SchemaContext, where: str) -> Expr:
    """The decoded names one ``propertyNames`` schema admits: a string's ``pattern`` (and the patterns a meet
    gave it), lengths, ``enum``/``const``, met with its ``allOf`` branches and ``$ref`` (:func:`.schema.flatten`),
    joined with its ``anyOf`` branches, and without the names its ``not`` admits where that is a pattern or names
    (a key's language is regular)."""
    if not isinstance(pn, (dict, bool)):
        raise SchemaError("propertyNames must be a schema (an object or a boolean)", where)
    if isinstance(pn, dict):
        _name_keywords(pn, where)  # the schema's own keywords, each at its path
    try:
        with ctx.strictly():  # a meet that cannot be made is refused here (relaxed whole by the caller)
            own = flatten(pn, ctx, where)
    except EmptySchemaError:
        return Chars(())  # no name: the object is empty
    _name_keywords(own, where)  # and those its allOf branches and $ref target brought
    if "anyOf" in own:  # each branch with the other keywords: lengths stay a pattern's bound, not a product
        rest = {k: v for k, v in own.items() if k != "anyOf"}
        return alt(*(_name_branch(rest, b, ctx, f"{where}.anyOf[{i}]")
                     for i, b in enumerate(_branches(own, "anyOf", where))))
    if "not" in own:
        own = _names_not(own, where)
    lo, hi = length_bounds(own, where, ctx)
    spec = string_patterns(own, where)
    lang = pattern_to_ir(spec, decoded_char, f"{where}.pattern", (lo, hi)) if spec else Rep(ANY, lo, hi)
    if spec and (lo, hi) != (0, None):
        try:  # names are sorted into classes by one DFA (:func:`.keys.key_classes`): a pattern's meet with
            build_dfa(lang)  # lengths has one state per character counted, which may pass its cap
        except DfaLimit as exc:
            raise UnsupportedSchemaError(f"propertyNames: a pattern within {lo}..{hi} characters has no key "
                                         f"automaton toolgram can build ({exc})", f"{where}.pattern") from None
    if "const" in own or "enum" in own:
        values = [own["const"]] if "const" in own else enum_values(own, where)
        words = [v for v in values if isinstance(v, str)]
        lang = _names_meet(alt(*(Lit(w) for w in words)), lang, where) if words else Chars(())
    return lang


def _name_keywords(pn: dict[str, Any], where: str) -> None:
    """Refuse, at its path, a keyword no name language holds (or a type other than string)."""
    other = [k for k in pn if k not in _NAME_KEYWORDS and not annotation(k)]
    if pn.get("type", "string") not in ("string", ["string"]):
        other.insert(0, "type")
    if other:
        raise UnsupportedSchemaError(f"propertyNames: {other[0]!r} cannot be enforced on key names",
                                     f"{where}.{other[0]}")


def _name_branch(rest: dict[str, Any], branch: Any, ctx: SchemaContext, where: str) -> Expr:
    """One ``anyOf`` branch of a ``propertyNames`` schema, met with the schema's other keywords."""
    if isinstance(branch, dict) and "$ref" in branch:
        branch = ctx.deref(branch, where)
    if isinstance(branch, dict):
        try:
            return _name_language(meet(rest, branch, where), ctx, where)
        except EmptySchemaError:
            return Chars(())  # this branch admits no name the others do
    return _name_language(rest, ctx, where) if branch is True else _name_language(branch, ctx, where)


def _branches(pn: dict[str, Any], key: str, where: str) -> list[Any]:
    branches = pn.get(key, [])
    if not isinstance(branches, list) or not branches:
        raise SchemaError(f"{key} must be a non-empty array of schemas", f"{where}.{key}")
    return branches


def _names_meet(a: Expr, b: Expr, where: str) -> Expr:
    try:
        return intersect(a, b)
    except DfaLimit as exc:
        raise UnsupportedSchemaError(f"propertyNames: the names its keywords admit together are too many "
                                     f"states to write ({exc})", where) from None


def _names_not(pn: dict[str, Any], where: str) -> dict[str, Any]:
    """``pn`` with its ``not`` as patterns the name must not match (:data:`NOT_PATTERNS`): a ``not`` of a lone
    ``pattern``, or of ``enum``/``const`` names (spelled as :func:`words_as_patterns` does); any other ``not`` is
    refused at its path."""
    rest = {k: v for k, v in pn.items() if k != "not"}
    none: list[str] = []
    todo = [pn["not"]]
    while todo:  # a not of an anyOf (two nots met) excludes each branch's names
        neg = todo.pop()
        keys = {k for k in neg if not annotation(k)} if isinstance(neg, dict) else None
        if keys == {"pattern"} and isinstance(neg["pattern"], str):
            none.append(neg["pattern"])
        elif keys in ({"enum"}, {"const"}):
            values = [neg["const"]] if "const" in neg else enum_values(neg, f"{where}.not")
            none += words_as_patterns({NOT_STRINGS: [v for v in values if isinstance(v, str)]})[NOT_PATTERNS]
        elif keys == {"anyOf"} and isinstance(neg["anyOf"], list):
            todo += neg["anyOf"]
        else:
            raise UnsupportedSchemaError("propertyNames: 'not' cannot be enforced on key names (only a not of a "
                                         "pattern or of names)", f"{where}.not")
    return {**rest, NOT_PATTERNS: [*rest.get(NOT_PATTERNS, []), *none]} if none else rest


def _pattern_keys(schema: dict[str, Any], ctx: SchemaContext, path: str) -> ObjectKeys:
    """:func:`object_keys` before ``propertyNames``."""
    props, required, extra = object_shape(schema, ctx, path)
    pp = schema.get("patternProperties")
    if pp is None:
        return ObjectKeys(props, required, extra, path)
    if not isinstance(pp, dict):
        raise SchemaError("patternProperties must be an object mapping patterns to schemas",
                          f"{path}.patternProperties")
    try:
        patterns = tuple((p, sub, pattern_to_ir(p, decoded_char, f"{path}.patternProperties.{p}"))
                         for p, sub in pp.items())
        _, matched = _key_classes(tuple(props), tuple(p[2] for p in patterns), False, None)
    except UnsupportedSchemaError as exc:
        if not ctx.permissive:
            raise UnsupportedSchemaError(exc.message, exc.path or f"{path}.patternProperties") from None
        ctx.unsupported("patternProperties", path)
        return ObjectKeys(props, required, True, path)
    declared = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
    met: dict[str, Any] = {}
    for name, sub in props.items():
        own = [patterns[i][1] for i in matched.get(name, ())]
        if name not in declared:  # a required name properties does not declare: the patterns decide, else
            sub = own[0] if len(own) == 1 else {"allOf": own} if own else sub  # additionalProperties
            if not own and schema.get("additionalProperties") is False and name not in required:
                continue  # a name dependentRequired mentions that no key may be: it cannot appear
            if not own and schema.get("additionalProperties") is False:
                raise EmptySchemaError(f"required property {name!r} is in no properties, matches no "
                                       "patternProperties and additionalProperties is false: no object is valid",
                                       f"{path}.required")
        elif own:
            sub = {"allOf": [sub, *own]}
        if isinstance(sub, dict) and "allOf" in sub and own:
            sub = _met(sub, ctx, f"{path}.properties.{name}", path)
            if sub is None and name in required:
                raise EmptySchemaError(f"required property {name!r} admits no value (its schema and the "
                                       "patternProperties it matches share none): no object is valid",
                                       f"{path}.properties.{name}")
        if sub is not None:  # (None: no value fits; the key cannot appear)
            met[name] = sub
    return ObjectKeys(met, required, extra, path, patterns,
                      frozenset(n for n in met if matched.get(n) or n not in declared), ctx,
                      gone=tuple(n for n in props if n not in met))


def _met(schema: dict[str, Any], ctx: SchemaContext | None, path: str, where: str) -> Any:
    """An ``allOf`` toolgram wrote (a property and the patterns its name matches) merged into one schema, as
    the call syntaxes that type values by their schema need it; None when the parts share no value.  Parts
    that cannot be merged (two ``pattern``s) are refused, or under ``--permissive`` the first part alone is
    kept (a superset) and ``patternProperties`` of the object at ``where`` is listed as relaxed."""
    try:  # strictly: the allOf is toolgram's, so a relaxed path inside it would name no keyword of the schema
        return merge_all_of(schema, path, None if ctx is None else replace(ctx, permissive=False, relaxed=[]))
    except EmptySchemaError:
        return None
    except UnsupportedSchemaError:
        if ctx is None or not ctx.permissive:
            raise
        ctx.unsupported("patternProperties", where)
        return schema["allOf"][0]


def infer_type(schema: dict[str, Any]) -> str | None:
    """The type an untyped schema's keywords imply (``minimum`` a number, ``pattern`` a string ...; None: any)."""
    if any(k in schema for k in ("properties", "additionalProperties", "required", "minProperties", "maxProperties",
                                 "dependentRequired", "dependencies", "patternProperties", "propertyNames")):
        return "object"
    if any(k in schema for k in ("items", "prefixItems", "minItems", "maxItems")) or schema.get("uniqueItems") is True \
            or "contains" in schema and not vacuous("contains", schema):
        return "array"
    if "minLength" in schema or "maxLength" in schema or "pattern" in schema:
        return "string"
    if any(k in schema for k in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
                                 NOT_MULTIPLES)):
        return "number"
    return None


Bounds = tuple[Decimal | None, bool, Decimal | None, bool]


def number_bounds(schema: dict[str, Any], path: str) -> Bounds:
    """``(low, low excluded, high, high excluded)`` from ``minimum``/``maximum`` and ``exclusive*``
    (a number, or draft 4's boolean beside ``minimum``/``maximum``): the tighter bound wins, exactly as written.
    A bound past every number of :data:`MAX_INT_DIGITS` digits is refused on the side that excludes them
    (``minimum: 1e300``); on the side that admits them (``maximum: 1.79769e+308``, "any double") it is kept, and
    the plain spellings stop at those digits (:func:`.numbers.decimal_range`)."""

    def num(key: str) -> Decimal | None:
        v = schema.get(key)
        if v is None or isinstance(v, bool):
            return None
        if not isinstance(v, (int, float)):
            raise SchemaError(f"{key} must be a number", f"{path}.{key}")
        if isinstance(v, float) and not math.isfinite(v):
            raise SchemaError(f"{key} must be a finite number", f"{path}.{key}")
        if abs(v) >= 10**MAX_INT_DIGITS and (v > 0) != ("aximum" in key):  # (on the admitting side: as written)
            raise UnsupportedSchemaError(
                f"{key} has more than {MAX_INT_DIGITS} digits, more than toolgram's limit", f"{path}.{key}"
            )
        d = exact_decimal(v)
        if d != d.to_integral_value() and -d.as_tuple().exponent > MAX_INT_DIGITS:
            raise UnsupportedSchemaError(f"{key} has more than {MAX_INT_DIGITS} fraction digits", f"{path}.{key}")
        return d

    def side(inclusive: str, exclusive: str, tighter: Any) -> tuple[Decimal | None, bool]:
        bound, ex = num(inclusive), False
        flag = schema.get(exclusive)
        if isinstance(flag, bool):  # draft 4
            return bound, flag and bound is not None
        other = num(exclusive)
        if other is not None and (bound is None or tighter(other, bound) == other):
            return other, True
        return bound, ex

    lo, lo_ex = side("minimum", "exclusiveMinimum", lambda a, b: a if a >= b else b)
    hi, hi_ex = side("maximum", "exclusiveMaximum", lambda a, b: a if a <= b else b)
    return lo, lo_ex, hi, hi_ex



def _not_multiples(schema: dict[str, Any]) -> tuple[Decimal, ...]:
    """The numbers a value must not be a multiple of (:data:`NOT_MULTIPLES`, a negated ``multipleOf``)."""
    return tuple(exact_decimal(n) for n in schema.get(NOT_MULTIPLES, ()))


def _no_multiple(m: Decimal | None, nots: tuple[Decimal, ...], bounded: bool, path: str) -> EmptySchemaError:
    """The error for no multiple of ``m`` (None: of 1) that is a multiple of none of ``nots`` (within bounds)."""
    but = f" that is a multiple of none of {', '.join(map(str, nots))}" if nots else ""
    return EmptySchemaError(f"no multiple of {m or 1}{but}{' lies between minimum and maximum' if bounded else ''}",
                            path)


def _int_bounds(schema: dict[str, Any], path: str) -> tuple[int | None, int | None]:
    lo, lo_ex, hi, hi_ex = number_bounds(schema, path)
    ilo = None if lo is None else (math.floor(lo) + 1 if lo_ex else math.ceil(lo))
    ihi = None if hi is None else (math.ceil(hi) - 1 if hi_ex else math.floor(hi))
    return ilo, ihi


def count(schema: dict[str, Any], key: str, path: str, limit: int, ctx: SchemaContext | None = None) -> int | None:
    """A non-negative integer keyword (``minLength``, ``maxItems`` ...), at most ``limit``; None when absent.
    Past ``limit``: an :class:`UnsupportedSchemaError` naming it, or, under a permissive ``ctx``, None (the bound
    dropped, a superset: ``maxLength: 2147483647`` or ``minItems: 20000`` as no bound) listed under ``relaxed``."""
    if key not in schema:
        return None
    v = schema[key]
    if isinstance(v, float) and v.is_integer():
        v = int(v)
    if isinstance(v, bool) or not isinstance(v, int) or v < 0:
        raise SchemaError(f"{key} must be a non-negative integer, got {v!r}", f"{path}.{key}")
    if v > limit:
        if ctx is not None and ctx.permissive:
            ctx.unsupported(key, path)
            return None
        raise UnsupportedSchemaError(f"{key} {v} is larger than toolgram's limit of {limit}", f"{path}.{key}")
    return v


def length_bounds(schema: dict[str, Any], path: str, ctx: SchemaContext | None = None) -> tuple[int, int | None]:
    """``(minLength, maxLength)`` of a string schema: non-negative, ordered, at most MAX_LENGTH (:func:`count`)."""
    lo = count(schema, "minLength", path, MAX_LENGTH, ctx) or 0
    hi = count(schema, "maxLength", path, MAX_LENGTH, ctx)
    if hi is not None and lo > hi:
        raise SchemaError(f"minLength {lo} is larger than maxLength {hi}", f"{path}.minLength")
    return lo, hi


__all__ = ["ValueBuilder", "enum_values", "admits", "decimal_range", "number_bounds", "int_range",
           "count", "length_bounds", "JSON_WS", "WS", "END_WS", "template_gap", "list_gaps", "MAX_LENGTH", "MAX_ITEMS"]
