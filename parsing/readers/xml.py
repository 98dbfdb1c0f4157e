"""The reader of XML-style calls (:class:`~toolgram.grammars.spec.XmlCall`): tagged parameters with raw values."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ...grammars.spec import CDATA_CLOSE, CDATA_OPEN, XmlCall
from ..values import convert_xml_value, dumps_arguments, member_schema, schema_types
from ._common import FLUSH, NO_STATE, WAIT, WS, Core, Head, Reader, State, esc


@dataclass(slots=True)
class _Key(State):
    """A parameter name: ``kscan`` is how far it was searched for its end (None: not yet)."""

    kscan: int | None = None

    def low(self) -> int:
        return State.low(self) if self.kscan is None else self.kscan

    def shift(self, low: int) -> None:
        if self.kscan is not None:
            self.kscan = max(self.kscan - low, 0)


@dataclass(slots=True)
class _Value(State):
    """A raw value: ``start`` its first character (None: its opening not read yet), ``emitted`` how
    far a streamed string was sent, ``search`` where the next end tag is looked for, ``cand`` an end
    tag whose follower has not arrived yet and ``cscan`` how far the whitespace after it was read."""

    key: str
    keep: bool
    schema: Any
    stream: bool
    string: bool = False  # the schema admits only strings (streamed as they arrive, unless held for CDATA)
    #: XmlCall.cdata: None not looked at yet, 0 the plain rule, else where the CDATA section's "]]>" ends
    cdata: int | None = None
    opened: bool = False
    start: int | None = None
    emitted: int = 0
    search: int = 0
    cand: int | None = None
    cscan: int | None = None
    rsearch: int = 0  # where the next parameter's opening tag is looked for (a missing closing tag)
    at: int = 0
    parts: list[str] = field(default_factory=list)

    def low(self) -> int:
        if self.start is None:
            return State.low(self)
        low = min(self.emitted, self.search, self.rsearch)
        if not self.stream:
            low = min(low, self.start)
        for v in (self.cand, self.cscan):
            if v is not None:
                low = min(low, v)
        return low

    def shift(self, low: int) -> None:
        if self.start is None:
            return
        self.start = max(self.start - low, 0)
        self.emitted = max(self.emitted - low, 0)
        self.search = max(self.search - low, 0)
        self.rsearch = max(self.rsearch - low, 0)
        if self.cand is not None:
            self.cand = max(self.cand - low, 0)
        if self.cscan is not None:
            self.cscan = max(self.cscan - low, 0)
        if self.cdata:
            self.cdata = max(self.cdata - low, 0)


class XmlReader(Reader):
    """``<function=N>`` then ``<parameter=K>value</parameter>``... ``</function>``, as the description
    spells them."""

    def __init__(self, core: Core, c: XmlCall) -> None:
        super().__init__(core)
        self.c = c
        self.st: _Key | _Value | State = NO_STATE
        # The value padding is what the format's own description writes around a value
        # (qwen3_coder: ">\n" ... "\n</parameter>"; seed_oss: none); only that is stripped.
        # The key ends at gt: the quote of a quoted name (MiniMax, DSML), the first tag of
        # param_name_end (GLM's "</arg_key>"), else ">".  Then the value's opening tag, if the
        # description has one (GLM's "<arg_value>", DSML's 'string="true">'), after any whitespace.
        ne = c.param_name_end
        self.gt = '"' if c.quoted_key else (">" if ne.startswith(">") or ">" not in ne else ne[:ne.index(">") + 1])
        self.pad_open = ne[len(self.gt):][ne[len(self.gt):].rfind(">") + 1:]
        opens = [e[len(self.gt):][:e[len(self.gt):].rfind(">") + 1].strip(WS) for e in c.name_ends]
        if c.json_name_end is not None:
            opens.append(">")  # a quoted name without its attribute (lenient)
        self.value_open = tuple(dict.fromkeys(o for o in opens if o))
        self.end_tag = c.param_end.strip(WS)
        self.pad_close = c.param_end[:c.param_end.index(self.end_tag)]
        # a value ends at an end tag followed (after whitespace) by one of these, or by the end;
        # without a function_end (GLM) the scope's close follows the last value
        self.followers = (c.param_open, c.function_end.strip(WS) or core.scope_close)
        self.key_bad = re.compile("[\n<]")
        # the name ends at the description's name_end (a missing one: at the next tag, not consumed);
        # a whitespace-only or empty one (GLM's "\n" or ""): at whitespace or the next tag
        self.name_stop = c.name_end.rstrip(WS) or c.name_end or "<"
        self.name_eat = len(self.name_stop) if c.name_end.strip(WS) else 0
        self.name_re = None if c.name_end.strip(WS) else re.compile(r"[\s<]")
        self._reach: tuple[Any, int] = (None, 0)  # the call, and how far a declared name may reach

    def head(self, q: int, bare: bool) -> Head:
        core, c = self.core, self.c
        buf = core.buf
        if not bare:
            res = core.peek(c.function_open, q)
            if res is not True:
                return WAIT if res == WAIT else None
            q += len(c.function_open)
        stop = self.name_stop
        limit = q + core.max_name + len(stop) + 1
        if self.name_re is not None:
            m = self.name_re.search(buf, q, limit)
            end = m.start() if m else -1
        else:
            end = buf.find(stop, q, limit)
        if end < 0:
            if len(buf) < limit and not core.final:
                return WAIT
            return None
        name = buf[q:end]
        if not c.name_end.startswith('"'):  # a quoted name (name="N") is taken as written
            name = name.strip()
        if not name or "<" in name or "\n" in name:
            return None
        return name, end + self.name_eat

    def start(self) -> None:
        c = self.c
        self.core.step = self._again if c.name_again is not None else \
            self._counter if c.counter is not None else self._params

    def _again(self) -> bool | None:
        """The name written a second time (muse-glimmer's ``<atem:invoke name="N">`` after the recipient)."""
        core, c = self.core, self.c
        call = core.call
        assert call is not None and c.name_again is not None
        res = core.lit(call.name + c.name_again)
        if res == WAIT:
            return False
        if res is False:
            core.bad_call(f"expected the name {call.name!r} again")
            return True
        core.step = self._counter if c.counter is not None else self._params
        return True

    def _counter(self) -> bool | None:
        """The call index (Kimi-K3's ``1"<|sep|>``): decimal digits, then ``counter``; any index is read."""
        core, c = self.core, self.c
        assert c.counter is not None
        buf, q = core.buf, core.pos
        while q < len(buf) and "0" <= buf[q] <= "9" and q - core.pos < 9:
            q += 1
        if q >= len(buf):
            return False  # wait; at the end of input the call was cut off
        if q == core.pos or not buf.startswith(c.counter[:len(buf) - q], q):
            core.bad_call(f"expected the call index and {c.counter!r}")
            return True
        if len(buf) - q < len(c.counter):
            return False
        core.pos = q + len(c.counter)
        core.step = self._params
        return True

    def cut(self) -> str | None:
        s = self.st
        if self.core.step == self._value and isinstance(s, _Value) and s.keep and s.start is not None \
                and not s.stream:
            text = "".join(s.parts) + self.core.buf[s.start:]
            if s.string:  # a string held back whole (CDATA): as received, as a streamed one would be
                return self.core.member_prefix(s.key) + '"' + esc(self.c.read_raw_start(text))
            return self.core.member_prefix(s.key) + text
        return None

    def _params(self) -> bool | None:
        """The next parameter, or the end of the function."""
        core, c = self.core, self.c
        if not core.ws():
            return False
        fo_close = c.function_end.strip(WS)
        for lit in (c.param_open, fo_close):
            res = core.lit(lit)
            if res == WAIT:
                return False
            if res is True:
                if lit == fo_close:
                    core.end_call()
                else:
                    core.step = self._key
                    self.st = _Key()
                return True
        core.bad_call("expected a parameter or the end of the function")
        return True

    def _key(self) -> bool | None:
        core = self.core
        gt = self.gt
        s = self.st
        assert isinstance(s, _Key)
        buf, pos = core.buf, core.pos
        scan = pos if s.kscan is None else s.kscan
        i = buf.find(gt, max(pos, scan - len(gt) + 1))
        # a newline or '<' before the name's end: not a name (whatever the chunking); the last
        # len(gt) - 1 characters may be the start of a longer end ("</arg_key>") and wait
        bound = i if i >= 0 else max(scan, len(buf) - len(gt) + 1)
        if self.key_bad.search(buf, scan, bound):
            core.bad_call("unterminated parameter name")
            return True
        if i < 0:
            s.kscan = bound  # resumable: the name is not rescanned on the next feed
            return False
        key = buf[pos:i]
        if not self.c.quoted_key and key not in self._declared():
            # a quoted name (name="K") is exactly what stands between the quotes; an unquoted one is
            # trimmed unless it is declared as written (compile refuses such names, SPEC: one rule)
            key = key.strip()
        core.pos = i + len(gt)
        keep = core.member_key(key)
        call = core.call
        assert call is not None
        schema = self._prop_schema(key)
        types = schema_types(schema, call.tool) if schema is not None else None
        # a string streams as it arrives, unless a CDATA wrapper may have to come off it whole (MiniCPM5)
        string = types == frozenset({"string"})
        stream = keep and string and not self.c.cdata
        self.st = _Value(key, keep, schema, stream, string)
        core.step = self._value
        if stream:
            core.args(core.member_prefix(key) + '"')
        return True

    def _declared(self) -> dict[str, Any]:
        """The open call's declared arguments (``properties``)."""
        call = self.core.call
        props = call.tool.get("properties") if call is not None and isinstance(call.tool, dict) else None
        return props if isinstance(props, dict) else {}

    def _prop_schema(self, key: str) -> Any:
        call = self.core.call
        return member_schema(call.tool if call else None, key)

    def _value(self) -> bool | None:
        """A raw value: it ends at an end tag followed (after whitespace) by a next parameter, the
        function's end tag, or the end of input; any other end tag is part of the value (vLLM's rule).

        Resumable and linear (see :class:`_Value`): a streamed string holds back only the text from
        the candidate end tag (or a partial end tag) on."""
        core = self.core
        s = self.st
        assert isinstance(s, _Value)
        buf = core.buf
        n = len(buf)
        if s.start is None and not s.opened:
            # the value's opening tag (GLM's "<arg_value>", DSML's 'string="..."'), after whitespace
            if self.value_open:
                core.pos = core.ws_from(core.pos)
                if core.pos >= n:
                    return False
                for lit in self.value_open:
                    res = core.lit(lit)
                    if res == WAIT:
                        return False
                    if res is True:
                        break
                else:
                    core.bad_call("expected the opening tag of the value")
                    return True
            s.opened = True
        if s.start is None:
            pad = self.pad_open
            if pad:
                res = core.lit(pad)
                if res == WAIT:
                    return False
            s.start = s.emitted = s.search = s.rsearch = core.pos
            s.at = core.pos + core.base
        tag = self.end_tag
        pad_close = self.pad_close
        final = core.final
        if self.c.cdata and s.cdata is None and not self._cdata(s):
            core.pos = n
            return False
        while True:
            i = s.cand
            if i is None:
                i = buf.find(tag, s.search)
                if i < 0:
                    s.search = max(s.search, n - len(tag) + 1)
                    hold = s.search - len(pad_close)
                    break
                s.cand, s.cscan = i, i + len(tag)
            q = s.cscan
            assert q is not None
            while q < n and buf[q] in WS:
                q += 1
            s.cscan = q
            follows: Any = q >= n and final
            if q < n:
                for lit in self.followers:
                    follows = core.peek(lit, q)
                    if follows is not False:
                        break
            if s.cdata and (i != s.cdata + len(pad_close) or (follows is False and (q < n or final))):
                # the closing tag does not follow the CDATA section: the value is read by the plain rule
                s.cdata, s.cand, s.search = 0, None, s.start
                continue
            if follows is True:
                tag_at = self._reopened(s, i)
                if tag_at is None:
                    return self._value_end(s, i)
                if tag_at[1]:
                    return self._value_end(s, tag_at[0], missing=True)
                hold = tag_at[0] - len(pad_close)
                break
            if follows == WAIT or (q >= n and not final):
                hold = i - len(pad_close)
                break
            s.cand = None  # not a closing tag: part of the value
            s.search = i + 1
        tag_at = self._reopened(s, n)
        if tag_at is not None:
            if tag_at[1]:
                return self._value_end(s, tag_at[0], missing=True)
            hold = min(hold, tag_at[0] - len(pad_close))
        if final:
            hold = n  # the end of input without a closing tag: the value as received (truncated)
        if s.stream:
            if hold > s.emitted:
                core.args(esc(buf[s.emitted:hold]))
                s.emitted = hold
        elif hold - s.start > FLUSH and not s.cdata:
            s.parts.append(buf[s.start:hold])  # settled value text leaves the buffer
            s.start = hold
        core.pos = n
        return False

    def _cdata(self, s: _Value) -> bool:
        """XmlCall.cdata: does the value open a CDATA section? Then the closing tag counts only right after
        its ``]]>`` (text inside it is the value's), as the grammar's first alternative reads it; False:
        wait for more input."""
        core = self.core
        buf, n, start = core.buf, len(core.buf), s.start
        assert start is not None
        body = start + len(CDATA_OPEN)
        if buf.startswith(CDATA_OPEN, start):
            j = buf.find(CDATA_CLOSE, max(s.search, body))
            if j >= 0:
                s.cdata = s.search = j + len(CDATA_CLOSE)
            elif core.final:
                s.cdata = 0  # never closed: the plain rule
            else:
                s.search = max(body, n - len(CDATA_CLOSE) + 1)
                return False
        elif n - start < len(CDATA_OPEN) and CDATA_OPEN.startswith(buf[start:]) and not core.final:
            return False
        else:
            s.cdata = 0
        return True

    def _reopened(self, s: _Value, upto: int) -> tuple[int, bool] | None:
        """Lenient: a missing closing tag (vLLM's reading). The value ends before the opening tag of a
        declared parameter not given yet, at the start of a line (``Dallas\n<parameter=state>``), found
        before ``upto``: ``(its index, True)``; ``(index, False)`` when the text from there cannot tell yet
        (held back while streaming); None when there is none. Such a tag inside a well-closed value is read
        the same way: the one place where the lenient reading of a text the grammar accepts differs from the
        strict one (docs/parsing.md)."""
        core, c = self.core, self.c
        call = core.call
        po = c.param_open
        declared = self._declared()
        start = s.start
        if not po or not declared or s.cdata or call is None or start is None:
            return None
        buf, final, n = core.buf, core.final, len(core.buf)
        # the declared names are bounded, so the look-ahead for a name is too
        if self._reach[0] is not call:
            self._reach = (call, max(map(len, declared)) + len(self.gt) + 2)
        reach = self._reach[1]
        while True:
            j = buf.find(po, s.rsearch, upto)
            if j < 0:
                s.rsearch = max(s.rsearch, min(upto, n - len(po) + 1))
                if upto < n or final:
                    return None
                # a partial opening tag at the end of the text: undecided
                k = s.rsearch
                while k < n and not po.startswith(buf[k:]):
                    k += 1
                if k > start and buf[k - 1] == "\n":
                    k -= 1  # and the line break before it, which a tag there would make layout
                return (k, False) if k < n else None
            line_start = j == start or (j > 0 and buf[j - 1] == "\n")
            g = buf.find(self.gt, j + len(po), j + len(po) + reach) if line_start else -1
            if line_start and g < 0 and n < j + len(po) + reach and not final:
                return (j - 1 if j != start else j), False  # the name has not ended yet
            if g >= 0:
                key = buf[j + len(po):g]
                key = key if key in declared else key.strip()
                if key in declared and key not in call.keys:
                    return j, True
            s.rsearch = j + 1

    def _value_end(self, s: _Value, i: int, missing: bool = False) -> bool:
        """The value ends at ``i``: its closing tag, or (``missing``) the next parameter's opening tag."""
        core = self.core
        buf = core.buf
        assert s.start is not None
        end = i
        pad_close = self.pad_close
        if missing:  # the line break before the next parameter's tag is layout, whatever the padding
            end -= end > s.start and buf[end - 1] == "\n"
        elif pad_close and end - len(pad_close) >= s.start and buf.startswith(pad_close, end - len(pad_close)):
            end -= len(pad_close)
        if s.stream:
            if end > s.emitted:
                core.args(esc(buf[s.emitted:end]))
            core.args('"')
        elif s.keep:
            self._typed(s, "".join(s.parts) + buf[s.start:end])
        if missing:
            core.diag("missing_close", f"a value without {self.end_tag!r}: it ends at the next parameter",
                      i)
        core.pos = i if missing else i + len(self.end_tag)
        core.step = self._params
        self.st = NO_STATE
        return True

    def _typed(self, s: _Value, raw: str) -> None:
        core = self.core
        call = core.call
        assert call is not None
        value, diags = convert_xml_value(self.c.read_raw(raw), s.schema, lenient=True, root=call.tool, name=s.key,
                                         offset=s.at, hint=call.name in core.loose)
        core.diagnostics.extend(diags)
        core.args(core.member_prefix(s.key) + dumps_arguments(value))
