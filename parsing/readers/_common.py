"""What the call readers share: the scanner core's interface, typed state, value scanning, escapes."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from ...grammars.spec import FormatSpec
from ..diagnostics import Diagnostic
from ..values import dumps_arguments

WS = " \t\n\r"
WAIT = "wait"  # a look-ahead that needs more input
FAIL = "fail"
FLUSH = 4096  # a pinned value longer than this moves its settled text out of the buffer (see pinned)
IDENT_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]*")
#: a call head read up to its complete name: (name, index after the head), None (not a head) or WAIT
Head = tuple[str, int] | str | None
Step = Callable[[], bool | None]
_FAR = 1 << 62  # no offset kept


def esc(text: str) -> str:
    """``text`` as the body of a JSON string in ``arguments`` (per-character, so pieces concatenate)."""
    return dumps_arguments(text)[1:-1]


class Call:
    """One committed call: its index, name, parameters schema, argument names and ``arguments`` pieces."""

    __slots__ = ("index", "name", "tool", "keys", "args", "done", "model_id")

    def __init__(self, index: int, name: str, tool: dict[str, Any], model_id: str | None = None) -> None:
        self.index = index
        self.name = name
        self.tool = tool
        self.model_id = model_id  # the id the model wrote in the call head, if its format writes one
        self.keys: set[str] = set()
        self.args: list[str] = []
        self.done = False


class Core(Protocol):
    """The scanner core as the readers see it: the buffer and cursor, output, and the call's life."""

    spec: FormatSpec
    buf: str
    pos: int
    base: int
    final: bool
    step: Step
    call: Call | None
    tools: dict[str, dict[str, Any]]
    all_names: frozenset[str]
    loose: frozenset[str]
    max_name: int
    scope_close: str
    in_list: bool
    in_section: bool
    diagnostics: list[Diagnostic]

    def ws(self) -> bool: ...
    def ws_from(self, q: int) -> int: ...
    def lit(self, lit: str) -> str | bool: ...
    def peek(self, lit: str, at: int | None = None) -> bool | str: ...
    def skip_ws_at(self, q: int) -> int | str: ...
    def args(self, text: str) -> None: ...
    def diag(self, code: str, message: str, offset: int | None) -> None: ...
    def member_key(self, key: str) -> bool: ...
    def member_prefix(self, key: str) -> str: ...
    def close_args(self) -> None: ...
    def end_call(self) -> None: ...
    def after_call(self) -> None: ...
    def after_done(self) -> None: ...
    def bad_call(self, what: str) -> None: ...


@dataclass(slots=True)
class State:
    """A reader's state in one phase; the base holds no buffer offset."""

    def low(self) -> int:
        """The lowest buffer offset this state still reads (compaction keeps the buffer from there)."""
        return _FAR

    def shift(self, low: int) -> None:
        """The buffer lost its first ``low`` characters: move the offsets."""


NO_STATE = State()


@dataclass(slots=True)
class Pinned(State):
    """A value read whole (JSON / Python / Gemma 4): its text starts at ``start`` (settled text
    already moved to ``parts``); ``scan``, ``depth`` and ``instr`` resume the scan for its end."""

    start: int
    at: int = 0  # the value's offset in the output (diagnostics)
    key: str = ""
    keep: bool = False
    scan: int = 0
    depth: int = 0
    instr: str | bool = False
    parts: list[str] = field(default_factory=list)

    def low(self) -> int:
        return min(self.start, self.scan)

    def shift(self, low: int) -> None:
        self.start = max(self.start - low, 0)
        self.scan = max(self.scan - low, 0)

    def raw(self, buf: str, end: int) -> str:
        return "".join(self.parts) + buf[self.start:end]


def scan_value(buf: str, s: Pinned) -> int:
    """Find the end of a JSON/Python value starting at ``s.start``: the index of the ',' or
    closer at depth 0 (trailing whitespace excluded); -1 when more input is needed.
    Resumable: the scan state lives in ``s``."""
    i, n = s.scan, len(buf)
    depth, instr = s.depth, s.instr
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
    s.depth, s.instr = depth, instr
    s.scan = i  # may be n + 1: past an escape whose character has not arrived
    if i >= n:
        return -1
    end = i
    while end > s.start and buf[end - 1] in WS:
        end -= 1
    return end


def pinned(core: Core, s: Pinned) -> str | None:
    """The text of a JSON/Python value read by :func:`scan_value`, or None (more input needed;
    settled text then leaves the buffer, so a long value does not pin it)."""
    buf = core.buf
    end = scan_value(buf, s)
    if end < 0:
        cut = min(s.scan, len(buf))
        if cut - s.start > FLUSH:
            s.parts.append(buf[s.start:cut])
            s.start = cut
        return None
    core.pos = end
    return s.raw(buf, end)


def unescape_units(core: Core, seg: str, at: int, escape: re.Pattern[str],
                   decode: Callable[[str], str | None]) -> str:
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
            core.diag("invalid_escape", "an invalid escape in a string argument is kept as written", at + m.start())
        out.append(text)
        last = m.end()
    out.append(seg[last:])
    return "".join(out)


class Reader:
    """The reader of one call syntax: its call head, then the call's text after the head (the steps
    it installs as ``core.step``), with its typed state in ``st``."""

    def __init__(self, core: Core) -> None:
        self.core = core
        self.st: State = NO_STATE
        #: what the head :meth:`head` read last says beside its name (the core clears both before each head):
        #: the call id the model wrote in it, and whether it lacked its fixed text before the name (lenient;
        #: reported by :meth:`note_headless`)
        self.head_id: str | None = None
        self.headless = False

    def head(self, q: int, bare: bool) -> Head:
        """The call head at ``q`` up to its complete name (``bare``: a block head without its opening);
        a call id written in it goes to :attr:`head_id`."""
        raise NotImplementedError

    def start(self) -> None:
        """A call was committed at the end of its head: install the first step."""
        raise NotImplementedError

    def note_headless(self, head: str) -> None:
        """At a call's start: report a head read without its fixed text ``head`` (``missing_head``)."""
        if self.headless:
            self.headless = False
            self.core.diag("missing_head", f"a call name without {head!r} before it", self.core.pos)

    def cut(self) -> str | None:
        """At the end of input inside the arguments: the member text of a kept value read so far."""
        return None

    def awaits_close(self) -> bool:
        """The arguments are closed but the call's own closing text has not been read."""
        return False
