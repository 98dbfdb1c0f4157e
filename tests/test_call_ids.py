"""``parse(..., call_ids="model")``: a call keeps the id its model wrote before the arguments (Kimi-K2's head,
``[CALL_ID]``, Solar-Open's id, Command R7B's ``tool_call_id``), whole and streamed alike; by default, and for
calls without one, ids are ``call_<index>`` (SPEC section 4)."""

from __future__ import annotations

import json
import pathlib
import random

import pytest

import toolgram
from toolgram.errors import OptionError

EXAMPLES = pathlib.Path(__file__).resolve().parent.parent / "grammars" / "examples"
TOOLS = json.loads((EXAMPLES / "tools.json").read_text())
WEATHER = [{"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}}}}}]
TOKYO = '{"city": "Tokyo"}'

# (format, output, the ids with call_ids="model")
CASES = [
    ("kimi_k2", "Hi <|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>"
                f"{TOKYO}<|tool_call_end|><|tool_call_begin|>functions.get_weather:7 <|tool_call_argument_begin|>"
                f"{TOKYO}<|tool_call_end|><|tool_calls_section_end|>",
     ["functions.get_weather:0", "functions.get_weather:7"]),
    # without "functions." (vLLM's reading): the id is the head as written
    ("kimi_k2", "<|tool_calls_section_begin|><|tool_call_begin|>get_weather:3<|tool_call_argument_begin|>"
                f"{TOKYO}<|tool_call_end|><|tool_calls_section_end|>", ["get_weather:3"]),
    # the id is optional: a call without one keeps its index
    ("mistral_args", f"[TOOL_CALLS]get_weather[CALL_ID]a1B2c3D4e[ARGS]{TOKYO}[TOOL_CALLS]get_weather[ARGS]{TOKYO}",
     ["a1B2c3D4e", "call_1"]),
    ("solar_open", "<|tool_calls|><|tool_call:begin|>call00001<|tool_call:name|>get_weather<|tool_call:args|>"
                   f"{TOKYO}<|tool_call:end|><|tool_call:begin|>x-9<|tool_call:name|>get_weather<|tool_call:args|>"
                   f"{TOKYO}<|tool_call:end|>", ["call00001", "x-9"]),
    ("command_r7b", '<|START_ACTION|>[\n    {"tool_call_id": "12", "tool_name": "get_weather", "parameters": '
                    f'{TOKYO}}}\n]<|END_ACTION|>', ["12"]),
    # written after the arguments: a streamed call's first delta carries its id, so it is not kept
    ("mistral", f'[TOOL_CALLS][{{"name": "get_weather", "arguments": {TOKYO}, "id": "abcdefghi"}}]', ["call_0"]),
    ("hermes", f'<tool_call>\n{{"name": "get_weather", "arguments": {TOKYO}}}\n</tool_call>', ["call_0"]),
]


def _streamed(fid: str, text: str, size: int, **options: object) -> tuple[dict, list[str]]:
    parser = toolgram.StreamParser(fid, WEATHER, **options)
    deltas = []
    for i in range(0, len(text), size):
        deltas += parser.feed(text[i:i + size])
    deltas += parser.finish()
    ids = [tc["id"] for d in deltas for tc in d.get("tool_calls", []) if "id" in tc]
    return parser.message, ids


@pytest.mark.parametrize(("fid", "text", "ids"), CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_the_model_id_is_kept_whole_and_streamed(fid: str, text: str, ids: list[str]) -> None:
    got = toolgram.parse(fid, text, WEATHER, call_ids="model")
    assert [c["id"] for c in got["tool_calls"]] == ids
    default = toolgram.parse(fid, text, WEATHER)
    assert [c["id"] for c in default["tool_calls"]] == [f"call_{i}" for i in range(len(ids))]
    # only the ids differ
    assert [c["function"] for c in got["tool_calls"]] == [c["function"] for c in default["tool_calls"]]
    for size in (1, 3, random.Random(fid).randint(4, 40)):
        message, streamed_ids = _streamed(fid, text, size, call_ids="model")
        assert message == got and streamed_ids == ids


@pytest.mark.parametrize("fid", list(toolgram.FORMATS))
def test_every_format_reads_the_same_calls_with_model_ids(fid: str) -> None:
    """The ids are the only thing the option changes; calls without a model id keep ``call_<index>``."""
    for case in ("one_call", "two_calls", "text_then_call"):
        path = EXAMPLES / "outputs" / f"{fid}_{case}.txt"
        if not path.exists():
            continue
        text = path.read_text()
        default = toolgram.parse(fid, text, TOOLS)
        got = toolgram.parse(fid, text, TOOLS, call_ids="model")
        assert {**got, "tool_calls": None} == {**default, "tool_calls": None}
        assert [c["function"] for c in got["tool_calls"]] == [c["function"] for c in default["tool_calls"]]
        for i, (a, b) in enumerate(zip(got["tool_calls"], default["tool_calls"], strict=True)):
            assert b["id"] == f"call_{i}"
            assert a["id"] == b["id"] or a["id"] in text  # a model id is text the model wrote


def test_strict_and_unknown_values_are_refused() -> None:
    with pytest.raises(OptionError, match="call_ids"):
        toolgram.parse("hermes", "", WEATHER, mode="strict", call_ids="model")
    with pytest.raises(OptionError, match="call_ids"):
        toolgram.parse("hermes", "", WEATHER, call_ids="random")
    with pytest.raises(OptionError, match="call_ids"):
        toolgram.StreamParser("hermes", WEATHER, call_ids="random")


def test_cli(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """``toolgram parse --call-ids model`` (whole and ``--chunk-size``) and ``--any-tool``."""
    import io
    import sys

    from toolgram.cli import main

    tools_file = tmp_path / "tools.json"
    tools_file.write_text(json.dumps(WEATHER))
    fid, text, ids = CASES[0]
    base = ["parse", fid, "--tools", str(tools_file)]
    for flags, want in (([], ["call_0", "call_1"]), (["--call-ids", "model"], ids),
                        (["--call-ids", "model", "--chunk-size", "5"], ids)):
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(text.encode())))
        assert main([*base, *flags]) == 0
        message = json.loads(capsys.readouterr().out.splitlines()[-1])
        assert [c["id"] for c in message["tool_calls"]] == want, flags
    other = text.replace("get_weather", "look_up")
    for flags, n in (([], 0), (["--any-tool"], 2)):
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(other.encode())))
        assert main([*base, *flags]) == 0
        assert len(json.loads(capsys.readouterr().out)["tool_calls"]) == n, flags
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(text.encode())))
    assert main([*base, "--mode", "strict", "--call-ids", "model"]) != 0
    assert "call_ids" in capsys.readouterr().err
