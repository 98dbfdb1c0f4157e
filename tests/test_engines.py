"""The engine adapters load real grammars, reject broken ones with a reason, and check strings.

Each engine's tests skip (via ``pytest.importorskip``) only when that engine is not installed.
The EBNF/structural-tag compatibility tables documented in ``toolgram.engines.openvino_engine``
are asserted here against both xgrammar versions.
"""

from __future__ import annotations

import json
import os
import re
import time
from types import ModuleType

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from toolgram.engines import (  # noqa: E402
    Check,
    EngineUnavailable,
    GrammarRejected,
    clean_reason,
    import_engine,
    smollm2_gguf_path,
)

UNICODE = "héllo wörld 😀 ✓ 中文"

# --------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def xg() -> ModuleType:
    return pytest.importorskip("toolgram.engines.xgrammar_engine")


@pytest.fixture(scope="module")
def lk() -> ModuleType:
    return pytest.importorskip("toolgram.engines.lark_engine")


@pytest.fixture(scope="module")
def llc() -> ModuleType:
    mod = pytest.importorskip("toolgram.engines.llamacpp_engine")
    try:
        smollm2_gguf_path()
    except EngineUnavailable as e:
        pytest.skip(str(e))
    return mod


@pytest.fixture(scope="module")
def ovc():
    mod = pytest.importorskip("toolgram.engines.openvino_engine")
    try:
        smollm2_gguf_path()
    except EngineUnavailable as e:
        pytest.skip(str(e))
    return mod.get_checker()


# --------------------------------------------------------------------------- common


def test_check_dataclass_and_helpers() -> None:
    c = Check("xgrammar", "failed", "boom", 3)
    assert (c.engine, c.status, c.reason, c.position) == ("xgrammar", "failed", "boom", 3)
    assert Check("lark", "passed").reason is None
    assert issubclass(EngineUnavailable, ImportError)
    msg = "[11:24:02] /project/cpp/grammar_parser.cc:820: EBNF parser error at line 1, column 11: x\n"
    assert clean_reason(msg) == "EBNF parser error at line 1, column 11: x"
    msg = "Exception from /a/b/xgrammar_backend.cpp:62:\nFailed to create grammar: bad\n"
    assert clean_reason(msg) == "Failed to create grammar: bad"
    with pytest.raises(ValueError):
        import_engine("nope")


def test_import_engine_lark() -> None:
    pytest.importorskip("lark")
    assert import_engine("lark").ENGINE == "lark"


# --------------------------------------------------------------------------- xgrammar

EBNF = 'root ::= "<t>" word ("," word)* "</t>"\nword ::= [a-zà-ÿ😀-🙏]+'


def test_xgrammar_compile_and_cache(xg: ModuleType) -> None:
    assert xg.compile_ebnf(EBNF) is xg.compile_ebnf(EBNF)
    xg.compile_ebnf('start ::= "a"', root="start")


@pytest.mark.parametrize(
    "bad, needle",
    [("root ::= (", "Expect element"), ("root ::= foo", '"foo" is not defined'), ('r ::= "a"', "root")],
)
def test_xgrammar_rejects_broken(xg: ModuleType, bad: str, needle: str) -> None:
    with pytest.raises(GrammarRejected) as ei:
        xg.compile_ebnf(bad)
    assert needle in ei.value.reason and ei.value.engine == "xgrammar"
    assert "grammar_parser.cc" not in str(ei.value)


@pytest.mark.parametrize(
    "s, expected",
    [
        ("<t>abc</t>", (True, None)),
        ("<t>héllo,😀ü</t>", (True, None)),
        ("<t>héXllo</t>", (False, 5)),
        ("<t>ab,</t>", (False, 6)),
        ("<t>ab", (False, 5)),  # valid prefix, incomplete
        ("", (False, 0)),
        ("<t>a</t>!", (False, 8)),
        ("<t>a\ud800</t>", (False, 4)),  # lone surrogate
        ("<t>é</t>".encode(), (True, None)),
        (b"<t>\xff</t>", (False, 3)),
    ],
)
def test_xgrammar_accepts(xg: ModuleType, s: str | bytes, expected: tuple[bool, int | None]) -> None:
    assert xg.accepts_ebnf(EBNF, s) == expected


