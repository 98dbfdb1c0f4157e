"""Hostile manifests and files for ``toolgram validate`` (issue 13, finding 13).

Every case is a usage error: exit 2, one line on stderr naming ``manifest:line`` (or the file), no
traceback, and nothing read past the documented bound (``MAX_FILE_BYTES``).
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from toolgram.cli import main
from toolgram.validate import MAX_FILE_BYTES, load_manifest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "grammars" / "examples"
GOLDEN = ROOT / "grammars" / "golden"

HEAD = '[[case]]\nname = "c"\nformat = "hermes"\ntools = "tools.json"\ndialects = ["lark"]\n'


def _manifest(tmp_path: Path, body: str, tools: str | None = None) -> Path:
    if tools is None:
        shutil.copy(EXAMPLES / "tools.json", tmp_path / "tools.json")
    else:
        (tmp_path / "tools.json").write_text(tools, encoding="utf-8")
    path = tmp_path / "manifest.toml"
    path.write_text(body, encoding="utf-8")
    return path


def _usage_error(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    code = main(["validate", *argv])
    captured = capsys.readouterr()
    assert code == 2, (captured.out, captured.err)
    assert captured.out == ""
    err = captured.err
    assert err.count("\n") == 1 and err.startswith("toolgram: error: ") and "Traceback" not in err, err
    return err


def _huge(path: Path) -> Path:
    with open(path, "wb") as f:  # sparse: no disk used
        f.truncate(MAX_FILE_BYTES + 1)
    return path


CASES = {
    # name: (manifest body, line the error names, words in the message)
    "example file /dev/zero": (HEAD + '\n[[case.accept]]\nfile = "/dev/zero"\n', 7, "not a regular file"),
    "example file is a directory": (HEAD + '\n[[case.reject]]\nfile = "."\n', 7, "reject"),
    "TOML datetime in calls": (HEAD + '\n[[case.accept]]\ntext = "x"\n'
                               'calls = [{name = "get_time", arguments = {at = 1979-05-27T07:32:00Z}}]\n',
                               7, "datetime"),
    "TOML date in calls": (HEAD + '\n[[case.accept]]\ntext = "x"\n'
                           'calls = [{name = "a", arguments = {d = 1979-05-27}}]\n', 7, "date"),
    "nan in calls": (HEAD + '\n[[case.accept]]\ntext = "x"\ncalls = [{name = "a", arguments = {n = nan}}]\n',
                     7, "nan"),
    "allowed_tools = 5": (HEAD + "options = {allowed_tools = 5}\n", 6, "allowed_tools"),
    "allowed_tools = [1]": (HEAD + "\n[case.options]\nallowed_tools = [1]\n", 8, "allowed_tools"),
    'parallel = "no"': (HEAD + '\n[case.options]\ntool_choice = "auto"\nparallel = "no"\n', 9, "parallel"),
    'parallel = "no" inline': (HEAD + 'options = {parallel = "no"}\n', 6, "true or false"),
    "tool_choice = 5": (HEAD + "options = {tool_choice = 5}\n", 6, "tool_choice"),
    "reasoning = true": (HEAD + "options = {reasoning = true}\n", 6, "reasoning"),
    "file = 5": (HEAD + "\n[[case.accept]]\nfile = 5\n", 7, "'file' must be a string"),
    "name = 5": (HEAD + '\n[[case.accept]]\ntext = "x"\nname = 5\n', 7, "'name' must be a string"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_bad_manifest_value_names_the_line(case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    body, line, words = CASES[case]
    path = _manifest(tmp_path, body)
    err = _usage_error(capsys, str(path))
    assert f"{path}:{line}" in err and words in err, err


def test_reproducer_dev_zero_example(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 13 finding 13: ``file = "/dev/zero"`` read until memory ran out."""
    path = _manifest(tmp_path, HEAD + '\n[[case.accept]]\nfile = "/dev/zero"\n')
    err = _usage_error(capsys, str(path))
    assert "/dev/zero" in err and f"{path}:7" in err


