"""The structural-tag dialect: loads in xgrammar 0.2.9 and OpenVINO, and agrees with the EBNF dialect.

Every format x tool_choice (auto, required, named) x parallel x reasoning is compiled; Python
xgrammar must accept exactly the strings the EBNF dialect accepts (canonical renderings, prose
before calls, reasoning) and reject text after calls, a wrong tool name, a missing required
argument and a second call with parallel calls off. OpenVINO checks (``model``) share one
pipeline and run once per distinct grammar.
"""

from __future__ import annotations

import json
from functools import cache
from types import ModuleType
from typing import Any

import pytest
from toolgram.grammars import FORMATS
from toolgram.grammars.render import render_calls

import toolgram
from toolgram.engines import EngineUnavailable, smollm2_gguf_path

TOOLS: list[dict[str, Any]] = [
    {"type": "function", "function": {"name": "get_weather", "parameters": {
        "type": "object",
        "properties": {"location": {"type": "string"}, "unit": {"type": "string", "enum": ["c", "f"]},
                       "days": {"type": "integer"}},
        "required": ["location"]}}},
    {"type": "function", "function": {"name": "ping", "parameters": {"type": "object", "properties": {}}}},
]
W1 = ("get_weather", {"location": "Paris"})
W2 = ("get_weather", {"location": "Oslo", "unit": "c", "days": 3})
PING = ("ping", {})


def _cases() -> list[tuple[str, str, bool, str]]:
    out = []
    for fid, spec in FORMATS.items():
        for choice in ("auto", "required", "get_weather"):
            for parallel in (True, False):
                for reasoning in (("none", "optional", "forced") if spec.reasoning else ("none",)):
                    out.append((fid, choice, parallel, reasoning))
    return out


CASES = _cases()
IDS = [f"{f}-{c}-{'par' if p else 'single'}-{r}" for f, c, p, r in CASES]


@cache
def _compile(fid: str, choice: str, parallel: bool, reasoning: str, dialect: str) -> str:
    b = toolgram.compile(fid, TOOLS, dialect=dialect, tool_choice=choice, parallel_tool_calls=parallel,
                         reasoning=reasoning)
    assert b.grammar is not None
    return b.grammar


@pytest.fixture(scope="module")
def xg() -> ModuleType:
    return pytest.importorskip("toolgram.engines.xgrammar_engine")


def _strings(fid: str, choice: str, parallel: bool, reasoning: str) -> tuple[list[str], list[str]]:
    """(texts that must be accepted, texts that must be rejected) for one option set."""
    spec = FORMATS[fid]
    one, two = render_calls(fid, [W1]), render_calls(fid, [W2, PING] if choice == "auto" or
                                                     choice == "required" else [W2, W1])
    pre = ""
    if reasoning == "forced":
        pre = "I think." + spec.reasoning.close  # type: ignore[union-attr]
    gap = "\n" if spec.scope.leading_ws else ""  # harmony: nothing between the header and the call
    accept = [pre + one, pre + gap + one + "\n", pre + render_calls(fid, [W2])]
    if parallel:
        accept.append(pre + two)
    if spec.scope.wrappers:
        accept.append(pre + render_calls(fid, [W1], wrapper=True))
    if reasoning == "optional":
        accept.append(spec.reasoning.open + "hmm" + spec.reasoning.close + gap + one)  # type: ignore[union-attr]
    prose = spec.scope.text_prefix + "Just prose, no call."  # free text opens with the text recipient, if any
    if choice == "auto":
        accept.append(pre + prose)
        if spec.scope.per_call:
            accept.append(pre + "Let me check. " + one)
    bad_name = one.replace("get_weather", "get_wether")
    missing = render_calls(fid, [("get_weather", {"unit": "c"})])
    reject = [pre + one + " trailing", pre + one + "\nmore text", pre + missing]
    if choice != "auto" or not spec.scope.anchored:
        reject.append(pre + bad_name)  # anchored auto: a bad call at the start is not prose either
    if not parallel:
        reject.append(pre + render_calls(fid, [W1, W1]))
    if choice != "auto":
        reject += [pre + prose, pre + "Let me check. " + one, pre]
        if not spec.scope.leading_ws:
            reject.append(pre + "\n" + one)
    if choice == "get_weather":
        reject.append(pre + render_calls(fid, [PING]))
    return accept, reject


@pytest.mark.parametrize(("fid", "choice", "parallel", "reasoning"), CASES, ids=IDS)
def test_agrees_with_ebnf(xg: ModuleType, fid: str, choice: str, parallel: bool, reasoning: str) -> None:
    st = _compile(fid, choice, parallel, reasoning, "structural-tag")
    obj = json.loads(st)
    assert obj["type"] == "structural_tag" and isinstance(obj["format"], dict)
    xg.compile_structural_tag(st)
    ebnf = _compile(fid, choice, parallel, reasoning, "ebnf")
    accept, reject = _strings(fid, choice, parallel, reasoning)
    for s in accept:
        assert xg.accepts_structural_tag(st, s)[0], f"structural tag rejects {s!r}"
        assert xg.accepts_ebnf(ebnf, s)[0], f"EBNF rejects {s!r}"
    for s in reject:
        assert not xg.accepts_structural_tag(st, s)[0], f"structural tag accepts {s!r}"
        assert not xg.accepts_ebnf(ebnf, s)[0], f"EBNF accepts {s!r}"