def test_xgrammar_many_strings_fast(xg: ModuleType) -> None:
    words = ["a", "é", "😀", "X", ",", "zz"]
    strings = [f"<t>{a}{b},{c}</t>" for a in words for b in words for c in words] * 10
    t0 = time.perf_counter()
    results = [xg.accepts_ebnf(EBNF, s) for s in strings]
    assert time.perf_counter() - t0 < 2.0
    assert results.count((True, None)) == 4 * 4 * 4 * 10


ST_TRIGGERED = json.dumps(
    {
        "type": "structural_tag",
        "format": {
            "type": "triggered_tags",
            "triggers": ["<t>"],
            "tags": [
                {"begin": "<t>", "content": {"type": "grammar", "grammar": 'root ::= "x"'}, "end": "</t>"}
            ],
            "at_least_one": False,
            "stop_after_first": False,
        },
    }
)


def test_xgrammar_structural_tag(xg: ModuleType) -> None:
    assert xg.accepts_structural_tag(ST_TRIGGERED, f"{UNICODE} <t>x</t> then <t>x</t>") == (True, None)
    assert xg.accepts_structural_tag(ST_TRIGGERED, "free text only") == (True, None)
    assert xg.accepts_structural_tag(ST_TRIGGERED, "a <t>y</t>") == (False, 5)
    with pytest.raises(GrammarRejected, match="Invalid JSON"):
        xg.compile_structural_tag("{")
    with pytest.raises(GrammarRejected, match="not recognized"):
        xg.compile_structural_tag('{"type": "structural_tag", "format": {"type": "nope"}}')


# --------------------------------------------------------------------------- xgrammar vs OpenVINO

_R = '\nr ::= "x" "</t>"'
# (EBNF, loads in xgrammar 0.2.9, loads in OpenVINO 2026.4.1) -- the table in openvino_engine's docstring.
COMPAT_EBNF = [
    ("root ::= [^]+", True, True),
    (r'root ::= "\U0001F600" "\u00e9" "\x41"', True, True),
    (r"root ::= [\U0001F600-\U0001F64F] [\u00e0-\u00ff]", True, True),
    ('root ::= "é😀"', True, True),
    (r'root ::= "\"" "\\" "\n" "\t" "\r"', True, True),
    (r"root ::= [^<\n\\\]]+", True, True),
    ('root ::= "a"{2} "b"{2,3} "c"{2, 3} "d"{2,} "e"{0,}', True, True),
    ('root ::= "a"{0,-1}', True, False),
    ('root ::= "a"{0, -1}', True, False),
    ('root ::= "a" | ""', True, True),
    ('root ::= ("a" | "") "b"', True, True),
    ('root ::= my-rule my_rule r1.x\nmy-rule ::= "a"\nmy_rule ::= "b"\nr1.x ::= "c"', True, True),
    ('root ::= r "b" # comment\nr ::= "a" (= "b")', True, True),
    ('root ::= TagDispatch(("<t>", r))' + _R, True, True),
    ('root ::= "A" d\nd ::= TagDispatch(("<t>", r), loop_after_dispatch=false)' + _R, True, True),
    ('root ::= TagDispatch(("<t>", r), loop_after_dispatch=false, excludes=("<x>"))' + _R, True, True),
    ('root ::= TagDispatch(("<t>", r), loop_after_dispatch=true, excludes=("<x>", "<y>"))' + _R, True, True),
    ('root ::= TagDispatch(("<t>", r), loop_after_dispatch=false, excludes=())' + _R, True, True),
    ('root ::= TagDispatch(("<t>", r), loop_after_dispatch=false, excludes=("<x>",))' + _R, True, False),
    ('root ::= TagDispatch(("<t>", r), loop_after_dispatch=false, stop_eos=true)' + _R, False, True),
    ('root ::= TagDispatch(("<t>", r), stop_eos=false, stop_str=("END", "FIN"))' + _R, False, True),
    ('root ::= TagDispatch(("<t>", r), loop_after_dispatch=false, stop_eos=false)' + _R, False, False),
    ('root ::= TagDispatch(("<t>", r),)' + _R, False, False),
    ("root ::= (", False, False),
]


