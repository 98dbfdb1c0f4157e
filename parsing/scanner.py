"""The character-incremental scanner behind lenient parsing and streaming (SPEC section 4).

It is generated from a :class:`~toolgram.grammars.spec.FormatSpec`: the scope tags, wrappers,
separators, call syntax (XML / JSON / Python) and reasoning tags all come from the description,
so no format id is ever tested here.  The scanner keeps the whole input in one buffer and a
cursor; every step consumes input or stops to wait for more, and the only look-ahead it holds
back is bounded (a tag prefix, a call head up to its tool name, an unfinished escape), so
feeding the text in any chunking costs linear time and produces the same final message.
Whole-output lenient parsing is this scanner fed the whole text at once.
"""

from __future__ import annotations

import codecs
import json
import re
from collections.abc import Callable
from typing import Any

from ..grammars.spec import CallId, FormatSpec, GemmaCall, HeaderJsonCall, JsonCall, NamedJsonCall, XmlCall
from ..grammars.syntax import gemma_text
from .diagnostics import Diagnostic
from .values import (
    convert_gemma_value,
    convert_python_value,
    convert_xml_value,
    dumps_arguments,
    loads_json,
    schema_types,
)

WS = " \t\n\r"
_MAX_WS = 64  # whitespace allowed inside a call head before the name
_IDENT_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]*")
_IDENT_REST_RE = re.compile(r"[A-Za-z0-9_.\-]*")
_CALL_ID_RE = re.compile(r"[A-Za-z0-9_\-]{1,64}")
_WAIT = "wait"
_OFFSET_KEYS = ("start", "emitted", "search", "scan", "cand", "cscan", "kscan", "kend", "kq", "istart", "iend")
_FLUSH = 4096  # a pinned value longer than this moves its settled text out of the buffer (see _pin_flush)
_FAIL = "fail"
_GQ = gemma_text.QUOTE  # Gemma 4's string delimiter
_GKEY_REST_RE = re.compile("[^" + re.escape(gemma_text.KEY_EXCLUDED) + "]*")


def _esc(text: str) -> str:
    """``text`` as the body of a JSON string in ``arguments`` (per-character, so pieces concatenate)."""
    return dumps_arguments(text)[1:-1]


class _Call:
    __slots__ = ("index", "name", "tool", "keys", "args", "done")

    def __init__(self, index: int, name: str, tool: dict[str, Any]) -> None:
        self.index = index
        self.name = name
        self.tool = tool
        self.keys: set[str] = set()
        self.args: list[str] = []
        self.done = False


