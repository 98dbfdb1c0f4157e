"""The reader of Gemma 4's calls (:class:`~toolgram.grammars.spec.GemmaCall`): ``head`` N ``open`` k:v,... ``close``."""

from __future__ import annotations

import re
from dataclasses import dataclass
from string import ascii_letters

from ...grammars.spec import GemmaCall
from ...grammars.syntax import gemma_text
from ..values import convert_gemma_value, dumps_arguments
from ._common import FLUSH, NO_STATE, WAIT, WS, Core, Head, Pinned, Reader, State, esc

_GQ = gemma_text.QUOTE  # Gemma 4's string delimiter
_GKEY_REST_RE = re.compile("[^" + re.escape(gemma_text.KEY_EXCLUDED) + "]*")
#: the body of a JSON string up to its closing quote (or a lone backslash at the end of the buffer)
_JSON_BODY_RE = re.compile(r'(?:[^"\\]|\\[\s\S])*')


@dataclass(slots=True)
class _Args(State):
    """Between members; a key that reached the end of the buffer: it starts at ``istart``, a bare
    one was read up to ``iend``, a quoted one searched for its closing quote from ``kscan``."""

    istart: int | None = None
    iend: int | None = None
    kscan: int | None = None

    def low(self) -> int:
        return min((v for v in (self.istart, self.iend, self.kscan) if v is not None), default=State.low(self))

    def shift(self, low: int) -> None:
        if self.istart is not None:
            self.istart = max(self.istart - low, 0)
        if self.iend is not None:
            self.iend = max(self.iend - low, 0)
        if self.kscan is not None:
            self.kscan = max(self.kscan - low, 0)


@dataclass(slots=True)
class _String(State):
    """A streamed ``<|"|>`` string: sent up to ``emitted``, searched for its end from ``scan``."""

    emitted: int
    scan: int

    def low(self) -> int:
        return min(self.emitted, self.scan)

    def shift(self, low: int) -> None:
        self.emitted, self.scan = max(self.emitted - low, 0), max(self.scan - low, 0)