@pytest.mark.parametrize(
    "text, in_xgr, in_ov", COMPAT_EBNF, ids=[f"ebnf{i}" for i in range(len(COMPAT_EBNF))]
)
def test_xgrammar_ebnf_compat(xg: ModuleType, text: str, in_xgr: bool, in_ov: bool) -> None:
    if in_xgr:
        xg.compile_ebnf(text)
    else:
        with pytest.raises(GrammarRejected):
            xg.compile_ebnf(text)


@pytest.mark.model
@pytest.mark.parametrize(
    "text, in_xgr, in_ov", COMPAT_EBNF, ids=[f"ebnf{i}" for i in range(len(COMPAT_EBNF))]
)
def test_openvino_ebnf_compat(ovc, text: str, in_xgr: bool, in_ov: bool) -> None:
    if in_ov:
        ovc.check_ebnf(text)
    else:
        with pytest.raises(GrammarRejected) as ei:
            ovc.check_ebnf(text)
        assert ei.value.reason and ei.value.engine == "openvino"


def test_xgrammar_portable_tagdispatch_semantics(xg: ModuleType) -> None:
    g = 'root ::= TagDispatch(("<t>", r), loop_after_dispatch=false, excludes=("<x>"))' + _R
    assert xg.accepts_ebnf(g, "free é😀 text <t>x</t>") == (True, None)
    assert xg.accepts_ebnf(g, "free text") == (True, None)
    assert xg.accepts_ebnf(g, "a <x> b")[0] is False  # excluded in free text
    assert xg.accepts_ebnf(g, "<t>x</t> more")[0] is False  # nothing after the dispatched rule


_CONTENT = {
    "grammar": {"type": "grammar", "grammar": 'root ::= "x"'},
    "json_schema": {
        "type": "json_schema",
        "json_schema": {"type": "object", "properties": {"a": {"type": "integer"}}},
    },
    "any_text": {"type": "any_text"},
    "const_string": {"type": "const_string", "value": "x"},
    "sequence": {
        "type": "sequence",
        "elements": [{"type": "const_string", "value": "x"}, {"type": "any_text"}],
    },
    "or": {
        "type": "or",
        "elements": [{"type": "const_string", "value": "x"}, {"type": "const_string", "value": "y"}],
    },
    "tags_with_separator": {
        "type": "tags_with_separator",
        "tags": [{"begin": "<a>", "content": {"type": "const_string", "value": "x"}, "end": "</a>"}],
        "separator": ",",
        "at_least_one": False,
        "stop_after_first": False,
    },
    "regex": {"type": "regex", "pattern": "[0-9]+"},
    "qwen_xml_parameter": {
        "type": "qwen_xml_parameter",
        "json_schema": {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]},
    },
}
_ACCEPT = {
    "grammar": "x",
    "json_schema": '{"a": 1}',
    "any_text": "é😀",
    "const_string": "x",
    "sequence": "xyz",
    "or": "y",
    "tags_with_separator": "<a>x</a>,<a>x</a>",
    "regex": "42",
    "qwen_xml_parameter": "<parameter=a>v</parameter>",
}


def _st(content: dict, **extra: object) -> str:
    fmt = {
        "type": "triggered_tags",
        "triggers": ["<t>"],
        "tags": [{"begin": "<t>", "content": content, "end": "</t>"}],
        "at_least_one": False,
        "stop_after_first": False,
    }
    fmt.update(extra)
    return json.dumps({"type": "structural_tag", "format": fmt})


