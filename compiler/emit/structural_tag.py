"""Print a compiled grammar as an xgrammar / OpenVINO structural tag (``{"type": "structural_tag", ...}``).

Generated from the :class:`FormatSpec` and the grammar IR, it accepts exactly the language of
the EBNF dialect (SPEC sections 1 and 2), and loads in xgrammar 0.2.9 and in OpenVINO GenAI's
xgrammar v0.1.31. Building blocks are used where their semantics are exactly SPEC's; a
``{"type": "grammar"}`` part (EBNF printed by toolgram's :class:`EbnfPrinter` from the IR, so
portable to OpenVINO) covers exactly the portions they cannot express.

* **The calls** are one ``tag`` whose ``begin`` is the scope opening (``<tool_call>\n``) and whose
  ``content`` is a ``grammar`` of every allowed call (the IR's call rules); formats without an
  opening (``llama3_json``) get a ``grammar``. A tag per tool would repeat the later calls in every
  tag and compile each raw-value automaton once per tool (see :meth:`_Emitter.call_tags`).
  ``json_schema`` content is not used: its whitespace, number and ``additionalProperties`` rules
  differ from the IR's values.
* **First call:** ``tags_with_separator`` with ``at_least_one`` and ``stop_after_first`` (exactly
  one tag) for ``required``/named; in ``auto`` for block formats, ``triggered_tags`` on the
  trigger word with ``stop_after_first`` (free text until the first trigger, one tag, then the
  part ends; free text alone is accepted).
* **Later calls and the end** are ``grammar``: SPEC allows any whitespace (or none) between
  blocks and around list separators while ``tags_with_separator`` has one fixed separator, and
  ``triggered_tags`` without ``stop_after_first`` allows free text between and after calls. That
  grammar, ``(WS block)* END`` (parallel on) or ``END`` (off), ``END`` being at most one
  newline, is the end of every tag's ``content`` and the tags' ``end`` is "": OpenVINO only
  allows an unlimited part (``triggered_tags``, ``tags_with_separator``) as the last element of a
  ``sequence``.
* **Reasoning** is a ``grammar`` (``open text close``, the text stopping at the close tag or, if
  the format says a trigger ends reasoning, at the trigger) followed by the calls, in an ``or``
  with the trigger-ends branch and, for ``required``/named with ``optional``, the no-reasoning
  branch.
* **Whole-grammar fallbacks** (one ``grammar`` part holding the IR's root):
  start-anchored formats in ``auto`` (no building block says "free text not starting with
  ``[``"); and ``auto`` with ``optional`` reasoning, whose no-reasoning branch must exclude the
  open tag from the free text: ``triggered_tags`` ``excludes`` turns that branch into a
  "limited" format in OpenVINO, which then refuses it in an ``or`` with the unlimited
  reasoning branches.

Not used: ``qwen_xml_parameter`` / ``json_schema`` ``style`` (OpenVINO rejects empty schemas and
quotes enums), empty ``const_string`` (OpenVINO rejects it), ``at_least_one`` on
``triggered_tags`` (its meaning differs between xgrammar versions).
"""

from __future__ import annotations

from typing import Any

from ...grammars.spec import FormatSpec
from ..ir import EMPTY, Expr, Grammar, Lit, Ref, Rep, Token, alt, seq, up_to
from ..options import Options, trigger_captures
from ..schema import Tool
from ..values import END_WS, JSON_WS, WS, list_gaps, template_gap
from .bnf import to_ebnf

Fmt = dict[str, Any]
_EMPTY: Fmt = {"type": "grammar", "grammar": 'root ::= ""\n'}  # OpenVINO rejects an empty const_string


def to_structural_tag(spec: FormatSpec, tools: list[Tool], opts: Options, ir: Grammar) -> dict[str, Any]:
    """The structural tag for ``ir`` (built by :class:`GrammarBuilder` in full mode for ``opts``)."""
    return {"type": "structural_tag", "format": _Emitter(spec, tools, opts, ir).root()}


