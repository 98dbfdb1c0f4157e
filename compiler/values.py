"""JSON schema -> grammar IR for argument values, in JSON, Python-literal or Gemma 4 spelling.

Gemma 4 (``gemma``, :mod:`toolgram.grammars.syntax.gemma_text`): strings ``<|"|>raw<|"|>``, bare
keys, no whitespace.  A string cannot hold ``<|"|>`` (the first one ends it); a length-bounded or
pattern string cannot hold ``<`` at all (as the XML formats' bounded raw strings).
"""

from __future__ import annotations

import json
import math
from functools import cache, lru_cache
from typing import Any, Literal

from ..errors import SchemaError, UnsupportedSchemaError
from ..grammars.syntax import gemma_text, json_text, python_text
from .ir import EMPTY, Chars, Expr, Grammar, Lit, Ref, Rep, Token, Until, alt, named, opt, seq
from .keys import gemma_quoted_body, json_key_body, plain_name, python_key_body
from .regex import json_char, pattern_to_ir, python_char, raw_char
from .schema import ANNOTATIONS, TYPES, SchemaContext, merge_all_of, type_hint

Syntax = Literal["json", "python", "gemma"]

#: Largest ``minLength``/``maxLength`` a grammar carries (llama.cpp expands a bounded repetition
#: into one rule per count, and Python's ``re`` caps counts at 2**32).
MAX_LENGTH = 1_000
#: Largest ``minItems``/``maxItems`` (arrays repeat a whole value rule).
MAX_ITEMS = 100
#: Most member states of one object (``minProperties``/``maxProperties``/``dependentRequired`` expansion).
MAX_OBJECT_STATES = 4000
#: Most decimal digits of an integer ``minimum``/``maximum`` (the range rules grow with the digits).
MAX_INT_DIGITS = 40

DIGIT = Chars(((ord("0"), ord("9")),))
DIGIT19 = Chars(((ord("1"), ord("9")),))
HEX = Chars(((ord("0"), ord("9")), (ord("a"), ord("f")), (ord("A"), ord("F"))))
# llama.cpp's bounded JSON whitespace: nothing, a space, or 1-2 newlines and up to 20 indents.
# GBNF and EBNF print it as one rule ``ws`` (issue 10: engines expand every inline copy).
JSON_WS = named(alt(EMPTY, Lit(" "), seq(Rep(Lit("\n"), 1, 2), Rep(Chars.of(" \t"), 0, 20))), "ws")
WS = Rep(Chars.of(" \t\n"), 0, None)  # SPEC section 1: between calls and before them
#: SPEC section 1: after the last call at most one newline, so every engine's matcher completes there
END_WS = Rep(Lit("\n"), 0, 1)

INT_RE = seq(opt(Lit("-")), alt(Lit("0"), seq(DIGIT19, Rep(DIGIT, 0, None))))
FRAC = seq(Lit("."), Rep(DIGIT, 1, None))
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
GEMMA_ANYKEY = Token(seq(alt(Rep(GEMMA_KEY_CHAR, 1, None),
                            seq(Lit(gemma_text.QUOTE), Until((gemma_text.QUOTE,)), Lit(gemma_text.QUOTE))),
                        Lit(":")), "ANYKEY")


def py_char(quote: str) -> Expr:
    """One character of a Python string literal quoted with ``quote``."""
    return named(alt(py_plain(quote), _PY_ESC), f"{_QUOTE_NAMES[quote]}-char")


def py_plain(quote: str) -> Chars:
    return Chars.of(quote + python_text.MUST_ESCAPE, negated=True)


def unbounded_chars(plain: Chars, escape: Expr) -> Expr:
    """``(plain | escape)*`` written as ``plain* (escape plain*)*``: the same language, but the
    engines' matchers (OpenVINO's xgrammar most of all) run the plain-character loop far faster."""
    return seq(Rep(plain, 0, None), Rep(seq(escape, Rep(plain, 0, None)), 0, None))