@pytest.mark.parametrize("kind", sorted(_CONTENT))
def test_xgrammar_structural_tag_content(xg: ModuleType, kind: str) -> None:
    st = _st(_CONTENT[kind])
    assert xg.accepts_structural_tag(st, f"hi <t>{_ACCEPT[kind]}</t> bye") == (True, None)


@pytest.mark.model
@pytest.mark.parametrize("kind", sorted(_CONTENT))
def test_openvino_structural_tag_content(ovc, kind: str) -> None:
    ovc.check_structural_tag(_st(_CONTENT[kind]))


@pytest.mark.model
def test_openvino_structural_tag_differences(ovc, xg: ModuleType) -> None:
    ovc.check_structural_tag(ST_TRIGGERED)
    ovc.check_structural_tag(_st(_CONTENT["const_string"], excludes=["<x>"]))
    # `style` is validated by 0.2.9 but ignored by OpenVINO
    bogus_style = json.dumps(
        {"type": "structural_tag", "format": {"type": "json_schema", "json_schema": {}, "style": "bogus"}}
    )
    ovc.check_structural_tag(bogus_style)
    with pytest.raises(GrammarRejected):
        xg.compile_structural_tag(bogus_style)
    # the EBNF inside a `grammar` content is parsed by OpenVINO's old parser
    with pytest.raises(GrammarRejected, match="Expect integer"):
        ovc.check_structural_tag(_st({"type": "grammar", "grammar": 'root ::= "a"{0,-1}'}))
    # qwen_xml_parameter for a tool without parameters: OpenVINO generates EBNF it cannot parse
    no_params = _st({"type": "qwen_xml_parameter", "json_schema": {"type": "object", "properties": {}}})
    xg.compile_structural_tag(no_params)
    with pytest.raises(GrammarRejected, match="EBNF parser error"):
        ovc.check_structural_tag(no_params)
    with pytest.raises(GrammarRejected, match="at_least_one"):
        ovc.check_structural_tag(_st(_CONTENT["any_text"], at_least_one="no"))
    with pytest.raises(GrammarRejected, match="Invalid JSON"):
        ovc.check_structural_tag('{"type": "structural_tag", "format":')


# --------------------------------------------------------------------------- OpenVINO


@pytest.mark.model
def test_openvino_good_and_broken(ovc) -> None:
    ovc.check_ebnf('root ::= "héllo " [0-9]+ " 😀"')
    with pytest.raises(GrammarRejected) as ei:
        ovc.check_ebnf("root ::= (")
    assert "Expect element" in ei.value.reason and "grammar_parser.cc" not in ei.value.reason
    runs: list[str] = []
    real_run = ovc._run
    ovc._run = lambda kind, text: runs.append(text) or real_run(kind, text)
    try:
        with pytest.raises(GrammarRejected):  # cached: no second generate
            ovc.check_ebnf("root ::= (")
    finally:
        del ovc._run
    assert runs == []
    with pytest.raises(GrammarRejected, match="not recognized"):
        ovc.check_structural_tag('{"type": "structural_tag", "format": {"type": "nope"}}')


# --------------------------------------------------------------------------- llama.cpp

GBNF = 'root ::= "<tool_call>" word ("," word)* "</tool_call>"\nword ::= [a-zà-ÿ😀-🙏]+'


def test_llamacpp_loads_and_rejects(llc: ModuleType) -> None:
    llc.check_gbnf(GBNF)
    llc.check_gbnf('start ::= "a"', root="start")
    cases = {
        "root ::= (": "expecting ')'",
        "root ::= foo": "Undefined rule identifier 'foo'",
        'root ::= root "a" | "b"': "left recursion",
        'r ::= "a"': "root",
    }
    for bad, needle in cases.items():
        with pytest.raises(GrammarRejected) as ei:
            llc.check_gbnf(bad)
        assert needle in ei.value.reason and ei.value.engine == "llama.cpp"


