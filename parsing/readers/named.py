"""The reader of calls whose name stands as text before a JSON arguments object
(:class:`~toolgram.grammars.spec.NamedJsonCall`, and :class:`~toolgram.grammars.spec.HeaderJsonCall`,
a name in a message header)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ...grammars.spec import CallId, HeaderJsonCall, NamedJsonCall
from ._common import WAIT, WS, Core, Head, State, esc
from .json import JsonArgsReader

_CALL_ID_RE = re.compile(r"[A-Za-z0-9_\-]{1,64}")
#: the word a message header starts with: up to whitespace or the next header token ("<|...|>")
_HEADER_WORD_RE = re.compile(r"(?:[^<\s]|<(?!\|))+")


@dataclass(slots=True)
class _Counter(State):
    """The call counter after the name: ``digits`` read, ``done`` its closing text read too."""

    digits: bool = False
    done: bool = False


class NamedReader(JsonArgsReader):
    """``head`` N ``name_end`` (a call id, a call counter) ``{...}`` ``end``; in a message header:
    the longest tool name, header text up to ``body_open``, and the stop token after the arguments."""

    def __init__(self, core: Core, c: NamedJsonCall) -> None:
        super().__init__(core)
        self.c = c
        self.after_args = self._end

    def head(self, q: int, bare: bool) -> Head:
        c = self.c
        if isinstance(c, HeaderJsonCall):
            return self._header_head(q, c)
        return self._named_head(q, c, bare)

    def _header_head(self, q: int, c: HeaderJsonCall) -> Head:
        """A name in a message header: the word at ``q`` (a tool's name, or one with a content type of
        ``c.glued_types`` glued to it: ``functions.Njson``), then any header text up to ``body_open``
        (bounded). Set look-ups only: the cost does not grow with the number of tools."""
        core = self.core
        buf = core.buf
        limit = q + core.max_name + c.header_max + len(c.body_open)
        end = buf.find(c.body_open, q, limit)
        if end < 0:
            if len(buf) < limit and not core.final:
                return WAIT
            return None
        header = buf[q:end]
        # the name ends where the header goes on (whitespace, "<|"), or right before a glued content
        # type: a known name that merely starts the word (``search`` in ``search_web``) is not the name
        m = _HEADER_WORD_RE.match(header)
        name = m.group() if m else ""
        if name not in core.tools and name not in core.all_names:
            for glued in c.glued_types:
                base = name.removesuffix(glued)
                if base != name and (base in core.tools or base in core.all_names):
                    name = base
                    break
        if not name:
            return None
        return name, end + len(c.body_open)

    def _named_head(self, q: int, c: NamedJsonCall, bare: bool = False) -> Head:
        """``head`` N ``name_end``: the name is the text before ``name_end`` (bounded by the longest
        tool name); a call id (``c.call_id``) stands before the name or between it and ``name_end``."""
        core = self.core
        start = q
        if c.head:
            res = core.peek(c.head, q)
            if res == WAIT:
                return WAIT
            if res is True:
                q += len(c.head)
            elif bare:
                return None
            else:  # lenient: inside the call's opening, the name without its head (Kimi-K2's ``get_weather:0``)
                self.headless = True
        cid = c.call_id
        if cid is not None and cid.before_name:
            got = self._call_id_at(q, cid, cid.close or c.name_end, cid.optional)
            if got is None or got == WAIT:
                return got
            assert isinstance(got, int)
            q = got
        if c.counter is not None and cid is None and c.name_end:
            return self._counted_head(start, q, c)
        stops = [c.name_end] if c.name_end else []
        if cid is not None and not cid.before_name:
            stops.append(cid.open or cid.close)
        longest = max(map(len, stops), default=0)
        buf = core.buf
        limit = q + core.max_name + longest
        found = [(i, s) for s in stops if (i := buf.find(s, q, limit)) >= 0]
        if not found:
            if len(buf) < limit and not core.final:
                return WAIT
            return None
        end, stop = min(found)
        name = buf[q:end]
        if not name or any(ch in WS or ch == "<" for ch in name):
            return None
        if stop == c.name_end:
            return name, end + len(c.name_end)
        assert cid is not None
        r = self._call_id_at(end, cid, cid.close or c.name_end, False)
        if r is None or r == WAIT:
            return r
        assert isinstance(r, int)
        res = core.peek(c.name_end, r)
        if res is not True:
            return WAIT if res == WAIT else None
        return name, r + len(c.name_end)

    def _counted_head(self, start: int, q: int, c: NamedJsonCall) -> Head:
        """N ``name_end`` DIGITS ``counter`` (Kimi-K2's ``functions.ns:search:0<|tool_call_argument_begin|>``):
        the name ends at the ``name_end`` that the call counter follows, so a name may hold ``name_end``
        itself. When none is followed by a counter, the first ``name_end`` ends the name (the call
        then reports its missing counter). The head from ``start`` through the digits is the call's id
        (``functions.search:0``, as Kimi's template writes it back in the next turn)."""
        core = self.core
        buf, sep, counter = core.buf, c.name_end, c.counter
        assert counter is not None
        limit = q + core.max_name + len(sep)
        first = None
        i = buf.find(sep, q, limit)
        while i >= 0:
            name = buf[q:i]
            if any(ch in WS or ch == "<" for ch in name):
                break
            j = k = i + len(sep)
            if not name:
                i = buf.find(sep, j, limit)
                continue
            first = first or (name, j)
            while k < len(buf) and "0" <= buf[k] <= "9" and k - j < 9:
                k += 1
            if k >= len(buf) and not core.final:
                return WAIT
            if k > j:
                w = core.ws_from(k)  # lenient: whitespace before the counter's token (see _open)
                if w >= len(buf) and not core.final:
                    return WAIT
                res = core.peek(counter, w)
                if res == WAIT:
                    return WAIT
                if res is True:
                    self.head_id = buf[start:k]
                    return name, j
            i = buf.find(sep, j, limit)
        else:
            if len(buf) < limit and not core.final:
                return WAIT
        return first

    def _call_id_at(self, q: int, cid: CallId, stop: str, optional: bool) -> int | str | None:
        """Past ``cid.open`` ID ``cid.close`` at ``q`` (the id ends where ``stop`` begins): the index
        after it, WAIT, or None. An optional id that is not there leaves ``q`` as it is."""
        core = self.core
        if cid.open:
            res = core.peek(cid.open, q)
            if res == WAIT:
                return WAIT
            if res is False:
                return q if optional else None
            q += len(cid.open)
        limit = q + 64 + len(stop)
        end = core.buf.find(stop, q, limit)
        if end < 0:
            return WAIT if len(core.buf) < limit and not core.final else None
        if not _CALL_ID_RE.fullmatch(core.buf, q, end):
            return None
        self.head_id = core.buf[q:end]
        return end + len(cid.close)

    def start(self) -> None:
        self.note_headless(self.c.head)
        self.core.step = self._open
        self.st = _Counter()

    def awaits_close(self) -> bool:
        return self.core.step == self._end

    def _open(self) -> bool | None:
        """After ``head`` N ``name_end`` (and the call counter, if the syntax numbers its calls):
        the arguments object opens."""
        core, c = self.core, self.c
        s = self.st
        assert isinstance(s, _Counter)
        if c.counter is not None and not s.done:
            if not s.digits:
                buf, q = core.buf, core.pos
                while q < len(buf) and "0" <= buf[q] <= "9" and q - core.pos < 9:
                    q += 1
                if q >= len(buf):
                    return False  # wait; at the end of input the call was cut off
                if q == core.pos:
                    core.bad_call("expected the call counter")
                    return True
                core.pos = q
                s.digits = True
            q = core.ws_from(core.pos)
            if q >= len(core.buf) and not core.final:
                return False
            if q > core.pos:  # lenient: whitespace before the counter's token (Kimi-K2)
                core.diag("head_whitespace", f"whitespace before {c.counter!r} in a call head", core.pos)
                core.pos = q
            res = core.lit(c.counter)
            if res == WAIT:
                return False
            if res is False:
                core.bad_call(f"expected {c.counter!r} after the call counter")
                return True
            s.done = True
        if not core.ws():
            return False
        if core.buf[core.pos] != "{":
            if c.raw_code_tool is not None and self.core.call.name == c.raw_code_tool:  # type: ignore[attr-defined]
                core.diag("raw_code", f"the body of {c.raw_code_tool!r} is raw code; read as its "
                          f"{c.raw_code_key!r} argument", core.pos)
                core.member_key(c.raw_code_key)
                core.args(core.member_prefix(c.raw_code_key) + '"')
                core.step = self._raw_code
                return True
            core.bad_call("expected the arguments object")
            return True
        core.pos += 1
        self._members()
        return True

    def _raw_code(self) -> bool | None:
        """Raw code to the end of the output, streamed as a JSON string; trailing whitespace is held
        back (dropped at the end, as content is trimmed)."""
        core = self.core
        buf = core.buf
        end = len(buf)
        while end > core.pos and buf[end - 1] in WS:
            end -= 1
        if end > core.pos:
            core.args(esc(buf[core.pos:end]))
            core.pos = end
        if not core.final:
            return False
        core.pos = len(buf)
        core.args('"')
        core.close_args()
        core.after_done()
        return True

    def _end(self) -> bool | None:
        """After the arguments object: the call's ``end`` literal, if the syntax has one."""
        core = self.core
        end = self.c.end.lstrip(WS)  # whitespace before the end literal is skipped below
        if end:
            q = core.ws_from(core.pos)
            if q >= len(core.buf):
                return False  # wait; at the end of input the call was cut off (see Scanner._truncate_call)
            res = core.peek(end, q)
            if res == WAIT:
                return False
            if res is True:
                core.pos = q + len(end)
            else:
                core.diag("missing_close", f"{end!r} is missing after a call", q)
        if isinstance(self.c, HeaderJsonCall):
            core.step = self._header_end
        else:
            core.after_call()
        return True

    def _header_end(self) -> bool | None:
        """After a header call's arguments: drop its stop token (``read_end``) when the text keeps it."""
        core, c = self.core, self.c
        assert isinstance(c, HeaderJsonCall)
        if c.read_end:
            q = core.ws_from(core.pos)
            res = core.peek(c.read_end, q) if q < len(core.buf) else (False if core.final else WAIT)
            if res == WAIT:
                return False
            if res is True:
                core.pos = q + len(c.read_end)
        if core.scope_close or core.in_section or core.in_list:
            core.after_call()
        else:
            core.after_done()  # nothing to close: the whitespace opening the next header stays
        return True

