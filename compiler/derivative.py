"""Brzozowski derivatives of the grammar IR: the grammar that continues after a given prefix.

``prefilled_grammar(ir, prefix)`` is the EBNF for what may follow ``prefix`` under ``ir``. The
runtime uses it when the assistant turn is prefilled (e.g. with a format's trigger), so the
constraint picks up exactly where the prefill stopped.
"""

from __future__ import annotations

from dataclasses import replace

from ..errors import ToolgramError
from .emit.bnf import to_ebnf
from .ir import EMPTY, Alt, Chars, Dispatch, Expr, Grammar, Lit, Ref, Rep, Seq, Token, Until, alt, nullable, seq

__all__ = ["prefilled_grammar"]


def _deriv(expr: Expr, ch: str, g: Grammar, depth: int = 0,
           memo: dict[int, tuple[Expr, Expr | None]] | None = None) -> Expr | None:
    """The IR expression matching ``w`` exactly when ``expr`` matches ``ch + w`` (None: empty language).

    ``memo`` holds the derivatives taken for ``ch`` by node identity: an expression written by state elimination
    (a ``multipleOf``'s, a key class's) is a DAG whose parts are shared many times over, and walking it as a tree
    takes exponential time.  Each shared part is derived once, and its derivative is shared in turn.  The memo
    holds the node too, so that no other node takes its identity while the memo lives."""
    if memo is None:
        memo = {}
    hit = memo.get(id(expr))
    if hit is not None:
        return hit[1]
    out = _step(expr, ch, g, depth, memo)
    memo[id(expr)] = (expr, out)
    return out


def _step(expr: Expr, ch: str, g: Grammar, depth: int, memo: dict[int, tuple[Expr, Expr | None]]) -> Expr | None:
    """One node of :func:`_deriv`."""
    if depth > 200:
        raise ToolgramError("prefill: the grammar is too deeply recursive to continue from the prefill")
    if isinstance(expr, Lit):
        return Lit(expr.text[1:]) if expr.text[:1] == ch else None
    if isinstance(expr, Chars):
        return EMPTY if expr.contains(ord(ch)) else None
    if isinstance(expr, Seq):
        if not expr.items:
            return None
        head, rest = expr.items[0], expr.items[1:]
        options: list[Expr] = []
        d = _deriv(head, ch, g, depth + 1, memo)
        if d is not None:
            options.append(seq(d, *rest))
        if nullable(head, g) and rest:
            d2 = _deriv(Seq(rest), ch, g, depth + 1, memo)
            if d2 is not None:
                options.append(d2)
        return alt(*options) if options else None
    if isinstance(expr, Alt):
        opts = [d for d in (_deriv(i, ch, g, depth + 1, memo) for i in expr.items) if d is not None]
        return alt(*opts) if opts else None
    if isinstance(expr, Rep):
        if expr.max == 0:
            return None
        d = _deriv(expr.item, ch, g, depth + 1, memo)
        if d is None:
            return None
        more = Rep(expr.item, max(expr.min - 1, 0), None if expr.max is None else expr.max - 1)
        return seq(d, more)
    if isinstance(expr, Ref):
        return _deriv(g.rules[expr.name], ch, g, depth + 1, memo)
    if isinstance(expr, Token):
        return _deriv(expr.expr, ch, g, depth + 1, memo)
    if isinstance(expr, Dispatch):
        return _deriv(expr.lowered, ch, g, depth + 1, memo)
    if isinstance(expr, Until):
        raise ToolgramError(
            "prefill: cannot continue the grammar from a prefill that ends inside free text; "
            "prefill the format's trigger with tool_choice required or a named function"
        )
    raise ToolgramError(f"prefill: unsupported grammar node {type(expr).__name__}")


def prefilled_grammar(grammar: Grammar, prefill: str) -> str:
    """EBNF for what may follow ``prefill`` under ``grammar`` (ToolgramError when nothing can)."""
    expr: Expr | None = Ref(grammar.root)
    for i, ch in enumerate(prefill):
        expr = _deriv(expr, ch, grammar)
        if expr is None:
            raise ToolgramError(f"prefill is not a prefix the grammar allows (stops at offset {i})", "prefill")
    rules = {name: body for name, body in grammar.rules.items() if name != "root"}
    rules = {"root": expr, **rules}
    return to_ebnf(replace(grammar, rules=rules, root="root", _interned={}))
