"""Detect a model's tool-call format from its chat template (SPEC section 5, ``toolgram detect``).

Works on template text, a template file, or a GGUF file (its ``tokenizer.chat_template``
metadata, read with a small pure-Python GGUF header reader -- no engine import).
"""

from __future__ import annotations

import re
import struct
from pathlib import Path
from typing import BinaryIO

from ..errors import ToolgramError

__all__ = ["detect_format", "detect_path", "read_gguf_chat_template", "read_template"]

# (format id, test, reason); the first match wins, so more specific rules come first.
_RULES: list[tuple[str, re.Pattern[str], str]] = [
    ("seed_oss", re.compile(r"<seed:tool_call>"), "the template writes <seed:tool_call> blocks"),
    ("qwen3_coder", re.compile(r"<tool_call>[\s\S]*<function=|<function=[\s\S]*<tool_call>"),
     "the template writes <tool_call> blocks holding <function=...><parameter=...> XML"),
    ("llama4_pythonic", re.compile(r"<\|python_start\|>|<\|header_start\|>[\s\S]*\[func_name"),
     "Llama 4 header tokens with a python list of calls ([func_name1(...)])"),
    ("pythonic", re.compile(r"\[func_name1?\(|python list (of|for) (function )?calls"),
     "the template asks for a python list of calls ([func_name1(params_name1=...)])"),
    ("hermes", re.compile(r"<tool_call>"),
     'the template writes <tool_call> blocks holding {"name": ..., "arguments": ...} JSON'),
    ("llama3_json", re.compile(r"<\|python_tag\|>|\"parameters\"[\s\S]*ipython|ipython[\s\S]*\"parameters\""),
     'Llama 3 ipython role with {"name": ..., "parameters": ...} JSON calls'),
]


def detect_format(template: str) -> tuple[str, str] | None:
    """``(format_id, reason)`` for a chat template's text, or ``None`` when no tool format is named."""
    for fmt, pattern, reason in _RULES:
        if pattern.search(template):
            return fmt, reason
    return None


def _read_exact(f: BinaryIO, n: int) -> bytes:
    data = f.read(n)
    if len(data) != n:
        raise ToolgramError("truncated GGUF header")
    return data


_SCALAR = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 6: "<f", 7: "<?", 10: "<Q", 11: "<q", 12: "<d"}


def _read_value(f: BinaryIO, vtype: int, keep: bool) -> object:
    if vtype in _SCALAR:
        fmt = _SCALAR[vtype]
        return struct.unpack(fmt, _read_exact(f, struct.calcsize(fmt)))[0]
    if vtype == 8:
        (n,) = struct.unpack("<Q", _read_exact(f, 8))
        if not keep:
            f.seek(n, 1)
            return None
        return _read_exact(f, n).decode("utf-8", "replace")
    if vtype == 9:
        etype, count = struct.unpack("<IQ", _read_exact(f, 12))
        if etype in _SCALAR:
            f.seek(struct.calcsize(_SCALAR[etype]) * count, 1)
        else:
            for _ in range(count):
                _read_value(f, etype, False)
        return None
    raise ToolgramError(f"unknown GGUF value type {vtype}")


def read_gguf_metadata(path: str | Path, keys: tuple[str, ...]) -> dict[str, object]:
    """The values of ``keys`` from a GGUF file's metadata (arrays are skipped)."""
    out: dict[str, object] = {}
    with open(path, "rb") as f:
        if f.read(4) != b"GGUF":
            raise ToolgramError("not a GGUF file", str(path))
        version, _tensors, n_kv = struct.unpack("<IQQ", _read_exact(f, 20))
        if version < 2:
            raise ToolgramError(f"GGUF version {version} is not supported", str(path))
        for _ in range(n_kv):
            (klen,) = struct.unpack("<Q", _read_exact(f, 8))
            key = _read_exact(f, klen).decode("utf-8", "replace")
            (vtype,) = struct.unpack("<I", _read_exact(f, 4))
            value = _read_value(f, vtype, key in keys)
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
    """Template text from a ``.jinja`` file or a GGUF (``ToolgramError`` when there is none)."""
    p = Path(path)
    try:
        with open(p, "rb") as f:
            magic = f.read(4)
    except OSError as exc:
        raise ToolgramError(f"cannot read template: {exc.strerror}", str(path)) from None
    if magic == b"GGUF":
        text = read_gguf_chat_template(p)
        if text is None:
            raise ToolgramError("the GGUF has no tokenizer.chat_template", str(path))
        return text
    return p.read_text(encoding="utf-8", errors="replace")


def detect_path(path: str | Path) -> tuple[str, str] | None:
    """:func:`detect_format` on a template file or a GGUF."""
    return detect_format(read_template(path))
