"""The reader of Python-style calls (:class:`~toolgram.grammars.spec.PythonCall`): ``N(k=v, ...)``."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..pyliteral import N_NAME_MAX
from ..values import convert_python_value, dumps_arguments
from ._common import FAIL, IDENT_RE, WAIT, Core, Head, Pinned, Reader, State, esc, pinned, unescape_units

_IDENT_REST_RE = re.compile(r"[A-Za-z0-9_.\-]*")
#: one escape of a Python string literal, or a lone backslash
_PY_ESCAPE = re.compile(rf"\\N\{{[^}}\\]{{0,{N_NAME_MAX}}}\}}"
                        r"|\\x[0-9a-fA-F]{2}|\\u[0-9a-fA-F]{4}|\\U[0-9a-fA-F]{8}|\\[0-7]{1,3}|\\.?", re.S)
#: a buffer that ends inside a ``\N{NAME}`` escape that may still close (bounded: see N_NAME_MAX)
_N_OPEN = re.compile(rf"\\N(?:\{{[^}}\\]{{0,{N_NAME_MAX}}})?")
_IDENT_AT_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*[ \t]*")
#: how far past a quote the reader looks to tell whether it closes the string (whitespace, a name)
_LOOK = 64


def _py_unit(unit: str, quote: str) -> str | None:
    """One Python escape decoded, or None if it is invalid."""
    value, diags = convert_python_value(quote + unit + quote, lenient=True, offset=0)
    return value if not diags and isinstance(value, str) else None


@dataclass(slots=True)
class _Args(State):
    """Between arguments; an argument name that reached the end of the buffer: it starts at
    ``istart`` and was read up to ``iend``."""

    istart: int | None = None
    iend: int = 0

    def low(self) -> int:
        return State.low(self) if self.istart is None else min(self.istart, self.iend)

    def shift(self, low: int) -> None:
        if self.istart is not None:
            self.istart, self.iend = max(self.istart - low, 0), max(self.iend - low, 0)


@dataclass(slots=True)
class _String(State):
    """A streamed string value quoted with ``quote``: sent up to ``emitted``, scanned up to ``scan``;
    ``esc`` the last escape (it may be unfinished at the end of the buffer)."""

    quote: str
    emitted: int
    scan: int
    esc: list[int] = field(default_factory=list)
    noted: set[str] = field(default_factory=set)  # the lenient readings reported (once per string each)

    def low(self) -> int:
        return min(self.emitted, self.scan, *self.esc)

    def shift(self, low: int) -> None:
        self.emitted, self.scan = max(self.emitted - low, 0), max(self.scan - low, 0)
        self.esc = [v - low for v in self.esc]


class PythonReader(Reader):
    """``N(`` then keyword arguments with Python literal values, then ``)``."""

    def __init__(self, core: Core) -> None:
        super().__init__(core)
        self.st: _Args | _String | Pinned | State = _Args()

    def head(self, q: int, bare: bool) -> Head:
        core = self.core
        buf = core.buf
        m = IDENT_RE.match(buf, q, q + core.max_name + 1)  # bounded: no rescans of a long word
        if not m:
            return WAIT if q >= len(buf) and not core.final else None
        if m.end() - q > core.max_name:
            return None
        if m.end() >= len(buf):
            return None if core.final else WAIT
        q2 = core.skip_ws_at(m.end())
        if q2 in (WAIT, FAIL):
            return None if q2 == FAIL else WAIT
        assert isinstance(q2, int)
        if buf[q2] != "(":
            return None
        return m.group(), q2 + 1

    def start(self) -> None:
        self.core.step = self._args
        self.st = _Args()

    def cut(self) -> str | None:
        s = self.st
        if self.core.step == self._value and isinstance(s, Pinned) and s.keep:
            return self.core.member_prefix(s.key) + s.raw(self.core.buf, len(self.core.buf))
        return None

    def _args(self) -> bool | None:
        core = self.core
        if not core.ws():
            return False
        buf = core.buf
        ch = buf[core.pos]
        if ch == ")":
            core.pos += 1
            core.end_call()
            return True
        if core.call is not None and core.call.keys:
            if ch != ",":
                core.bad_call("expected ',' or ')'")
                return True
            q = core.ws_from(core.pos + 1)
            n = len(buf)
            if q >= n:
                return False
            if buf[q] == ")":
                core.pos = q + 1
                core.end_call()
                return True
            start = q
        else:
            start = core.pos
        s = self.st
        assert isinstance(s, _Args)
        if s.istart == start:  # resume a name that reached the end of the buffer
            q = _IDENT_REST_RE.match(buf, s.iend).end()  # type: ignore[union-attr]
        else:
            m = IDENT_RE.match(buf, start)
            if not m:
                core.bad_call("expected an argument name")
                return True
            q = m.end()
        s.istart, s.iend = start, q
        n = len(buf)
        q = core.ws_from(q)
        if q >= n:
            return False
        if buf[q] != "=":
            core.bad_call("expected '=' after an argument name")
            return True
        q = core.ws_from(q + 1)
        if q >= n and not core.final:
            return False
        key = buf[start:s.iend]
        quote = buf[q] if q < n else ""
        if quote in ("'", '"') and q + 2 >= n and not core.final:
            return False  # is it a triple quote?
        core.pos = q
        keep = core.member_key(key)
        if quote in ("'", '"') and keep and buf[q:q + 3] != quote * 3:
            core.args(core.member_prefix(key) + '"')
            self.st = _String(quote, q + 1, q + 1)
            core.step = self._string
        else:
            self.st = Pinned(q, q + core.base, key, keep, scan=q)
            core.step = self._value
        return True

    def _closes(self, i: int) -> bool | None:
        """Does the quote at ``i`` close the string? Only where the call goes on after it: ``)`` (not followed
        by another ``)`` or a quote), or ``,`` then ``)`` or the next ``name=`` (lenient: ``'sed -n '1,5p' f'``
        holds its inner quotes, as vLLM reads it; valid Python goes on so after a top-level string argument).
        None: the text after it has not arrived.
        The look-ahead is bounded (``_LOOK``): past it, the quote closes the string."""
        core = self.core
        buf, n = core.buf, len(core.buf)
        undecided = True if core.final else None

        def gap(q: int) -> tuple[int, bool]:
            """The index after the whitespace at ``q`` (at most ``_LOOK`` characters), and whether it was that long."""
            start = q
            while q < n and buf[q] in " \t\r\n" and q - start < _LOOK:
                q += 1
            return q, q - start >= _LOOK

        q, long = gap(i + 1)
        if q >= n:
            return undecided
        if long:
            return True
        if buf[q] == ")":  # the call's end is not followed by another ")" or a quote (``mul_symbol='\\,'))"``)
            r, long = gap(q + 1)
            if r >= n:
                return undecided
            return long or buf[r] not in ")'\""
        if buf[q] != ",":
            return False
        q, long = gap(q + 1)
        if q >= n:
            return undecided
        if long or buf[q] == ")":
            return True
        m = _IDENT_AT_RE.match(buf, q, q + _LOOK)
        if m is None:
            return False
        e = m.end()
        if e - q >= _LOOK:
            return True
        if e >= n or (buf[e] == "=" and e + 1 >= n):  # ``name=`` or ``name==``: the next character tells
            return undecided
        return buf[e] == "=" and buf[e + 1] != "="

    def _string(self) -> bool | None:
        core = self.core
        s = self.st
        assert isinstance(s, _String)
        buf = core.buf
        i, n = s.scan, len(buf)
        q = s.quote
        while i < n:
            ch = buf[i]
            if ch == "\\":
                s.esc = [i]
                i += 2
                continue
            if ch == q:
                closes = self._closes(i)
                if closes is None:  # wait for the text after the quote
                    s.scan = i
                    self._emit(s, i)
                    core.pos = n
                    return False
                if closes:
                    break
                self._note(s, "unescaped_quote", "a quote inside a string argument, read as text", i)
            elif ch == "\n":
                self._note(s, "raw_newline", "a raw newline inside a string argument, read as a newline", i)
            i += 1
        if i >= n:
            s.scan = i
            safe = n
            if s.esc:
                e = s.esc[0]
                if n - e < 12 or _N_OPEN.fullmatch(buf, e):  # the escape may still grow
                    safe = min(safe, e)
            self._emit(s, safe)
            core.pos = n
            return False
        self._emit(s, i)
        core.args('"')
        core.pos = i + 1
        core.step = self._args
        self.st = _Args()
        return True

    def _note(self, s: _String, code: str, message: str, at: int) -> None:
        """Report a lenient reading once per string; the text before it is emitted first, so diagnostics
        come in the order of the text however it was chunked."""
        if code not in s.noted:
            s.noted.add(code)
            self._emit(s, at)
            self.core.diag(code, message, at)

    def _emit(self, s: _String, b: int) -> None:
        a = s.emitted
        if b <= a:
            return
        core = self.core
        seg = core.buf[a:b]
        q = s.quote
        if "\\" not in seg:  # no escape: the text is the value (a quote or newline ended the string before b)
            core.args(esc(seg))
            s.emitted = b
            return
        # a quote or newline read as text (lenient) cannot go through the literal reader: escapes one at a time
        value, diags = (None, None) if q in seg or "\n" in seg else convert_python_value(
            q + seg + q, lenient=True, offset=a - 1 + core.base)
        if diags or not isinstance(value, str):
            value = unescape_units(core, seg, a, _PY_ESCAPE, lambda unit: _py_unit(unit, q))
        core.args(esc(value))
        s.emitted = b

    def _value(self) -> bool | None:
        core = self.core
        s = self.st
        assert isinstance(s, Pinned)
        raw = pinned(core, s)
        if raw is None:
            return False
        value, diags = convert_python_value(raw, lenient=True, offset=s.at)
        core.diagnostics.extend(diags)
        if s.keep:
            core.args(core.member_prefix(s.key) + dumps_arguments(value))
        core.step = self._args
        self.st = _Args()
        return True
