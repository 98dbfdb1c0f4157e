"""Detect a model's tool-call format from its chat template (SPEC section 5, ``toolgram detect``).

Works on template text, a template file, or a GGUF file (its ``tokenizer.chat_template``
metadata, read with a small pure-Python GGUF header reader -- no engine import).

Cost bounds (any input, including hostile files):

- every detection rule is a test on where a few literals first occur (``str.find`` over the text in
  cache-sized chunks; no regex), so detection is linear in the template's length (the old rule
  ``<tool_call>[\\s\\S]*<function=`` took 179 s on 396 KB);
- the GGUF reader checks every length and count against the bytes left in the file before reading
  or skipping, nests arrays at most :data:`MAX_GGUF_ARRAY_DEPTH` deep, and reads no metadata string
  longer than :data:`MAX_TEMPLATE_BYTES`; a template file must be a regular file no larger than
  :data:`MAX_TEMPLATE_BYTES`. Every violation is a one-line :class:`ToolgramError` naming the file.
"""

from __future__ import annotations

import os
import stat
import struct
from pathlib import Path
from typing import BinaryIO

from ..errors import ToolgramError
from ..grammars import FORMATS
from ..grammars.spec import Fingerprint

__all__ = ["MAX_GGUF_ARRAY_DEPTH", "MAX_TEMPLATE_BYTES", "TOOL_CALLS_FIELD", "detect_format", "detect_path",
           "read_gguf_chat_template", "read_gguf_metadata", "read_template", "renders_tool_calls"]

#: The largest chat template read, from a file or a GGUF string (real templates are under 100 KB).
MAX_TEMPLATE_BYTES = 8 * 1024 * 1024
#: The deepest nesting of GGUF arrays accepted (real files nest at most 1 deep).
MAX_GGUF_ARRAY_DEPTH = 8


class _Hits:
    """Where each literal first occurs in a template, found in one sweep of cache-sized chunks.

    Every literal is searched within each chunk before moving on, so the text is read from memory once
    (one ``str.find`` pass per literal over a 1.6 MB text reads it from RAM a dozen times, and the
    time then grows faster than the size)."""

    CHUNK = 1 << 16

    def __init__(self, text: str, needles: tuple[str, ...]) -> None:
        self.first = dict.fromkeys(needles, -1)
        todo = list(needles)
        n = len(text)
        for start in range(0, max(n, 1), self.CHUNK):
            end = start + self.CHUNK
            for needle in list(todo):  # a match may start in this chunk and end in the next
                pos = text.find(needle, start, min(n, end + len(needle) - 1))
                if pos >= 0:
                    self.first[needle] = pos
                    todo.remove(needle)
            if not todo:
                break

    def has(self, needle: str) -> bool:
        return self.first[needle] >= 0


def _fingerprints() -> list[tuple[int, str, Fingerprint]]:
    """Every format's fingerprints, most specific (highest priority) first; ties in listing order."""
    found = [(fp.priority, i, fmt, fp) for i, (fmt, spec) in enumerate(FORMATS.items()) for fp in spec.detect]
    found.sort(key=lambda t: (-t[0], t[1]))
    return [(p, fmt, fp) for p, _, fmt, fp in found]


# Detection knows no format: the fingerprints come from the format descriptions (grammars/*.py).
_RULES = _fingerprints()
_NEEDLES = tuple(dict.fromkeys([n for _, _, fp in _RULES for clause in fp.clauses for n in clause]
                                + [n for _, _, fp in _RULES for n in fp.unless]))

#: The message field a chat template reads to write an assistant turn's calls (OpenAI and HF messages).
#: A template that never names it renders no tool calls (Gemma 2, Phi-3.5, RWKV, SmolLM3).
TOOL_CALLS_FIELD = "tool_calls"


def _open_nonblocking(path: str, flags: int) -> int:
    """``open()``'s opener: a FIFO without a writer must not block the open (it is then refused)."""
    return os.open(path, flags | getattr(os, "O_NONBLOCK", 0))


def detect_format(template: str) -> tuple[str, str] | None:
    """``(format_id, reason)`` for a chat template's text, or ``None`` when no tool format is named.

    A fingerprint matches when all literals of one of its clauses occur and none of its ``unless``
    literals does; the highest priority wins. No match is ``None`` (unknown), never the nearest format."""
    hits = _Hits(template, _NEEDLES)
    for _, fmt, fp in _RULES:
        if any(all(hits.has(n) for n in clause) for clause in fp.clauses) and not any(
                hits.has(n) for n in fp.unless):
            return fmt, fp.reason
    return None


def renders_tool_calls(template: str) -> bool:
    """Whether a chat template can write an assistant message's tool calls at all: it reads the
    message's ``tool_calls`` field (one substring test, linear in the template's length)."""
    return TOOL_CALLS_FIELD in template


# --- GGUF metadata ---------------------------------------------------------------------------

_SCALAR = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 6: "<f", 7: "<?", 10: "<Q", 11: "<q", 12: "<d"}
_STRING, _ARRAY = 8, 9
#: the fewest bytes one value of a type takes (a string is its 8-byte length; an array its type and count)
_MIN_SIZE = {**{t: struct.calcsize(f) for t, f in _SCALAR.items()}, _STRING: 8, _ARRAY: 12}


