"""The character-incremental scanner behind lenient parsing and streaming (SPEC section 4).

It is generated from a :class:`~toolgram.grammars.spec.FormatSpec`: the scope tags, wrappers,
separators, call syntax (XML / JSON / Python ...) and reasoning tags all come from the description,
so no format id is ever tested here.  This core reads free text, reasoning, the calls' scope
(sections, wrappers, lists) and commits a call at its head; the call's syntax is read by its reader
(:mod:`.readers`, one per call syntax), which installs its own steps as :attr:`Scanner.step`.
The scanner keeps the whole input in one buffer and a cursor; every step consumes input or stops
to wait for more, and the only look-ahead it holds back is bounded (a tag prefix, a call head up
to its tool name, an unfinished escape), so feeding the text in any chunking costs linear time
and produces the same final message.
Whole-output lenient parsing is this scanner fed the whole text at once.
"""

from __future__ import annotations

import codecs
import json
import re
from collections.abc import Callable
from typing import Any

from ..grammars.spec import ElementCall, FormatSpec, GemmaCall, HeaderJsonCall, JsonCall, NamedJsonCall, XmlCall
from .diagnostics import Diagnostic
from .readers._common import FAIL, WAIT, WS, Call, Head, Reader
from .readers.elements import ElementReader
from .readers.gemma import GemmaReader
from .readers.json import JsonReader
from .readers.named import NamedReader
from .readers.python import PythonReader
from .readers.xml import XmlReader

_MAX_WS = 64  # whitespace allowed inside a call head before the name
#: one character of a word that may be a tool name (the common name rules exclude the others)
_NAME_WORD = r"[^\s<>\"'()\[\]{}=,]"
_NAME_WORD_RE = re.compile(_NAME_WORD + "+")


class AnyTool(dict):
    """The callable tools when any name is callable (``parse(..., any_tool=True)``, vLLM's and SGLang's
    reading): the declared tools keep their schemas; any other name made of tool-name characters
    (:data:`_NAME_WORD`, up to :attr:`max_name` of them) reads its arguments untyped."""

    max_name = 128

    def __contains__(self, name: object) -> bool:
        return dict.__contains__(self, name) or (
            isinstance(name, str) and len(name) <= self.max_name and _NAME_WORD_RE.fullmatch(name) is not None)

    def __missing__(self, name: str) -> dict[str, Any]:
        return {}

    def __bool__(self) -> bool:
        return True


