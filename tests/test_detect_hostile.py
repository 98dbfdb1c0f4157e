"""Hostile input for ``toolgram detect`` (issue 13, findings 6 and 12).

- Detection is linear: the old rule ``<tool_call>[\\s\\S]*<function=`` took 179 s on ``'<tool_call>' * 36000``.
- The GGUF reader checks every length against the file size and bounds array nesting: malformed files
  are a one-line ``ToolgramError`` naming the file (CLI exit 2), never ``MemoryError``, ``OverflowError``,
  ``ValueError``, ``OSError`` or ``RecursionError``.

What detection answers for each template of llama.cpp's collection is tested in test_runtime_detect.py.
"""

from __future__ import annotations

import os
import struct
import time
from pathlib import Path

import pytest
from toolgram.runtime.detect import (
    MAX_GGUF_ARRAY_DEPTH,
    MAX_TEMPLATE_BYTES,
    detect_format,
    read_gguf_chat_template,
    read_gguf_metadata,
)

from toolgram import ToolgramError
from toolgram.cli import main

# --------------------------------------------------------------------------- finding 6: linear detection

FLOODS = ["<tool_call>", '"parameters"', "ipython", "<function=", "<|header_start|>", "[func_name", "<",
          "python list of "]


def test_reproducer_tool_call_flood(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = '"arguments"' + "<tool_call>" * 36000  # 396 KB: 179 s before
    t0 = time.perf_counter()
    assert detect_format(text) == ("hermes", detect_format('<tool_call>"arguments"')[1])
    assert time.perf_counter() - t0 < 5
    path = tmp_path / "flood.jinja"
    path.write_text(text)
    assert main(["detect", str(path)]) == 0
    assert capsys.readouterr().out.splitlines()[0] == "hermes"


def _best_times(texts: list[str], rounds: int = 11) -> list[float]:
    """The fastest of ``rounds`` timings of each text, in CPU time (on a loaded 2-core machine, wall time
    charges a 10 ms run with the other processes' time slices more often than a 1 ms one); the sizes take
    turns, so any remaining load hits them alike."""
    best = [float("inf")] * len(texts)
    for _ in range(rounds):
        for i, text in enumerate(texts):
            t0 = time.thread_time()
            detect_format(text)
            best[i] = min(best[i], time.thread_time() - t0)
    return best


@pytest.mark.parametrize("unit", FLOODS)
def test_detection_is_linear(unit: str) -> None:
    """×4 input ⇒ time ×≤6, at 100 KB, 400 KB and 1.6 MB (a ratio within one run)."""
    sizes = [100_000, 400_000, 1_600_000]
    times = _best_times([unit * (n // len(unit)) for n in sizes])
    floor = 2e-4  # below this, timer noise dominates: compare against it instead
    for small, big in zip(times, times[1:], strict=False):
        assert big / max(small, floor) <= 6, (unit, times)


# --------------------------------------------------------------------------- finding 12: GGUF reader


def _kv_string(key: bytes, value: bytes, *, klen: int | None = None, vlen: int | None = None) -> bytes:
    return (struct.pack("<Q", len(key) if klen is None else klen) + key + struct.pack("<I", 8)
            + struct.pack("<Q", len(value) if vlen is None else vlen) + value)


def _gguf(n_kv: int, body: bytes) -> bytes:
    return b"GGUF" + struct.pack("<IQQ", 3, 0, n_kv) + body


def _array(etype: int, count: int, payload: bytes = b"") -> bytes:
    return struct.pack("<I", 9) + struct.pack("<IQ", etype, count) + payload


def _kv(key: bytes, typed_value: bytes) -> bytes:
    return struct.pack("<Q", len(key)) + key + typed_value


TEMPLATE = (b'{% for m in messages %}<tool_call>{"name": "{{ m.name }}", "arguments": {{ m.arguments }}}'
            b"</tool_call>{% endfor %}")

NESTED = _kv(b"deep", struct.pack("<I", 9) + b"".join(struct.pack("<IQ", 9, 1) for _ in range(5000))
             + struct.pack("<IQ", 0, 0))

MALFORMED = {
    "key length 2**40": _gguf(1, struct.pack("<Q", 2**40) + b"k"),
    "key length 2**62": _gguf(1, struct.pack("<Q", 2**62) + b"k"),
    "key length 2**63": _gguf(1, struct.pack("<Q", 2**63) + b"k"),
    "kept string length 2**62": _gguf(1, _kv_string(b"tokenizer.chat_template", b"x", vlen=2**62)),
    "kept string length 2**63": _gguf(1, _kv_string(b"tokenizer.chat_template", b"x", vlen=2**63)),
    "skipped string length 2**62": _gguf(2, _kv_string(b"general.name", b"x", vlen=2**62)),
    "skipped string length 2**63": _gguf(2, _kv_string(b"general.name", b"x", vlen=2**63)),
    "array count 2**62 (uint8)": _gguf(2, _kv(b"a", _array(0, 2**62, b"\0" * 8))),
    "array count 2**62 (strings)": _gguf(2, _kv(b"a", _array(8, 2**62, struct.pack("<Q", 0)))),
    "array count 2**64-1 (uint64)": _gguf(2, _kv(b"a", _array(10, 2**64 - 1))),
    "arrays nested 5000 deep": _gguf(2, NESTED),
    "entry count 2**62": _gguf(2**62, _kv_string(b"general.name", b"x")),
    "truncated header": b"GGUF" + struct.pack("<I", 3),
    "truncated template": _gguf(1, _kv_string(b"tokenizer.chat_template", TEMPLATE))[:-5],
    "unknown value type": _gguf(2, _kv(b"a", struct.pack("<I", 99))),
    "unknown array type": _gguf(2, _kv(b"a", _array(99, 1))),
}


def test_well_formed_gguf_is_read(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The control: string arrays, nested arrays and scalars before the template are skipped."""
    tokens = _array(8, 3, b"".join(struct.pack("<Q", len(t)) + t for t in (b"a", b"bc", b"")))
    nested = _array(9, 2, struct.pack("<IQ", 4, 1) + struct.pack("<I", 7) + struct.pack("<IQ", 0, 0))
    body = (_kv(b"general.architecture", struct.pack("<I", 8) + struct.pack("<Q", 5) + b"llama")
            + _kv(b"tokenizer.ggml.tokens", tokens) + _kv(b"nested", nested)
            + _kv(b"llama.context_length", struct.pack("<I", 4) + struct.pack("<I", 2048))
            + _kv_string(b"tokenizer.chat_template", TEMPLATE))
    path = tmp_path / "ok.gguf"
    path.write_bytes(_gguf(5, body))
    assert read_gguf_chat_template(path) == TEMPLATE.decode()
    assert read_gguf_metadata(path, ("llama.context_length", "general.architecture")) == {
        "general.architecture": "llama", "llama.context_length": 2048}
    assert main(["detect", str(path)]) == 0
    assert capsys.readouterr().out.splitlines()[0] == "hermes"


@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_malformed_gguf_is_a_one_line_error(case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bad.gguf"
    path.write_bytes(MALFORMED[case])
    with pytest.raises(ToolgramError) as info:
        read_gguf_chat_template(path)
    assert str(path) in str(info.value)
    assert main(["detect", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(path) in err and "Traceback" not in err, err


def test_array_nesting_bound_is_documented() -> None:
    assert 1 <= MAX_GGUF_ARRAY_DEPTH <= 64


# --------------------------------------------------------------------------- template files


@pytest.mark.parametrize("special", ["/dev/zero", "/dev/null"])
def test_detect_refuses_a_non_regular_file(special: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["detect", special]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and special in err and "not a regular file" in err


def test_detect_refuses_a_huge_template_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "huge.jinja"
    with open(path, "wb") as f:  # sparse: no disk used
        f.truncate(MAX_TEMPLATE_BYTES + 1)
    assert main(["detect", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(path) in err


def test_a_directory_or_fifo_is_a_user_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["detect", str(tmp_path)]) == 2
    assert capsys.readouterr().err.count("\n") == 1
    fifo = tmp_path / "fifo.gguf"
    os.mkfifo(fifo)
    assert main(["detect", str(fifo)]) == 2  # no writer: a plain open() would block forever
    writer = os.open(fifo, os.O_RDWR | os.O_NONBLOCK)  # a writer that never writes: a read would block
    try:
        assert main(["detect", str(fifo)]) == 2
    finally:
        os.close(writer)
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 2 and all("not a regular file" in line for line in err)