class _Reader:
    """Reads a GGUF header, checking every length against the bytes left in the file."""

    def __init__(self, f: BinaryIO, path: str) -> None:
        self.f = f
        self.path = path
        self.size = os.fstat(f.fileno()).st_size

    def error(self, message: str) -> ToolgramError:
        return ToolgramError(f"malformed GGUF file: {message}", self.path)

    def left(self) -> int:
        return self.size - self.f.tell()

    def need(self, n: int, what: str) -> None:
        left = self.left()
        if n > left:
            raise self.error(f"{what} needs {n} bytes at offset {self.f.tell()}, but only {left} are left")

    def read(self, n: int, what: str) -> bytes:
        self.need(n, what)
        data = self.f.read(n)
        if len(data) != n:  # the file shrank while we read it
            raise self.error(f"{what} is truncated at offset {self.f.tell()}")
        return data

    def unpack(self, fmt: str, what: str) -> tuple:
        return struct.unpack(fmt, self.read(struct.calcsize(fmt), what))

    def skip(self, n: int, what: str) -> None:
        self.need(n, what)
        self.f.seek(n, 1)

    def string(self, keep: bool, what: str) -> str | None:
        (n,) = self.unpack("<Q", f"the length of {what}")
        if not keep:
            self.skip(n, what)
            return None
        if n > MAX_TEMPLATE_BYTES:
            self.need(n, what)
            raise self.error(f"{what} is {n} bytes, more than the {MAX_TEMPLATE_BYTES} read")
        return self.read(n, what).decode("utf-8", "replace")

    def value(self, vtype: int, keep: bool, what: str, depth: int = 0) -> object:
        if vtype in _SCALAR:
            fmt = _SCALAR[vtype]
            return self.unpack(fmt, what)[0]
        if vtype == _STRING:
            return self.string(keep, what)
        if vtype == _ARRAY:
            if depth >= MAX_GGUF_ARRAY_DEPTH:
                raise self.error(f"{what} nests arrays more than {MAX_GGUF_ARRAY_DEPTH} deep")
            etype, count = self.unpack("<IQ", f"the header of {what}")
            if etype not in _MIN_SIZE:
                raise self.error(f"unknown value type {etype} in {what}")
            self.need(count * _MIN_SIZE[etype], f"{what} ({count} items)")  # cheap bound before any loop
            if etype in _SCALAR:
                self.f.seek(count * _MIN_SIZE[etype], 1)
            else:
                for _ in range(count):
                    self.value(etype, False, what, depth + 1)
            return None
        raise self.error(f"unknown value type {vtype} for {what}")


def read_gguf_metadata(path: str | Path, keys: tuple[str, ...]) -> dict[str, object]:
    """The values of ``keys`` from a GGUF file's metadata (arrays are skipped)."""
    out: dict[str, object] = {}
    try:
        f = open(path, "rb", opener=_open_nonblocking)
    except OSError as exc:
        raise ToolgramError(f"cannot read GGUF file: {exc.strerror}", str(path)) from None
    with f:
        if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
            raise ToolgramError("not a regular file", str(path))
        r = _Reader(f, str(path))
        if f.read(4) != b"GGUF":
            raise ToolgramError("not a GGUF file", str(path))
        version, _tensors, n_kv = r.unpack("<IQQ", "the GGUF header")
        if version < 2:
            raise ToolgramError(f"GGUF version {version} is not supported", str(path))
        r.need(n_kv * 12, f"{n_kv} metadata entries")  # each takes at least a key length and a type
        for i in range(n_kv):
            (klen,) = r.unpack("<Q", f"the key length of metadata entry {i}")
            key = r.read(klen, f"the key of metadata entry {i}").decode("utf-8", "replace")
            (vtype,) = r.unpack("<I", f"the type of {key!r}")
            value = r.value(vtype, key in keys, repr(key))
            if key in keys:
                out[key] = value
                if len(out) == len(keys):
                    break
    return out


def read_gguf_chat_template(path: str | Path) -> str | None:
    """A GGUF's ``tokenizer.chat_template``, or ``None`` when it has none."""
    value = read_gguf_metadata(path, ("tokenizer.chat_template",)).get("tokenizer.chat_template")
    return value if isinstance(value, str) else None


def read_template(path: str | Path) -> str:
    """Template text from a ``.jinja`` file or a GGUF (``ToolgramError`` when there is none).

    The file must be a regular file; a template file may hold at most :data:`MAX_TEMPLATE_BYTES`."""
    p = Path(path)
    try:
        with open(p, "rb", opener=_open_nonblocking) as f:
            st = os.fstat(f.fileno())
            if not stat.S_ISREG(st.st_mode):
                raise ToolgramError("not a regular file", str(path))
            magic = f.read(4)
            if magic != b"GGUF":
                if st.st_size > MAX_TEMPLATE_BYTES:
                    raise ToolgramError(f"template file is {st.st_size} bytes, more than the "
                                        f"{MAX_TEMPLATE_BYTES} read", str(path))
                data = magic + f.read(MAX_TEMPLATE_BYTES + 1 - len(magic))
                if len(data) > MAX_TEMPLATE_BYTES:
                    raise ToolgramError(f"template file is more than {MAX_TEMPLATE_BYTES} bytes", str(path))
                # as text mode reads it: universal newlines
                return data.decode("utf-8", errors="replace").replace("\r\n", "\n").replace("\r", "\n")
    except OSError as exc:
        raise ToolgramError(f"cannot read template: {exc.strerror}", str(path)) from None
    text = read_gguf_chat_template(p)
    if text is None:
        raise ToolgramError("the GGUF has no tokenizer.chat_template", str(path))
    return text


def detect_path(path: str | Path) -> tuple[str, str] | None:
    """:func:`detect_format` on a template file or a GGUF."""
    return detect_format(read_template(path))