class GemmaReader(Reader):
    """``call:N{`` then ``key:value`` members (``<|"|>`` strings streamed, other values read whole), ``}``."""

    def __init__(self, core: Core, c: GemmaCall) -> None:
        super().__init__(core)
        self.c = c
        self.st: _Args | _String | Pinned | State = NO_STATE

    def head(self, q: int, bare: bool) -> Head:
        """``head`` N ``open`` (``call:N{``): the name is the text before ``open``, bounded by the
        longest tool name."""
        core, c = self.core, self.c
        res = core.peek(c.head, q)
        if res == WAIT:
            return WAIT
        if res is True:
            q += len(c.head)
        else:  # lenient: ``<|tool_call>:N{`` without the head's word (vLLM's reading), inside the opening only
            short = c.head.lstrip(ascii_letters)
            if bare or not short or core.peek(short, q) is not True:
                return None
            q += len(short)
            self.headless = True
        limit = q + core.max_name + len(c.open)
        end = core.buf.find(c.open, q, limit)
        if end < 0:
            return WAIT if len(core.buf) < limit and not core.final else None
        name = core.buf[q:end]
        if not name or any(ch in WS or ch == "<" for ch in name):
            return None
        return name, end + len(c.open)

    def start(self) -> None:
        self.note_headless(self.c.head)
        self.core.step = self._args
        self.st = _Args()

    def cut(self) -> str | None:
        s = self.st
        if self.core.step == self._value and isinstance(s, Pinned) and s.keep:
            return self.core.member_prefix(s.key) + s.raw(self.core.buf, len(self.core.buf))
        return None

    def _partial_quote(self, q: int) -> bool:
        """The buffer ends inside a ``<|"|>`` starting at ``q``: more input decides (at the end of
        input: the call was cut off there)."""
        buf = self.core.buf
        tail = buf[q:q + len(_GQ)]
        return len(tail) < len(_GQ) and _GQ.startswith(tail) and q + len(tail) == len(buf)

    def _key(self, s: _Args, start: int) -> tuple[str, int] | bool | None:
        """A bare key (or a ``<|"|>``-quoted one) at ``start``: (key, index after it), None (wait)
        or False (not a key). Resumable: a long key is not rescanned on the next feed."""
        buf = self.core.buf
        n = len(buf)
        resume = s.istart == start
        if buf.startswith(_GQ, start):
            j = buf.find(_GQ, s.kscan if resume and s.kscan is not None else start + len(_GQ))
            if j < 0:
                s.istart, s.kscan = start, max(start + len(_GQ), n - len(_GQ) + 1)
                return None
            return buf[start + len(_GQ):j], j + len(_GQ)
        if buf.startswith('"', start):  # lenient: a JSON-quoted key, as nested objects read it
            m = _JSON_BODY_RE.match(buf, s.kscan if resume and s.kscan is not None else start + 1)
            j = m.end()
            if j >= n or buf[j] != '"':
                s.istart, s.kscan = start, j  # resumable: at an escape boundary
                return None if not self.core.final else False
            key, diags = convert_gemma_value(buf[start:j + 1], lenient=True)
            return (key, j + 1) if not diags and isinstance(key, str) else False
        if self._partial_quote(start):
            return None
        if resume and s.iend is not None:
            q = _GKEY_REST_RE.match(buf, s.iend).end()  # type: ignore[union-attr]
        else:
            m = gemma_text.KEY_RE.match(buf, start)
            if not m:
                return False
            q = m.end()
        s.istart, s.iend = start, q
        if q >= n:
            return None
        return buf[start:q], q

    def _args(self) -> bool | None:
        """Inside ``{``...``}``: the next ``key:value`` member, or the close."""
        core, c = self.core, self.c
        call = core.call
        assert call is not None
        s = self.st
        assert isinstance(s, _Args)
        if not core.ws():
            return False
        buf, n = core.buf, len(core.buf)
        if buf.startswith(c.close, core.pos):
            core.pos += len(c.close)
            core.end_call()
            return True
        start = core.pos
        if call.keys:
            if buf[start] != ",":
                core.bad_call(f"expected ',' or {c.close!r}")
                return True
            start = core.ws_from(start + 1)
            if start >= n:
                return False
            if buf.startswith(c.close, start):  # a trailing comma
                core.pos = start + len(c.close)
                core.end_call()
                return True
        got = self._key(s, start)
        if got is None:
            return False
        if got is False:
            core.bad_call("expected an argument name")
            return True
        assert isinstance(got, tuple)
        key, q = got
        q = core.ws_from(q)
        if q >= n:
            return False
        if buf[q] != ":":
            core.bad_call("expected ':' after an argument name")
            return True
        q = core.ws_from(q + 1)
        if q >= n or self._partial_quote(q):
            return False
        core.pos = q
        keep = core.member_key(key)
        if keep and buf.startswith(_GQ, q):
            core.args(core.member_prefix(key) + '"')
            self.st = _String(q + len(_GQ), q + len(_GQ))
            core.step = self._string
        else:
            self.st = Pinned(q, q + core.base, key, keep, scan=q)
            core.step = self._value
        return True

    def _string(self) -> bool | None:
        """A streamed ``<|"|>`` string: raw text up to the next ``<|"|>`` (a partial one is held back)."""
        core = self.core
        s = self.st
        assert isinstance(s, _String)
        buf = core.buf
        n = len(buf)
        j = buf.find(_GQ, s.scan)
        if j < 0:
            hold = 0
            if not core.final:
                for k in range(min(len(_GQ) - 1, n - s.scan), 0, -1):
                    if buf.endswith(_GQ[:k]):
                        hold = k
                        break
            safe = n - hold
            self._emit(s, safe)
            s.scan = safe
            core.pos = n
            return False
        self._emit(s, j)
        core.args('"')
        core.pos = j + len(_GQ)
        core.step = self._args
        self.st = _Args()
        return True

    def _emit(self, s: _String, b: int) -> None:
        a = s.emitted
        if b > a:
            self.core.args(esc(self.core.buf[a:b]))
            s.emitted = b

    def _scan(self, s: Pinned) -> int:
        """The end of the value at ``s.start``: the index of the ',' or closer at depth 0, or of
        a '<' that starts no string (a value holds none outside strings); -1: more input needed.
        Resumable: the scan state lives in ``s``."""
        buf = self.core.buf
        i, n = s.scan, len(buf)
        depth, instr = s.depth, s.instr
        end = -1
        while i < n:
            if instr == '"':  # a JSON string (lenient, as nested values read it)
                i = _JSON_BODY_RE.match(buf, i).end()  # type: ignore[union-attr]
                if i >= n or buf[i] != '"':
                    break
                i, instr = i + 1, False
                continue
            if instr:
                j = buf.find(_GQ, i)
                if j < 0:
                    i = max(i, n - len(_GQ) + 1)
                    break
                i, instr = j + len(_GQ), False
                continue
            ch = buf[i]
            if ch == "<":
                if buf.startswith(_GQ, i):
                    i, instr = i + len(_GQ), True
                    continue
                if self._partial_quote(i):
                    break
                end = i
                break
            if ch == '"' and _value_start(buf, i, s.start):
                i, instr = i + 1, '"'
                continue
            if ch in "[{":
                depth += 1
            elif ch in "]}":
                if depth == 0:
                    end = i
                    break
                depth -= 1
            elif ch == "," and depth == 0:
                end = i
                break
            i += 1
        s.scan, s.depth, s.instr = i, depth, instr
        if end < 0:
            return -1
        while end > s.start and buf[end - 1] in WS:
            end -= 1
        return end

    def _value(self) -> bool | None:
        core = self.core
        s = self.st
        assert isinstance(s, Pinned)
        end = self._scan(s)
        if end < 0:
            cut = min(s.scan, len(core.buf))
            if cut - s.start > FLUSH:
                s.parts.append(core.buf[s.start:cut])
                s.start = cut
            return False
        raw = s.raw(core.buf, end)
        core.pos = end
        value, diags = convert_gemma_value(raw, lenient=True, offset=s.at)
        if any(d.code == "invalid_literal" for d in diags):
            core.bad_call(f"argument {s.key!r} is not a Gemma 4 value")
            return True
        core.diagnostics.extend(diags)
        if s.keep:
            core.args(core.member_prefix(s.key) + dumps_arguments(value))
        core.step = self._args
        self.st = _Args()
        return True


def _value_start(buf: str, i: int, start: int) -> bool:
    """Whether ``buf[i]`` starts a value: the first of the value at ``start``, or after ':', ',', '[' or '{'."""
    j = i
    while j > start and buf[j - 1] in WS:
        j -= 1
    return j == start or buf[j - 1] in ":,[{"
