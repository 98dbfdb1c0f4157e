"""Format detection (runtime/detect.py, ``toolgram detect``) on every official template vendored in tests/data."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from toolgram.grammars import FORMATS
from toolgram.runtime.detect import detect_format, detect_path, read_gguf_chat_template, renders_tool_calls

from toolgram.cli import main

TEMPLATES = Path(__file__).resolve().parent / "data" / "templates"  # vendored, see tests/data/SOURCES.md

EXPECTED = {
    "ByteDance-Seed-OSS.jinja": "seed_oss",
    "Qwen3-Coder.jinja": "qwen3_coder",
    "Qwen3.5-4B.jinja": "qwen3_coder",
    "tool_chat_template_qwen3coder.jinja": "qwen3_coder",
    "Qwen-Qwen2.5-7B-Instruct.jinja": "hermes",
    "Qwen-Qwen3-0.6B.jinja": "hermes",
    "NousResearch-Hermes-3-Llama-3.1-8B-tool_use.jinja": "hermes",
    "meta-llama-Llama-3.1-8B-Instruct.jinja": "llama3_json",
    "meta-llama-Llama-3.2-3B-Instruct.jinja": "llama3_json",
    "meta-llama-Llama-3.3-70B-Instruct.jinja": "llama3_json",
    "tool_chat_template_llama3.1_json.jinja": "llama3_json",
    "tool_chat_template_llama3.2_pythonic.jinja": "pythonic",
    "tool_chat_template_llama4_pythonic.jinja": "llama4_pythonic",
}


@pytest.fixture(scope="module")
def templates() -> Path:
    return TEMPLATES


def test_every_shared_template_is_listed(templates: Path) -> None:  # llama.cpp's collection: below
    assert {p.name for p in templates.glob("*.jinja")} == set(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_detects_shared_template(templates: Path, name: str) -> None:
    found = detect_path(templates / name)
    assert found is not None and found[0] == EXPECTED[name], found
    assert found[1]


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_cli_detect_prints_id_then_reason(templates: Path, name: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["detect", str(templates / name)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == EXPECTED[name] and len(lines) == 2 and lines[1]


def test_no_tool_format(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    plain = tmp_path / "chatml.jinja"
    plain.write_text("{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}")
    assert detect_format(plain.read_text()) is None
    assert main(["detect", str(plain)]) == 1
    err = capsys.readouterr().err
    assert "no known tool format" in err and "seed_oss" in err and "llama4_pythonic" in err


def test_gguf_chat_template_is_read_and_names_no_format(capsys: pytest.CaptureFixture[str]) -> None:
    from toolgram.engines import smollm2_gguf_path

    try:
        gguf = smollm2_gguf_path()
    except Exception as exc:  # noqa: BLE001
        pytest.skip(f"SmolLM2 GGUF unavailable: {exc}")
    text = read_gguf_chat_template(gguf)
    assert text is not None and "<|im_start|>" in text
    assert main(["detect", str(gguf)]) == 1
    assert "no known tool format" in capsys.readouterr().err


def test_missing_file_is_a_user_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["detect", str(tmp_path / "nope.jinja")]) == 2
    assert capsys.readouterr().err.count("\n") == 1


# --- llama.cpp's collection (issue 9): every template gives its format id, or says why it gives none -------

LLAMA_CPP = TEMPLATES / "llama.cpp"
INDEX: dict[str, dict] = json.loads((TEMPLATES.parent / "families" / "index.json").read_text(encoding="utf-8"))


def test_index_lists_the_collection() -> None:
    assert set(INDEX) == {p.name for p in LLAMA_CPP.glob("*.jinja")}


@pytest.mark.parametrize("name", sorted(INDEX))
def test_detects_llama_cpp_template(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    """The index's id when that format is implemented; otherwise exit 1: "renders no tool calls" for a
    template that never reads ``tool_calls``, "unknown" for a family toolgram does not know yet (never the
    nearest implemented format)."""
    entry = INDEX[name]
    fmt = entry["format"]
    code = main(["detect", str(LLAMA_CPP / name)])
    out, err = capsys.readouterr()
    if fmt in FORMATS:
        assert code == 0 and out.splitlines()[0] == fmt, (name, out, err)
        return
    assert code == 1 and out == "" and "no known tool format" in err, (name, fmt, out, err)
    if fmt is None:  # Gemma 2, Phi-3.5, RWKV, SmolLM3
        assert not entry["renders_calls"]
        assert "renders no tool calls" in err, err
    elif entry["renders_calls"]:
        assert "unknown tool-call format" in err, err


def test_no_tool_call_templates_are_the_four_of_the_issue() -> None:
    none = {n for n, e in INDEX.items() if e["format"] is None}
    assert none == {"google-gemma-2-2b-it.jinja", "microsoft-Phi-3.5-mini-instruct.jinja",
                    "llama-cpp-rwkv-world.jinja", "HuggingFaceTB-SmolLM3-3B.jinja"}
    for name in none:
        assert not renders_tool_calls((LLAMA_CPP / name).read_text(encoding="utf-8")), name


def test_a_template_that_writes_unknown_calls_is_unknown(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "glm_like.jinja"
    path.write_text("{% for tc in m.tool_calls %}<tool_call>{{ tc.name }}<arg_key>k</arg_key>{% endfor %}")
    assert main(["detect", str(path)]) == 1
    err = capsys.readouterr().err
    assert "unknown tool-call format" in err and "no known tool format" in err and "hermes" in err
