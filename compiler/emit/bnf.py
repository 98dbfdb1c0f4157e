"""Print the IR as GBNF (llama.cpp) or xgrammar EBNF; the two differ only in a few spellings."""

from __future__ import annotations

from functools import lru_cache

from ..automaton import until_rules
from ..ir import Alt, Chars, Dispatch, Expr, Grammar, Lit, Ref, Rep, Seq, Token, Until


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
    if in_class and ch in "]-^[":
        return "\\" + ch
    if not in_class and ch == '"':
        return '\\"'
    if cp < 0x20 or cp == 0x7F:
        return f"\\x{cp:02X}"
    if 0xD800 <= cp <= 0xDFFF:
        return f"\\u{cp:04X}"
    return ch


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

    def __init__(self, grammar: Grammar) -> None:
        self.g = grammar
        self.extra: dict[str, Expr] = {}
        self._until_names: dict[Until, str] = {}
        self._long: dict[Rep, tuple[str, list[str]]] = {}
        self._used: list[str] = []

    # -- atoms -------------------------------------------------------------------------------------
    def lit(self, text: str) -> str:
        return '"' + "".join(_esc_char(ord(c), False) for c in text) + '"'

    def chars(self, c: Chars) -> str:
        if not c.ranges:
            return "[^]" if c.negated else '("" [^])'
        body = []
        for lo, hi in c.ranges:
            body.append(_esc_char(lo, True) if lo == hi else f"{_esc_char(lo, True)}-{_esc_char(hi, True)}")
        return "[" + ("^" if c.negated else "") + "".join(body) + "]"

    # -- structure ---------------------------------------------------------------------------------
    #: bounded repetitions with a larger count are written as helper rules (GBNF: llama.cpp refuses
    #: repetitions past its "sane defaults", about 2,000 generated rules)
    rep_inline_max: int | None = None

    def expr(self, e: Expr, ctx: str = "top") -> str:
        if isinstance(e, _Raw):
            return e.text
        if isinstance(e, Token):
            return self.expr(e.expr, ctx)
        if isinstance(e, Lit):
            return self.lit(e.text)
        if isinstance(e, Chars):
            return self.chars(e)
        if isinstance(e, Ref):
            self._used.append(e.name)
            return e.name
        if isinstance(e, Seq):
            text = " ".join(self.expr(i, "seq") for i in e.items)
            return f"({text})" if ctx == "rep" else text
        if isinstance(e, Alt):
            if not e.items:
                raise ValueError("empty alternation")
            text = " | ".join(self.expr(i, "alt") for i in e.items)
            return text if ctx == "top" else f"({text})"
        if isinstance(e, Rep) and self.rep_inline_max is not None and (e.max or 0) > self.rep_inline_max:
            return self.long_rep(e, ctx)
        if isinstance(e, Rep):
            inner = self.expr(e.item, "rep")
            if isinstance(e.item, Rep) or (isinstance(e.item, Token) and isinstance(e.item.expr, Rep)):
                inner = f"({inner})"  # xgrammar rejects stacked quantifiers such as [^<]{1,3}?
            return inner + quant(e.min, e.max)
        if isinstance(e, Until):
            return self.until(e)
        if isinstance(e, Dispatch):
            return self.dispatch(e)
        raise TypeError(e)

    def long_rep(self, e: Rep, ctx: str) -> str:
        """``item{min,max}`` as rules: ``min`` copies of the item rule, then a chain
        ``c_k ::= "" | item c_(k-1)`` (one stack per step; unambiguous)."""
        assert e.max is not None
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

    def until(self, u: Until) -> str:
        if u not in self._until_names:
            start, rules = until_rules(u, f"text-{len(self._until_names) + 1}")
            self._until_names[u] = start
            for name, body in rules:
                self.extra[name] = body
        self._used.append(self._until_names[u])
        return self._until_names[u]

    def dispatch(self, d: Dispatch) -> str:
        return self.expr(d.lowered, "seq")

    def render(self) -> str:
        """Print the rules reachable from the root, root first, then in discovery order."""
        lines = []
        printed: set[str] = set()
        self._used = [self.g.root]
        while self._used:
            name = self._used.pop(0)
            if name in printed:
                continue
            printed.add(name)
            body = self.g.rules[name] if name in self.g.rules else self.extra[name]
            lines.append(f"{name} ::= {self.expr(body)}")
        return "\n".join(lines) + "\n"


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

    def expr(self, e: Expr, ctx: str = "top") -> str:
        if isinstance(e, _Raw):
            return e.text
        return super().expr(e, ctx)

    def until(self, u: Until) -> str:
        """Free text that avoids some strings: xgrammar's own ``TagDispatch`` with no tags and
        ``excludes`` (both xgrammar versions; text that may end anywhere, so the parent rule
        goes on), which compiles ~30x faster than the automaton.  Used where the two are the
        same language: no first-character rule, possibly empty, and no stop that could start
        inside a forbidden string's tail (then the first occurrence is always the one we stop at).
        """
        if u.first_not or u.nonempty or u.gap or not _dispatch_safe(u):
            return super().until(u)
        key = f"free-{len([n for n in self.extra if n.startswith('free-')]) + 1}"
        excludes = ", ".join(self.lit(x) for x in dict.fromkeys(u.stops + u.excludes))
        self.extra[key] = _Raw(f"TagDispatch(loop_after_dispatch=false, excludes=({excludes}))")
        self._used.append(key)
        return key


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
    return GbnfPrinter(grammar).render()


def to_ebnf(grammar: Grammar) -> str:
    return EbnfPrinter(grammar).render()
