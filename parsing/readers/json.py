"""The reader of JSON arguments objects, and of JSON call objects (:class:`~toolgram.grammars.spec.JsonCall`)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from ...grammars.spec import JsonCall
from ..values import dumps_arguments, loads_json
from ._common import (
    FAIL,
    NO_STATE,
    WAIT,
    WS,
    Core,
    Head,
    Pinned,
    Reader,
    State,
    Step,
    esc,
    pinned,
    scan_value,
    unescape_units,
)

#: one escape of a JSON string (a surrogate pair is one escape), or a lone backslash
_JSON_ESCAPE = re.compile(r"\\u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}|\\u[0-9a-fA-F]{4}|\\.?", re.S)
_STRING_STOP_RE = re.compile(r'["\\]')


def _json_unit(unit: str) -> str | None:
    """One JSON escape decoded, or None if it is invalid."""
    try:
        return json.loads('"' + unit + '"', strict=False)
    except ValueError:
        return None


def _is_high(buf: str, e: int) -> bool:
    h = buf[e + 2:e + 6].lower()
    return buf[e + 1:e + 2] == "u" and len(h) == 4 and "d800" <= h <= "dbff"


def _json_string_end(buf: str, i: int, j: int) -> tuple[int, int]:
    """Index past the closing quote of the JSON string at ``i``, or -1 if unfinished, and where to
    resume the scan (``j``: the first index not read yet, after ``i``)."""
    n = len(buf)
    while j < n:
        m = _STRING_STOP_RE.search(buf, j)
        if m is None:
            return -1, n
        j = m.start()
        if buf[j] == "\\":
            j += 2
            continue
        return j + 1, j + 1
    return -1, j


def _shift(v: int | None, low: int) -> int | None:
    return None if v is None else max(v - low, 0)


@dataclass(slots=True)
class _Member(State):
    """Between members: ``first`` (no ',' expected); a member name being read: ``kscan`` where its
    scan resumes, ``kend`` past its closing quote, ``kq`` after the ':' (None: not reached)."""

    first: bool
    kscan: int | None = None
    kend: int | None = None
    kq: int | None = None

    def low(self) -> int:
        return min((v for v in (self.kscan, self.kend, self.kq) if v is not None), default=State.low(self))

    def shift(self, low: int) -> None:
        self.kscan, self.kend, self.kq = _shift(self.kscan, low), _shift(self.kend, low), _shift(self.kq, low)


@dataclass(slots=True)
class _String(State):
    """A streamed string value: sent up to ``emitted``, scanned up to ``scan``; ``esc`` the last
    (at most two) escapes, which may be unfinished at the end of the buffer."""

    emitted: int
    scan: int
    esc: list[int] = field(default_factory=list)

    def low(self) -> int:
        return min(self.emitted, self.scan, *self.esc)

    def shift(self, low: int) -> None:
        self.emitted, self.scan = max(self.emitted - low, 0), max(self.scan - low, 0)
        self.esc = [v - low for v in self.esc]


class JsonArgsReader(Reader):
    """The members of a JSON arguments object after its ``{``; ``after_args`` reads on after its ``}``."""

    after_args: Step

    def __init__(self, core: Core) -> None:
        super().__init__(core)
        self.st: _Member | _String | Pinned | State = NO_STATE

    def cut(self) -> str | None:
        s = self.st
        if self.core.step == self._value and isinstance(s, Pinned) and s.keep:
            return self.core.member_prefix(s.key) + s.raw(self.core.buf, len(self.core.buf))
        return None

    def _members(self) -> None:
        """The arguments object is open: read its members."""
        self.core.step = self._member
        self.st = _Member(True)

    def _member(self) -> bool | None:
        core = self.core
        s = self.st
        assert isinstance(s, _Member)
        if not core.ws():
            return False
        buf = core.buf
        pos = core.pos
        ch = buf[pos]
        if ch == "}":
            core.pos += 1
            core.close_args()
            core.step = self.after_args
            return True
        if not s.first:
            if ch != ",":
                core.bad_call("expected ',' or '}' in the arguments")
                return True
            core.pos += 1
            self.st = _Member(True)
            return True
        if ch != '"':
            core.bad_call("expected an argument name")
            return True
        end = s.kend
        if end is None:
            end, s.kscan = _json_string_end(buf, pos, pos + 1 if s.kscan is None else s.kscan)
            if end < 0:
                return False  # resumable: an unterminated name is not rescanned on the next feed
            s.kend = end
        try:
            key = json.loads(buf[pos:end], strict=False)
        except ValueError:
            core.bad_call("invalid argument name")
            return True
        q, n = (end if s.kq is None else s.kq), len(buf)
        if q == end:
            q = core.ws_from(end)
            if q >= n:
                return False
            if buf[q] != ":":
                core.bad_call("expected ':' after an argument name")
                return True
            q += 1
        while q < n and buf[q] in WS:
            q += 1
        if q >= n:
            s.kq = q  # after the ':' (resumable)
            return False
        core.pos = q
        keep = core.member_key(key)
        if buf[q] == '"' and keep:
            core.args(core.member_prefix(key) + '"')
            self.st = _String(q + 1, q + 1)
            core.step = self._string
        else:
            self.st = Pinned(q, q + core.base, key, keep, scan=q)
            core.step = self._value
        return True

    def _string(self) -> bool | None:
        core = self.core
        s = self.st
        assert isinstance(s, _String)
        buf = core.buf
        i, n = s.scan, len(buf)
        esc_at = s.esc
        while i < n:
            ch = buf[i]
            if ch == "\\":
                esc_at.append(i)
                if len(esc_at) > 2:
                    del esc_at[0]
                i += 2
                continue
            if ch == '"':
                break
            i += 1
        if i >= n:
            s.scan = i
            safe = min(i, n)
            if esc_at and n - esc_at[-1] < 12:
                safe = esc_at[-1]
                if len(esc_at) == 2 and esc_at[0] == esc_at[1] - 6 and _is_high(buf, esc_at[0]):
                    safe = esc_at[0]
            self._emit(s, safe)
            core.pos = n
            return False
        self._emit(s, i)
        core.args('"')
        core.pos = i + 1
        core.step = self._member
        self.st = _Member(False)
        return True

    def _emit(self, s: _String, b: int) -> None:
        a = s.emitted
        if b <= a:
            return
        seg = self.core.buf[a:b]
        try:
            text = json.loads('"' + seg + '"', strict=False)
        except ValueError:
            text = unescape_units(self.core, seg, a, _JSON_ESCAPE, _json_unit)
        self.core.args(esc(text))
        s.emitted = b

    def _value(self) -> bool | None:
        core = self.core
        s = self.st
        assert isinstance(s, Pinned)
        raw = pinned(core, s)
        if raw is None:
            return False
        try:
            value, diags = loads_json(raw, lenient=True, offset=s.at)
        except ValueError:
            core.bad_call(f"argument {s.key!r} is not valid JSON")
            return True
        core.diagnostics.extend(diags)
        if s.keep:
            core.args(core.member_prefix(s.key) + dumps_arguments(value))
        core.step = self._member
        self.st = _Member(False)
        return True


@dataclass(slots=True)
class _Envelope(State):
    """The call object after the name: how many of ``, "arguments" : {`` were read."""

    step: int = 0


class JsonReader(JsonArgsReader):
    """``{"name": N, "arguments": {...}}`` with the keys the description names (or ``{"N": {...}}``)."""

    def __init__(self, core: Core, c: JsonCall) -> None:
        super().__init__(core)
        self.c = c
        self.after_args = self._close
        self._pre_args: tuple[int, int] | None = None  # the arguments read before the name (output offsets)
        self._scans: dict[int, tuple[int, Pinned]] = {}  # the resumable scan of such arguments

    def head(self, q: int, bare: bool) -> Head:
        """``{``, an id member first if the syntax writes one there, then the name member up to the
        name (``{"N":`` when the name is the key)."""
        c = self.c
        got_q: Any = self._lit_at("{", q)
        if got_q is None and self.core.spec.scope.per_call:  # type: ignore[attr-defined]
            # lenient: a JSON list of call objects inside one block (``<tool_call>[{...}, {...}]``)
            got_q = self._lit_at("[", q)
            got_q = self._lit_at("{", got_q) if isinstance(got_q, int) else got_q
        if not isinstance(got_q, int):
            return got_q
        q = got_q
        if c.id_key is not None and c.id_first:
            r = self._lit_at(json.dumps(c.id_key), q)
            if r == WAIT:
                return WAIT
            if r is not None:  # the id member (the message numbers its calls: see JsonCall)
                r = self._lit_at(":", r)
                got = self._string_at(r, 64) if isinstance(r, int) else r
                if not isinstance(got, tuple):
                    return got
                self.head_id = got[0]
                got_q = self._lit_at(",", got[1])
                if not isinstance(got_q, int):
                    return got_q
                q = got_q
        self._pre_args = None
        if not c.name_as_key:
            first = q
            for lit in (json.dumps(c.name_key), ":"):
                got_q = self._lit_at(lit, q)
                if got_q is None and q == first:
                    return self._args_first(q)
                if not isinstance(got_q, int):
                    return got_q
                q = got_q
        got = self._string_at(q, self.core.max_name + 1)
        if not isinstance(got, tuple):
            return got
        name, end = got
        if c.name_as_key:
            got_q = self._lit_at(":", end)
            if not isinstance(got_q, int):
                return got_q
            end = got_q
        return name, end

    def _args_first(self, q: int) -> Head:
        """Lenient: ``{"arguments": {...}, "name": N}``: the arguments are buffered (their scan
        resumes across feeds, so the wait stays linear) until the name arrives; the call is then
        committed and its arguments emitted at once (:meth:`start`)."""
        core = self.core
        for key in dict.fromkeys((self.c.args_key, *self.c.read_args_keys)):
            got_q = self._lit_at(json.dumps(key), q)
            if got_q is not None:
                break
        if not isinstance(got_q, int):
            return got_q
        got_q = self._lit_at(":", got_q)
        if not isinstance(got_q, int):
            return got_q
        a = core.skip_ws_at(got_q)
        if a in (WAIT, FAIL):
            return None if a == FAIL else WAIT
        assert isinstance(a, int)
        if core.buf[a] not in '{"':  # the object, or the object JSON-encoded in a string
            return None
        key_at = a + core.base
        cached = self._scans.get(key_at)
        if cached is None:
            self._scans = {key_at: (core.base, Pinned(a, scan=a))}
            cached = self._scans[key_at]
        base0, ps = cached
        if base0 != core.base:
            ps.shift(core.base - base0)
            self._scans[key_at] = (core.base, ps)
        end = scan_value(core.buf, ps)
        if end < 0:
            return WAIT if not core.final else None
        r = core.ws_from(end)
        got_q = self._lit_at(",", r)
        for lit in (json.dumps(self.c.name_key), ":"):
            if not isinstance(got_q, int):
                return got_q
            got_q = self._lit_at(lit, got_q)
        if not isinstance(got_q, int):
            return got_q
        got = self._string_at(got_q, core.max_name + 1)
        if not isinstance(got, tuple):
            return got
        self._pre_args = (a + core.base, end + core.base)
        return got

    def _lit_at(self, lit: str, q: int) -> Any:
        """Whitespace then ``lit`` at ``q``: the index after it, None (something else) or WAIT."""
        core = self.core
        q2 = core.skip_ws_at(q)
        if q2 in (WAIT, FAIL):
            return None if q2 == FAIL else WAIT
        assert isinstance(q2, int)
        res = core.peek(lit, q2)
        if res is not True:
            return WAIT if res == WAIT else None
        return q2 + len(lit)

    def _string_at(self, q: int, limit: int) -> Any:
        """Whitespace then a JSON string of at most ``limit`` characters (escapes decoded; its
        source text at most ``6 * limit``, ``\\uXXXX`` each): (text, index after it), None or WAIT."""
        core = self.core
        q2 = core.skip_ws_at(q)
        if q2 in (WAIT, FAIL):
            return None if q2 == FAIL else WAIT
        assert isinstance(q2, int)
        buf = core.buf
        if buf[q2] != '"':
            return None
        i, stop = q2 + 1, min(len(buf), q2 + 6 * limit + 2)
        while i < stop and buf[i] != '"':
            i += 2 if buf[i] == "\\" else 1
        if i >= stop:
            return WAIT if stop == len(buf) < q2 + 6 * limit + 2 and not core.final else None
        try:
            text = json.loads(buf[q2:i + 1])
        except ValueError:
            return None
        return (text, i + 1) if len(text) <= limit else None

    def start(self) -> None:
        self.core.step = self._envelope
        self.st = _Envelope()
        if self._pre_args is not None:
            self._emit_pre_args()

    def _emit_pre_args(self) -> None:
        """The arguments written before the name (lenient): emitted whole, then the call object's close."""
        core = self.core
        a, e = self._pre_args  # type: ignore[misc]
        self._pre_args, self._scans = None, {}
        core.diag("arguments_before_name", "the arguments stand before the name; read in either order",
                  a - core.base)
        raw = core.buf[a - core.base:e - core.base]
        try:
            value, diags = loads_json(raw, lenient=True, offset=a)
            if isinstance(value, str):
                core.diag("arguments_string", "the arguments are a JSON-encoded string; read as the object it "
                          "encodes", a - core.base)
                value, diags = loads_json(value, lenient=True)
        except ValueError:
            value, diags = None, []
        if not isinstance(value, dict):
            core.bad_call("the arguments are not a JSON object")
            return
        core.diagnostics.extend(diags)
        self._emit_object(value)
        core.step = self._close

    def _emit_object(self, value: dict[str, Any]) -> None:
        """Emit the members of an arguments object read whole, and close it (top-level duplicates
        cannot occur: a decoded object holds each key once)."""
        core = self.core
        for key, v in value.items():
            if core.member_key(key):
                core.args(core.member_prefix(key) + dumps_arguments(v))
        core.close_args()

    def awaits_close(self) -> bool:
        return self.core.step in (self._close, self._skip)

    def _envelope(self) -> bool | None:
        """After the name: ``, "arguments" : {``."""
        core, c = self.core, self.c
        s = self.st
        assert isinstance(s, _Envelope)
        steps = [",", None, ":", "{"]
        if c.name_as_key and not s.step:
            s.step = 3  # {"N": then the arguments object
        while s.step < len(steps):
            if not core.ws():
                return False
            lit = steps[s.step]
            if lit is None:
                res: Any = False
                for key in dict.fromkeys((c.args_key, *c.read_args_keys)):
                    res = core.lit(f'"{key}"')
                    if res is not False:
                        break
            else:
                res = core.lit(lit)
            if res == WAIT:
                return False
            if res is False:
                if lit == "{" and core.buf[core.pos] == '"':
                    self.st = Pinned(core.pos, core.pos + core.base, scan=core.pos)
                    core.step = self._args_string
                    return True
                if lit == "," and core.buf[core.pos] == "}":
                    core.pos += 1
                    core.end_call()
                    return True
                core.bad_call("expected the arguments object")
                return True
            s.step += 1
        self._members()
        return True

    def _args_string(self) -> bool | None:
        """Lenient: ``"arguments": "{\\"k\\": 1}"``, the object JSON-encoded in a string (Hermes, Nemotron
        and Granite models write it): read as the object it encodes, once the string is complete."""
        core = self.core
        s = self.st
        assert isinstance(s, Pinned)
        raw = pinned(core, s)
        if raw is None:
            return False
        try:
            text = json.loads(raw.rstrip(WS))
            value, diags = loads_json(text, lenient=True) if isinstance(text, str) else (None, [])
        except ValueError:
            value, diags = None, []
        if not isinstance(value, dict):
            core.bad_call("the arguments string does not encode a JSON object")
            return True
        core.diag("arguments_string", "the arguments are a JSON-encoded string; read as the object it encodes",
                  s.at - core.base)
        core.diagnostics.extend(diags)
        self._emit_object(value)
        core.step = self._close
        return True

    def _close(self) -> bool | None:
        """After the arguments: the call object's ``}``; members after the arguments (an id) are
        skipped, their values not kept (see JsonCall)."""
        core = self.core
        if not core.ws():
            return False
        buf = core.buf
        if buf[core.pos] == "}":
            core.pos += 1
        elif buf[core.pos] == ",":
            q = core.ws_from(core.pos + 1)
            if q >= len(buf):
                return False
            if buf[q] == '"':  # another member of the call object, not a next call
                core.pos = q
                self.st = Pinned(q, scan=q)
                core.step = self._skip
                return True
            core.diag("invalid_call", "the call object is not closed", core.pos)
        else:
            core.diag("invalid_call", "the call object is not closed", core.pos)
        core.after_call()
        return True

    def _skip(self) -> bool | None:
        """A member of the call object after the arguments: skipped whole."""
        s = self.st
        assert isinstance(s, Pinned)
        if pinned(self.core, s) is None:
            return False  # wait; at the end of input the call was cut off
        self.st = NO_STATE
        self.core.step = self._close
        return True