def _reader(core: Scanner, spec: FormatSpec) -> Reader:
    """The reader of the description's call syntax."""
    c = spec.call
    if isinstance(c, XmlCall):
        return XmlReader(core, c)
    if isinstance(c, JsonCall):
        return JsonReader(core, c)
    if isinstance(c, NamedJsonCall):
        return NamedReader(core, c)
    if isinstance(c, GemmaCall):
        return GemmaReader(core, c)
    if isinstance(c, ElementCall):
        return ElementReader(core, c)
    return PythonReader(core)


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
        model_ids: bool = False,
    ) -> None:
        self.spec = spec
        self.model_ids = model_ids
        self.tools = tools  # callable tool name -> parameters schema
        self.all_names = all_names
        self.calls_enabled = calls_enabled
        self.parallel = parallel
        self.needs_call = needs_call
        self.loose = loose  # tools with ``strict: false``: their schemas type values but do not reject them
        self.max_calls = max_calls
        self.max_name = max((len(n) for n in (*tools, *all_names)),
                            default=0) if not isinstance(tools, AnyTool) else AnyTool.max_name
        sc = spec.scope
        c = spec.call
        # openers recognised in free text: (literal, kind)
        self.openers: list[tuple[str, str]] = []
        self.name_line = ""  # name-first lists, lenient: the text after a call's name (see _name_line_at)
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
            if sc.joiner:  # the text between two blocks, before the next one's opening (muse-glimmer)
                self.openers.append((sc.joiner + self.scope_open, "scope"))
            if isinstance(c, XmlCall) and c.function_open:
                self.openers.append((c.function_open, "bare"))
            if isinstance(c, HeaderJsonCall):
                self.openers.extend((h, "header") for h in c.read_heads)  # other header spellings
        else:
            for w in sc.wrappers:
                self.openers.append((w.open, "wrapper"))
            if sc.section is None and not self.name_first:
                self.openers.append((sc.open or "{", "list"))
            elif self.name_first and calls_enabled and tools:
                # lenient: a callable tool's name line and the arguments' "{" after free text (with a
                # calls_after_text diagnostic): a whole word (see _NAME_WORD) that is a tool's name,
                # found by one regex and a set look-up, so the cost does not grow with the tools
                self.name_line = c.name_end + "{"  # type: ignore[union-attr]
        self.scope_close = sc.close.strip(WS)
        mk = spec.markup
        # protocol markup dropped from text (longest first, so a token that extends another wins)
        self.mk_tokens = sorted(mk.tokens, key=len, reverse=True)
        firsts = "".join(sorted({o[0][0] for o in self.openers} | {t[0] for t in mk.tokens}
                                | {h[0][0] for h in mk.headers}))
        self.r = spec.reasoning if reasoning != "none" else None
        if self.r is not None:
            firsts += self.r.open[0] + self.r.close[0]
        alts = ["[" + re.escape(firsts) + "]"] if firsts else []
        if self.name_line:
            # a word start followed by the name line's end, or by the end of the buffer (more may come)
            ends = "|".join(re.escape(self.name_line[:k]) for k in range(len(self.name_line)))
            alts.append(f"(?<!{_NAME_WORD})(?={_NAME_WORD}{{1,{self.max_name}}}"
                        f"(?:{re.escape(self.name_line)}|(?:{ends})\\Z))")
        self.text_re = re.compile("|".join(alts) if alts else "(?!)")
        self.buf = ""
        self.pos = 0
        self.final = False
        self.step: Callable[[], bool | None] = (
            self._s_reasoning if (self.r is not None and reasoning == "forced")
            else self._s_list_start if self.name_first else self._s_text)
        self.out: list[dict[str, Any]] = []
        self.content: list[str] = []
        self.reasoning_parts: list[str] = []
        self.pending_ws: dict[str, list[str]] = {"content": [], "reasoning_content": []}
        self.started = {"content": False, "reasoning_content": False}
        self.calls: list[Call] = []
        self.call: Call | None = None
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
        self._wscache: dict[int, int] = {}  # see ws_from
        self._decoder: Any = None
        self.base = 0  # offset in the output of buf[0]: consumed text is dropped (see _compact)
        self.reader = _reader(self, spec)
        self._spellings = dict(spec.read_spellings)
        self._spell_re = re.compile("|".join(re.escape(a) for a in sorted(self._spellings, key=len, reverse=True))) \
            if self._spellings else None
        self._spell_keys = (*self._spellings, *self._spellings.values())
        self._spell_any = re.compile("|".join(re.escape(a) for a in sorted(self._spell_keys, key=len, reverse=True))) \
            if self._spellings else None
        self._spell_max = max(map(len, self._spell_keys), default=0)
        self._spell_tail = ""
        self._spell_mode: bool | None = None  # None: undecided; True: respell; False: the canonical spelling
        self._rfind: dict[str, tuple[int, int]] = {}  # see _s_reasoning
        self.mk_tokens_or_headers = bool(mk)

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
        if self._spell_re is not None:
            chunk = self._respell(chunk, False)
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

    def _respell(self, chunk: str, final: bool) -> str:
        """``chunk`` with the description's other spellings of its tags (``read_spellings``) read as
        the canonical ones. The first tag of either spelling decides: an output that starts in the
        canonical spelling is read as written (its values keep any such text); one that starts in
        the other spelling is read respelled from there. A suffix that may still grow into a tag is
        held back until the next feed."""
        text = self._spell_tail + chunk
        if self._spell_mode is False:
            self._spell_tail = ""
            return text
        keys = self._spell_keys if self._spell_mode is None else self._spellings
        hold = 0
        if not final:
            for k in range(min(self._spell_max - 1, len(text)), 0, -1):
                if any(a.startswith(text[-k:]) for a in keys):
                    hold = k
                    break
        body, self._spell_tail = text[:len(text) - hold], text[len(text) - hold:]
        head = ""
        if self._spell_mode is None:
            m = self._spell_any.search(body)  # type: ignore[union-attr]
            if m is None:
                return body
            if m.group() not in self._spellings:  # the canonical spelling first: read as written
                self._spell_mode, self._spell_tail = False, ""
                return text
            self._spell_mode = True
            self.diag("other_spelling", "tags written in another spelling of the format; read as the canonical one",
                      None)
            head, body = body[:m.start()], body[m.start():]
        return head + self._spell_re.sub(lambda m: self._spellings[m.group()], body)  # type: ignore[union-attr]

    def _compact(self) -> None:
        """Drop the consumed start of the buffer (keeps appends O(chunk)); shift the kept offsets."""
        low = min(self.pos, self.reader.st.low())
        if low < 1024:
            return
        self.buf = self.buf[low:]
        self.base += low
        self._wscache.clear()
        self._rfind.clear()
        self.pos -= low
        self._unknown_until = max(0, self._unknown_until - low)
        self.reader.st.shift(low)

    def finish(self) -> list[dict[str, Any]]:
        """End of input: flush held text, close an unfinished call; return the last deltas."""
        if self._decoder is not None:
            self.buf += self._decoder.decode(b"", final=True)
            self._decoder = None
        if self._spell_re is not None:
            self.buf += self._respell("", True)
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
            {"id": self.call_id(c), "type": "function",
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
            self.diag("trailing_text", "text after the tool calls is kept as content",
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

    # -- the interface of the readers (readers._common.Core) -----------------------------------------
    def diag(self, code: str, message: str, offset: int | None) -> None:
        """Report a diagnostic at buffer index ``offset`` (None: the whole output)."""
        self.diagnostics.append(Diagnostic(code, message, None if offset is None else offset + self.base))

    def args(self, text: str) -> None:
        """Emit a piece of the open call's ``arguments``."""
        call = self.call
        assert call is not None
        if not text:
            return
        call.args.append(text)
        self.out.append({"tool_calls": [{"index": call.index, "function": {"arguments": text}}]})

    # -- driver ---------------------------------------------------------------------------------------
    def _run(self) -> None:
        """Run the current step until it waits for input or makes no progress."""
        while True:
            pos, step = self.pos, self.step
            if step() is False:
                return
            if self.pos == pos and self.step == step:
                return

    def ws_from(self, q: int) -> int:
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

    def ws(self) -> bool:
        """Skip whitespace; False when the buffer ended (more may come)."""
        n = len(self.buf)
        while self.pos < n and self.buf[self.pos] in WS:
            self.pos += 1
        return self.pos < n

    def lit(self, lit: str) -> str | bool:
        """Match ``lit`` at the cursor: True (consumed), False (mismatch) or WAIT (the buffer ends
        inside it; at the end of input too: a call cut off inside its syntax is truncated, not invalid)."""
        avail = self.buf[self.pos:self.pos + len(lit)]
        if avail == lit:
            self.pos += len(lit)
            return True
        if len(avail) < len(lit) and lit.startswith(avail):
            return WAIT
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
            if res is False and self.mk_tokens_or_headers:
                res = self._markup()
            if res == WAIT:
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
        q, n = self.ws_from(self.pos), len(self.buf)
        if q >= n and not self.final:
            return False
        self.step = self._s_text
        if q >= n or not self.calls_enabled:
            return True
        if self.r is not None:
            res = self.peek(self.r.open, q)
            if res == WAIT:
                self.step = self._s_list_start
                return False
            if res is True:
                return True  # reasoning first: the text state reads it
        prefix = self.spec.scope.text_prefix
        if prefix:
            res = self.peek(prefix, q)
            if res == WAIT:
                self.step = self._s_list_start
                return False
            if res is True:
                self.pos = q + len(prefix)  # the text recipient line: not part of the content
                return True
        head = self._head(q, "list")
        if head == WAIT:
            self.step = self._s_list_start
            return False
        if head is None:
            return True
        name, end = head
        # a name line is a call only when the arguments' object follows; any other first line
        # (the text recipient ``all``, a word) is plain text
        r = self.skip_ws_at(end)
        if r == WAIT:
            self.step = self._s_list_start
            return False
        raw = getattr(self.spec.call, "raw_code_tool", None) == name and name in self.tools
        if (r == FAIL or not buf.startswith("{", r)) and not raw:  # type: ignore[arg-type]
            return True
        if name not in self.tools:
            what = "not a callable tool" if name in self.all_names else "not a known tool"
            self.diag("unknown_tool", f"call to {name!r}: {what}; kept as content", q)
            return True
        self._pre_call_content_checks("list", q)
        self.in_list = True
        self.pos = end
        self._commit(name)
        return True

    def _at_start(self) -> bool:
        return not self.started["content"] and not self.calls

    def _markup(self) -> bool | str:
        """At a candidate character in free text: drop a markup token or message header
        (:class:`~toolgram.grammars.spec.Markup`) and return True, or WAIT (the buffer ends inside
        one; the wait is bounded by ``header_max``), or False. A call head inside a header ends
        the header and commits the call (True); an unknown recipient's header is dropped whole."""
        p, buf, mk = self.pos, self.buf, self.spec.markup
        for opening, close in mk.headers:
            res = self.peek(opening)
            if res == WAIT:
                return WAIT
            if res is not True:
                continue
            q = p + len(opening)
            window = q + mk.header_max + len(close)
            c = buf.find(close, q, window)
            end = c if c >= 0 else min(len(buf), window)
            if self.calls_enabled:
                heads = [i for lit, _ in self.openers if (i := buf.find(lit[0], q, end)) >= 0]
                o = q
                while heads:
                    o = min(heads)
                    self.pos = o
                    res = self._opener()
                    if res == WAIT:
                        self.pos = p
                        return WAIT
                    if res is True:
                        return True  # the header's start is dropped; the call reads on
                    self.pos = p
                    heads = [i for lit, _ in self.openers if (i := buf.find(lit[0], o + 1, end)) >= 0]
            if c >= 0:
                self.pos = c + len(close)
            elif len(buf) < window and not self.final:
                return WAIT
            else:
                continue  # no close in reach (or by the end of the output): not a header
            return True
        for tok in self.mk_tokens:
            res = self.peek(tok)
            if res == WAIT:
                return WAIT
            if res is True:
                self.pos = p + len(tok)
                return True
        return False

    def _opener(self) -> bool | str:
        """At a candidate character in free text: start reasoning or a call, or not (False)."""
        p = self.pos
        if self.r is not None and self._at_start():
            res = self.peek(self.r.open)
            if res is True:
                self.pos = p + len(self.r.open)
                self.step = self._s_reasoning
                return True
            if res == WAIT:
                return WAIT
        if not self.calls_enabled:
            return False
        if self.name_line:
            res = self._name_line_at(p)
            if res is not False:
                return res
        for lit, kind in self.openers:
            res = self.peek(lit)
            if res == WAIT:
                return WAIT
            if res is not True:
                continue
            q = p + len(lit) if kind != "list" or self.spec.scope.open else p
            head = self._head(q, kind)
            if head == WAIT:
                return WAIT
            if head is None:
                continue
            name, end = head
            if name not in self.tools:
                if p >= self._unknown_until:  # one diagnostic per call head (scope tag + bare head)
                    what = "not a callable tool" if name in self.all_names else "not a known tool"
                    self.diag("unknown_tool", f"call to {name!r}: {what}; kept as content", p)
                self._unknown_until = end
                return False
            self._pre_call_content_checks(kind, p)
            if kind == "wrapper":
                self.wrapper_close = self.wrapper_closes[lit]
            self.in_list = kind in ("list", "wrapper")
            self.in_section = kind == "section"
            self.bare = kind == "bare"
            self.pos = end
            self._commit(name)
            return True
        return False

    def _name_line_at(self, p: int) -> bool | str:
        """A name-first list's call after free text (``N\\n{``, lenient): the word at ``p`` is a
        callable tool's name and the name line's end follows it. The word is whole: ``search`` in
        ``research`` or ``search_web`` is not a call."""
        buf = self.buf
        m = _NAME_WORD_RE.match(buf, p, p + self.max_name + 1)
        if m is None or m.end() - p > self.max_name:
            return False
        end = m.end()
        if end >= len(buf):
            return False if self.final else WAIT
        res = self.peek(self.name_line, end)
        if res is not True:
            return res
        name = m.group()
        if name not in self.tools:
            return False
        self._pre_call_content_checks("list", p)
        self.in_list = True
        self.pos = end + len(self.name_line) - 1  # the arguments' "{" is read by the call
        self._commit(name)
        return True

    def _pre_call_content_checks(self, kind: str, p: int) -> None:
        if kind == "list" and self.spec.scope.anchored and self.started["content"] and not self.calls:
            self.diag("calls_after_text", "a call list after free text (the format anchors calls at the start)", p)
        if kind == "bare":
            self.diag("missing_scope", "a call without its scope tag", p)
        elif kind == "scope" and self.spec.scope.section is not None:
            self.diag("missing_scope", "a call block without its section", p)
        self.pending_ws["content"] = []  # whitespace before a call is dropped

    def peek(self, lit: str, at: int | None = None) -> bool | str:
        """``lit`` at ``at`` (default: the cursor), not consumed: True, False or WAIT (not at the end of input)."""
        p = self.pos if at is None else at
        avail = self.buf[p:p + len(lit)]
        if avail == lit:
            return True
        if len(avail) < len(lit) and lit.startswith(avail) and not self.final:
            return WAIT
        return False

    def skip_ws_at(self, q: int) -> int | str:
        """The index after at most ``_MAX_WS`` whitespace at ``q``; WAIT, or FAIL (too much, or the end)."""
        n = len(self.buf)
        start = q
        while q < n and self.buf[q] in WS:
            q += 1
            if q - start > _MAX_WS:
                return FAIL
        if q >= n:
            return WAIT if not self.final else FAIL
        return q

    def _head(self, q: int, kind: str) -> Head:
        """Read a call head at ``q`` up to its complete name: (name, end), None or WAIT."""
        sc = self.spec.scope
        if kind == "section":
            # the section opening, then the first block's opening
            q2 = self.skip_ws_at(q)
            if q2 in (WAIT, FAIL):
                return None if q2 == FAIL else WAIT
            res = self.peek(self.scope_open, q2)
            if res is not True:
                return WAIT if res == WAIT else None
            q, kind = q2 + len(self.scope_open), "scope"
        if kind in ("scope", "wrapper") or (kind == "list" and sc.open):
            q2 = self.skip_ws_at(q)
            if q2 in (WAIT, FAIL):
                return None if q2 == FAIL else WAIT
            q = q2
            if kind == "wrapper" and sc.open:
                # the list's opening without its padding (Cohere's "[\n    "): whitespace is free there
                res = self.peek(self.scope_open, q)
                if res is not True:
                    return WAIT if res == WAIT else None
                q2 = self.skip_ws_at(q + len(self.scope_open))
                if q2 in (WAIT, FAIL):
                    return None if q2 == FAIL else WAIT
                q = q2
        self.reader.head_id, self.reader.headless = None, False  # what the head it reads says, not the last one
        return self.reader.head(q, kind == "bare")

    # -- reasoning ------------------------------------------------------------------------------------
    def _s_reasoning(self) -> bool | None:
        r = self.r
        assert r is not None
        stops = [r.close]
        trig = self.spec.trigger_word if r.trigger_ends else None
        if trig and self.calls_enabled:
            stops.append(trig)
        stops += self.mk_tokens
        buf = self.buf
        best = -1
        which = None
        cache = self._rfind
        for s in stops:
            # resumable: a stop found at or after the cursor stays found; one not found is searched
            # for again only in the text that arrived since (the scan stays linear)
            i, upto = cache.get(s, (-1, self.pos))
            if i < self.pos:
                i = buf.find(s, self.pos if i >= 0 else max(self.pos, upto - len(s) + 1))
                cache[s] = (i, len(buf))
            if i >= 0 and (best < 0 or i < best or (i == best and len(s) > len(which))):
                best, which = i, s
        if best >= 0 and which != r.close and which != trig:
            # a markup token: dropped, unless the buffer may still grow into a longer stop there
            if not self.final and any(len(s) > len(which) and s.startswith(buf[best:]) for s in stops):
                best = -1
            else:
                self._text("reasoning_content", buf[self.pos:best])
                self.pos = best + len(which)
                return True
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
                self.diag("unclosed_reasoning", "the reasoning block is not closed", len(buf))
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
        """The end of input inside the reasoning: nothing more to read."""
        return False

    # -- calls ------------------------------------------------------------------------------------------
    def call_id(self, call: Call) -> str:
        """A call's ``id``: ``call_<index>`` (SPEC section 4), or with ``model_ids`` the id the model wrote
        in the call's head where it wrote one."""
        return call.model_id if self.model_ids and call.model_id else f"call_{call.index}"

    def _commit(self, name: str) -> None:
        """A call of ``name`` starts at its head's end: announce it, then its reader reads on."""
        if self.calls and not self.parallel and len(self.calls) == 1:
            self.diag("parallel_calls", "more than one call while parallel tool calls are off; all are kept",
                      self.pos)
        elif self.parallel and self.max_calls is not None and len(self.calls) >= self.max_calls \
                and not self._too_many:
            self._too_many = True
            self.diag("too_many_calls", f"more than max_tool_calls={self.max_calls} calls; all are kept", self.pos)
        call = Call(len(self.calls), name, self.tools[name], self.reader.head_id)
        self.reader.head_id = None  # a head read without the reader (a name-first list) writes no id
        self.calls.append(call)
        self.call = call
        call.args.append("{")
        self.out.append({"tool_calls": [{"index": call.index, "id": self.call_id(call), "type": "function",
                                         "function": {"name": name, "arguments": "{"}}]})
        self.reader.start()

    def close_args(self) -> None:
        """Close the call's ``arguments`` object."""
        call = self.call
        assert call is not None
        self.args("}")
        call.done = True

    def end_call(self) -> None:
        """The call's arguments are closed; read its closing tags."""
        self.close_args()
        self.step = self._s_after_call

    def after_call(self) -> None:
        """The arguments were closed: read the call's closing tags."""
        self.step = self._s_after_call

    def bad_call(self, what: str) -> None:
        """A committed call met unexpected text: it ends here with its arguments as received so far
        (not closed, so not valid JSON: nothing is invented); the rest is content."""
        call = self.call
        assert call is not None
        self.diag("invalid_call", f"call {call.name!r}: {what}; the call ends here, its arguments as received",
                  self.pos)
        call.done = True
        self.call = None
        self.seen_call_end = True
        self.in_list = False
        self.step = self._s_text

    def member_key(self, key: str) -> bool:
        """Start a member; False when the key is a duplicate (its value is then skipped)."""
        call = self.call
        assert call is not None
        if key in call.keys:
            self.diag("duplicate_argument", f"argument {key!r} repeated; the first value is kept", self.pos)
            return False
        call.keys.add(key)
        return True

    def member_prefix(self, key: str) -> str:
        """The ``arguments`` text that opens the member ``key`` (after the separator, if one is due)."""
        call = self.call
        assert call is not None
        sep = ", " if len(call.keys) > 1 else ""
        return sep + json.dumps(key, ensure_ascii=False) + ": "

    # -- after a call ----------------------------------------------------------------------------------
    def _s_after_call(self) -> bool | None:
        """Read the call's scope close (block formats), then go on with the list or free text."""
        sc = self.spec.scope
        buf = self.buf
        if sc.per_call:
            lit = self.scope_close
            q, n = self.ws_from(self.pos), len(buf)
            if q >= n and not self.final:
                return False
            if isinstance(self.spec.call, JsonCall) and q < n and buf[q] in ",{]":
                res = self._next_in_block(q)
                if res is not None:
                    return res
                q, n = self.ws_from(self.pos), len(buf)
            if buf.startswith(lit, q):
                self.pos = q + len(lit)
            elif lit.startswith(buf[q:]) and not self.final:
                return False
            elif not self.bare:
                self.diag("missing_close", f"{lit!r} is missing after a call", q)
        if self.in_section:
            self.step = self._s_section_next
            self.call = None
            return True
        if self.in_list:
            self.step = self._s_list_next
            self.call = None
            return True
        self.after_done()
        return True

    def _next_in_block(self, q: int) -> bool | None:
        """Lenient: after a JSON call object inside a block, another call object of the same block
        (after ``,`` or whitespace, or in a JSON list: ``<tool_call>[{...}, {...}]</tool_call>``):
        True (committed), False (wait) or None (none: read the block's close; a list's ``]`` is read)."""
        buf, n = self.buf, len(self.buf)
        r = q
        if buf[q] == "]":
            if self.scope_close:  # a block list's close (a block without a close tag keeps it as text)
                self.pos = q + 1
            return None
        if buf[q] == ",":
            r = self.ws_from(q + 1)
            if r >= n:
                return False if not self.final else None
        head = self._head(r, "next")
        if head == WAIT:
            return False
        if head is None or head[0] not in self.tools:
            return None
        self.diag("calls_in_one_block", "several call objects in one block; each is read", q)
        self.call = None
        self.pos = head[1]
        self._commit(head[0])
        return True

    def after_done(self) -> None:
        """The calls end here: back to free text."""
        self.call = None
        self.seen_call_end = True
        self.step = self._s_text
        self.in_list = False
        self.in_section = False

    def _close_at(self, close: str, q: int) -> bool | None:
        """The calls' closing text at ``q``: True (consumed, the calls end), False (wait for more
        input) or None (not there)."""
        res = self.peek(close, q)
        if res == WAIT:
            return False
        if res is not True:
            return None
        self.pos = q + len(close)
        self.after_done()
        return True

    def _s_section_next(self) -> bool | None:
        """Between blocks inside a section: the next block, or the section's close."""
        n = len(self.buf)
        q = self.ws_from(self.pos)
        close = self.spec.scope.section.close.strip(WS)  # type: ignore[union-attr]
        if q >= n:
            if not self.final:
                return False
            if close and not self.spec.scope.section.close_optional:  # type: ignore[union-attr]
                self.diag("missing_close", f"{close!r} is missing at the end", n)
            self.after_done()
            return True
        res = self.peek(self.scope_open, q)
        if res == WAIT:
            return False
        if res is True:
            head = self._head(q + len(self.scope_open), "scope")
            if head == WAIT:
                return False
            if head is not None and head[0] in self.tools:
                self.pos = head[1]
                self._commit(head[0])
                return True
            name = head[0] if head is not None else None
            self.diag("invalid_call", f"a block in the section is not a call of a callable tool ({name!r})", q)
            self.after_done()
            return True
        if close:
            res = self._close_at(close, q)
            if res is not None:
                return res
            self.diag("missing_close", f"{close!r} is missing after the calls", q)
        self.after_done()
        return True

    def _next_call(self, q: int) -> bool | None:
        """A next call of the list at ``q``: True (committed), None (wait) or False."""
        head = self._head(q, "next")
        if head == WAIT:
            return None
        if head is not None and head[0] in self.tools:
            self.pos = head[1]
            self._commit(head[0])
            return True
        return False

    def _s_list_next(self) -> bool | None:
        sc = self.spec.scope
        close = sc.close.strip(WS)  # the list's close without its padding (Cohere's "\n]")
        # a list without brackets inside a section (MiniMax-M1's JSON lines): the section's close ends it
        wclose = "" if close else self.wrapper_close.strip(WS)
        buf = self.buf
        q, n = self.ws_from(self.pos), len(buf)
        if q >= n:
            if not self.final:
                return False
            if close or wclose:
                self.diag("missing_close", f"{close or wclose!r} is missing at the end", n)
            self.after_done()
            return True
        seps = (sc.separator,) if close else (sc.separator, ",", ";")
        sep = next((s for s in seps if s and buf.startswith(s, q)), None)
        if sep is None and not self.final and any(n - q < len(s) and s.startswith(buf[q:]) for s in seps):
            return False  # the buffer ends inside a multi-character separator (Functionary's ">>>")
        if sep is not None:
            r = self.ws_from(q + len(sep))
            if r >= n and not self.final:
                return False
            res = self._next_call(r) if r < n else False
            if res is None:
                return False
            if res is False:
                self.diag("invalid_call", "the text after a separator is not a call", q)
                self.after_done()
            return True
        if close:
            res = self.peek(close, q)
            if res == WAIT:
                return False
            if res is not True:
                self.diag("missing_close", f"{close!r} is missing after the calls", q)
                self.after_done()
                return True
            end = q + len(close)
            if self.wrapper_close:
                r = self.ws_from(end)
                res = self.peek(self.wrapper_close, r)
                if res == WAIT:
                    return False
                if res is True:
                    end = r + len(self.wrapper_close)
            self.pos = end
            self.after_done()
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
                self.diag("missing_close", f"{wclose!r} is missing after the calls", q)
            self.after_done()
        return True

    # end of input --------------------------------------------------------------------------------------
    def _truncate_call(self) -> None:
        """End of input inside a committed call: its arguments stay exactly as received so far,
        converted as far as they were complete (SPEC section 4: nothing is invented). An open string
        gets no closing quote and the object no closing brace, so the text is not valid JSON."""
        call = self.call
        assert call is not None
        if not call.done:
            self.args(self.reader.cut() or "")
            call.done = True
            self.truncated = True
            self.diag("truncated_call", f"call {call.name!r} was cut off; its arguments are kept as received",
                      len(self.buf))
        elif self.reader.awaits_close():
            # the arguments are complete but the call object never closed: the output was cut off
            self.truncated = True
            self.diag("truncated_call", f"call {call.name!r} was cut off after its arguments", len(self.buf))
        self.call = None

    def _end_checks(self) -> None:
        if self.needs_call and not self.calls:
            self.diag("missing_call", "tool_choice requires a call and none was found", None)