class Scanner:
    """Incremental lenient reader of one model output; collects deltas and the final message."""

    def __init__(
        self,
        spec: FormatSpec,
        tools: dict[str, dict[str, Any]],
        *,
        reasoning: str = "none",
        calls_enabled: bool = True,
        parallel: bool = True,
        needs_call: bool = False,
        all_names: frozenset[str] = frozenset(),
        loose: frozenset[str] = frozenset(),
        max_calls: int | None = None,
    ) -> None:
        self.spec = spec
        self.tools = tools  # callable tool name -> parameters schema
        self.all_names = all_names
        self.calls_enabled = calls_enabled
        self.parallel = parallel
        self.needs_call = needs_call
        self.loose = loose  # tools with ``strict: false``: their schemas type values but do not reject them
        self.max_calls = max_calls
        self.max_name = max((len(n) for n in (*tools, *all_names)), default=0)
        sc = spec.scope
        c = spec.call
        # openers recognised in free text: (literal, kind)
        self.openers: list[tuple[str, str]] = []
        # an anchored list without an opening whose calls start with the tool name (Functionary
        # v3.2's ``N\n{...}``): nothing in free text opens it; the "list_start" state reads a call
        # head at the very start of the output instead
        self.name_first = (not sc.per_call and sc.section is None and not sc.open and sc.anchored
                           and isinstance(c, NamedJsonCall) and not c.head
                           and not (c.call_id is not None and c.call_id.before_name))
        # the closing text of each wrapper (and of a list's section), by its opening literal
        self.wrapper_closes = {w.open: w.close for w in sc.wrappers}
        self.scope_open = sc.open.rstrip(WS)
        if sc.section is not None:
            opening = sc.section.open.rstrip(WS)
            self.openers.append((opening, "section" if sc.per_call else "wrapper"))
            self.wrapper_closes[opening] = sc.section.close
        if sc.per_call:
            # a block without its section (lenient: a missing_scope diagnostic)
            self.openers.append((self.scope_open, "scope"))
            if isinstance(c, XmlCall) and c.function_open:
                self.openers.append((c.function_open, "bare"))
            if isinstance(c, HeaderJsonCall):
                self.openers.extend((h, "header") for h in c.read_heads)  # other header spellings
        else:
            for w in sc.wrappers:
                self.openers.append((w.open, "wrapper"))
            if sc.section is None and not self.name_first:
                self.openers.append((sc.open or "{", "list"))
            elif self.name_first and calls_enabled:
                # lenient: a callable tool's name line and the arguments' "{" after free text (with a
                # calls_after_text diagnostic)
                self.openers.extend((name + c.name_end + "{", "list") for name in tools)  # type: ignore[union-attr]
        self.scope_close = sc.close.strip(WS)
        firsts = "".join(sorted({o[0][0] for o in self.openers}))
        self.r = spec.reasoning if reasoning != "none" else None
        if self.r is not None:
            firsts += self.r.open[0] + self.r.close[0]
        self.text_re = re.compile("[" + re.escape(firsts) + "]" if firsts else "(?!)")
        if isinstance(c, XmlCall):
            # The value padding is what the format's own description writes around a value
            # (qwen3_coder: ">\n" ... "\n</parameter>"; seed_oss: none); only that is stripped.
            # The key ends at x_gt: the quote of a quoted name (MiniMax, DSML), the first tag of
            # param_name_end (GLM's "</arg_key>"), else ">".  Then the value's opening tag, if the
            # description has one (GLM's "<arg_value>", DSML's 'string="true">'), after any whitespace.
            ne = c.param_name_end
            self.x_gt = '"' if c.quoted_key else (">" if ne.startswith(">") or ">" not in ne
                                                   else ne[:ne.index(">") + 1])
            self.x_pad_open = ne[len(self.x_gt):][ne[len(self.x_gt):].rfind(">") + 1:]
            opens = [e[len(self.x_gt):][:e[len(self.x_gt):].rfind(">") + 1].strip(WS)
                     for e in (ne, c.json_name_end) if e is not None]
            if c.json_name_end is not None:
                opens.append(">")  # a quoted name without its attribute (lenient)
            self.x_value_open = tuple(dict.fromkeys(o for o in opens if o))
            self.x_end_tag = c.param_end.strip(WS)
            self.x_pad_close = c.param_end[:c.param_end.index(self.x_end_tag)]
            # a value ends at an end tag followed (after whitespace) by one of these, or by the end;
            # without a function_end (GLM) the scope's close follows the last value
            self.x_followers = (c.param_open, c.function_end.strip(WS) or self.scope_close)
            self.x_key_bad = re.compile("[\n<]")
            # the name ends at the description's name_end (a missing one: at the next tag, not consumed);
            # a whitespace-only or empty one (GLM's "\n" or ""): at whitespace or the next tag
            self.x_name_stop = c.name_end.rstrip(WS) or c.name_end or "<"
            self.x_name_eat = len(self.x_name_stop) if c.name_end.strip(WS) else 0
            self.x_name_re = None if c.name_end.strip(WS) else re.compile(r"[\s<]")
        self.buf = ""
        self.pos = 0
        self.final = False
        self.step: Callable[[], bool | None] = (
            self._s_reasoning if (self.r is not None and reasoning == "forced")
            else self._s_list_start if self.name_first else self._s_text)
        self.sub: dict[str, Any] = {}
        self.out: list[dict[str, Any]] = []
        self.content: list[str] = []
        self.reasoning_parts: list[str] = []
        self.pending_ws: dict[str, list[str]] = {"content": [], "reasoning_content": []}
        self.started = {"content": False, "reasoning_content": False}
        self.calls: list[_Call] = []
        self.call: _Call | None = None
        self.diagnostics: list[Diagnostic] = []
        self.truncated = False
        self.seen_call_end = False
        self.trailing_reported = False
        self.in_list = False
        self.in_section = False
        self.wrapper_close = ""
        self.bare = False
        self._unknown_until = 0
        self._too_many = False
        self._wscache: dict[int, int] = {}  # see _ws_from
        self._decoder: Any = None
        self.base = 0  # offset in the output of buf[0]: consumed text is dropped (see _compact)

    # -- public ------------------------------------------------------------------------------------
    def feed(self, chunk: str | bytes) -> list[dict[str, Any]]:
        """Consume ``chunk`` (``str``, or UTF-8 ``bytes`` decoded incrementally with replacement);
        return the deltas it completes. Bytes and str may be mixed; they are read in order (a
        ``str`` after an incomplete UTF-8 sequence ends it: U+FFFD)."""
        if isinstance(chunk, (bytes, bytearray)):
            if self._decoder is None:
                self._decoder = codecs.getincrementaldecoder("utf-8")("replace")
            chunk = self._decoder.decode(bytes(chunk))
        elif self._decoder is not None:
            chunk = self._decoder.decode(b"", final=True) + chunk
        if self.pos > 4096 and self.pos * 2 > len(self.buf):
            self._compact()
        start = len(self.buf)
        # Append in place: CPython grows a str that has no other reference without copying it, so a
        # long value that pins the buffer (nothing consumed yet) still costs O(chunk) per feed.
        buf = self.buf
        self.buf = ""
        buf += chunk
        self.buf = buf
        del buf
        if self.step == self._s_text and self.pos == start and not self.text_re.search(chunk):
            self._text("content", chunk, start)  # what _s_text does with plain text, minus the driver
            self.pos = len(self.buf)
        else:
            self._run()
        return self._take()

    def _compact(self) -> None:
        """Drop the consumed start of the buffer (keeps appends O(chunk)); shift the kept offsets."""
        low = self.pos
        stream = bool(self.sub.get("stream"))
        for k in _OFFSET_KEYS:
            v = self.sub.get(k)
            if isinstance(v, int) and not (stream and k == "start"):
                low = min(low, v)
        for v in self.sub.get("esc", ()):
            low = min(low, v)
        if low < 1024:
            return
        self.buf = self.buf[low:]
        self.base += low
        self._wscache.clear()
        self.pos -= low
        self._unknown_until = max(0, self._unknown_until - low)
        for k in _OFFSET_KEYS:
            v = self.sub.get(k)
            if isinstance(v, int):
                self.sub[k] = max(v - low, 0)
        if "esc" in self.sub:
            self.sub["esc"] = [v - low for v in self.sub["esc"]]

    def finish(self) -> list[dict[str, Any]]:
        """End of input: flush held text, close an unfinished call; return the last deltas."""
        if self._decoder is not None:
            self.buf += self._decoder.decode(b"", final=True)
            self._decoder = None
        self.final = True
        self._run()
        if self.call is not None:
            self._truncate_call()
        self._end_checks()
        return self._take()

    def message(self) -> dict[str, Any]:
        """The SPEC section 4 message built from everything emitted."""
        content = "".join(self.content)
        reasoning = "".join(self.reasoning_parts)
        calls = [
            {"id": f"call_{c.index}", "type": "function",
             "function": {"name": c.name, "arguments": "".join(c.args)}}
            for c in self.calls
        ]
        finish = "length" if self.truncated else ("tool_calls" if calls else "stop")
        return {
            "role": "assistant",
            "content": content or None,
            "reasoning_content": reasoning or None,
            "tool_calls": calls,
            "finish_reason": finish,
            "diagnostics": [d.to_json() for d in self.diagnostics],
        }

    # -- output --------------------------------------------------------------------------------------
    def _take(self) -> list[dict[str, Any]]:
        """The pending deltas, consecutive fragments of the same kind merged (lists + join: linear)."""
        out, self.out = self.out, []
        if len(out) < 2:
            return out
        merged: list[dict[str, Any]] = []
        pieces: list[str] = []
        target: Any = None  # the merge key of merged[-1]

        def flush() -> None:
            if len(pieces) > 1:
                last = merged[-1]
                if "tool_calls" in last:
                    last["tool_calls"][0]["function"]["arguments"] = "".join(pieces)
                else:
                    (kind,) = last
                    last[kind] = "".join(pieces)

        for d in out:
            if "tool_calls" in d:
                tc = d["tool_calls"][0]
                key: Any = tc["index"]
                cont = len(tc) == 2  # {"index", "function"}: a continuation fragment
                text = tc["function"]["arguments"]
            else:
                ((key, text),) = d.items()
                cont = True
            if cont and key == target:
                pieces.append(text)
                continue
            flush()
            merged.append(d)
            target = key
            pieces = [text]
        flush()
        return merged

    def _text(self, kind: str, text: str, at: int | None = None) -> None:
        """Emit free text of ``kind`` (content / reasoning_content), trimming at both ends."""
        if not text:
            return
        stripped = text.rstrip(WS)
        if not stripped:
            if self.started[kind]:
                self.pending_ws[kind].append(text)
            return
        if kind == "content" and self.seen_call_end and not self.trailing_reported:
            self.trailing_reported = True
            lead = len(text) - len(text.lstrip(WS))
            self._diag("trailing_text", "text after the tool calls is kept as content",
                       None if at is None else at + lead)
        if not self.started[kind]:
            stripped = stripped.lstrip(WS)
            self.started[kind] = True
            emit = stripped
        else:
            held = self.pending_ws[kind]
            emit = "".join(held) + stripped if held else stripped
        tail = text[len(text.rstrip(WS)):]
        self.pending_ws[kind] = [tail] if tail else []
        (self.content if kind == "content" else self.reasoning_parts).append(emit)
        self.out.append({kind: emit})

    def _diag(self, code: str, message: str, offset: int | None) -> None:
        self.diagnostics.append(Diagnostic(code, message, None if offset is None else offset + self.base))

    def _args(self, text: str) -> None:
        call = self.call
        assert call is not None
        if not text:
            return
        call.args.append(text)
        self.out.append({"tool_calls": [{"index": call.index, "function": {"arguments": text}}]})

    # -- driver ---------------------------------------------------------------------------------------
    def _run(self) -> None:
        while True:
            pos, step = self.pos, self.step
            if step() is False:
                return
            if self.pos == pos and self.step == step:
                return

    def _ws_from(self, q: int) -> int:
        """The first non-whitespace index at or after ``q`` (``len(buf)`` if none yet). Resumable: a
        whitespace run read while waiting for more input is not read again on the next feed."""
        start = q
        q = self._wscache.get(start, q)
        buf, n = self.buf, len(self.buf)
        while q < n and buf[q] in WS:
            q += 1
        if q >= n:
            if len(self._wscache) > 8:
                self._wscache.clear()
            self._wscache[start] = q
        return q

    def _ws(self) -> bool:
        """Skip whitespace; False when the buffer ended (more may come)."""
        n = len(self.buf)
        while self.pos < n and self.buf[self.pos] in WS:
            self.pos += 1
        return self.pos < n

    def _lit(self, lit: str) -> str | bool:
        """Match ``lit`` at the cursor: True (consumed), False (mismatch) or _WAIT (the buffer ends
        inside it; at the end of input too: a call cut off inside its syntax is truncated, not invalid)."""
        avail = self.buf[self.pos:self.pos + len(lit)]
        if avail == lit:
            self.pos += len(lit)
            return True
        if len(avail) < len(lit) and lit.startswith(avail):
            return _WAIT
        return False

    # -- free text --------------------------------------------------------------------------------------
    def _s_text(self) -> bool | None:
        buf = self.buf
        while True:
            m = self.text_re.search(buf, self.pos)
            stop = m.start() if m else len(buf)
            if stop > self.pos:
                self._text("content", buf[self.pos:stop], self.pos)
                self.pos = stop
            if m is None:
                return False
            res = self._opener()
            if res == _WAIT:
                return False
            if res is True:
                return True
            self._text("content", buf[stop], stop)
            self.pos = stop + 1

    def _s_list_start(self) -> bool | None:
        """The start of a name-first anchored list (``name_first``): after leading whitespace, a
        call head of a callable tool commits the first call of the list; anything else is free text.
        The wait is bounded: ``_head`` gives up past the longest tool name."""
        buf = self.buf
        q, n = self._ws_from(self.pos), len(self.buf)
        if q >= n and not self.final:
            return False
        self.step = self._s_text
        if q >= n or not self.calls_enabled:
            return True
        if self.r is not None:
            res = self._peek(self.r.open, q)
            if res == _WAIT:
                self.step = self._s_list_start
                return False
            if res is True:
                return True  # reasoning first: the text state reads it
        prefix = self.spec.scope.text_prefix
        if prefix:
            res = self._peek(prefix, q)
            if res == _WAIT:
                self.step = self._s_list_start
                return False
            if res is True:
                self.pos = q + len(prefix)  # the text recipient line: not part of the content
                return True
        head = self._head(q, "list")
        if head == _WAIT:
            self.step = self._s_list_start
            return False
        if head is None:
            return True
        name, end, extra = head
        # a name line is a call only when the arguments' object follows; any other first line
        # (the text recipient ``all``, a word) is plain text
        r = self._skip_ws_at(end)
        if r == _WAIT:
            self.step = self._s_list_start
            return False
        if r == _FAIL or not buf.startswith("{", r):  # type: ignore[arg-type]
            return True
        if name not in self.tools:
            what = "not a callable tool" if name in self.all_names else "not a known tool"
            self._diag("unknown_tool", f"call to {name!r}: {what}; kept as content", q)
            return True
        self._pre_call_content_checks("list", q)
        self.in_list = True
        self.pos = end
        self._commit(name, extra)
        return True

    def _at_start(self) -> bool:
        return not self.started["content"] and not self.calls

    def _opener(self) -> bool | str:
        """At a candidate character in free text: start reasoning or a call, or not (False)."""
        buf, p = self.buf, self.pos
        if self.r is not None and self._at_start() and not self.reasoning_parts:
            res = self._peek(self.r.open)
            if res is True:
                self.pos = p + len(self.r.open)
                self.step = self._s_reasoning
                return True
            if res == _WAIT:
                return _WAIT
        if not self.calls_enabled:
            return False
        waiting = False
        for lit, kind in self.openers:
            res = self._peek(lit)
            if res == _WAIT:
                return _WAIT
            if res is not True:
                continue
            q = p + len(lit) if kind != "list" or self.spec.scope.open else p
            head = self._head(q, kind)
            if head == _WAIT:
                return _WAIT
            if head is None:
                continue
            name, end, extra = head
            if name not in self.tools:
                if p >= self._unknown_until:  # one diagnostic per call head (scope tag + bare head)
                    what = "not a callable tool" if name in self.all_names else "not a known tool"
                    self._diag("unknown_tool", f"call to {name!r}: {what}; kept as content", p)
                self._unknown_until = end
                return False
            self._pre_call_content_checks(kind, p)
            if kind == "wrapper":
                self.wrapper_close = self.wrapper_closes[lit]
            self.in_list = kind in ("list", "wrapper")
            self.in_section = kind == "section"
            self.bare = kind == "bare"
            self.pos = end
            self._commit(name, extra)
            return True
        _ = buf
        return _WAIT if waiting else False

    def _pre_call_content_checks(self, kind: str, p: int) -> None:
        if kind in ("list",) and self.spec.scope.anchored and self.started["content"] and not self.calls:
            self._diag("calls_after_text", "a call list after free text (the format anchors calls at the start)", p)
        if kind == "bare":
            self._diag("missing_scope", "a call without its scope tag", p)
        elif kind == "scope" and self.spec.scope.section is not None:
            self._diag("missing_scope", "a call block without its section", p)
        self.pending_ws["content"] = []  # whitespace before a call is dropped

    def _peek(self, lit: str, at: int | None = None) -> bool | str:
        p = self.pos if at is None else at
        avail = self.buf[p:p + len(lit)]
        if avail == lit:
            return True
        if len(avail) < len(lit) and lit.startswith(avail) and not self.final:
            return _WAIT
        return False

    def _skip_ws_at(self, q: int) -> int | str:
        n = len(self.buf)
        start = q
        while q < n and self.buf[q] in WS:
            q += 1
            if q - start > _MAX_WS:
                return _FAIL
        if q >= n:
            return _WAIT if not self.final else _FAIL
        return q

    def _head(self, q: int, kind: str) -> Any:
        """Read a call head at ``q`` up to its complete name: (name, end, extra), None or _WAIT."""
        c = self.spec.call
        sc = self.spec.scope
        if kind == "section":
            # the section opening, then the first block's opening
            q2 = self._skip_ws_at(q)
            if q2 in (_WAIT, _FAIL):
                return None if q2 == _FAIL else _WAIT
            res = self._peek(self.scope_open, q2)
            if res is not True:
                return _WAIT if res == _WAIT else None
            q, kind = q2 + len(self.scope_open), "scope"
        if kind in ("scope", "wrapper") or (kind == "list" and sc.open):
            q2 = self._skip_ws_at(q)
            if q2 in (_WAIT, _FAIL):
                return None if q2 == _FAIL else _WAIT
            q = q2
            if kind == "wrapper" and sc.open:
                # the list's opening without its padding (Cohere's "[\n    "): whitespace is free there
                res = self._peek(self.scope_open, q)
                if res is not True:
                    return _WAIT if res == _WAIT else None
                q2 = self._skip_ws_at(q + len(self.scope_open))
                if q2 in (_WAIT, _FAIL):
                    return None if q2 == _FAIL else _WAIT
                q = q2
        if isinstance(c, XmlCall):
            if kind != "bare":
                res = self._peek(c.function_open, q)
                if res is not True:
                    return _WAIT if res == _WAIT else None
                q += len(c.function_open)
            stop = self.x_name_stop
            limit = q + self.max_name + len(stop) + 1
            if self.x_name_re is not None:
                m = self.x_name_re.search(self.buf, q, limit)
                end = m.start() if m else -1
            else:
                end = self.buf.find(stop, q, limit)
            if end < 0:
                if len(self.buf) < limit and not self.final:
                    return _WAIT
                return None
            name = self.buf[q:end]
            if not c.name_end.startswith('"'):  # a quoted name (name="N") is taken as written
                name = name.strip()
            if not name or "<" in name or "\n" in name:
                return None
            return name, end + self.x_name_eat, None
        if isinstance(c, JsonCall):
            return self._json_head(q)
        if isinstance(c, HeaderJsonCall):
            return self._header_head(q, c)
        if isinstance(c, NamedJsonCall):
            return self._named_head(q, c)
        if isinstance(c, GemmaCall):
            return self._gemma_head(q, c)
        return self._py_head(q)

    def _header_head(self, q: int, c: HeaderJsonCall) -> Any:
        """A name in a message header: the longest tool name at ``q`` (models glue the content type
        to it: ``functions.Njson``), then any header text up to ``body_open`` (bounded)."""
        buf = self.buf
        limit = q + self.max_name + c.header_max + len(c.body_open)
        end = buf.find(c.body_open, q, limit)
        if end < 0:
            if len(buf) < limit and not self.final:
                return _WAIT
            return None
        header = buf[q:end]
        known = [n for n in (*self.tools, *self.all_names) if header.startswith(n)]
        if known:
            name = max(known, key=len)
        else:
            m = _IDENT_RE.match(header)
            if not m:
                return None
            name = m.group()
        return name, end + len(c.body_open), None

    def _named_head(self, q: int, c: NamedJsonCall) -> Any:
        """``head`` N ``name_end``: the name is the text before ``name_end`` (bounded by the longest
        tool name); a call id (``c.call_id``) stands before the name or between it and ``name_end``."""
        if c.head:
            res = self._peek(c.head, q)
            if res is not True:
                return _WAIT if res == _WAIT else None
            q += len(c.head)
        cid = c.call_id
        if cid is not None and cid.before_name:
            q = self._call_id_at(q, cid, cid.close or c.name_end, cid.optional)  # type: ignore[assignment]
            if q is None or q == _WAIT:
                return q
        stops = [c.name_end] if c.name_end else []
        if cid is not None and not cid.before_name:
            stops.append(cid.open or cid.close)
        longest = max(map(len, stops), default=0)
        limit = q + self.max_name + longest
        found = [(i, s) for s in stops if (i := self.buf.find(s, q, limit)) >= 0]
        if not found:
            if len(self.buf) < limit and not self.final:
                return _WAIT
            return None
        end, stop = min(found)
        name = self.buf[q:end]
        if not name or any(ch in WS or ch == "<" for ch in name):
            return None
        if stop == c.name_end:
            return name, end + len(c.name_end), None
        assert cid is not None
        r = self._call_id_at(end, cid, cid.close or c.name_end, False)
        if r is None or r == _WAIT:
            return r
        res = self._peek(c.name_end, r)  # type: ignore[arg-type]
        if res is not True:
            return _WAIT if res == _WAIT else None
        return name, r + len(c.name_end), None  # type: ignore[operator]

    def _call_id_at(self, q: int, cid: CallId, stop: str, optional: bool) -> int | str | None:
        """Past ``cid.open`` ID ``cid.close`` at ``q`` (the id ends where ``stop`` begins): the index
        after it, _WAIT, or None. An optional id that is not there leaves ``q`` as it is."""
        if cid.open:
            res = self._peek(cid.open, q)
            if res == _WAIT:
                return _WAIT
            if res is False:
                return q if optional else None
            q += len(cid.open)
        limit = q + 64 + len(stop)
        end = self.buf.find(stop, q, limit)
        if end < 0:
            return _WAIT if len(self.buf) < limit and not self.final else None
        if not _CALL_ID_RE.fullmatch(self.buf, q, end):
            return None
        return end + len(cid.close)

    def _json_lit_at(self, lit: str, q: int) -> Any:
        """Whitespace then ``lit`` at ``q``: the index after it, None (something else) or _WAIT."""
        q2 = self._skip_ws_at(q)
        if q2 in (_WAIT, _FAIL):
            return None if q2 == _FAIL else _WAIT
        res = self._peek(lit, q2)
        if res is not True:
            return _WAIT if res == _WAIT else None
        return q2 + len(lit)

    def _json_string_at(self, q: int, limit: int) -> Any:
        """Whitespace then a JSON string of at most ``limit`` characters (escapes decoded; its
        source text at most ``6 * limit``, ``\\uXXXX`` each): (text, index after it), None or _WAIT."""
        q2 = self._skip_ws_at(q)
        if q2 in (_WAIT, _FAIL):
            return None if q2 == _FAIL else _WAIT
        buf = self.buf
        if buf[q2] != '"':
            return None
        i, stop = q2 + 1, min(len(buf), q2 + 6 * limit + 2)
        while i < stop and buf[i] != '"':
            i += 2 if buf[i] == "\\" else 1
        if i >= stop:
            return _WAIT if stop == len(buf) < q2 + 6 * limit + 2 and not self.final else None
        try:
            text = json.loads(buf[q2:i + 1])
        except ValueError:
            return None
        return (text, i + 1) if len(text) <= limit else None

    def _json_head(self, q: int) -> Any:
        """``{``, an id member first if the syntax writes one there, then the name member up to the
        name (``{"N":`` when the name is the key): (name, end, None), None or _WAIT."""
        c = self.spec.call
        assert isinstance(c, JsonCall)
        q = self._json_lit_at("{", q)
        if not isinstance(q, int):
            return q
        if c.id_key is not None and c.id_first:
            r = self._json_lit_at(json.dumps(c.id_key), q)
            if r == _WAIT:
                return _WAIT
            if r is not None:  # the id member (its value is not kept: see JsonCall)
                r = self._json_lit_at(":", r)
                got = self._json_string_at(r, 64) if isinstance(r, int) else r
                if not isinstance(got, tuple):
                    return got
                q = self._json_lit_at(",", got[1])
                if not isinstance(q, int):
                    return q
        if not c.name_as_key:
            for lit in (json.dumps(c.name_key), ":"):
                q = self._json_lit_at(lit, q)
                if not isinstance(q, int):
                    return q
        got = self._json_string_at(q, self.max_name + 1)
        if not isinstance(got, tuple):
            return got
        name, end = got
        if c.name_as_key:
            end = self._json_lit_at(":", end)
            if not isinstance(end, int):
                return end
        return name, end, None

    def _py_head(self, q: int) -> Any:
        buf = self.buf
        m = _IDENT_RE.match(buf, q, q + self.max_name + 1)  # bounded: no rescans of a long word
        if not m:
            return _WAIT if q >= len(buf) and not self.final else None
        if m.end() - q > self.max_name:
            return None
        if m.end() >= len(buf):
            return None if self.final else _WAIT
        q2 = self._skip_ws_at(m.end())
        if q2 in (_WAIT, _FAIL):
            return None if q2 == _FAIL else _WAIT
        if buf[q2] != "(":
            return None
        return m.group(), q2 + 1, None

    # -- reasoning ------------------------------------------------------------------------------------
    def _s_reasoning(self) -> bool | None:
        r = self.r
        assert r is not None
        stops = [r.close]
        trig = self.spec.trigger_word if r.trigger_ends else None
        if trig and self.calls_enabled:
            stops.append(trig)
        buf = self.buf
        best = -1
        which = None
        for s in stops:
            i = buf.find(s, self.pos)
            if i >= 0 and (best < 0 or i < best):
                best, which = i, s
        if best < 0:
            hold = 0
            if not self.final:
                for s in stops:
                    for k in range(min(len(s) - 1, len(buf) - self.pos), 0, -1):
                        if buf.endswith(s[:k]):
                            hold = max(hold, k)
                            break
            end = len(buf) - hold
            if end > self.pos:
                self._text("reasoning_content", buf[self.pos:end])
                self.pos = end
            if self.final and self.pos >= len(buf):
                self._diag("unclosed_reasoning", "the reasoning block is not closed", len(buf))
                self.step = self._s_done_text
            return False
        self._text("reasoning_content", buf[self.pos:best])
        if which == r.close:
            self.pos = best + len(r.close)
        else:
            self.pos = best
        self.step = self._s_text
        return True

    def _s_done_text(self) -> bool:
        return False

    # -- calls ------------------------------------------------------------------------------------------
    def _commit(self, name: str, extra: Any) -> None:
        if self.calls and not self.parallel and len(self.calls) == 1:
            self._diag("parallel_calls", "more than one call while parallel tool calls are off; all are kept",
                       self.pos)
        elif self.parallel and self.max_calls is not None and len(self.calls) >= self.max_calls \
                and not self._too_many:
            self._too_many = True
            self._diag("too_many_calls", f"more than max_tool_calls={self.max_calls} calls; all are kept", self.pos)
        call = _Call(len(self.calls), name, self.tools[name])
        self.calls.append(call)
        self.call = call
        call.args.append("{")
        self.out.append({"tool_calls": [{"index": call.index, "id": f"call_{call.index}", "type": "function",
                                         "function": {"name": name, "arguments": "{"}}]})
        c = self.spec.call
        if isinstance(c, XmlCall):
            self.step = self._s_xml_params
        elif isinstance(c, JsonCall):
            self.step = self._s_json_env
            self.sub = {"step": 0}
        elif isinstance(c, NamedJsonCall):
            self.step = self._s_named_args
            self.sub = {}
        elif isinstance(c, GemmaCall):
            self.step = self._s_gemma_args
            self.sub = {}
        else:
            self.step = self._s_py_args
            self.sub = {}

    def _close_args(self) -> None:
        call = self.call
        assert call is not None
        self._args("}")
        call.done = True

    def _end_call(self, ok: bool = True) -> None:
        """The call's arguments are closed; read its closing tags."""
        self._close_args()
        self.step = self._s_after_call

    def _bad_call(self, what: str) -> None:
        """A committed call met unexpected text: it ends here with its arguments as received so far
        (not closed, so not valid JSON: nothing is invented); the rest is content."""
        call = self.call
        assert call is not None
        self._diag("invalid_call", f"call {call.name!r}: {what}; the call ends here, its arguments as received",
                   self.pos)
        call.done = True
        self.call = None
        self.seen_call_end = True
        self.in_list = False
        self.step = self._s_text

    def _member_key(self, key: str) -> bool:
        """Start a member; False when the key is a duplicate (its value is then skipped)."""
        call = self.call
        assert call is not None
        if key in call.keys:
            self._diag("duplicate_argument", f"argument {key!r} repeated; the first value is kept", self.pos)
            return False
        call.keys.add(key)
        return True

    def _member_prefix(self, key: str) -> str:
        call = self.call
        assert call is not None
        sep = ", " if len(call.keys) > 1 else ""
        return sep + json.dumps(key, ensure_ascii=False) + ": "

    def _prop_schema(self, key: str) -> Any:
        params = self.call.tool if self.call else None  # type: ignore[union-attr]
        if isinstance(params, dict):
            props = params.get("properties")
            if isinstance(props, dict) and key in props:
                return props[key]
        return None

    # XML ----------------------------------------------------------------------------------------------
    def _s_xml_params(self) -> bool | None:
        c = self.spec.call
        assert isinstance(c, XmlCall)
        if not self._ws():
            return False
        fo_close = c.function_end.strip(WS)
        for lit in (c.param_open, fo_close):
            res = self._lit(lit)
            if res == _WAIT:
                return False
            if res is True:
                if lit == fo_close:
                    self._end_call()
                else:
                    self.step = self._s_xml_key
                    self.sub = {"start": self.pos}
                return True
        self._bad_call("expected a parameter or the end of the function")
        return True

    def _s_xml_key(self) -> bool | None:
        gt = self.x_gt
        s = self.sub
        scan = s.get("kscan", self.pos)
        i = self.buf.find(gt, max(self.pos, scan - len(gt) + 1))
        # a newline or '<' before the name's end: not a name (whatever the chunking); the last
        # len(gt) - 1 characters may be the start of a longer end ("</arg_key>") and wait
        bound = i if i >= 0 else max(scan, len(self.buf) - len(gt) + 1)
        if self.x_key_bad.search(self.buf, scan, bound):
            self._bad_call("unterminated parameter name")
            return True
        if i < 0:
            s["kscan"] = bound  # resumable: the name is not rescanned on the next feed
            return False
        key = self.buf[self.pos:i]
        if not self.spec.call.quoted_key:  # type: ignore[union-attr]
            key = key.strip()  # a quoted name (name="K") is exactly what stands between the quotes
        self.pos = i + len(gt)
        keep = self._member_key(key)
        schema = self._prop_schema(key)
        root = self.call.tool if self.call else None  # type: ignore[union-attr]
        types = schema_types(schema, root) if schema is not None else None
        stream = keep and types == frozenset({"string"})
        self.sub = {"key": key, "keep": keep, "schema": schema, "stream": stream, "start": None, "emitted": None,
                    "search": None, "cand": None, "cscan": None, "parts": []}
        self.step = self._s_xml_value
        if stream:
            self._args(self._member_prefix(key) + '"')
        return True

    def _s_xml_value(self) -> bool | None:
        """A raw value: it ends at an end tag followed (after whitespace) by a next parameter, the
        function's end tag, or the end of input; any other end tag is part of the value (vLLM's rule).

        Resumable and linear: ``search`` is where the next end tag is looked for, ``cand`` an end tag
        whose follower has not arrived yet and ``cscan`` how far the whitespace after it was read;
        a streamed string holds back only the text from the candidate (or a partial end tag) on."""
        s = self.sub
        buf = self.buf
        n = len(buf)
        if s["start"] is None and not s.get("opened"):
            # the value's opening tag (GLM's "<arg_value>", DSML's 'string="..."'), after whitespace
            if self.x_value_open:
                self.pos = self._ws_from(self.pos)
                if self.pos >= n:
                    return False
                for lit in self.x_value_open:
                    res = self._lit(lit)
                    if res == _WAIT:
                        return False
                    if res is True:
                        break
                else:
                    self._bad_call("expected the opening tag of the value")
                    return True
            s["opened"] = True
        if s["start"] is None:
            pad = self.x_pad_open
            if pad:
                res = self._lit(pad)
                if res == _WAIT:
                    return False
            s["start"] = s["emitted"] = s["search"] = self.pos
            s["at"] = self.pos + self.base
        tag = self.x_end_tag
        pad_close = self.x_pad_close
        while True:
            i = s["cand"]
            if i is None:
                i = buf.find(tag, s["search"])
                if i < 0:
                    s["search"] = max(s["search"], n - len(tag) + 1)
                    hold = s["search"] - len(pad_close)
                    break
                s["cand"], s["cscan"] = i, i + len(tag)
            q = s["cscan"]
            while q < n and buf[q] in WS:
                q += 1
            s["cscan"] = q
            follows: Any = q >= n and self.final
            if q < n:
                for lit in self.x_followers:
                    follows = self._peek(lit, q)
                    if follows is not False:
                        break
            if follows is True:
                return self._xml_value_end(i)
            if follows == _WAIT or (q >= n and not self.final):
                hold = i - len(pad_close)
                break
            s["cand"] = None  # not a closing tag: part of the value
            s["search"] = i + 1
        if self.final:
            hold = n  # the end of input without a closing tag: the value as received (truncated)
        if s["stream"]:
            if hold > s["emitted"]:
                self._args(_esc(buf[s["emitted"]:hold]))
                s["emitted"] = hold
        elif hold - s["start"] > _FLUSH:
            s["parts"].append(buf[s["start"]:hold])  # settled value text leaves the buffer
            s["start"] = hold
        self.pos = n
        return False

    def _xml_value_end(self, i: int) -> bool:
        s = self.sub
        buf = self.buf
        end = i
        pad_close = self.x_pad_close
        if pad_close and end - len(pad_close) >= s["start"] and buf.startswith(pad_close, end - len(pad_close)):
            end -= len(pad_close)
        if s["stream"]:
            if end > s["emitted"]:
                self._args(_esc(buf[s["emitted"]:end]))
            self._args('"')
        elif s["keep"]:
            self._xml_typed("".join(s["parts"]) + buf[s["start"]:end])
        self.pos = i + len(self.x_end_tag)
        self.step = self._s_xml_params
        self.sub = {}
        return True

    def _xml_typed(self, raw: str) -> None:
        s = self.sub
        call = self.call
        assert call is not None
        value, diags = convert_xml_value(raw, s["schema"], lenient=True, root=call.tool, name=s["key"],
                                         offset=s["at"], hint=call.name in self.loose)
        self.diagnostics.extend(diags)
        self._args(self._member_prefix(s["key"]) + dumps_arguments(value))

    # JSON ---------------------------------------------------------------------------------------------
    def _s_json_env(self) -> bool | None:
        # after the name: , "arguments" : {
        c = self.spec.call
        assert isinstance(c, JsonCall)
        steps = [",", None, ":", "{"]
        if c.name_as_key and not self.sub["step"]:
            self.sub["step"] = 3  # {"N": then the arguments object
        while self.sub["step"] < len(steps):
            if not self._ws():
                return False
            lit = steps[self.sub["step"]]
            if lit is None:
                res: Any = False
                for key in dict.fromkeys((c.args_key, *c.read_args_keys)):
                    res = self._lit(f'"{key}"')
                    if res is not False:
                        break
            else:
                res = self._lit(lit)
            if res == _WAIT:
                return False
            if res is False:
                if lit == "," and self.buf[self.pos] == "}":
                    self.pos += 1
                    self._end_call()
                    self.sub = {"env_closed": True}
                    return True
                self._bad_call("expected the arguments object")
                return True
            self.sub["step"] += 1
        self.step = self._s_json_member
        self.sub = {"first": True}
        return True

    def _s_json_member(self) -> bool | None:
        if not self._ws():
            return False
        buf = self.buf
        ch = buf[self.pos]
        if ch == "}":
            self.pos += 1
            self._close_args()
            self.step = self._s_named_end if isinstance(self.spec.call, NamedJsonCall) else self._s_json_env_close
            return True
        if not self.sub.get("first"):
            if ch != ",":
                self._bad_call("expected ',' or '}' in the arguments")
                return True
            self.pos += 1
            self.sub = {"first": True}
            return True
        if ch != '"':
            self._bad_call("expected an argument name")
            return True
        end = self.sub.get("kend", -1)
        if end < 0:
            end, self.sub["kscan"] = _json_string_end(buf, self.pos, self.sub.get("kscan", self.pos + 1))
            if end < 0:
                return False  # resumable: an unterminated name is not rescanned on the next feed
            self.sub["kend"] = end
        try:
            key = json.loads(buf[self.pos:end], strict=False)
        except ValueError:
            self._bad_call("invalid argument name")
            return True
        q, n = self.sub.get("kq", end), len(buf)
        if q == end:
            q = self._ws_from(end)
            if q >= n:
                return False
            if buf[q] != ":":
                self._bad_call("expected ':' after an argument name")
                return True
            q += 1
        while q < n and buf[q] in WS:
            q += 1
        if q >= n:
            self.sub["kq"] = q  # after the ':' (resumable)
            return False
        self.pos = q
        keep = self._member_key(key)
        self.sub = {"key": key, "keep": keep, "start": q, "at": q + self.base, "parts": []}
        if buf[q] == '"' and keep:
            self._args(self._member_prefix(key) + '"')
            self.sub.update(stream=True, emitted=q + 1, scan=q + 1, esc=[])
            self.step = self._s_json_string
        else:
            self.sub.update(scan=q, depth=0, instr=False)
            self.step = self._s_json_value
        return True

    def _s_json_string(self) -> bool | None:
        s = self.sub
        buf = self.buf
        i, n = s["scan"], len(buf)
        esc = s["esc"]
        while i < n:
            ch = buf[i]
            if ch == "\\":
                esc.append(i)
                if len(esc) > 2:
                    del esc[0]
                i += 2
                continue
            if ch == '"':
                break
            i += 1
        if i >= n:
            s["scan"] = i
            safe = min(i, n)
            if esc and n - esc[-1] < 12:
                safe = esc[-1]
                if len(esc) == 2 and esc[0] == esc[1] - 6 and _is_high(buf, esc[0]):
                    safe = esc[0]
            self._json_emit(s["emitted"], safe)
            self.pos = n
            return False
        self._json_emit(s["emitted"], i)
        self._args('"')
        self.pos = i + 1
        self.step = self._s_json_member
        self.sub = {"first": False}
        return True

    def _json_emit(self, a: int, b: int) -> None:
        if b <= a:
            return
        seg = self.buf[a:b]
        try:
            text = json.loads('"' + seg + '"', strict=False)
        except ValueError:
            text = self._unescape_units(seg, a, _JSON_ESCAPE, _json_unit)
        self._args(_esc(text))
        self.sub["emitted"] = b

    def _pinned(self) -> str | None:
        """The text of a JSON/Python value read by :func:`_scan_value`, or None (more input needed;
        settled text then leaves the buffer, so a long value does not pin it)."""
        s = self.sub
        end = _scan_value(self.buf, s, ")" if self.spec.values == "python" else "}")
        if end < 0:
            cut = min(s["scan"], len(self.buf))
            if cut - s["start"] > _FLUSH:
                s["parts"].append(self.buf[s["start"]:cut])
                s["start"] = cut
            return None
        self.pos = end
        return "".join(s["parts"]) + self.buf[s["start"]:end]

    def _s_json_value(self) -> bool | None:
        s = self.sub
        raw = self._pinned()
        if raw is None:
            return False
        try:
            value, diags = loads_json(raw, lenient=True, offset=s["at"])
        except ValueError:
            self._bad_call(f"argument {s['key']!r} is not valid JSON")
            return True
        self.diagnostics.extend(diags)
        if s["keep"]:
            self._args(self._member_prefix(s["key"]) + dumps_arguments(value))
        self.step = self._s_json_member
        self.sub = {"first": False}
        return True

    def _s_named_args(self) -> bool | None:
        """After ``head`` N ``name_end`` (and the call counter, if the syntax numbers its calls):
        the arguments object opens."""
        c = self.spec.call
        assert isinstance(c, NamedJsonCall)
        if c.counter is not None and self.sub.get("counted") is not True:
            if not self.sub.get("counted"):
                buf, q = self.buf, self.pos
                while q < len(buf) and "0" <= buf[q] <= "9" and q - self.pos < 9:
                    q += 1
                if q >= len(buf):
                    return False  # wait; at the end of input the call was cut off
                if q == self.pos:
                    self._bad_call("expected the call counter")
                    return True
                self.pos = q
                self.sub["counted"] = "digits"
            res = self._lit(c.counter)
            if res == _WAIT:
                return False
            if res is False:
                self._bad_call(f"expected {c.counter!r} after the call counter")
                return True
            self.sub["counted"] = True
        if not self._ws():
            return False
        if self.buf[self.pos] != "{":
            self._bad_call("expected the arguments object")
            return True
        self.pos += 1
        self.step = self._s_json_member
        self.sub = {"first": True}
        return True

    def _s_named_end(self) -> bool | None:
        """After the arguments object: the call's ``end`` literal, if the syntax has one."""
        end = self.spec.call.end.lstrip(WS)  # whitespace before the end literal is skipped below
        if end:
            q = self._ws_from(self.pos)
            if q >= len(self.buf):
                return False  # wait; at the end of input the call was cut off (see _truncate_call)
            res = self._peek(end, q)
            if res == _WAIT:
                return False
            if res is True:
                self.pos = q + len(end)
            else:
                self._diag("missing_close", f"{end!r} is missing after a call", q)
        self.step = self._s_header_end if isinstance(self.spec.call, HeaderJsonCall) else self._s_after_call
        return True

    def _s_header_end(self) -> bool | None:
        """After a header call's arguments: drop its stop token (``read_end``) when the text keeps it."""
        c = self.spec.call
        assert isinstance(c, HeaderJsonCall)
        if c.read_end:
            q = self._ws_from(self.pos)
            res = self._peek(c.read_end, q) if q < len(self.buf) else (False if self.final else _WAIT)
            if res == _WAIT:
                return False
            if res is True:
                self.pos = q + len(c.read_end)
        if self.scope_close or self.in_section or self.in_list:
            self.step = self._s_after_call
        else:
            self._after_done()  # nothing to close: the whitespace opening the next header stays
        return True

    def _s_json_env_close(self) -> bool | None:
        """After the arguments: the call object's ``}``; members after the arguments (an id) are
        skipped, their values not kept (see JsonCall)."""
        s = self.sub
        if s.get("skip"):
            if self._pinned() is None:
                return False  # wait; at the end of input the call was cut off
            self.sub = {}
            return True
        if not self._ws():
            return False
        buf = self.buf
        if buf[self.pos] == "}":
            self.pos += 1
        elif buf[self.pos] == ",":
            q = self._ws_from(self.pos + 1)
            if q >= len(buf):
                return False
            if buf[q] == '"':  # another member of the call object, not a next call
                self.pos = q
                self.sub = {"skip": True, "start": q, "scan": q, "depth": 0, "instr": False, "parts": []}
                return True
            self._diag("invalid_call", "the call object is not closed", self.pos)
        else:
            self._diag("invalid_call", "the call object is not closed", self.pos)
        self.step = self._s_after_call
        return True

    # Python --------------------------------------------------------------------------------------------
    def _s_py_args(self) -> bool | None:
        if not self._ws():
            return False
        buf = self.buf
        ch = buf[self.pos]
        if ch == ")":
            self.pos += 1
            self._end_call()
            return True
        if self.call is not None and self.call.keys:
            if ch != ",":
                self._bad_call("expected ',' or ')'")
                return True
            q = self._ws_from(self.pos + 1)
            n = len(buf)
            if q >= n:
                return False
            if buf[q] == ")":
                self.pos = q + 1
                self._end_call()
                return True
            start = q
        else:
            start = self.pos
        s = self.sub
        if s.get("istart") == start:  # resume a name that reached the end of the buffer
            q = _IDENT_REST_RE.match(buf, s["iend"]).end()  # type: ignore[union-attr]
        else:
            m = _IDENT_RE.match(buf, start)
            if not m:
                self._bad_call("expected an argument name")
                return True
            q = m.end()
        s["istart"], s["iend"] = start, q
        n = len(buf)
        q = self._ws_from(q)
        if q >= n:
            return False
        if buf[q] != "=":
            self._bad_call("expected '=' after an argument name")
            return True
        q = self._ws_from(q + 1)
        if q >= n and not self.final:
            return False
        key = buf[start:s["iend"]]
        quote = buf[q] if q < n else ""
        if quote in ("'", '"') and q + 2 >= n and not self.final:
            return False  # is it a triple quote?
        self.pos = q
        keep = self._member_key(key) and key not in ("",)
        self.sub = {"key": key, "keep": keep, "start": q, "at": q + self.base, "parts": []}
        if quote in ("'", '"') and keep and buf[q:q + 3] != quote * 3:
            self._args(self._member_prefix(key) + '"')
            self.sub.update(stream=True, quote=quote, emitted=q + 1, scan=q + 1, esc=[])
            self.step = self._s_py_string
        else:
            self.sub.update(scan=q, depth=0, instr=False)
            self.step = self._s_py_value
        return True

    def _s_py_string(self) -> bool | None:
        s = self.sub
        buf = self.buf
        i, n = s["scan"], len(buf)
        q = s["quote"]
        while i < n:
            ch = buf[i]
            if ch == "\\":
                s["esc"] = [i]
                i += 2
                continue
            if ch == q or ch == "\n":
                break
            i += 1
        if i >= n:
            s["scan"] = i
            safe = n
            if s["esc"]:
                e = s["esc"][0]
                if n - e < 12 or (buf[e + 1:e + 2] == "N" and "}" not in buf[e:n]):
                    safe = min(safe, e)
            self._py_emit(s["emitted"], safe)
            self.pos = n
            return False
        if buf[i] == "\n":
            self._py_emit(s["emitted"], i)
            self._args('"')
            self.pos = i
            self._bad_call("a string argument is not closed on its line")
            return True
        self._py_emit(s["emitted"], i)
        self._args('"')
        self.pos = i + 1
        self.step = self._s_py_args
        return True

    def _py_emit(self, a: int, b: int) -> None:
        if b <= a:
            return
        seg = self.buf[a:b]
        q = self.sub["quote"]
        value, diags = convert_python_value(q + seg + q, lenient=True, offset=a - 1 + self.base)
        if diags or not isinstance(value, str):
            value = self._unescape_units(seg, a, _PY_ESCAPE, lambda unit: _py_unit(unit, q))
        self._args(_esc(value))
        self.sub["emitted"] = b

    def _unescape_units(self, seg: str, at: int, escape: re.Pattern[str], decode: Any) -> str:
        """``seg`` (a string body holding an invalid escape) decoded one escape at a time: each
        invalid escape is kept as written, with a diagnostic at its own offset, so the result and
        the diagnostics do not depend on how the text was chunked (segments never split an escape)."""
        out: list[str] = []
        last = 0
        for m in escape.finditer(seg):
            out.append(seg[last:m.start()])
            text = decode(m.group())
            if text is None:
                text = m.group()
                self._diag("invalid_escape", "an invalid escape in a string argument is kept as written",
                           at + m.start())
            out.append(text)
            last = m.end()
        out.append(seg[last:])
        return "".join(out)

    def _s_py_value(self) -> bool | None:
        s = self.sub
        raw = self._pinned()
        if raw is None:
            return False
        value, diags = convert_python_value(raw, lenient=True, offset=s["at"])
        self.diagnostics.extend(diags)
        if s["keep"]:
            self._args(self._member_prefix(s["key"]) + dumps_arguments(value))
        self.step = self._s_py_args
        return True

    # Gemma 4 ------------------------------------------------------------------------------------------
    def _gemma_head(self, q: int, c: GemmaCall) -> Any:
        """``head`` N ``open`` (``call:N{``): the name is the text before ``open``, bounded by the
        longest tool name."""
        res = self._peek(c.head, q)
        if res is not True:
            return _WAIT if res == _WAIT else None
        q += len(c.head)
        limit = q + self.max_name + len(c.open)
        end = self.buf.find(c.open, q, limit)
        if end < 0:
            return _WAIT if len(self.buf) < limit and not self.final else None
        name = self.buf[q:end]
        if not name or any(ch in WS or ch == "<" for ch in name):
            return None
        return name, end + len(c.open), None

    def _gemma_partial_quote(self, q: int) -> bool:
        """The buffer ends inside a ``<|"|>`` starting at ``q``: more input decides (at the end of
        input: the call was cut off there)."""
        tail = self.buf[q:q + len(_GQ)]
        return len(tail) < len(_GQ) and _GQ.startswith(tail) and q + len(tail) == len(self.buf)

    def _gemma_key(self, start: int) -> Any:
        """A bare key (or a ``<|"|>``-quoted one) at ``start``: (key, index after it), None (wait)
        or False (not a key). Resumable: a long key is not rescanned on the next feed."""
        buf, n, s = self.buf, len(self.buf), self.sub
        resume = s.get("istart") == start
        if buf.startswith(_GQ, start):
            j = buf.find(_GQ, s["kscan"] if resume else start + len(_GQ))
            if j < 0:
                s["istart"], s["kscan"] = start, max(start + len(_GQ), n - len(_GQ) + 1)
                return None
            return buf[start + len(_GQ):j], j + len(_GQ)
        if self._gemma_partial_quote(start):
            return None
        if resume:
            q = _GKEY_REST_RE.match(buf, s["iend"]).end()  # type: ignore[union-attr]
        else:
            m = gemma_text.KEY_RE.match(buf, start)
            if not m:
                return False
            q = m.end()
        s["istart"], s["iend"] = start, q
        if q >= n:
            return None
        return buf[start:q], q

    def _s_gemma_args(self) -> bool | None:
        """Inside ``{``...``}``: the next ``key:value`` member, or the close."""
        c = self.spec.call
        assert isinstance(c, GemmaCall) and self.call is not None
        if not self._ws():
            return False
        buf, n = self.buf, len(self.buf)
        if buf.startswith(c.close, self.pos):
            self.pos += len(c.close)
            self._end_call()
            return True
        start = self.pos
        if self.call.keys:
            if buf[start] != ",":
                self._bad_call(f"expected ',' or {c.close!r}")
                return True
            start = self._ws_from(start + 1)
            if start >= n:
                return False
            if buf.startswith(c.close, start):  # a trailing comma
                self.pos = start + len(c.close)
                self._end_call()
                return True
        got = self._gemma_key(start)
        if got is None:
            return False
        if got is False:
            self._bad_call("expected an argument name")
            return True
        key, q = got
        q = self._ws_from(q)
        if q >= n:
            return False
        if buf[q] != ":":
            self._bad_call("expected ':' after an argument name")
            return True
        q = self._ws_from(q + 1)
        if q >= n or self._gemma_partial_quote(q):
            return False
        self.pos = q
        keep = self._member_key(key)
        if keep and buf.startswith(_GQ, q):
            self._args(self._member_prefix(key) + '"')
            self.sub = {"key": key, "keep": keep, "stream": True, "emitted": q + len(_GQ), "scan": q + len(_GQ)}
            self.step = self._s_gemma_string
        else:
            self.sub = {"key": key, "keep": keep, "start": q, "at": q + self.base, "parts": [], "scan": q,
                        "depth": 0, "instr": False}
            self.step = self._s_gemma_value
        return True

    def _s_gemma_string(self) -> bool | None:
        """A streamed ``<|"|>`` string: raw text up to the next ``<|"|>`` (a partial one is held back)."""
        s, buf = self.sub, self.buf
        n = len(buf)
        j = buf.find(_GQ, s["scan"])
        if j < 0:
            hold = 0
            if not self.final:
                for k in range(min(len(_GQ) - 1, n - s["scan"]), 0, -1):
                    if buf.endswith(_GQ[:k]):
                        hold = k
                        break
            safe = n - hold
            self._gemma_emit(safe)
            s["scan"] = safe
            self.pos = n
            return False
        self._gemma_emit(j)
        self._args('"')
        self.pos = j + len(_GQ)
        self.step = self._s_gemma_args
        self.sub = {}
        return True

    def _gemma_emit(self, b: int) -> None:
        a = self.sub["emitted"]
        if b > a:
            self._args(_esc(self.buf[a:b]))
            self.sub["emitted"] = b

    def _gemma_scan(self) -> int:
        """The end of the value at ``sub['start']``: the index of the ',' or closer at depth 0, or of
        a '<' that starts no string (a value holds none outside strings); -1: more input needed.
        Resumable: the scan state lives in ``sub``."""
        s, buf = self.sub, self.buf
        i, n = s["scan"], len(buf)
        depth, instr = s["depth"], s["instr"]
        end = -1
        while i < n:
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
                if self._gemma_partial_quote(i):
                    break
                end = i
                break
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
        s["scan"], s["depth"], s["instr"] = i, depth, instr
        if end < 0:
            return -1
        while end > s["start"] and buf[end - 1] in WS:
            end -= 1
        return end

    def _s_gemma_value(self) -> bool | None:
        s = self.sub
        end = self._gemma_scan()
        if end < 0:
            cut = min(s["scan"], len(self.buf))
            if cut - s["start"] > _FLUSH:
                s["parts"].append(self.buf[s["start"]:cut])
                s["start"] = cut
            return False
        raw = "".join(s["parts"]) + self.buf[s["start"]:end]
        self.pos = end
        value, diags = convert_gemma_value(raw, lenient=True, offset=s["at"])
        if any(d.code == "invalid_literal" for d in diags):
            self._bad_call(f"argument {s['key']!r} is not a Gemma 4 value")
            return True
        self.diagnostics.extend(diags)
        if s["keep"]:
            self._args(self._member_prefix(s["key"]) + dumps_arguments(value))
        self.step = self._s_gemma_args
        self.sub = {}
        return True

    # after a call ------------------------------------------------------------------------------------
    def _s_after_call(self) -> bool | None:
        """Read the call's scope close (block formats), then go on with the list or free text."""
        sc = self.spec.scope
        buf = self.buf
        if sc.per_call:
            lit = self.scope_close
            q, n = self._ws_from(self.pos), len(buf)
            if q >= n and not self.final:
                return False
            if buf.startswith(lit, q):
                self.pos = q + len(lit)
            elif lit.startswith(buf[q:]) and not self.final:
                return False
            elif not self.bare:
                self._diag("missing_close", f"{lit!r} is missing after a call", q)
        if self.in_section:
            self.step = self._s_section_next
            self.call = None
            return True
        if self.in_list:
            self.step = self._s_list_next
            self.call = None
            return True
        self._after_done()
        return True

    def _after_done(self) -> None:
        self.call = None
        self.seen_call_end = True
        self.step = self._s_text
        self.in_list = False
        self.in_section = False

    def _close_at(self, close: str, q: int) -> bool | None:
        """The calls' closing text at ``q``: True (consumed, the calls end), False (wait for more
        input) or None (not there)."""
        res = self._peek(close, q)
        if res == _WAIT:
            return False
        if res is not True:
            return None
        self.pos = q + len(close)
        self._after_done()
        return True

    def _s_section_next(self) -> bool | None:
        """Between blocks inside a section: the next block, or the section's close."""
        n = len(self.buf)
        q = self._ws_from(self.pos)
        close = self.spec.scope.section.close.strip(WS)  # type: ignore[union-attr]
        if q >= n:
            if not self.final:
                return False
            if close and not self.spec.scope.section.close_optional:  # type: ignore[union-attr]
                self._diag("missing_close", f"{close!r} is missing at the end", n)
            self._after_done()
            return True
        res = self._peek(self.scope_open, q)
        if res == _WAIT:
            return False
        if res is True:
            head = self._head(q + len(self.scope_open), "scope")
            if head == _WAIT:
                return False
            if head is not None and head[0] in self.tools:
                self.pos = head[1]
                self._commit(head[0], head[2])
                return True
            name = head[0] if head is not None else None
            self._diag("invalid_call", f"a block in the section is not a call of a callable tool ({name!r})", q)
            self._after_done()
            return True
        if close:
            res = self._close_at(close, q)
            if res is not None:
                return res
            self._diag("missing_close", f"{close!r} is missing after the calls", q)
        self._after_done()
        return True

    def _next_call(self, q: int) -> bool | None:
        """A next call of the list at ``q``: True (committed), None (wait) or False."""
        head = self._head(q, "next")
        if head == _WAIT:
            return None
        if head is not None and head[0] in self.tools:
            self.pos = head[1]
            self._commit(head[0], head[2])
            return True
        return False

    def _s_list_next(self) -> bool | None:
        sc = self.spec.scope
        close = sc.close.strip(WS)  # the list's close without its padding (Cohere's "\n]")
        # a list without brackets inside a section (MiniMax-M1's JSON lines): the section's close ends it
        wclose = "" if close else self.wrapper_close.strip(WS)
        buf = self.buf
        q, n = self._ws_from(self.pos), len(buf)
        if q >= n:
            if not self.final:
                return False
            if close or wclose:
                self._diag("missing_close", f"{close or wclose!r} is missing at the end", n)
            self._after_done()
            return True
        seps = (sc.separator,) if close else (sc.separator, ",", ";")
        sep = next((s for s in seps if s and buf.startswith(s, q)), None)
        if sep is None and not self.final and any(n - q < len(s) and s.startswith(buf[q:]) for s in seps):
            return False  # the buffer ends inside a multi-character separator (Functionary's ">>>")
        if sep is not None:
            r = self._ws_from(q + len(sep))
            if r >= n and not self.final:
                return False
            res = self._next_call(r) if r < n else False
            if res is None:
                return False
            if res is False:
                self._diag("invalid_call", "the text after a separator is not a call", q)
                self._after_done()
            return True
        if close:
            res = self._peek(close, q)
            if res == _WAIT:
                return False
            if res is not True:
                self._diag("missing_close", f"{close!r} is missing after the calls", q)
                self._after_done()
                return True
            end = q + len(close)
            if self.wrapper_close:
                r = self._ws_from(end)
                res = self._peek(self.wrapper_close, r)
                if res == _WAIT:
                    return False
                if res is True:
                    end = r + len(self.wrapper_close)
            self.pos = end
            self._after_done()
            return True
        if wclose:
            res = self._close_at(wclose, q)
            if res is not None:
                return res
        res = self._next_call(q)
        if res is None:
            return False
        if res is False:
            if wclose:
                self._diag("missing_close", f"{wclose!r} is missing after the calls", q)
            self._after_done()
        return True

    # end of input --------------------------------------------------------------------------------------
    def _truncate_call(self) -> None:
        """End of input inside a committed call: its arguments stay exactly as received so far,
        converted as far as they were complete (SPEC section 4: nothing is invented). An open string
        gets no closing quote and the object no closing brace, so the text is not valid JSON."""
        call = self.call
        assert call is not None
        step, s = self.step, self.sub
        if not call.done:
            if s.get("keep") and s.get("start") is not None and (
                    step in (self._s_json_value, self._s_py_value, self._s_gemma_value)
                    or (step == self._s_xml_value and not s.get("stream"))):
                raw = "".join(s["parts"]) + self.buf[s["start"]:]
                self._args(self._member_prefix(s["key"]) + raw)
            call.done = True
            self.truncated = True
            self._diag("truncated_call", f"call {call.name!r} was cut off; its arguments are kept as received",
                       len(self.buf))
        elif step in (self._s_json_env_close, self._s_named_end):
            # the arguments are complete but the call object never closed: the output was cut off
            self.truncated = True
            self._diag("truncated_call", f"call {call.name!r} was cut off after its arguments", len(self.buf))
        self.call = None

    def _end_checks(self) -> None:
        if self.needs_call and not self.calls:
            self._diag("missing_call", "tool_choice requires a call and none was found", None)


