"""An invalid escape among valid ones: the same arguments and diagnostics in every chunking.

Streaming decodes a string argument in segments; a segment holding an invalid escape used to be kept
whole as written (valid escapes in it included) with the diagnostic at the segment's start, so the
result depended on where the chunks fell (found by hypothesis on solar_open, reproduced on hermes).
"""

from __future__ import annotations

import json
import random

import toolgram

TOOLS = [{"type": "function", "function": {"name": "f", "parameters": {
    "type": "object", "properties": {"s": {"type": "string"}}}}}]
TEXT = '<tool_call>\n{"name": "f", "arguments": {"s": "a\\nb\\qc\\u00e9\\ud83d\\ude00 \\x"}}\n</tool_call>'


def _stream(text: str, sizes: random.Random | None, fmt: str = "hermes") -> dict:
    sp = toolgram.StreamParser(fmt, TOOLS)
    i = 0
    while i < len(text):
        k = sizes.randint(1, 6) if sizes else 1
        sp.feed(text[i:i + k])
        i += k
    sp.finish()
    return sp.message


def test_invalid_escape_is_chunk_invariant() -> None:
    whole = toolgram.parse("hermes", TEXT, TOOLS, mode="lenient")
    assert json.loads(whole["tool_calls"][0]["function"]["arguments"]) == {"s": "a\nb\\qcé😀 \\x"}
    offsets = [d["offset"] for d in whole["diagnostics"] if d["code"] == "invalid_escape"]
    assert offsets == [TEXT.index("\\q"), TEXT.index("\\x")]
    for seed in [None, *range(20)]:
        msg = _stream(TEXT, None if seed is None else random.Random(seed))
        assert msg["tool_calls"] == whole["tool_calls"], seed
        assert msg["diagnostics"] == whole["diagnostics"], seed


#: the Python spelling (pythonic formats): a truncated ``\x``, an unknown ``\N{...}`` name and a valid
#: ``\u`` escape in one string, so the stream reader decodes it escape by escape (``_py_unit``)
PY_TEXT = '[f(s="a\\x4zb\\N{NO SUCH NAME}c\\u00e9\\n")]'


def test_invalid_python_escape_is_chunk_invariant() -> None:
    whole = toolgram.parse("pythonic", PY_TEXT, TOOLS, mode="lenient")
    assert json.loads(whole["tool_calls"][0]["function"]["arguments"]) == {"s": "a\\x4zb\\N{NO SUCH NAME}cé\n"}
    offsets = [d["offset"] for d in whole["diagnostics"] if d["code"] == "invalid_escape"]
    assert offsets == [PY_TEXT.index("\\x"), PY_TEXT.index("\\N")]
    for seed in [None, *range(20)]:
        msg = _stream(PY_TEXT, None if seed is None else random.Random(seed), "pythonic")
        assert msg["tool_calls"] == whole["tool_calls"], seed
        assert msg["diagnostics"] == whole["diagnostics"], seed