def test_llamacpp_tokenization_is_multi_token(llc: ModuleType) -> None:
    assert len(llc.tokenize("<tool_call>")) > 1
    assert len(llc.tokenize(UNICODE)) > 5


@pytest.mark.parametrize(
    "s, expected",
    [
        ("<tool_call>abc</tool_call>", (True, None)),
        ("<tool_call>héllo,😀ü</tool_call>", (True, None)),
        ("<tool_call>héXllo</tool_call>", (False, 13)),
        ("<tool_call>ab", (False, 13)),  # incomplete: EOS not allowed
        ("<tool_call>ab</tool_call> more", (False, 25)),
        ("xyz", (False, 0)),
        ("<tool_call>ab</tool_call><|im_end|>", (True, None)),  # EOG token at the end
    ],
)
def test_llamacpp_accepts(llc: ModuleType, s: str, expected: tuple[bool, int | None]) -> None:
    assert llc.accepts_gbnf(GBNF, s) == expected


def test_llamacpp_incomplete_allowed(llc: ModuleType) -> None:
    assert llc.accepts_gbnf(GBNF, "<tool_call>ab", complete=False) == (True, None)


def test_llamacpp_lazy(llc: ModuleType) -> None:
    pats = [llc.word_trigger_pattern("<tool_call>")]
    assert pats == [re.escape("<tool_call>")]
    ok = llc.accepts_gbnf
    assert ok(GBNF, f"{UNICODE}! <tool_call>abc,é</tool_call>", lazy_patterns=pats) == (True, None)
    assert ok(GBNF, f"{UNICODE} and no call", lazy_patterns=pats) == (True, None)
    bad = "Sure. <tool_call>aXc</tool_call>"
    assert ok(GBNF, bad, lazy_patterns=pats) == (False, bad.index("X"))
    assert ok(GBNF, "Sure. <tool_call>ab", lazy_patterns=pats) == (False, 19)
    # the anchored form llama.cpp's common layer builds also works
    anchored = [r"^[\s\S]*?(" + re.escape("<tool_call>") + r")[\s\S]*"]
    assert ok(GBNF, "Sure. <tool_call>ab</tool_call>", lazy_patterns=anchored) == (True, None)


def test_llamacpp_speed(llc: ModuleType) -> None:
    s = "<tool_call>abcdefghij,klmnop,é😀</tool_call>"
    llc.accepts_gbnf(GBNF, s)
    t0 = time.perf_counter()
    for _ in range(200):
        assert llc.accepts_gbnf(GBNF, s) == (True, None)
    assert (time.perf_counter() - t0) / 200 < 0.01


# --------------------------------------------------------------------------- Lark

LARK = 'start: "<t>" WORD ("," WORD)* "</t>"\nWORD: /[a-zà-ÿ😀-🙏]+/'


@pytest.mark.parametrize("parser", ["lalr", "earley"])
def test_lark(lk: ModuleType, parser: str) -> None:
    assert lk.build(LARK, parser) is lk.build(LARK, parser)
    assert lk.accepts_lark(LARK, "<t>héllo,😀ü</t>", parser) == (True, None)
    assert lk.accepts_lark(LARK, "<t>héXllo</t>", parser) == (False, 5)
    assert lk.accepts_lark(LARK, "<t>ab", parser) == (False, 5)
    assert lk.accepts_lark(LARK, "<t>ab</t>x", parser) == (False, 9)
    assert lk.accepts_lark(LARK, b"<t>\xff", parser) == (False, 3)
    with pytest.raises(GrammarRejected, match="Unclosed parenthesis"):
        lk.build("start: (", parser)
    with pytest.raises(GrammarRejected, match="foo"):
        lk.build("start: foo", parser)


def test_lark_lalr_vs_earley(lk: ModuleType) -> None:
    ambiguous = 'start: a | b\na: "x" "y"\nb: "x" "y"'
    lk.build(ambiguous, "earley")
    with pytest.raises(GrammarRejected):
        lk.build(ambiguous, "lalr")
