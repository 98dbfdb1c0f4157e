"""``toolgram generate``: errors are one line with exit code 2; the bundled example runs end to end."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from weather import TAG_RELAXED, TAG_TOOLS

from toolgram.cli import main


def _one_line_error(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err
    assert err.startswith("toolgram: error:") and err.count("\n") == 1, err
    return err


def test_missing_model_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["generate", "--model", str(tmp_path / "nope.gguf"), "--prompt", "hi"]) == 2
    assert "model file not found" in _one_line_error(capsys)


def test_unknown_device_lists_the_available_ones(capsys: pytest.CaptureFixture[str]) -> None:
    import openvino

    assert main(["generate", "--device", "FPGA9", "--prompt", "hi"]) == 2
    err = _one_line_error(capsys)
    assert "FPGA9" in err and all(d in err for d in openvino.Core().available_devices)


def test_invalid_tools(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "tools.json"
    bad.write_text(json.dumps([{"type": "function", "function": {"parameters": {"type": "object"}}}]))
    assert main(["generate", "--tools", str(bad), "--prompt", "hi"]) == 2
    _one_line_error(capsys)
    bad.write_text("[{")
    assert main(["generate", "--tools", str(bad), "--prompt", "hi"]) == 2
    assert "not valid JSON" in _one_line_error(capsys)


def test_tools_without_prompt(capsys: pytest.CaptureFixture[str]) -> None:
    tools = Path(__file__).resolve().parents[1] / "grammars" / "examples" / "weather_tools.json"
    assert main(["generate", "--tools", str(tools)]) == 2
    assert "--prompt" in _one_line_error(capsys)


@pytest.mark.model
def test_bundled_example_streams_and_prints_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["generate", "--stream", "--json", "--tool-choice", "required", "--no-parallel",
                 "--max-new-tokens", "120"]) == 0
    cap = capsys.readouterr()
    assert "bundled example" in cap.err
    assert "using hermes" in cap.err  # SmolLM2's template names no tool format
    assert "[call_0] get_" in cap.err  # --stream shows the call as it completes (on stderr with --json)
    assert "tok/s" in cap.err  # one-line timing summary
    last = json.loads(cap.out.strip().splitlines()[-1])
    assert set(last) == {"message", "usage", "timings"}
    calls = last["message"]["tool_calls"]
    assert len(calls) == 1 and calls[0]["function"]["name"] in ("get_weather", "get_forecast")
    json.loads(calls[0]["function"]["arguments"])


@pytest.mark.model
def test_permissive_flag(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``--permissive``: tools strict compiling refuses (``uniqueItems``, one line naming the path, exit 2)
    generate under the relaxed grammar."""
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps(TAG_TOOLS))
    command = ["generate", "--tools", str(tools), "--prompt", "Tag Paris as sunny.", "--tool-choice", "required",
               "--no-parallel", "--max-new-tokens", "64", "--json"]
    assert main(command) == 2
    assert "$[0].function.parameters.properties.tags.uniqueItems" in _one_line_error(capsys)
    assert main([*command, "--permissive"]) == 0
    (call,) = json.loads(capsys.readouterr().out.strip().splitlines()[-1])["message"]["tool_calls"]
    assert call["function"]["name"] == "tag_city"
    jsonschema.validate(json.loads(call["function"]["arguments"]), TAG_RELAXED)


def test_stream_printer_prints_a_call_before_the_text_after_it() -> None:
    """`generate --stream` prints each call as it completes: text after a call comes after it."""
    import io

    from toolgram.commands.generate_cmd import _StreamPrinter

    out = io.StringIO()
    printer = _StreamPrinter(out)
    printer({"tool_calls": [{"index": 0, "id": "call_0", "type": "function",
                             "function": {"name": "get_time", "arguments": "{}"}}]})
    printer({"content": "Done."})
    printer.flush_call()
    assert out.getvalue().index("[call_0] get_time {}") < out.getvalue().index("Done.")