def json_literal(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


python_literals = python_text.spellings


def int_range(lo: int | None, hi: int | None) -> Expr:
    """Integers in ``[lo, hi]`` (either end open), in canonical decimal spelling."""
    if lo is not None and hi is not None and lo > hi:
        raise ValueError("empty integer range")
    parts: list[Expr] = []
    if lo is None or lo < 0:
        neg_hi = -lo if lo is not None else None  # magnitudes
        neg_lo = 1 if hi is None or hi >= 0 else -hi
        parts.append(seq(Lit("-"), _nonneg_range(neg_lo, neg_hi)))
    if hi is None or hi >= 0:
        parts.append(_nonneg_range(max(lo or 0, 0), hi))
    return alt(*parts)


def _nonneg_range(a: int, b: int | None) -> Expr:
    parts: list[Expr] = []
    top = b if b is not None else 10 ** len(str(a)) - 1
    for length in range(len(str(a)), len(str(top)) + 1):
        lo = max(a, 10 ** (length - 1) if length > 1 else 0)
        hi = min(top, 10**length - 1)
        if lo <= hi:
            parts.append(_same_length(str(lo), str(hi)))
    if b is None:
        parts.append(seq(DIGIT19, Rep(DIGIT, len(str(a)), None)))
    return alt(*parts)


def _same_length(lo: str, hi: str) -> Expr:
    if not lo:
        return EMPTY
    if len(lo) == 1:
        return _digit_class(lo, hi)
    if lo[0] == hi[0]:
        return seq(Lit(lo[0]), _same_length(lo[1:], hi[1:]))
    rest = len(lo) - 1
    if set(lo[1:]) == {"0"} and set(hi[1:]) == {"9"}:
        return seq(_digit_class(lo[0], hi[0]), Rep(DIGIT, rest, rest))
    parts = [seq(Lit(lo[0]), _same_length(lo[1:], "9" * rest))]
    if int(lo[0]) + 1 <= int(hi[0]) - 1:
        parts.append(seq(_digit_class(str(int(lo[0]) + 1), str(int(hi[0]) - 1)), Rep(DIGIT, rest, rest)))
    parts.append(seq(Lit(hi[0]), _same_length("0" * rest, hi[1:])))
    return alt(*parts)


def _digit_class(lo: str, hi: str) -> Expr:
    return Lit(lo) if lo == hi else Chars(((ord(lo), ord(hi)),))


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
        if self.syntax == "json":
            key = seq(Lit('"'), json_key_body(names), Lit('"'))
        else:
            key = alt(*(seq(Lit(q), python_key_body(names, q), Lit(q)) for q in "'\""))
        return Token(seq(key, self.punct(":").expr), "ANYKEY")

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

    def counted_body(self, members: list[tuple[Expr, Expr, bool]], sep: Expr, extra: tuple[Expr, Expr] | None,
                     hint: str, lo: int, hi: int | None,
                     deps: dict[int, frozenset[int]] | None = None) -> Expr | None:
        """:meth:`object_body` with between ``lo`` and ``hi`` members (``minProperties``/``maxProperties``) and
        ``deps`` (member index -> the members it requires: ``dependentRequired``); None when nothing fits.

        ``M(k, s)``: the next member at index ``k`` or later (or an extra one) in state ``s``; ``C(k, s)``: the
        end (when allowed) or ``sep`` and ``M(k, s)``.  The state is the count so far (it stops at ``lo`` when
        ``hi`` is None), the later members a written one requires, and the later members that may not be
        written because a member they require was left out.  Extra members repeat as the count allows."""
        deps = deps or {}
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
                                             "maxProperties, dependentRequired)", hint)

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
                if c1 is not None and k not in forb:
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
        props, required, _ = object_shape(schema, self.ctx, path)
        extra = self._additional(schema, path, hint)
        members = []
        for k, sub in props.items():
            if self.syntax == "gemma" and not gemma_text.writable_key(k):
                raise SchemaError(f"property name {k!r} cannot stand bare in Gemma 4's syntax ({GEMMA_KEY_RULE})",
                                  f"{path}.properties")
            v = self.value(sub, f"{path}.properties.{k}", f"{hint}-{k}")
            members.append((Token(seq(self.key(k), self.punct(":").expr), "KEY"), v, k in required))
        extra_member = (self.any_key(tuple(props)), extra) if extra is not None else None
        body = self.members_body(schema, path, members, self.punct(","), extra_member, hint)
        return seq(self.open_("{"), body, self.close_("}"))

    def members_body(self, schema: dict[str, Any], path: str, members: list[tuple[Expr, Expr, bool]], sep: Expr,
                     extra: tuple[Expr, Expr] | None, hint: str) -> Expr:
        """:meth:`object_body`, or :meth:`counted_body` under ``minProperties``/``maxProperties`` or
        ``dependentRequired`` (``dependencies`` in its array form)."""
        lo = count(schema, "minProperties", path, MAX_ITEMS)
        hi = count(schema, "maxProperties", path, MAX_ITEMS)
        deps = self._dependencies(schema, path)
        if lo is None and hi is None and not deps:
            return self.object_body(members, sep, extra, hint)
        lo = lo or 0
        if hi is not None and hi < lo:
            raise SchemaError("maxProperties is smaller than minProperties", f"{path}.maxProperties")
        body = self.counted_body(members, sep, extra, hint, lo, hi, deps)
        if body is None:
            where = "minProperties" if lo else "maxProperties" if hi is not None else "dependentRequired"
            raise SchemaError("no object has the members minProperties, maxProperties, required and "
                              "dependentRequired ask for", f"{path}.{where}")
        return body

    def _dependencies(self, schema: dict[str, Any], path: str) -> dict[int, frozenset[int]]:
        """``dependentRequired`` (and ``dependencies`` in its array form) as member indices; a name that is not
        a member (not declared nor required) is unsupported."""
        names = list(object_shape(schema, self.ctx, path)[0])
        out: dict[int, frozenset[int]] = {}
        for key in ("dependentRequired", "dependencies"):
            spec = schema.get(key)
            if spec is None:
                continue
            if not isinstance(spec, dict):
                raise SchemaError(f"{key} must be an object", f"{path}.{key}")
            extras = object_shape(schema, self.ctx, path)[2] is not False
            for trigger, needs in spec.items():
                where = f"{path}.{key}.{trigger}"
                if key == "dependencies" and isinstance(needs, (dict, bool)):
                    continue  # the schema form: unsupported (SchemaContext.check_keywords)
                if not isinstance(needs, list) or not all(isinstance(x, str) for x in needs):
                    raise SchemaError(f"{key} values must be arrays of property names", where)
                if trigger not in names and not extras:
                    continue  # a key that cannot appear requires nothing
                if trigger not in names or any(x not in names for x in needs):
                    # an extra key as the trigger or a requirement: not counted member by member
                    self.ctx.unsupported(key, path)
                    continue
                out[names.index(trigger)] = out.get(names.index(trigger), frozenset()) | {names.index(x)
                                                                                           for x in needs}
        return out

    def _additional(self, schema: dict[str, Any], path: str, hint: str) -> Expr | None:
        extra = object_shape(schema, self.ctx, path)[2]
        if extra is False:
            return None
        if extra is True:
            return self.any_value()
        return self.value(extra, f"{path}.additionalProperties", f"{hint}-extra")

    def array(self, schema: dict[str, Any], path: str, hint: str) -> Expr:
        prefix = schema.get("prefixItems") or []
        if not isinstance(prefix, list):
            raise SchemaError("prefixItems must be an array of schemas", f"{path}.prefixItems")
        items = schema.get("items", {})
        if not isinstance(items, (dict, bool)):
            raise SchemaError("items must be a schema (an object or a boolean)", f"{path}.items")
        lo = count(schema, "minItems", path, MAX_ITEMS) or 0
        hi = count(schema, "maxItems", path, MAX_ITEMS)
        if hi is not None and hi < lo:
            raise SchemaError("maxItems is smaller than minItems", f"{path}.maxItems")
        comma = self.punct(",")
        elems: list[Expr] = [self.value(s, f"{path}.prefixItems.{i}", f"{hint}-{i}") for i, s in enumerate(prefix)]
        if items is False:
            tail_item = None
        else:
            tail_item = self.value(items if isinstance(items, dict) else {}, f"{path}.items", f"{hint}-item")
        n_prefix = len(elems)
        if n_prefix:
            members = [(EMPTY, e, i < lo) for i, e in enumerate(elems)]
            rest_lo = max(lo - n_prefix, 0)
            rest_hi = None if hi is None else max(hi - n_prefix, 0)
            extra_ok = tail_item is not None and rest_hi != 0
            if extra_ok and (rest_lo or rest_hi is not None):
                raise UnsupportedSchemaError("prefixItems with min/maxItems beyond them", path)
            body = self.object_body(members, comma, (EMPTY, tail_item) if extra_ok else None, hint)
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
            "value", self.syntax, self.ctx.permissive, text)
        return self.g.once(key, lambda: self.value(schema, path, hint), self.ctx.relaxed)

    # -- dispatch ------------------------------------------------------------------------------
    def value(self, schema: Any, path: str, hint: str) -> Expr:
        """The grammar of one value valid under ``schema``."""
        if schema is True or schema == {}:
            return self.any_value()
        if schema is False:
            raise SchemaError("schema 'false' admits no value", path)
        if not isinstance(schema, dict):
            raise SchemaError("a schema must be an object or a boolean", path)
        self.ctx.check_keywords(schema, path)
        if "$ref" in schema:
            return self._ref(schema, path)
        if "allOf" in schema:
            return self.value(merge_all_of(schema, path), path, hint)
        for key in ("anyOf", "oneOf"):
            if key in schema:
                outer = {k: v for k, v in schema.items() if k not in ("anyOf", "oneOf")}
                branches = schema[key]
                if not isinstance(branches, list) or not branches:
                    raise SchemaError(f"{key} must be a non-empty array", f"{path}.{key}")
                alts = [
                    self.value({**outer, **b} if isinstance(b, dict) else b, f"{path}.{key}[{i}]", f"{hint}-{i}")
                    for i, b in enumerate(branches)
                ]
                return self.g.shared(hint, alt(*alts))
        if "const" in schema:
            return self.literal(schema["const"], f"{path}.const")
        if "enum" in schema:
            values = schema["enum"]
            if not isinstance(values, list) or not values:
                raise SchemaError("enum must be a non-empty array", f"{path}.enum")
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
            types = _infer_type(schema)
            if types is None:
                return self.any_value()
        if types not in TYPES:
            raise SchemaError(f"unrecognized type {types!r}{type_hint(types)}", f"{path}.type")
        return getattr(self, f"_t_{types}")(schema, path, hint)

    def _ref(self, schema: dict[str, Any], path: str) -> Expr:
        ref = schema["$ref"]
        if not isinstance(ref, str):
            raise SchemaError("$ref must be a string", f"{path}.$ref")
        if ref in self._refs:
            if ref in self._head:
                raise SchemaError(f"$ref cycle through {ref!r} that reads no value text (left recursion)",
                                  f"{path}.$ref")
            return self._refs[ref]
        target, tpath = self.ctx.resolve(ref, f"{path}.$ref")
        chain = {ref}
        while isinstance(target, dict) and "$ref" in target and not set(target) - ANNOTATIONS - {"$ref"}:
            if target["$ref"] in chain:  # a == b == a: a rule that derives only itself
                raise SchemaError(f"$ref cycle through {target['$ref']!r}", f"{path}.$ref")
            chain.add(target["$ref"])
            target, tpath = self.ctx.resolve(target["$ref"], f"{path}.$ref")
        name = self.g.reserve(f"{self.prefix}-{ref.rsplit('/', 1)[-1] or 'root'}")
        self._refs[ref] = Ref(name)
        extra = {k: v for k, v in schema.items() if k != "$ref" and k not in ("description", "title")}
        merged = {**target, **extra} if extra and isinstance(target, dict) else target
        self._head.add(ref)
        try:
            self.g.rules[name] = self.value(merged, tpath, name)
        finally:
            self._head.discard(ref)
        return Ref(name)

    def _t_string(self, schema: dict[str, Any], path: str, hint: str) -> Expr:
        if "pattern" in schema:
            return self.g.shared(hint, self._pattern(schema, path))
        lo, hi = length_bounds(schema, path)
        return self.string(lo, hi)

    def _pattern(self, schema: dict[str, Any], path: str) -> Expr:
        if "minLength" in schema or "maxLength" in schema:
            raise UnsupportedSchemaError("pattern together with minLength/maxLength", f"{path}.pattern")
        pattern = schema["pattern"]
        if not isinstance(pattern, str):
            raise SchemaError("pattern must be a string", f"{path}.pattern")
        where = f"{path}.pattern"
        if self.syntax == "json":
            return Token(seq(Lit('"'), pattern_to_ir(pattern, json_char, where), Lit('"')), "STRING", path=where)
        if self.syntax == "gemma":
            q = Lit(gemma_text.QUOTE)
            return Token(seq(q, pattern_to_ir(pattern, raw_char("<"), where), q), "STRING", path=where)
        return Token(
            alt(*(seq(Lit(q), pattern_to_ir(pattern, python_char(q), where), Lit(q)) for q in "'\"")),
            "STRING",
            path=where,
        )

    def _t_integer(self, schema: dict[str, Any], path: str, hint: str) -> Expr:
        lo, hi = _int_bounds(schema, path)
        if lo is None and hi is None:
            return Token(INT_RE, "INT")
        try:
            return Token(int_range(lo, hi), "INT")
        except ValueError:
            raise SchemaError("minimum is larger than maximum", path) from None

    def _t_number(self, schema: dict[str, Any], path: str, hint: str) -> Expr:
        for k in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
            if k in schema:
                self.ctx.unsupported(k, path)
        return Token(NUMBER, "NUMBER")

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
    valid: a :class:`SchemaError`.  Under ``--permissive`` a relaxed keyword never narrows: a relaxed
    ``patternProperties`` admits any extra key and value, and so do relaxed keywords that could
    admit keys (:data:`_KEY_ADMITTING`) when ``additionalProperties`` is absent.
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
    if ctx.permissive and ("patternProperties" in schema
                           or (ap is None and any(k in schema for k in _KEY_ADMITTING))):
        extra = True
    undeclared = [name for name in dict.fromkeys(req) if name not in props]
    if undeclared:
        if ap is False:
            raise SchemaError(f"required property {undeclared[0]!r} is not in properties and "
                              "additionalProperties is false: no object is valid", f"{path}.required")
        value = ap if isinstance(ap, dict) and "patternProperties" not in schema else {}
        props = {**props, **{name: value for name in undeclared}}
    return props, required, extra