class _Emitter:
    def __init__(self, spec: FormatSpec, tools: list[Tool], opts: Options, ir: Grammar) -> None:
        self.spec, self.opts, self.ir = spec, opts, ir
        call_rules = {m[1]: name for name, m in ir.meta.items() if m and m[0] == "call"}
        index = {t.name: i for i, t in enumerate(tools)}
        # (tool name, call rule) for the callable tools, in the IR's order
        self.calls = [(t.name, call_rules[index[t.name]]) for t in opts.tools]
        self.one: Expr = alt(*(Ref(rule) for _, rule in self.calls))

    # -- parts --------------------------------------------------------------------------------------
    def grammar(self, expr: Expr) -> Fmt | None:
        """A ``grammar`` part matching ``expr`` (rules from the IR), or None for the empty string."""
        if expr == EMPTY:
            return None
        g = Grammar(rules={**self.ir.rules, "root": expr}, root="root")
        return {"type": "grammar", "grammar": to_ebnf(g)}

    @staticmethod
    def sequence(*parts: Fmt | None) -> Fmt:
        items = [p for p in parts if p is not None]
        if not items:
            return _EMPTY
        return items[0] if len(items) == 1 else {"type": "sequence", "elements": items}

    @staticmethod
    def either(*parts: Fmt) -> Fmt:
        return parts[0] if len(parts) == 1 else {"type": "or", "elements": list(parts)}

    def call_tags(self, open_: str, close: str, trailer: Expr) -> list[Fmt] | None:
        """One ``tag`` (``begin`` = ``open_``) whose content is every allowed call; None without a
        literal opening.

        OpenVINO's xgrammar only allows an unlimited part (``triggered_tags``,
        ``tags_with_separator``) last in a sequence, so the tag's ``content`` carries ``close`` and
        ``trailer`` (the later calls and the end), and ``end`` is "".  One tag per tool (``begin``
        naming the tool) would repeat the trailer in every tag and compile every raw-value automaton
        once per tool: xgrammar took 10x as long at 10 tools (qwen3_coder 5.1 s against 0.54 s).
        """
        if not open_:
            return None
        return [{"type": "tag", "begin": open_,
                 "content": self.grammar(seq(self.one, Lit(close), trailer)) or _EMPTY, "end": ""}]

    def calls_from(self, open_: str, close: str, trailer: Expr, trigger: str | None = None) -> Fmt:
        """The first call (``open_``/``close`` around it), then ``trailer``.

        With ``trigger``: ``triggered_tags`` (free text until the trigger, or no call at all);
        otherwise exactly one tag via ``tags_with_separator`` (``at_least_one``, ``stop_after_first``).
        """
        tags = self.call_tags(open_, close, trailer)
        if tags is None:
            assert trigger is None
            return self.grammar(seq(Lit(open_), self.one, Lit(close), trailer))  # type: ignore[return-value]
        if trigger is not None:
            return {"type": "triggered_tags", "triggers": [trigger], "tags": tags, "stop_after_first": True}
        return {"type": "tags_with_separator", "tags": tags, "separator": self.spec.scope.canonical_join,
                "at_least_one": True, "stop_after_first": True}

    def rest(self, after: Expr = EMPTY) -> Expr:
        """Calls after the first one, then ``after``, as IR (SPEC's whitespace rules)."""
        sc = self.spec.scope
        if not self.opts.parallel:
            more: Expr = EMPTY
        else:
            n = None if self.opts.max_calls is None else self.opts.max_calls - 1  # max_tool_calls
            if sc.per_call:
                more = up_to(seq(WS, Lit(sc.joiner + sc.open), self.one, Lit(sc.close)), n)
            else:
                more = up_to(seq(JSON_WS, Lit(sc.separator), JSON_WS, self.one), n)  # the IR's SEP
        return seq(more, after)

    # -- regions ------------------------------------------------------------------------------------
    def calls_region(self) -> Fmt:
        """All calls and the trailing whitespace, starting at the first call (bare or wrapped)."""
        sc = self.spec.scope
        if sc.per_call:
            return self.calls_from(sc.open, sc.close, self.rest(END_WS))
        _, gap_open, gap_close = list_gaps(self.opts.whitespace, trigger_captures(self.spec, self.opts))
        list_open = seq(Lit(sc.open), gap_open) if sc.open else EMPTY  # the IR's LOPEN, LCLOSE
        list_close = seq(gap_close, Lit(sc.close)) if sc.open else EMPTY
        options = [self.sequence(self.grammar(list_open), self.calls_from("", "", self.rest(seq(list_close, END_WS))))]
        pad = template_gap(self.opts.whitespace)
        for w in sc.wrappers:
            # the IR's wrapper tokens: WOPEN, WCLOSE
            wclose = seq(pad, Lit(w.close)) if w.close else EMPTY
            trailer = self.rest(seq(list_close, wclose, END_WS))
            options.append(self.sequence(self.grammar(seq(Lit(w.open), pad, list_open)),
                                         self.calls_from("", "", trailer)))
        return self.either(*options)

    def triggered(self) -> Fmt:
        """``auto`` for block formats: free text, or text until the trigger and then the calls."""
        sc = self.spec.scope
        return self.calls_from(sc.open, sc.close, self.rest(END_WS), self.spec.trigger_word)

    def root(self) -> Fmt:
        spec, o = self.spec, self.opts
        r = spec.reasoning if o.reasoning != "none" else None
        trig = spec.trigger_word
        auto = o.choice == "auto"
        if spec.scope.section is not None:
            return self.sectioned()
        if auto and (not (spec.scope.per_call and trig) or (r is not None and o.reasoning == "optional")):
            # start-anchored auto: "free text not starting like a call" has no building block;
            # optional reasoning in auto: see the module docstring
            return self.grammar(self.ir.rules[self.ir.root])  # type: ignore[return-value]
        after = self.triggered if auto else self.calls_region
        before_calls = EMPTY if auto or not spec.scope.leading_ws else WS
        if r is None:
            return self.sequence(self.grammar(before_calls), after())
        open_ = EMPTY if o.reasoning == "forced" else seq(WS, Lit(r.open))  # the IR's reasoning_open
        stops = (r.close, trig) if r.trigger_ends and trig else (r.close,)
        text = self._reasoning_text(stops)
        branches = [self.sequence(self.grammar(seq(open_, text, Lit(r.close), before_calls)), after())]
        if len(stops) == 2:
            # the trigger word ends the reasoning and starts the first call
            branches.append(self.sequence(self.grammar(seq(open_, text)), self.calls_region()))
        if o.reasoning == "optional":
            branches.append(self.sequence(self.grammar(before_calls), after()))
        return self.either(*branches)

    def sectioned(self) -> Fmt:
        """Formats whose calls stand in one required section (``Scope.section``).

        In ``auto`` without reasoning: ``triggered_tags`` on the section opening, one ``tag`` whose
        content is the rest of the IR's after-trigger rule. Otherwise one ``grammar`` part holding
        the IR's root (the same language as the EBNF dialect)."""
        o, trig = self.opts, self.spec.trigger_word
        r = self.spec.reasoning if o.reasoning != "none" else None
        after = self.ir.rules.get("after-trigger")
        if o.choice == "auto" and r is None and trig and after is not None:
            return {"type": "triggered_tags", "triggers": [trig],
                    "tags": [{"type": "tag", "begin": trig, "content": self.grammar(after) or _EMPTY, "end": ""}],
                    "stop_after_first": True}
        return self.grammar(self.ir.rules[self.ir.root])  # type: ignore[return-value]

    def _reasoning_text(self, stops: tuple[str, ...]) -> Expr:
        """The IR's reasoning rule for these stops (the ``("reasoning",)`` rule)."""
        for name, m in self.ir.meta.items():
            if m == ("reasoning",):
                body = self.ir.rules[name]
                if isinstance(body, Token) and getattr(body.expr, "stops", None) == stops:
                    return Rep(Ref(name), 0, 1)
        raise AssertionError(f"no reasoning rule for stops {stops!r} in the IR")

