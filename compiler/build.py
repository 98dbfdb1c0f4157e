"""Format description + tools + options -> grammar IR.

This is the only place that knows how a :class:`FormatSpec` turns into rules;
every dialect prints the resulting :class:`Grammar`, and the strict parser
reads the Lark tree through ``Grammar.meta``:

* ``("call", i)``            -- one call of ``tools[i]``
* ``("arg", i, key)``        -- the value text of a declared argument (shared by tools with the
  same key and value: ``i`` is the first of them; so are ``args`` and ``extra`` rules)
* ``("args", i)``            -- the whole JSON arguments object (JSON formats)
* ``("extra", i)``           -- one undeclared argument member (free-form tools)
* ``("reasoning",)`` / ``("content",)`` -- reasoning text / free text
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any, Literal

from ..errors import EmptySchemaError, SchemaError, UnsupportedSchemaError
from ..grammars.spec import (
    CDATA_CLOSE,
    CDATA_OPEN,
    ElementCall,
    FormatSpec,
    GemmaCall,
    HeaderJsonCall,
    JsonCall,
    NamedJsonCall,
    PythonCall,
    XmlCall,
    json_type_of,
)
from ..grammars.syntax import python_text, xml_elements
from .conditional import expand, pending
from .exclusive import exclusive
from .ir import EMPTY, Chars, Dispatch, Expr, Grammar, Lit, Ref, Rep, Token, Until, alt, opt, seq, up_to
from .keys import plain_name
from .options import Options, trigger_captures
from .regex import Char, json_char, pattern_to_ir, raw_char, within
from .schema import SchemaContext, Tool, arguments_object, merge_all_of, met_branch, ref_siblings
from .values import (
    END_WS,
    GEMMA_KEY_RULE,
    JSON_WS,
    MAX_ITEMS,
    WS,
    ObjectKeys,
    ValueBuilder,
    count,
    enum_values,
    infer_type,
    json_literal,
    list_gaps,
    object_keys,
    pattern_paths,
    schema_text,
    string_spec,
    template_gap,
    without_not,
    words_as_patterns,
)

# ECMAScript's \s, which llama.cpp's trigger patterns use: the call envelope must admit it.
ECMA_SPACE = (
    " \t\n\r\v\f\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000\ufeff"
)
ENVELOPE_WS = Rep(Chars.of(ECMA_SPACE), 0, None)
IDENT_FIRST = Chars(((65, 90), (95, 95), (97, 122)))
IDENT_MORE = Chars(((48, 57), (65, 90), (95, 95), (97, 122)))
IDENT = seq(IDENT_FIRST, Rep(IDENT_MORE, 0, None))
#: whitespace that may stand between a raw value's closing tag and the next tag (the scanner's rule)
VALUE_GAP = " \t\n\r"
PY_NAME = python_text.KWARG_RE
#: a character an XML argument name cannot hold (``<parameter=K>``), and with a quoted name (``name="K"``)
XML_BAD_KEY = re.compile(r"[<>\x00-\x1f\x7f]")
XML_BAD_QKEY = re.compile(r'[<>"\x00-\x1f\x7f]')
PY_DOTTED = python_text.DOTTED_RE
XML_NAME = Rep(Chars.of("<>\n", negated=True), 1, None)
XML_QNAME = Rep(Chars.of('<>\n"', negated=True), 1, None)
#: a call counter (Kimi-K2's ``functions.N:0``): 1 to 9 decimal digits
DIGITS = Rep(Chars(((48, 57),)), 1, 9)
#: a model-written call id (Mistral's ``[CALL_ID]``, Solar-Open): 1 to 64 of [A-Za-z0-9_-]
CALL_ID = Rep(Chars(((45, 45), (48, 57), (65, 90), (95, 95), (97, 122))), 1, 64)
WS_TOKEN = Token(WS, "WS")
#: after the last call: at most one newline (SPEC section 1)
END_TOKEN = Token(END_WS, "ENDWS")

Mode = Literal["full", "lazy"]


class GrammarBuilder:
    """Builds the IR for one format, tool set and option set."""

    def __init__(self, spec: FormatSpec, options: Options, tools: list[Tool]) -> None:
        self.spec = spec
        self.opts = options
        self.all_tools = tools
        self.g = Grammar()
        self.relaxed: list[dict[str, str]] = []
        #: schema texts (without $ref) that ``_validate_json`` passed, relaxing nothing
        self._checked: set[tuple] = set()

    # -- values ---------------------------------------------------------------------------------
    def _ctx(self, index: int, tool: Tool) -> SchemaContext:
        ctx = SchemaContext(root=tool.parameters, path=f"$[{index}].function.parameters",
                            permissive=self.opts.permissive, any_order=self.opts.any_order)
        ctx.relaxed = self.relaxed
        return ctx

    def _values(self, syntax: Any, ctx: SchemaContext, index: int) -> ValueBuilder:
        """The value builder for tool ``index`` in ``syntax``, with the ``whitespace`` option."""
        return ValueBuilder(self.g, syntax, ctx, f"t{index}", self.opts.whitespace)

    def _params_body(self, index: int, tool: Tool, member, extra_member, sep: Expr, vb: ValueBuilder,
                     allowed: Expr | None = None) -> Expr:
        """A strict tool's members written one by one (XML parameters, keyword arguments, elements): the
        members body of each alternative of its arguments object (:meth:`.values.ValueBuilder.object_branches`:
        ``anyOf``/``oneOf``/``not`` at the top of ``parameters``), joined by ``sep``."""
        ctx = self._ctx(index, tool)
        schema = arguments_object(tool.parameters, ctx)
        hint = f"params-{tool.name}"
        branches = vb.object_branches(schema, ctx.path)
        bodies = []
        for i, (branch, where) in enumerate(branches):
            try:
                members, extra, names = self._members(index, tool, branch, where, ctx, member, extra_member,
                                                      allowed)
                bodies.append(vb.members_body(branch, where, members, sep, extra,
                                              hint if len(branches) == 1 else f"{hint}-{i}", names))
            except EmptySchemaError:
                if len(branches) == 1:
                    raise
                continue  # a branch no object takes (as the JSON formats' anyOf leaves it out)
        if not bodies:
            raise EmptySchemaError("no branch of the arguments object admits a value", ctx.path)
        return alt(*bodies)

    def _members(
        self, index: int, tool: Tool, schema: dict[str, Any], path: str, ctx: SchemaContext, member, extra_member,
        allowed: Expr | None = None
    ) -> tuple[list[tuple[Expr, Expr, bool]], tuple[Expr, Expr] | None, list[str]]:
        """(member, required) pairs for the declared properties of one arguments object ``schema`` (at
        ``path``), the undeclared-member rule, and the members' names (their counts:
        ``ValueBuilder.members_body``).

        ``extra_member(ctx, declared, value schema or None, key class, its path)`` writes an undeclared
        member: with no key class (None) its key is any name but a declared one; with ``patternProperties``
        one member rule per class of keys (:meth:`.values.ObjectKeys.classes`, names the syntax writes:
        ``allowed``)."""
        keys = object_keys(schema, ctx, path)
        self.g.earley |= keys.overlaps_alternatives
        members, names = [], []
        for k, sub in keys.props.items():
            made = keys.member(k, lambda k=k, sub=sub: member(k, sub, f"{path}.properties.{k}", ctx))
            if made is not None:
                members.append((*made, k in keys.required))
                names.append(k)
        extra = None
        # an extra key is none of the declared names (SPEC section 2); its value follows the
        # additionalProperties schema, or the patternProperties its key matches
        bodies = [keys.extra_member(lambda sub=sub, decoded=decoded, where=where: extra_member(
                      ctx, keys.declared, None if sub is True else sub, decoded, where))
                  for decoded, sub, where in keys.classes(allowed)]
        if any(b is not None for b in bodies):
            body = alt(*(b for b in bodies if b is not None))
            extra = (EMPTY, self.g.tagged(f"extra-{tool.name}", body, ("extra", index), share=("extra",)))
        return members, extra, names

    # -- calls ------------------------------------------------------------------------------------
    def _check_name(self, name: str, path: str) -> None:
        """A tool name the format can carry (README "Names"); load_tools has applied the common rules."""
        prefix = self.spec.scope.text_prefix
        if prefix and isinstance(self.spec.call, NamedJsonCall) and name + self.spec.call.name_end == prefix:
            raise SchemaError(f"tool name {name!r} is {self.spec.id}'s text recipient", path)
        if self.spec.values == "python" and not PY_DOTTED.fullmatch(name):  # as in a Python call: math.factorial
            raise SchemaError(f"tool name {name!r} is not an ASCII identifier or a dotted one (a.b), which "
                              f"{self.spec.id} calls need", path)

    def _check_key(self, key: str, path: str) -> None:
        """An argument name the format can carry: an ASCII identifier (pythonic); no '<', '>' or
        control character (XML, where ``<parameter=K>`` ends at the first '>'), nor the quote when
        the name is quoted (``<parameter name="K">``), nor whitespace at either end when it is not
        (the parsers trim it). JSON keys are escaped."""
        where = path.rsplit(".properties.", 1)[0] + ".properties"
        if self.spec.values == "python" and not PY_NAME.fullmatch(key):
            raise SchemaError(f"property name {key!r} is not an ASCII identifier, which {self.spec.id} needs", where)
        c = self.spec.call
        key_pattern = getattr(c, "key_pattern", None)
        if key_pattern is not None and not re.fullmatch(key_pattern, key):
            raise SchemaError(f"property name {key!r} cannot stand bare in {self.spec.id} calls "
                              f"({GEMMA_KEY_RULE})", where)
        if not isinstance(c, XmlCall):
            return
        quote = '"' if c.quoted_key else ""
        if not quote and key != key.strip():  # the parsers trim an unquoted name (a quoted one is exact)
            raise SchemaError(f"property name {key!r} starts or ends with whitespace, which "
                              f"{c.param_open + 'NAME' + c.param_name_end.strip()!r} cannot keep", where)
        if not key or (XML_BAD_QKEY if quote else XML_BAD_KEY).search(key):
            raise SchemaError(
                f"property name {key!r} cannot be written as {c.param_open + 'NAME' + c.param_name_end.strip()!r} "
                f"(empty, '<', '>'{', a quote' if quote else ''} or a control character)",
                where,
            )

    def _validate_json(self, schema: Any, path: str, ctx: SchemaContext) -> None:
        """Check ``schema`` as the JSON formats would (keywords, types, bounds) on a scratch grammar;
        relaxed features found there are listed once."""
        text = schema_text(schema)
        key = None if text is None else (ctx.permissive, ctx.any_order, text)
        if key is not None and key in self._checked:
            return  # the same schema text passed before, relaxing nothing
        scratch = SchemaContext(root=ctx.root, path=ctx.path, permissive=ctx.permissive, any_order=ctx.any_order)
        ValueBuilder(Grammar(), "json", scratch, "check").value(schema, path, "check")
        for item in scratch.relaxed:
            if item not in self.relaxed:
                self.relaxed.append(item)
        if key is not None and not scratch.relaxed:
            self._checked.add(key)

    def _mixed_union(self, schema: Any, path: str, ctx: SchemaContext, raw: Callable[[], Expr]) -> Expr:
        """A union of a constrained string with numbers, booleans, objects or arrays in a format that writes strings
        raw (:func:`_union_kind`'s ``mixed``): refused with the path; permissive, any raw text (a superset)."""
        target = _resolved(schema, ctx, path)
        key = next((k for k in ("not", "anyOf", "oneOf") if isinstance(target, dict) and k in target), "type")
        if not ctx.permissive:
            raise UnsupportedSchemaError(
                f"{self.spec.id} writes strings raw: a constrained string beside numbers, booleans, objects or "
                "arrays cannot be told apart from them, nor a string that is none of some values (pass "
                "permissive=True / --permissive to admit any text)",
                f"{path}.{key}")
        ctx.unsupported(key, path)
        return raw()

    def call(self, index: int, tool: Tool) -> Expr:
        self._check_name(tool.name, f"$[{index}].function.name")
        c = self.spec.call
        body = _CALL_GRAMMARS[type(c)](self, index, tool, c)
        return self.g.add(f"call-{tool.name}", body, meta=("call", index))

    def _xml_call(self, index: int, tool: Tool, c: XmlCall) -> Expr:
        head: Expr = Lit(c.function_open + tool.name + c.name_end + ("" if c.name_again is None
                                                                     else tool.name + c.name_again))
        if c.counter is not None:  # Kimi-K3's index="1"<|sep|>: any call index
            head = seq(head, Token(DIGITS, "COUNTER"), Lit(c.counter))
        close = c.param_end[len(c.value_pad_close):]
        lookahead = self.opts.xml_values == "lookahead"
        raw_end: Expr
        if lookahead:
            # without a function_end (GLM) the scope's close follows the last value
            stops = c.value_stops_in(self.spec.scope.close)
            # after a raw value, the closing tag counts only before the next parameter or the function
            # end: Lark's lexer must not take a value's own leading "</parameter>" for the end of an empty one
            raw_end = Token(Lit(c.param_end), "PEND", tuple(stop[len(close):] for stop in stops))
        else:
            # ``first_close`` (the default): a raw value ends at the first closing tag
            stops = (close.rstrip(VALUE_GAP),)
            raw_end = Lit(c.param_end)

        def raw(min_len: int = 0, max_len: int | None = None) -> Expr:
            if min_len == 0 and max_len is None:
                # ``lookahead``: a raw value ends at the first closing tag that is followed by the next
                # parameter or the function's end (c.value_stops, vLLM's rule): it may contain "</parameter>",
                # "<parameter=" or "<tool_call>" elsewhere.  ``first_close``: at the first closing tag.
                # Closing padding (qwen3_coder's "\n") stands between the value and the stop, so there
                # the value is not "followed".
                gap = (close.rstrip(VALUE_GAP), VALUE_GAP) if lookahead else ()
                until = Until(stops, followed=not c.value_pad_close, gap=gap)  # type: ignore[arg-type]
                return Token(cdata_or(until, lambda: Until((CDATA_CLOSE,), followed=True)), "RAW", c.param_end)
            # Bounded raw strings exclude '<', which every delimiter contains (documented: a
            # length-bounded or pattern string cannot carry '<' in the XML formats).
            lo = max(min_len, 1)
            return Token(cdata_or(Rep(Chars.of("<", negated=True), lo, max_len),
                                  lambda: Rep(Chars.of("]", negated=True), lo, max_len)), "RAWB", c.param_end)

        def cdata_or(plain: Expr, inner: Callable[[], Expr]) -> Expr:
            """With ``c.cdata`` (MiniCPM5) a string may also stand in CDATA, as the writer puts one holding
            '<', '&' or a newline: inside, the value's closing tag is text (an unbounded string ends at the
            first ']]>'; a bounded one may not hold ']'). The CDATA spelling comes first: the parsers try it
            first, and take the plain one when the closing tag does not follow ']]>'."""
            return alt(seq(Lit(CDATA_OPEN), inner(), Lit(CDATA_CLOSE)), plain) if c.cdata else plain

        def value_of(schema: Any, path: str, ctx: SchemaContext) -> Expr:
            kind = _xml_kind(schema, ctx, path)
            if kind != "json":
                # raw spellings keep the schema's keyword rules: check it as the JSON formats do
                self._validate_json(schema, path, ctx)
            if kind == "raw":
                return raw()
            if kind == "mixed":
                return self._mixed_union(schema, path, ctx, raw)
            if isinstance(kind, tuple) and kind[0] in ("words", "union"):
                allowed = frozenset(_json_types(schema, ctx, path)) | {"string"}
                plain, empty = _union_texts(kind, allowed, c.write_value, "<", stops, path)
                body = cdata_or(alt(*plain), lambda: alt(*_union_texts(kind, allowed, c.write_value, "]", (), path)[0]))
                return opt(Token(body, "RAWU", c.param_end)) if empty else Token(body, "RAWU", c.param_end)
            if isinstance(kind, tuple) and kind[0] != "pattern":
                lo, hi = kind
                return raw(lo, hi) if lo > 0 else opt(raw(0, hi))
            if kind == "enum":
                words = _string_choices(_resolved(schema, ctx, path), path)
                for v in words:
                    if any(stop in v for stop in stops):
                        raise UnsupportedSchemaError(
                            f"enum value {v!r} contains a text that ends a raw XML value "
                            f"({' or '.join(map(repr, stops))})", f"{path}.enum")
                return Token(alt(*(Lit(c.write_value(v)) for v in words)), "ENUM")
            if isinstance(kind, tuple) and kind[0] == "pattern":
                # raw text: a pattern's characters exclude '<', which every delimiter contains
                where, tag = pattern_paths(kind[1], kind[3], path)

                def spelled(body: Callable[[Char], Expr]) -> Expr:
                    return cdata_or(body(raw_char("<")), lambda: body(raw_char("]")))

                return Token(spelled(lambda char: pattern_to_ir(kind[1], char, where, kind[2])),
                             "RAWP", c.param_end, path=tag, within=within(spelled, kind[1], where, kind[2]))
            vb = self._values("json", ctx, index)
            return vb.value_once(schema, path, f"t{index}-v")

        def member(key: str, schema: Any, path: str, ctx: SchemaContext) -> Expr:
            self._check_key(key, path)
            value = value_of(schema, path, ctx)
            is_raw = isinstance(value, Token) and value.kind == "RAW"
            arg = self.g.tagged(f"arg-{tool.name}-{key}", value, ("arg", index, key), share=("arg", key))
            lead: Expr = Lit(c.param_open + key + c.param_name_end)
            if c.type_words:
                # Kimi-K3's type="...": the words of the JSON types the schema admits
                words = dict.fromkeys(c.type_word(t) for t in _json_types(schema, ctx, path))
                lead = alt(*(Lit(c.param_open + key + c.param_name_end.replace("{type}", w)) for w in words))
            elif c.json_name_end is not None:
                # DSML's string="true|false": JSON values take json_name_end; a raw value that may
                # also be another type (a union, no type) takes either, typed by the schema
                as_json = Lit(c.param_open + key + c.json_name_end)
                kind = _xml_kind(schema, ctx, path)
                if kind == "json":
                    lead = as_json
                elif kind == "raw" or isinstance(kind, tuple) and kind[0] in ("words", "union"):
                    target = _resolved(schema, ctx, path)
                    if not (isinstance(target, dict) and target.get("type") == "string"):
                        lead = alt(lead, as_json)
            return lead, seq(arg, raw_end if is_raw else Lit(c.param_end))

        def extra_member(ctx: SchemaContext, declared: tuple[str, ...] = (), ap: Any = None,
                         key_class: Expr | None = None, where: str = "") -> Expr:
            # a quoted name ends at the quote; DSML's string="true|false" may follow it
            name = Token(XML_QNAME, "XMLQNAME") if c.quoted_key else Token(XML_NAME, "XMLNAME")
            if declared and key_class is None:
                chars = XML_QNAME.item if c.quoted_key else XML_NAME.item
                name = Token(plain_name(tuple(sorted(declared)), chars, chars), name.kind)
            ends = c.name_ends
            value = None if ap is None else value_of(ap, where or f"{ctx.path}.additionalProperties", ctx)
            if ap is not None and c.json_name_end is not None:
                kind = _xml_kind(ap, ctx, ctx.path)
                ends = (c.json_name_end,) if kind == "json" else ends
            head = seq(name, alt(*(Lit(e) for e in ends)))
            if key_class is not None:
                # the names of one patternProperties class: a token up to the name's end, so Lark's lexer
                # never stops inside a name that another class's token could also start
                head = Token(seq(key_class, alt(*(Lit(e) for e in ends))), name.kind)
            if value is None:
                return seq(Lit(c.param_open), head, raw(), raw_end)
            is_raw = isinstance(value, Token) and value.kind == "RAW"
            return seq(Lit(c.param_open), head, value, raw_end if is_raw else Lit(c.param_end))

        def params() -> Expr:
            if not tool.strict:
                extra = self.g.tagged(f"extra-{tool.name}", extra_member(self._ctx(index, tool)), ("extra", index),
                                      share=("extra",))
                return Rep(extra, 0, None)
            return self._params_body(index, tool, member, extra_member, EMPTY,
                                     self._values("json", self._ctx(index, tool), index),
                                     XML_QNAME if c.quoted_key else XML_NAME)

        return seq(head, self._params_once(tool, "xml", params), Lit(c.function_end))

    def _element_call(self, index: int, tool: Tool, c: ElementCall) -> Expr:
        """N ``name_end``, then ``ns<K>V ns</K>`` per argument (MiniMax-M3): strings raw up to the next
        ``ns``, numbers and booleans as JSON text, objects and arrays expanded into elements."""
        ns = c.ns
        raw = Token(Until((ns,)), "ETEXT", ns)

        def check_key(key: str, where: str) -> None:
            if not key or XML_BAD_KEY.search(key) or "/" in key or ns in key:
                raise SchemaError(f"property name {key!r} cannot be an element name {ns + '<NAME>'!r} (empty, '<', "
                                  "'>', '/' or a control character)", where)

        def element(name: str, value: Expr) -> Expr:
            return seq(Lit(f"{ns}<{name}>"), value, Lit(f"{ns}</{name}>"))

        def value_of(schema: Any, path: str, ctx: SchemaContext, depth: int = 0) -> Expr:
            if depth > 16:
                raise UnsupportedSchemaError(f"{self.spec.id}: element values nest deeper than 16 levels", path)
            # raw spellings keep the schema's keyword rules; a malformed schema is reported with its path
            self._validate_json(schema, path, ctx)
            schema = ctx.settled(schema, path)  # unevaluated*: the met schema's additionalProperties / items
            kind = _xml_kind(schema, ctx, path)
            if kind == "raw":
                return any_value() if len(_json_types(schema, ctx, path)) == len(_JSON_TYPES) else raw
            if kind == "mixed":
                return self._mixed_union(schema, path, ctx, lambda: raw)
            if isinstance(kind, tuple) and kind[0] in ("words", "union"):
                allowed = frozenset(_json_types(schema, ctx, path)) | {"string"}
                plain, empty = _union_texts(kind, allowed, lambda v: v if isinstance(v, str) else json.dumps(v),
                                            ns[0], (ns,), path)
                return opt(Token(alt(*plain), "EUNION", ns)) if empty else Token(alt(*plain), "EUNION", ns)
            if isinstance(kind, tuple) and kind[0] != "pattern":
                return Token(Rep(Chars.of(ns[0], negated=True), kind[0], kind[1]), "ETEXTB", ns)
            if kind == "enum":
                words = _string_choices(_resolved(schema, ctx, path), path)
                if any(ns in w for w in words):
                    raise UnsupportedSchemaError(f"an enum value holds {ns!r}", f"{path}.enum")
                return Token(alt(*(Lit(w) for w in words)), "ENUM")
            if isinstance(kind, tuple):
                where, tag = pattern_paths(kind[1], kind[3], path)
                return Token(pattern_to_ir(kind[1], raw_char(ns[0]), where, kind[2]), "ETEXTP", ns, path=tag)
            target = ctx.deref(schema, path)
            types = _json_types(schema, ctx, path)
            nested = {"object", "array"} & set(types)
            if nested and len(types) > 1 and not (set(types) <= {"integer", "number"}):
                raise UnsupportedSchemaError(f"{self.spec.id} expands objects and arrays into elements: a union of "
                                             "them with other types cannot be told apart", path)
            if types == ("object",):
                return object_of(target, path, ctx, depth)
            if types == ("array",):
                return array_of(target, path, ctx, depth)
            return ValueBuilder(self.g, "json", ctx, f"t{index}").value_once(schema, path, f"t{index}-v")

        def object_of(schema: Any, path: str, ctx: SchemaContext, depth: int) -> Expr:
            keys = object_keys(schema, ctx, path) if isinstance(schema, dict) else ObjectKeys({}, set(), True, path)
            self.g.earley |= keys.overlaps_alternatives
            members, names = [], []
            for k, sub in keys.props.items():
                check_key(k, f"{path}.properties")
                v = keys.member(k, lambda k=k, sub=sub: value_of(sub, f"{path}.properties.{k}", ctx, depth + 1))
                if v is not None:
                    members.append((Lit(f"{ns}<{k}>"), seq(v, Lit(f"{ns}</{k}>")), k in keys.required))
                    names.append(k)
            bodies = [keys.extra_member(lambda sub=sub, decoded=decoded, where=where: any_member(
                          keys.declared, None if sub is True else value_of(sub, where, ctx, depth + 1), decoded))
                      for decoded, sub, where in keys.classes(ename.expr)]
            bodies = [b for b in bodies if b is not None]
            extra = (EMPTY, alt(*bodies)) if bodies else None
            vb = ValueBuilder(self.g, "json", ctx, f"t{index}")
            if not isinstance(schema, dict):
                return vb.object_body(members, EMPTY, extra, f"obj-{tool.name}")
            return vb.members_body(schema, path, members, EMPTY, extra, f"obj-{tool.name}", names)

        def array_of(schema: Any, path: str, ctx: SchemaContext, depth: int) -> Expr:
            if not isinstance(schema, dict):
                return Rep(element(xml_elements.ITEM, any_value()), 0, None)
            if schema.get("prefixItems"):
                raise UnsupportedSchemaError(f"{self.spec.id}: prefixItems in an element array", f"{path}.prefixItems")
            if schema.get("uniqueItems") is True:  # (items as elements: not counted value by value)
                ctx.unsupported("uniqueItems", path)
            lo = count(schema, "minItems", path, MAX_ITEMS, ctx) or 0
            hi = count(schema, "maxItems", path, MAX_ITEMS, ctx)
            item = value_of(schema.get("items", {}), f"{path}.items", ctx, depth + 1)
            return Rep(element(xml_elements.ITEM, item), lo, hi)

        ename = Token(Rep(Chars.of("<>/\n" + ns[0], negated=True), 1, None), "ENAME")
        any_ref: list[Expr] = []

        def any_value() -> Expr:
            """A value of no declared type: raw text, or elements of any names holding such values
            (the grammar cannot tie a closing tag's name to its opening's; the parsers match them)."""
            if not any_ref:
                name = self.g.reserve("element-value")
                any_ref.append(Ref(name))
                el = seq(Lit(ns + "<"), ename, Lit(">"), any_ref[0], Lit(ns + "</"), ename, Lit(">"))
                self.g.rules[name] = alt(raw, Rep(el, 1, None))
            return any_ref[0]

        def any_member(declared: tuple[str, ...] = (), value: Expr | None = None,
                       key_class: Expr | None = None) -> Expr:
            # an undeclared member: an element name that is none of the declared ones, any value (or the
            # additionalProperties schema's); with patternProperties, a name of one class (key_class)
            name = ename
            if declared:
                chars = ename.expr.item
                name = Token(plain_name(tuple(sorted(declared)), chars, chars), "ENAME")
            head = seq(name, Lit(">")) if key_class is None else Token(seq(key_class, Lit(">")), "ENAME")
            value = any_value() if value is None else value
            return seq(Lit(ns + "<"), head, value, Lit(ns + "</"), ename, Lit(">"))

        def member(key: str, schema: Any, path: str, ctx: SchemaContext) -> Expr:
            check_key(key, path.rsplit(".properties.", 1)[0] + ".properties")
            value = value_of(schema, path, ctx)
            arg = self.g.tagged(f"arg-{tool.name}-{key}", value, ("arg", index, key), share=("arg", key))
            return Lit(f"{ns}<{key}>"), seq(arg, Lit(f"{ns}</{key}>"))

        def extra_member(ctx: SchemaContext, declared: tuple[str, ...] = (), ap: Any = None,
                         key_class: Expr | None = None, where: str = "") -> Expr:
            value = None if ap is None else value_of(ap, where or f"{ctx.path}.additionalProperties", ctx)
            return any_member(declared, value, key_class)

        def params() -> Expr:
            if not tool.strict:
                extra = self.g.tagged(f"extra-{tool.name}", any_member(), ("extra", index), share=("extra",))
                return Rep(extra, 0, None)
            return self._params_body(index, tool, member, extra_member, EMPTY,
                                     ValueBuilder(self.g, "json", self._ctx(index, tool), f"t{index}"), ename.expr)

        return seq(Lit(tool.name + c.name_end), self._params_once(tool, "elements", params))

    def _params_once(self, tool: Tool, kind: str, build: Callable[[], Expr]) -> Expr:
        """A call's arguments, built once per grammar for tools with the same parameters text (see
        ``Grammar.once``; not for a ``pattern``, whose token names its path)."""
        text = schema_text(tool.parameters)
        key = None if text is None or '"pattern"' in text else ("params", kind, tool.strict, text)
        return self.g.once(key, build, self.relaxed)

    def _json_args(self, index: int, tool: Tool) -> tuple[Expr, ValueBuilder]:
        """The rule holding a call's JSON object of arguments (tagged ``args`` for the strict parser)."""
        ctx = self._ctx(index, tool)
        vb = self._values("json", ctx, index)
        if tool.strict:
            args = vb.value_once(tool.parameters, ctx.path, f"args-{tool.name}")
        else:
            args = vb.obj({"type": "object"}, ctx.path, f"args-{tool.name}")
        return self.g.tagged(f"args-{tool.name}", args, ("args", index), share=("args",)), vb

    def _named_json_call(self, index: int, tool: Tool, c: NamedJsonCall) -> Expr:
        args_rule, _ = self._json_args(index, tool)
        number = EMPTY if c.counter is None else seq(Token(DIGITS, "COUNTER"), Lit(c.counter))
        # an end starting with whitespace (R1's "\n```"): any whitespace, or none, stands there
        lead = c.end[: len(c.end) - len(c.end.lstrip(VALUE_GAP))]
        end = Token(seq(WS, Lit(c.end[len(lead):])), "NEND") if lead else Lit(c.end)
        cid = c.call_id
        if cid is None:
            return seq(Lit(c.head + tool.name + c.name_end), number, args_rule, end)
        ident: Expr = seq(Lit(cid.open), Token(CALL_ID, "CALLID"), Lit(cid.close))
        if cid.optional:
            ident = opt(ident)
        if cid.before_name:
            head = seq(Lit(c.head), ident, Lit(tool.name + c.name_end))
        else:
            head = seq(Lit(c.head + tool.name), ident, Lit(c.name_end))
        return seq(head, number, args_rule, end)

    def _json_call(self, index: int, tool: Tool, c: JsonCall) -> Expr:
        args_rule, vb = self._json_args(index, tool)
        # A lazy pattern trigger (llama3_json's `^\s*(\{\s*"name"\s*:`) hands the grammar any `\s*` around
        # "name" (SPEC's trigger/grammar consistency, whatever the ``whitespace`` option); elsewhere the
        # envelope uses JSON's bounded whitespace (``flexible``) or the template's ``{"name": `` (``canonical``).
        if trigger_captures(self.spec, self.opts):
            env, after_colon = ENVELOPE_WS, JSON_WS
        elif self.opts.whitespace == "canonical":
            env, after_colon = EMPTY, Lit(" ")
        else:
            env, after_colon = JSON_WS, JSON_WS

        def head(key: str) -> Expr:
            """The object's opening and its first key, then the colon."""
            return seq(Token(seq(Lit("{"), env, Lit(key)), "ENAME"), Token(seq(env, Lit(":"), after_colon), "ECOLON"))

        # the JSON object close token: never two terminals for the same "}"
        close = vb.close_("}")
        if c.name_as_key:
            return seq(head(json_literal(tool.name)), args_rule, close)
        name = Lit(json_literal(tool.name))
        args = seq(vb.punct(","), Lit(json.dumps(c.args_key)), vb.punct(":"), args_rule)
        plain = seq(head(json.dumps(c.name_key)), name, args)
        if c.id_key is None:
            return seq(plain, close)
        where = f"$[{index}].function (call id)"
        ident = Token(seq(Lit('"'), pattern_to_ir(c.id_pattern, json_char, where), Lit('"')), "CALLID")
        if c.id_first:
            with_id = seq(head(json.dumps(c.id_key)), ident, vb.punct(","), Lit(json.dumps(c.name_key)),
                          vb.punct(":"), name, args)
            return seq(with_id if c.id_required else alt(with_id, plain), close)
        member = seq(vb.punct(","), Lit(json.dumps(c.id_key)), vb.punct(":"), ident)
        return seq(plain, member if c.id_required else opt(member), close)

    def _keyword_args(self, index: int, tool: Tool, mode: str, key_sep: str, extra_key: Any,
                      allowed: Expr | None = None) -> Expr:
        """``k<key_sep>v`` members joined by commas, values in ``mode`` (Python keyword arguments,
        Gemma 4's ``k:v``); ``extra_key(vb, declared, key_class)`` is the key rule of an undeclared member
        (``allowed``: the names it can write)."""
        return self._params_once(tool, mode, lambda: self._keyword_args_of(index, tool, mode, key_sep, extra_key,
                                                                           allowed))

    def _keyword_args_of(self, index: int, tool: Tool, mode: str, key_sep: str, extra_key: Any,
                         allowed: Expr | None) -> Expr:
        ctx = self._ctx(index, tool)
        vb = self._values(mode, ctx, index)
        comma = vb.punct(",")

        def member(key: str, schema: Any, path: str, ctx: SchemaContext) -> Expr:
            self._check_key(key, path)
            value = vb.value_once(schema, path, f"t{index}-{key}")
            arg = self.g.tagged(f"arg-{tool.name}-{key}", value, ("arg", index, key), share=("arg", key))
            return Lit(key + key_sep), arg

        def extra_member(ctx: SchemaContext, declared: tuple[str, ...] = (), ap: Any = None,
                         key_class: Expr | None = None, where: str = "") -> Expr:
            key = extra_key(vb, declared, key_class)
            if ap is None:
                return seq(key, vb.any_value())
            return seq(key, vb.value(ap, where or f"{ctx.path}.additionalProperties", f"t{index}-extra"))

        if not tool.strict:
            extra = self.g.tagged(f"extra-{tool.name}", extra_member(ctx), ("extra", index), share=("extra",))
            return vb.object_body([], comma, (EMPTY, extra), f"params-{tool.name}")
        return self._params_body(index, tool, member, extra_member, comma, vb, allowed)

    def _python_call(self, index: int, tool: Tool, c: PythonCall) -> Expr:
        args = self._keyword_args(index, tool, "python", "=", _python_key, IDENT)
        pad = template_gap(self.opts.whitespace)
        return seq(Token(seq(Lit(tool.name + "("), pad), "CALLOPEN"), args, Token(seq(pad, Lit(")")), "CALLCLOSE"))

    def _gemma_call(self, index: int, tool: Tool, c: GemmaCall) -> Expr:
        """``call:N{k:v,...}``: declared members in schema order, Gemma 4 values, no whitespace."""
        args = self._keyword_args(index, tool, "gemma", ":", _gemma_key)
        return seq(Lit(c.head + tool.name + c.open), args, Lit(c.close))

    # -- scopes -----------------------------------------------------------------------------------
    @property
    def more_calls(self) -> int | None:
        """How many calls may follow the first (``max_tool_calls - 1``; None: unlimited)."""
        return None if self.opts.max_calls is None else self.opts.max_calls - 1

    def calls_rule(self) -> tuple[Expr, Expr, Expr]:
        """(all calls, the part after the trigger word, the bare call list) for the tools and parallel flag."""
        index = {t.name: i for i, t in enumerate(self.all_tools)}
        one = alt(*(self.call(index[t.name], t) for t in self.opts.tools))
        one = self.g.shared("call", one)
        sc = self.spec.scope
        if sc.per_call:
            block = self.g.shared("block", seq(Lit(sc.open), one, Lit(sc.close)))
            # whitespace and the next block's opening are one token (one-token look-ahead for LALR)
            nxt = seq(Token(seq(WS, Lit(sc.joiner + sc.open)), "NEXTBLOCK"), one, Lit(sc.close))
            more = up_to(nxt, self.more_calls) if self.opts.parallel else EMPTY
            trig = self.spec.trigger_word or ""
            if sc.section is not None:
                # the section opening is the trigger; whitespace may stand before the section's close
                s = sc.section
                assert s.open.startswith(trig)
                close: Expr = Token(seq(WS, Lit(s.close)), "SCLOSE") if s.close else EMPTY
                inner = seq(block, more, opt(close) if s.close_optional else close)
                return seq(Lit(s.open), inner), seq(Lit(s.open[len(trig):]), inner), EMPTY
            assert sc.open.startswith(trig)
            after = seq(Lit(sc.open[len(trig) :]), one, Lit(sc.close), more)
            return seq(block, more), after, EMPTY
        sep = Token(seq(JSON_WS, Lit(sc.separator), JSON_WS), "SEP")  # SPEC section 1: whitespace between calls
        gap_lead, gap_open, gap_close = list_gaps(self.opts.whitespace, trigger_captures(self.spec, self.opts))
        inner = seq(one, up_to(seq(sep, one), self.more_calls)) if self.opts.parallel else one
        if sc.section is not None:
            # a list inside a required section: <TOOLCALL>[...]</TOOLCALL>, [TOOL_CALLS] [...]
            s = sc.section
            trig = self.spec.trigger_word or ""
            assert s.open.startswith(trig)
            rest = s.open[len(trig):]
            if sc.open:
                lopen: Expr = Token(seq(gap_lead, Lit(sc.open), gap_open), "LOPEN")
                lclose = Token(seq(gap_close, Lit(sc.close + s.close)), "LCLOSE")
            else:
                # no list brackets (MiniMax-M1's JSON lines): the section's padding is free whitespace
                rest = rest.rstrip(VALUE_GAP)
                lopen = Token(JSON_WS, "LOPEN")  # one (possibly empty) terminal: a bare rule multiplies LALR states
                lclose = Token(seq(JSON_WS, Lit((sc.close + s.close).lstrip(VALUE_GAP))), "LCLOSE")
            inner = seq(lopen, inner, lclose)
            after = seq(Lit(rest), inner)
            return seq(Lit(trig), after), after, EMPTY
        if sc.open:
            lopen, lclose = Token(seq(Lit(sc.open), gap_open), "LOPEN"), Token(seq(gap_close, Lit(sc.close)), "LCLOSE")
            body = seq(lopen, inner, lclose)
        else:
            body = inner
        body = self.g.shared("calls", body)
        pad = template_gap(self.opts.whitespace)
        wrapped = [
            seq(
                Token(seq(Lit(w.open), pad), "WOPEN"),
                body,
                Token(seq(pad, Lit(w.close)), "WCLOSE") if w.close else EMPTY,
            )
            for w in sc.wrappers
        ]
        self._wrapped = wrapped
        return alt(body, *wrapped), EMPTY, body

    def content(self, expr: Expr) -> Expr:
        return self.g.add("content", expr, meta=("content",))

    @staticmethod
    def reasoning_open(tag: str) -> Expr:
        """The reasoning open tag, after optional whitespace (GLM-4.6 writes ``\n<think>``): one token,
        so Lark's lexer never takes the whitespace for free text."""
        return Token(seq(WS, Lit(tag)), "ROPEN")

    def reasoning_text(self, stops: tuple[str, ...]) -> Expr:
        if not hasattr(self, "_reasoning"):
            self._reasoning = self.g.add("reasoning", Token(Until(stops), "REASONING"), meta=("reasoning",))
        return self._reasoning

    def build(self, mode: Mode) -> Grammar:
        spec, o = self.spec, self.opts
        calls, after_trigger, self._body = self.calls_rule()
        r = spec.reasoning if o.reasoning != "none" else None
        trig = spec.trigger_word
        tail = seq(calls, END_TOKEN)
        lead = WS_TOKEN if spec.scope.leading_ws else EMPTY
        if mode == "lazy":
            root = seq(Lit(trig), after_trigger, END_TOKEN) if trig else tail
        elif o.choice == "auto" and trig:

            def dispatch(excl: tuple[str, ...]) -> Expr:
                then = self.g.shared("after-trigger", seq(after_trigger, END_TOKEN))
                only = self.content(Token(Until((trig,), followed=False, excludes=excl), "TEXT"))
                before = self.content(Token(Until((trig,), excludes=excl), "TEXT"))
                lowered = alt(only, seq(before, Lit(trig), then))
                return Dispatch(trig, then, excl, lowered)

            if r is None:
                root = dispatch(())
            else:
                stops = (r.close, trig) if r.trigger_ends else (r.close,)
                inside = seq(self.reasoning_text(stops), Lit(r.close), dispatch(()))
                if r.trigger_ends:
                    inside = alt(inside, seq(self.reasoning_text(stops), Lit(trig), after_trigger, END_TOKEN))
                if o.reasoning == "forced":
                    root = inside
                else:
                    root = alt(seq(self.reasoning_open(r.open), inside), dispatch((r.open,)))
        elif o.choice == "auto":
            root = self._anchored_auto(tail)
        else:
            root = seq(lead, tail)
            if r is not None:
                stops = (r.close, spec.trigger_word) if r.trigger_ends and spec.trigger_word else (r.close,)
                inside = seq(self.reasoning_text(stops), Lit(r.close), lead, tail)
                if len(stops) == 2:
                    inside = alt(inside, seq(self.reasoning_text(stops), tail))
                root = inside if o.reasoning == "forced" else alt(seq(self.reasoning_open(r.open), inside), root)
        self.g.rules = {"root": root, **self.g.rules}
        return self.g

    def _anchored_auto(self, tail: Expr) -> Expr:
        """Calls only at the start (after whitespace), or after a wrapper word; otherwise free text."""
        sc = self.spec.scope
        words = tuple(w.open for w in sc.wrappers)
        if sc.text_prefix:
            # free text is the text recipient's message: the prefix, then text up to a wrapper word
            prefix = Lit(sc.text_prefix)
            alone = opt(self.content(Token(Until(words, followed=False, nonempty=True), "TEXT")))
            before = opt(self.content(Token(Until(words, nonempty=True), "TEXT")))
            wrapped_texts = [seq(prefix, before, wrapped, END_TOKEN) for wrapped in self._wrapped]
            return seq(WS_TOKEN, opt(alt(tail, seq(prefix, alone), *wrapped_texts)))
        first = (sc.open or "{")[0]
        texts: list[Expr] = [
            self.content(Token(Until(words, followed=False, first_not=first + " \t\n", nonempty=True), "TEXT"))
        ]
        for wrapped in self._wrapped:
            before = self.content(Token(Until(words, first_not=first + " \t\n", nonempty=True), "TEXT"))
            texts.append(seq(before, wrapped, END_TOKEN))
        return seq(WS_TOKEN, opt(alt(tail, *texts)))


#: How each call syntax of the format descriptions becomes grammar.
_CALL_GRAMMARS = {
    XmlCall: GrammarBuilder._xml_call,
    JsonCall: GrammarBuilder._json_call,
    PythonCall: GrammarBuilder._python_call,
    NamedJsonCall: GrammarBuilder._named_json_call,
    HeaderJsonCall: GrammarBuilder._named_json_call,  # the grammar writes one header spelling
    GemmaCall: GrammarBuilder._gemma_call,
    ElementCall: GrammarBuilder._element_call,
}


def _python_key(vb: ValueBuilder, declared: tuple[str, ...] = (), key_class: Expr | None = None) -> Expr:
    """An undeclared keyword argument's name and ``=``: an identifier that is none of ``declared`` (or one of
    the class ``key_class``, an identifier: ``patternProperties``)."""
    if key_class is not None:
        return Token(seq(key_class, Lit("=")), "IDENT")
    if not declared:
        return seq(Token(IDENT, "IDENT"), Lit("="))
    return seq(Token(plain_name(tuple(sorted(declared)), IDENT_FIRST, IDENT_MORE), "IDENT"), Lit("="))


def _gemma_key(vb: ValueBuilder, declared: tuple[str, ...] = (), key_class: Expr | None = None) -> Expr:
    """An undeclared Gemma 4 key and ``:``: none of ``declared`` (or one of the class ``key_class``)."""
    return vb.any_key(declared) if key_class is None else vb.class_key(key_class)


def _string_choices(schema: dict[str, Any], path: str) -> list[str]:
    return enum_values(schema, path)


def _union_kind(kinds: list[tuple[Any, Any]], ctx: SchemaContext, path: str) -> Any:
    """The spelling of a union (``anyOf``/``oneOf`` branches, a ``type`` list) from its branches' ``(kind, schema)``:
    ``json`` when no branch is a string; ``raw`` when one is any string (any text reads as some branch's
    value); ``("union", string kinds, null)`` when the other branches admit only ``null`` (pydantic's
    ``Optional[Literal[...]]``, ``Optional[constr(...)]``): the texts of the string branches, and ``null``;
    ``mixed`` otherwise: a constrained string beside numbers, booleans or containers, which raw text cannot keep
    apart (a text is read as the first type it fits: the parsers' order), so the caller refuses it."""
    if all(k == "json" for k, _ in kinds):
        return "json"
    if any(k == "raw" for k, _ in kinds):
        return "raw"
    parts: list[Any] = []
    null = False
    for k, met in kinds:
        if k == "json":
            if _json_types(met, ctx, path) != ("null",):
                return "mixed"
            null = True
        elif isinstance(k, tuple) and k[0] == "union":
            parts += k[1]
            null = null or k[2]
        elif k == "mixed":
            return "mixed"
        else:
            parts.append(k if k != "enum" else ("words", tuple(json.dumps(v) for v in enum_values(met, path))))
    words = [k for k in parts if isinstance(k, tuple) and k[0] == "words"]
    if len(words) < len(parts) and any(not isinstance(json.loads(w), str) for k in words for w in k[1]):
        return "mixed"  # a number or boolean word beside bounded or pattern texts, which it may read as
    return ("union", tuple(parts), null)


def _union_texts(kind: Any, allowed: frozenset[str], write: Callable[[Any], str], char: str,
                 stops: tuple[str, ...], path: str) -> tuple[list[Expr], bool]:
    """The raw texts of a union kind (:func:`_union_kind`; ``("words", ...)`` alone too): its words as the format
    writes them (:func:`_written`), its bounded and pattern strings over characters other than ``char``, and
    ``null``; with whether the empty text is one of them (the caller makes the token optional)."""
    parts = [kind] if kind[0] == "words" else list(kind[1])
    texts: list[str] = ["null"] if kind[0] == "union" and kind[2] else []
    exprs: list[Expr] = []
    empty = False
    for k in parts:
        if k[0] == "words":
            for w in k[1]:
                value = json.loads(w)
                text = _written(value, allowed)
                if text is None:
                    continue  # (read as another type: no text spells it)
                if isinstance(value, str) and any(stop in value for stop in stops):
                    raise UnsupportedSchemaError(f"enum value {value!r} contains a text that ends a raw value "
                                                 f"({' or '.join(map(repr, stops))})", f"{path}.enum")
                texts.append(write(value) if isinstance(value, str) else text)
        elif k[0] == "pattern":
            exprs.append(pattern_to_ir(k[1], raw_char(char), pattern_paths(k[1], k[3], path)[0], k[2]))
        else:
            lo, hi = k
            empty = empty or lo == 0
            if hi is None or hi > 0:
                exprs.append(Rep(Chars.of(char, negated=True), max(lo, 1), hi))
    empty = empty or "" in texts
    alts = [Lit(t) for t in dict.fromkeys(texts) if t] + exprs
    if not alts and not empty:
        raise EmptySchemaError("no value of the union can be written as raw text", path)
    return alts, empty


def _written(value: Any, allowed: frozenset[str]) -> str | None:
    """A value of a union of raw texts as the format writes it (strings raw, others as JSON), or None when the
    parsers would read the text as another of the ``allowed`` types (the string ``"1"`` beside integers)."""
    if not isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    text = value.strip(" \t\n\r")
    if text == "null" and "null" in allowed or text in ("true", "false") and "boolean" in allowed:
        return None
    if allowed & {"integer", "number", "object", "array"}:
        try:
            read = json.loads(text)
        except ValueError:
            return value
        if isinstance(read, (int, float)) and not isinstance(read, bool) and allowed & {"integer", "number"} or \
                isinstance(read, dict) and "object" in allowed or isinstance(read, list) and "array" in allowed:
            return None
    return value


def _resolved(schema: Any, ctx: SchemaContext, path: str) -> Any:
    """``schema`` with a ``$ref`` chain followed, ``allOf`` (and ``$ref`` with siblings) met."""
    if isinstance(schema, dict) and ("allOf" in schema or ("$ref" in schema and ref_siblings(schema))):
        return merge_all_of(schema, path, ctx)
    return ctx.deref(schema, path)


_JSON_TYPES = ("string", "integer", "number", "boolean", "null", "object", "array")


def _json_types(schema: Any, ctx: SchemaContext, path: str, _refs: frozenset[str] = frozenset()) -> tuple[str, ...]:
    """The JSON Schema type names a schema admits, in :data:`_JSON_TYPES` order (all of them when it
    does not say): what a typed argument attribute (Kimi-K3's ``type="..."``) may name."""
    found: set[str] = set()
    if not isinstance(schema, dict) or schema == {}:
        return _JSON_TYPES
    if "$ref" in schema:
        ref = schema["$ref"]
        if not isinstance(ref, str) or ref in _refs:
            return _JSON_TYPES
        target, _ = ctx.resolve(ref, f"{path}.$ref")
        return _json_types(target, ctx, path, _refs | {ref})
    if "const" in schema:
        found.add(json_type_of(schema["const"]))
    elif isinstance(schema.get("enum"), list) and schema["enum"]:
        found.update(json_type_of(v) for v in schema["enum"])
    elif isinstance(schema.get("type"), str):
        found.add(schema["type"])
    elif isinstance(schema.get("type"), list):
        found.update(t for t in schema["type"] if isinstance(t, str))
    else:
        for key in ("anyOf", "oneOf"):
            if isinstance(schema.get(key), list):
                for b in schema[key]:
                    found.update(_json_types(b, ctx, path, _refs))
        if not found:
            return _JSON_TYPES
    if "integer" in found:
        found.add("number")  # a number schema's value may be an integer, and the other way round
    elif "number" in found:
        found.add("integer")
    return tuple(t for t in _JSON_TYPES if t in found)


def _xml_kind(schema: Any, ctx: SchemaContext, path: str, _refs: frozenset[str] = frozenset()) -> Any:
    """How an XML argument is spelled: ``raw`` text, a bounded raw ``(min, max)``, an ``enum`` of
    raw words, or ``json`` (any schema without a string branch).  A malformed schema is ``json``:
    the JSON value builder then reports it with its path."""
    if schema is True or schema == {}:
        return "raw"
    if not isinstance(schema, dict):
        return "json"
    if "allOf" in schema or ("$ref" in schema and ref_siblings(schema)):
        try:
            met = merge_all_of(schema, path, ctx)
        except (SchemaError, UnsupportedSchemaError):
            return "json"  # the JSON value builder reports it with its path
        return _xml_kind(met, ctx, path, _refs)
    if "$ref" in schema:
        ref = schema["$ref"]
        if not isinstance(ref, str) or ref in _refs:
            return "json"  # malformed, or a cycle: the cycle adds no string branch
        target, _ = ctx.resolve(ref, f"{path}.$ref")
        return _xml_kind(target, ctx, path, _refs | {ref})
    if "not" in schema:  # written as positive keywords; a string excluding values has no raw spelling here
        try:
            positive = without_not(schema, ctx, path)
        except (SchemaError, UnsupportedSchemaError):
            return "json"  # the JSON value builder reports it with its path
        return _xml_kind(positive, ctx, path, _refs)
    if pending(schema, path):  # if/then/else, dependentSchemas: their anyOf branches
        try:
            expanded = expand(schema, ctx, path)
        except (SchemaError, UnsupportedSchemaError):
            return "json"  # the JSON value builder reports it with its path
        return _xml_kind(expanded, ctx, path, _refs)
    if "const" in schema or "enum" in schema:
        try:
            vals = enum_values(schema, path)  # the values the sibling keywords admit
        except SchemaError:
            return "json"  # the JSON value builder reports it with its path
        if all(isinstance(v, str) for v in vals):
            return "enum"
        return ("words", tuple(json.dumps(v) for v in vals)) if any(isinstance(v, str) for v in vals) else "json"
    t = schema.get("type")
    for key in ("anyOf", "oneOf"):
        if key in schema:
            branches = schema[key]
            if not isinstance(branches, list):
                return "json"
            outer = {k: v for k, v in schema.items() if k != key}
            mets = []
            for i, b in enumerate(branches):
                try:
                    mets.append((i, met_branch(outer, b, f"{path}.{key}[{i}]")))
                except EmptySchemaError:
                    continue  # the branch admits no value
                except (SchemaError, UnsupportedSchemaError):
                    mets.append((i, b))  # the JSON value builder reports it, or relaxes it to the branch
            split = exclusive(outer, branches, mets, ctx, path) if key == "oneOf" and len(mets) > 1 else None
            kinds = []
            for i, met in mets:  # a split oneOf branch by its pieces (as it is where a piece has no raw spelling)
                pieces = [(_xml_kind(p, ctx, path, _refs), p) for p in (split or {}).get(i, [met])]
                kinds += pieces if all(k != "mixed" for k, _ in pieces) else [(_xml_kind(met, ctx, path, _refs), met)]
            return _union_kind(kinds, ctx, path)
    if t == "string":
        try:
            spec, key, (lo, hi) = string_spec(words_as_patterns(schema), path, ctx)
        except SchemaError:
            return "json"  # the JSON value builder reports it with its path
        if spec is not None:
            return ("pattern", spec, (lo, hi), key)
        if lo == 0 and hi is None:
            return "raw"
        return (lo, hi)
    if isinstance(t, list) and "string" in t:
        return _union_kind([(_xml_kind({**schema, "type": x}, ctx, path, _refs), {**schema, "type": x})
                            for x in t if isinstance(x, str)], ctx, path)
    if t is None and not any(k in schema for k in ("anyOf", "oneOf", "allOf", "not")):
        implied = infer_type(schema)  # as the JSON value builder reads an untyped schema
        return "raw" if implied is None else _xml_kind({**schema, "type": implied}, ctx, path, _refs)
    return "json"