def _infer_type(schema: dict[str, Any]) -> str | None:
    if any(k in schema for k in ("properties", "additionalProperties", "required", "minProperties", "maxProperties",
                                 "dependentRequired", "dependencies")):
        return "object"
    if "items" in schema or "prefixItems" in schema or "minItems" in schema or "maxItems" in schema:
        return "array"
    if "minLength" in schema or "maxLength" in schema or "pattern" in schema:
        return "string"
    if any(k in schema for k in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")):
        return "number"
    return None


def _int_bounds(schema: dict[str, Any], path: str) -> tuple[int | None, int | None]:
    lo: int | None = None
    hi: int | None = None

    def num(key: str) -> float | int | None:
        v = schema.get(key)
        if v is None or isinstance(v, bool):
            return None
        if not isinstance(v, (int, float)):
            raise SchemaError(f"{key} must be a number", f"{path}.{key}")
        if isinstance(v, float) and not math.isfinite(v):
            raise SchemaError(f"{key} must be a finite number", f"{path}.{key}")
        if abs(v) >= 10**MAX_INT_DIGITS:
            raise UnsupportedSchemaError(
                f"{key} has more than {MAX_INT_DIGITS} digits, more than toolgram's limit", f"{path}.{key}"
            )
        return v

    if (v := num("minimum")) is not None:
        lo = math.ceil(v)
    if (v := num("exclusiveMinimum")) is not None:
        cand = math.floor(v) + 1
        lo = cand if lo is None else max(lo, cand)
    if (v := num("maximum")) is not None:
        hi = math.floor(v)
    if (v := num("exclusiveMaximum")) is not None:
        cand = math.ceil(v) - 1
        hi = cand if hi is None else min(hi, cand)
    return lo, hi


def count(schema: dict[str, Any], key: str, path: str, limit: int) -> int | None:
    """A non-negative integer keyword (``minLength``, ``maxItems`` ...), at most ``limit``; None when absent."""
    if key not in schema:
        return None
    v = schema[key]
    if isinstance(v, float) and v.is_integer():
        v = int(v)
    if isinstance(v, bool) or not isinstance(v, int) or v < 0:
        raise SchemaError(f"{key} must be a non-negative integer, got {v!r}", f"{path}.{key}")
    if v > limit:
        raise UnsupportedSchemaError(f"{key} {v} is larger than toolgram's limit of {limit}", f"{path}.{key}")
    return v


def length_bounds(schema: dict[str, Any], path: str) -> tuple[int, int | None]:
    """``(minLength, maxLength)`` of a string schema: non-negative, ordered, at most MAX_LENGTH."""
    lo = count(schema, "minLength", path, MAX_LENGTH) or 0
    hi = count(schema, "maxLength", path, MAX_LENGTH)
    if hi is not None and lo > hi:
        raise SchemaError(f"minLength {lo} is larger than maxLength {hi}", f"{path}.minLength")
    return lo, hi


__all__ = ["ValueBuilder", "int_range", "count", "length_bounds", "JSON_WS", "WS", "END_WS", "MAX_LENGTH", "MAX_ITEMS"]