#: one escape of a JSON string (a surrogate pair is one escape), or a lone backslash
_JSON_ESCAPE = re.compile(r"\\u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}|\\u[0-9a-fA-F]{4}|\\.?", re.S)
#: one escape of a Python string literal, or a lone backslash
_PY_ESCAPE = re.compile(r"\\N\{[^}]*\}|\\x[0-9a-fA-F]{2}|\\u[0-9a-fA-F]{4}|\\U[0-9a-fA-F]{8}|\\[0-7]{1,3}|\\.?", re.S)


def _json_unit(unit: str) -> str | None:
    """One JSON escape decoded, or None if it is invalid."""
    try:
        return json.loads('"' + unit + '"', strict=False)
    except ValueError:
        return None


def _py_unit(unit: str, quote: str) -> str | None:
    """One Python escape decoded, or None if it is invalid."""
    value, diags = convert_python_value(quote + unit + quote, lenient=True, offset=0)
    return value if not diags and isinstance(value, str) else None


def _is_high(buf: str, e: int) -> bool:
    h = buf[e + 2:e + 6].lower()
    return buf[e + 1:e + 2] == "u" and len(h) == 4 and "d800" <= h <= "dbff"


_STRING_STOP_RE = re.compile(r'["\\]')


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


def _scan_value(buf: str, s: dict[str, Any], close: str) -> int:
    """Find the end of a JSON/Python value starting at ``s['start']``: the index of the ',' or
    ``close`` at depth 0 (trailing whitespace excluded); -1 when more input is needed.
    Resumable: the scan state lives in ``s``."""
    i, n = s["scan"], len(buf)
    depth, instr = s["depth"], s["instr"]
    while i < n:
        ch = buf[i]
        if instr:
            if ch == "\\":
                i += 2
                continue
            if ch == instr:
                instr = False
        elif ch in "\"'":
            instr = ch
        elif ch in "[{(":
            depth += 1
        elif ch in "]})":
            if depth == 0:
                break
            depth -= 1
        elif ch == "," and depth == 0:
            break
        i += 1
    s["depth"], s["instr"] = depth, instr
    if i >= n:
        s["scan"] = i  # may be n + 1: past an escape whose character has not arrived
        return -1
    s["scan"] = i
    end = i
    while end > s["start"] and buf[end - 1] in WS:
        end -= 1
    if ch not in (",", close):
        return end  # a stray closer: the value ends, the caller reports it
    return end
