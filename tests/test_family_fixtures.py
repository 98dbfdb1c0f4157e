"""The issue-9 family fixtures (tests/data/families/) are generated, never edited by hand.

Regenerates them in memory with scripts/make_family_fixtures.py and requires the checked-in files to be
identical, then checks their shape: every template of the vendored collection is in the index exactly once,
every format id is known, every turn that renders calls contains them, and the end-of-turn markers are cut off.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FAMILIES = ROOT / "tests" / "data" / "families"
TEMPLATES = ROOT / "tests" / "data" / "templates" / "llama.cpp"


def _load_generator():
    spec = importlib.util.spec_from_file_location("make_family_fixtures", ROOT / "scripts" / "make_family_fixtures.py")
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


GEN = _load_generator()


@pytest.fixture(scope="module")
def generated() -> dict[str, str]:
    return GEN.build_all()


def _checked_in() -> dict[str, str]:
    return {p.relative_to(FAMILIES).as_posix(): p.read_text(encoding="utf-8")
            for p in FAMILIES.rglob("*.json")}


def test_fixtures_match_generator(generated):
    on_disk = _checked_in()
    assert sorted(on_disk) == sorted(generated), "run: python scripts/make_family_fixtures.py"
    stale = [p for p in generated if on_disk[p] != generated[p]]
    assert not stale, f"stale fixtures (run: python scripts/make_family_fixtures.py): {stale}"


def test_index_covers_every_template_once(generated):
    index = json.loads(generated["index.json"])
    names = sorted(p.name for p in TEMPLATES.glob("*.jinja"))
    assert len(names) == 71
    assert sorted(index) == names  # JSON object keys are unique, so "exactly once" is "same set"
    raw = generated["index.json"]
    for name in names:
        assert raw.count(json.dumps(name, ensure_ascii=False) + ":") == 1, name


def test_format_ids_known(generated):
    index = json.loads(generated["index.json"])
    known = set(GEN.KNOWN_IDS)
    for name, entry in index.items():
        assert entry["format"] is None or entry["format"] in known, (name, entry["format"])
    nulls = {n for n, e in index.items() if e["format"] is None}
    assert nulls == {"google-gemma-2-2b-it.jinja", "microsoft-Phi-3.5-mini-instruct.jinja",
                     "llama-cpp-rwkv-world.jinja", "HuggingFaceTB-SmolLM3-3B.jinja"}
    # every issue-9 id has at least one template, except granite whose only template renders no calls
    used = {e["format"] for e in index.values() if e["renders_calls"]}
    assert set(GEN.ISSUE9_IDS) - used == {"granite"}
    for fmt in json.loads(generated["index.json"]).values():
        if fmt["format"] is None:
            assert not fmt["renders_calls"]


EOS_BYTES = b"<\xef\xbd\x9cend\xe2\x96\x81of\xe2\x96\x81sentence\xef\xbd\x9c>"


def _records(generated):
    for path, text in sorted(generated.items()):
        if "/" not in path and path != "index.json":
            yield path, json.loads(text)


def test_turns_are_consistent(generated):
    index = json.loads(generated["index.json"])
    for path, rec in _records(generated):
        assert index[rec["template"]]["format"] == rec["format"]
        assert index[rec["template"]]["renders_calls"] == rec["renders_calls"]
        for key, n in (("one_call", 1), ("two_calls", 2)):
            turn = rec[key]
            if turn is None:
                assert key == "two_calls" and not rec["parallel"] or not rec["renders_calls"], path
                continue
            text = turn["turn"]
            eot = turn["end_of_turn"]
            if eot is not None:
                assert eot == rec["end_of_turn"]["marker"]
                assert not text.endswith(eot), path
            calls = turn["expected"]["calls"]
            if rec["renders_calls"]:
                assert len(calls) == n, (path, key)
                for c in calls:
                    assert c["name"] in text, (path, key, c["name"])
                    if "id" in c:
                        assert c["id"] in text, (path, key, c["id"])
            else:
                assert calls == [], path
        if rec["renders_calls"] and rec["cut"]["method"] == "prefix":
            assert rec["generation_prompt"] is not None, path
        if rec["cut"]["method"] == "assistant_header":
            assert rec["cut"]["assistant_header"], path


def test_byte_exact_special_tokens(generated):
    # DeepSeek tokens use U+FF5C and U+2581, never ASCII | and _
    for path, rec in _records(generated):
        if rec["format"] in ("deepseek_v3_1", "deepseek_r1", "deepseek_dsml"):
            turn = rec["one_call"]["turn"]
            assert "｜" in turn and "<|" not in turn, path
            if rec["one_call"]["end_of_turn"] is not None:
                assert rec["one_call"]["end_of_turn"].encode() == EOS_BYTES, path


def test_cases_shape(generated):
    known = set(GEN.KNOWN_IDS)
    cases = {p: json.loads(t) for p, t in generated.items() if p.startswith("cases/")}
    assert cases
    templates = {p.name[: -len(".jinja")] for p in TEMPLATES.glob("*.jinja")}
    for path, data in cases.items():
        assert data["format"] in known and path == f"cases/{data['format']}.json"
        for case in data["cases"]:
            assert case["source"] and isinstance(case["input"], str) and case["input"]
            assert case["template"] is None or case["template"] in templates, case["template"]
            assert set(case["expected"]) == {"content", "reasoning", "calls"}
            for c in case["expected"]["calls"]:
                assert isinstance(c["name"], str) and isinstance(c["arguments"], dict)


# Templates whose last assistant message renders differently from the same message in history
# (rendered/*.single.txt and *.parallel.txt have the call turn followed by tool results).
LAST_MESSAGE_DIFFERS = {
    "Apriel-1.6-15b-Thinker-fixed",  # no "id" keys and no "\n<|end|>" for the last message
    "unsloth-Apriel-1.5",  # no "id" keys for the last message
    "Qwen-Qwen3-0.6B",  # empty <think></think> block only for the last message
}


def test_turns_appear_in_vendored_renders(generated):
    rendered = TEMPLATES / "rendered"
    for _path, rec in _records(generated):
        name = rec["template"][: -len(".jinja")]
        if not rec["renders_calls"]:
            continue
        for key, kind in (("one_call", "single"), ("two_calls", "parallel")):
            if rec[key] is None:
                continue
            f = rendered / f"{name}.{kind}.txt"
            if not f.is_file():
                f = rendered / "other" / f"{name}.{kind}.txt"
            text = f.read_text(encoding="utf-8")
            found = rec[key]["turn"] in text
            assert found == (name not in LAST_MESSAGE_DIFFERS), (name, kind)