EXTRA = [
    "", " ", "\n\n", "<think>", "hello <think>x</think>", "x</think>", "<tool_call>", "[", "[]", "{}",
    '{"name": "ping", "parameters": {}}', '{ "name" : "ping" , "parameters" : { } }',
    '<tool_call>\n{"name":"ping","arguments":{}}\n</tool_call>', "[ping()]", "[ ping( ) ]", "[ping(), ping()]",
    "<|python_start|>[ping()]<|python_end|>", "hi <|python_start|>[ping()]<|python_end|>",
    "<|python_tag|>{\"name\": \"ping\", \"parameters\": {}}",
    "<seed:tool_call>\n<function=ping>\n</function>\n</seed:tool_call>\t<seed:tool_call>\n<function=ping>\n"
    "</function>\n</seed:tool_call>",
    "<tool_call>\n<function=ping>\n</function>\n</tool_call><tool_call>\n<function=ping>\n</function>\n</tool_call>",
    "<seed:think>a<seed:tool_call>b</seed:think><seed:tool_call>\n<function=ping>\n</function>\n</seed:tool_call>",
    "<think>a<tool_call>\n<function=ping>\n</function>\n</tool_call>",
    '<think>a<tool_call>\n{"name": "ping", "arguments": {}}\n</tool_call>',
    "a</think>\n<tool_call>\n<function=ping>\n</function>\n</tool_call>",
]


@pytest.mark.parametrize(("fid", "choice", "parallel", "reasoning"), CASES, ids=IDS)
def test_same_verdicts_on_edge_strings(xg: ModuleType, fid: str, choice: str, parallel: bool,
                                       reasoning: str) -> None:
    st = _compile(fid, choice, parallel, reasoning, "structural-tag")
    ebnf = _compile(fid, choice, parallel, reasoning, "ebnf")
    for s in EXTRA:
        assert xg.accepts_structural_tag(st, s)[0] == xg.accepts_ebnf(ebnf, s)[0], repr(s)


def test_block_formats_use_tags(xg: ModuleType) -> None:
    """The building blocks are really used: one tag whose begin is the scope opening (a tag per tool
    compiled 10x slower at 10 tools, see compiler/emit/structural_tag.py), its content every call."""
    fmt = json.loads(_compile("seed_oss", "auto", True, "none", "structural-tag"))["format"]
    assert fmt["type"] == "triggered_tags" and fmt["triggers"] == ["<seed:tool_call>"]
    assert fmt["stop_after_first"] is True
    begins = [t["begin"] for t in fmt["tags"]]
    assert begins == ["<seed:tool_call>\n"]
    content = fmt["tags"][0]["content"]["grammar"]
    assert "<function=get_weather>" in content and "<function=ping>" in content
    req = json.loads(_compile("qwen3_coder", "required", False, "none", "structural-tag"))["format"]
    tws = req["elements"][-1]
    assert tws["type"] == "tags_with_separator" and tws["at_least_one"] and tws["stop_after_first"]
    assert "qwen_xml_parameter" not in json.dumps(req) and '"style"' not in json.dumps(req)


@pytest.fixture(scope="module")
def ovc() -> ModuleType:
    mod = pytest.importorskip("toolgram.engines.openvino_engine")
    try:
        smollm2_gguf_path()
    except EngineUnavailable as e:
        pytest.skip(str(e))
    return mod


def _openvino_check(ovc: ModuleType, cases: list[tuple[str, str, bool, str]]) -> None:
    grammars = dict.fromkeys(_compile(*c, "structural-tag") for c in cases)
    failures = []
    for st in grammars:
        try:
            ovc.check_structural_tag(st)
        except Exception as e:  # noqa: BLE001 - collect every rejection with its reason
            failures.append(f"{e}: {st[:200]}")
    assert not failures, "\n".join(failures)


# One case per structural shape: triggered_tags (auto, with and without forced reasoning), the
# auto grammar fallbacks, tags_with_separator with the reasoning or-branches, hermes' single tag,
# pythonic tags inside the list, wrappers, llama3_json's grammar-only calls.
OV_FAST = [
    ("seed_oss", "auto", True, "forced"), ("qwen3_coder", "auto", False, "none"),
    ("hermes", "auto", True, "optional"), ("hermes", "required", True, "optional"),
    ("seed_oss", "get_weather", False, "optional"), ("pythonic", "required", True, "none"),
    ("llama4_pythonic", "get_weather", False, "none"), ("llama3_json", "required", True, "none"),
    ("llama4_pythonic", "auto", True, "none"),
]


@pytest.mark.model
def test_openvino_loads_each_shape(ovc: ModuleType) -> None:
    """One pipeline, one case per structural shape (about 10-20 s on 2 cores)."""
    _openvino_check(ovc, OV_FAST)


@pytest.mark.model
@pytest.mark.slow
def test_openvino_loads_every_combination(ovc: ModuleType) -> None:
    """Every format x choice x parallel x reasoning, each distinct grammar once (about 1-2 min)."""
    _openvino_check(ovc, CASES)