def test_oversized_example_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _huge(tmp_path / "big.txt")
    path = _manifest(tmp_path, HEAD + '\n[[case.accept]]\nfile = "big.txt"\n')
    err = _usage_error(capsys, str(path))
    assert f"{path}:7" in err and str(MAX_FILE_BYTES) in err


@pytest.mark.parametrize(("tools", "words"), [
    ("[" * 100_000, "nested too deep"),
    ('[{"type": "function", "function": {"name": "f", "parameters": {"type": "object", "properties": '
     '{"x": {"type": "number", "enum": [NaN]}}}}}]', "NaN"),
    ("1" * 5000, "tools"),  # a ValueError past Python's digit limit (the tests lift it: then not an array)
    ("\xff\xfe", "tools file"),
])
def test_hostile_tools_file(tools: str, words: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _manifest(tmp_path, HEAD, tools=tools)
    if tools == "\xff\xfe":
        (tmp_path / "tools.json").write_bytes(b"\xff\xfe[\x00]\x00")  # UTF-16
    err = _usage_error(capsys, str(path))
    assert (f"{path}:4" in err or tools.isdigit()) and str(path) in err and words in err, err


def _nested_tools(depth: int) -> str:
    """A tool whose parameters nest objects ``depth`` deep (2 JSON levels each), as JSON text."""
    schema = '{"type": "object", "required": ["x"], "properties": {"x": ' * depth + '{"type": "string"}' + "}}" * depth
    return f'[{{"type": "function", "function": {{"name": "f", "parameters": {schema}}}}}]'


@pytest.mark.parametrize("depth", [400, 5000])
def test_deeply_nested_tool_schema(depth: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """400 deep passes ``json.loads`` but was a compiler traceback; 5000 deep fails ``json.loads``: one line, exit 2."""
    json.loads(_nested_tools(3))
    path = _manifest(tmp_path, HEAD, tools=_nested_tools(depth))
    err = _usage_error(capsys, str(path))
    assert str(path) in err


def test_manifest_itself_must_be_a_bounded_regular_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    err = _usage_error(capsys, "/dev/zero")
    assert "/dev/zero" in err and "not a regular file" in err
    big = _huge(tmp_path / "big.toml")
    assert str(big) in _usage_error(capsys, str(big))
    deep = tmp_path / "deep.toml"
    deep.write_text("x = " + "[" * 100_000, encoding="utf-8")
    assert str(deep) in _usage_error(capsys, str(deep))


def test_fifo_example_does_not_block(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    os.mkfifo(tmp_path / "fifo.txt")
    path = _manifest(tmp_path, HEAD + '\n[[case.accept]]\nfile = "fifo.txt"\n')
    err = _usage_error(capsys, str(path))
    assert f"{path}:7" in err and "not a regular file" in err


def test_grammar_file_mode_bounds_its_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    grammar = str(GOLDEN / "hermes" / "auto.lark")
    err = _usage_error(capsys, "--grammar", grammar, "--dialect", "lark", "--accept", "/dev/zero")
    assert "/dev/zero" in err and "not a regular file" in err
    err = _usage_error(capsys, "--grammar", "/dev/zero", "--dialect", "lark")
    assert "/dev/zero" in err
    big = _huge(tmp_path / "big.txt")
    err = _usage_error(capsys, "--grammar", grammar, "--dialect", "lark", "--reject", str(big))
    assert str(big) in err and str(MAX_FILE_BYTES) in err


def test_good_types_still_load(tmp_path: Path) -> None:
    body = (HEAD + '\n[case.options]\ntool_choice = "required"\nparallel = false\nreasoning = "none"\n'
            'allowed_tools = ["get_weather"]\n\n[[case.accept]]\ntext = "x"\nname = "inline"\n'
            'calls = [{name = "get_weather", arguments = {location = "Paris", days = [1, 2.5, true]}}]\n')
    (case,) = load_manifest(_manifest(tmp_path, body))
    assert case.options == {"tool_choice": "required", "parallel": False, "reasoning": "none",
                            "allowed_tools": ["get_weather"]}
    assert case.accept[0].label == "inline"
