"""Every template of llama.cpp's collection round-trips through toolgram (issue 9, "how it must be shown").

Driven by the generated fixtures in tests/data/families/ (scripts/make_family_fixtures.py; see that folder's
README): for every template of ``index.json`` whose format id is implemented (``toolgram.grammars.FORMATS``) and
that renders tool calls, for its one-call turn and (where the family allows it) its two-call turn:

1. ``detect`` on the template gives the id;
2. strict and lenient parsing return exactly the expected calls, with content and reasoning as the fixture says
   (``null`` there is equivalent to ``""`` or whitespace: llama.cpp compares them stripped, FORMATS-NEXT §0.2);
3. the compiled grammar accepts the turn in every dialect and engine: llama.cpp (GBNF), xgrammar (EBNF and
   structural tag), Lark; OpenVINO GenAI loads the EBNF. For tool_choice ``auto`` and ``required``, parallel
   calls on for the two-call turn (off for the one-call turn);
4. streaming is chunk-invariant: 1-character chunks and a few seeded random chunkings give the message of the
   whole-output lenient parse.

Every template's format id must be implemented (:func:`test_every_family_has_a_format`; nothing is skipped per
file). Each implemented family's llama.cpp test-chat cases (``cases/<id>.json``) are parsed
leniently with the case's settings.

Reasoning setting (as /tmp famcheck did for the helpers): a format without reasoning tags parses with
``reasoning="none"``; with tags, a turn holding the close tag is ``optional`` when it also holds the open tag
and ``forced`` when it does not (the generation prompt opened the block); a turn without the close tag is
``none``. The test-chat cases add: an open tag without a close tag (reasoning cut off) is ``optional``, and a
case whose settings switch reasoning off or whose generation prompt ends with the open tag says so itself.

End of turn: every fixture turn has its end-of-turn marker cut off (the ``end_of_turn`` field), and the test
runs the grammars and parsers on the turn without it. :data:`END_OF_TURN` states, per family, what that marker
is and why the grammar ends before it; a format id of the index without an entry there fails
:func:`test_every_family_states_its_end_of_turn`.
"""

from __future__ import annotations

import functools
import json
import random
from pathlib import Path
from typing import Any

import pytest
from strategies import engine_results
from toolgram.compiler.dialects import NAMES as DIALECT_NAMES
from toolgram.grammars import FORMATS
from toolgram.runtime.detect import detect_format

import toolgram
from toolgram.engines import import_engine

DATA = Path(__file__).resolve().parent / "data"
FAMILIES = DATA / "families"
TEMPLATES = DATA / "templates" / "llama.cpp"
INDEX: dict[str, dict[str, Any]] = json.loads((FAMILIES / "index.json").read_text(encoding="utf-8"))

#: The fixture conversation's tools (FORMATS-NEXT §0.3, tests/data/families/README.md).
TOOLS = [
    {"type": "function", "function": {"name": "get_weather", "parameters": {
        "type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
        "required": ["city"]}}},
    {"type": "function", "function": {"name": "get_time", "parameters": {
        "type": "object", "properties": {"timezone": {"type": "string"}}, "required": ["timezone"]}}},
]

_STOP = "the engine stops on it as the model's end-of-generation token: it is never a grammar literal"

#: Per format id of the index: the end-of-turn marker the fixtures cut off, and how the format handles it.
END_OF_TURN: dict[str, str] = {
    "hermes": f"<|im_end|> (Qwen, MiMo, Granite 4 <|end_of_text|>, Reka <sep>): {_STOP}; the grammar ends "
              "after the last </tool_call> and at most one newline",
    "qwen3_coder": f"<|im_end|>: {_STOP}; the grammar ends after the last </tool_call>",
    "seed_oss": f"<seed:eos>: {_STOP}; the grammar ends after the last </seed:tool_call>",
    "llama3_json": f"<|eot_id|> (<|eom_id|> after ipython calls): {_STOP}; the grammar ends with the JSON object",
    "pythonic": f"the chat format's end token: {_STOP}; the grammar ends with the closing ]",
    "llama4_pythonic": f"<|eot|>: {_STOP}; the grammar ends with <|python_end|> or the closing ]",
    "deepseek_v3_1": f"<｜end▁of▁sentence｜>: {_STOP}; the grammar ends with <｜tool▁calls▁end｜>",
    "deepseek_r1": f"<｜end▁of▁sentence｜>: {_STOP}; the grammar ends with <｜tool▁calls▁end｜> (or the last "
                   "<｜tool▁call▁end｜>, which the Distill templates leave unclosed)",
    "deepseek_dsml": f"<｜end▁of▁sentence｜>: {_STOP}; the grammar ends with the DSML calls block's close tag",
    "deepseek_v4": f"<｜end▁of▁sentence｜>: {_STOP}; the grammar ends with </｜DSML｜tool_calls>",
    "nemotron": f"<SPECIAL_12> (Nano v2's end token): {_STOP}; the grammar ends with </TOOLCALL>",
    "kimi_k2": f"<|im_end|>: {_STOP}; the grammar ends with <|tool_calls_section_end|>",
    "kimi_k3": f"<|end_of_msg|>: {_STOP}; the turn ends with the message close <|close|>message<|sep|>",
    "glm4": "none written after the turn (GLM-4.5/4.6: the next role token <|user|> / <|observation|> is the "
            f"stop token; Laguna-XS: </assistant>): {_STOP}; the grammar ends with </tool_call>",
    "glm4_7": "none written after the turn (GLM-4.7-Flash: the next role token is the stop token; Spark2.5: "
              f"<｜end▁of▁sentence｜>; Laguna-S: </assistant>): {_STOP}; the grammar ends with </tool_call>",
    "ling3": f"<|role_end|>: {_STOP}; the grammar ends with </tool_call>",
    "hy3": f"<｜hy_eos:opensource｜>: {_STOP}; the grammar ends with </tool_calls:opensource>",
    "minimax_m1": f"<end_of_sentence>: {_STOP}; the grammar ends with </tool_calls>",
    "minimax_m2": f"[e~[: {_STOP}; the grammar ends with </minimax:tool_call>",
    "minimax_m3": f"[e~[: {_STOP}; the grammar ends with the namespaced </tool_call>",
    "minicpm5": f"<|im_end|>: {_STOP}; the grammar ends with the last </function>",
    "mistral": f"</s>: {_STOP}; the grammar ends with the JSON list's ]",
    "mistral_args": f"</s>: {_STOP}; the grammar ends with the last call's JSON arguments",
    "granite": f"<|end_of_text|>: {_STOP}; the grammar ends with the JSON list",
    "lfm2": f"<|im_end|>: {_STOP}; the grammar ends with <|tool_call_end|>",
    "command_r7b": f"<|END_OF_TURN_TOKEN|>: {_STOP}; the grammar ends with <|END_ACTION|>",
    "command_r_plus": "none written after the turn (the template's instruction block follows): the model's "
                      f"<|END_OF_TURN_TOKEN|> {_STOP}; the grammar ends with the closing code fence",
    "apertus": "none written after the turn: tool results follow <|tools_suffix|> inside the same assistant turn "
               "(FORMATS-NEXT §7.5); the grammar ends with <|tools_suffix|>, where generation stops",
    "apriel": "none for the last message (history writes \\n<|end|>): "
              f"{_STOP}; the grammar ends with </tool_calls>",
    "functionary_v3_1": f"<|eom_id|>: {_STOP}; the grammar ends with the last </function>",
    "functionary_v3_2": f"<|eot_id|>: {_STOP}; the grammar ends with the last call's JSON arguments",
    "firefunction_v2": f"<|eot_id|>: {_STOP}; the grammar ends with the functools JSON list's ]",
    "gemma4": f"<turn|> (interleaved: <|tool_response>): {_STOP}; the grammar ends with <tool_call|>",
    "gpt_oss": "<|call|>: harmony's end of a tool-call message, a stop token of its own; the grammar ends with "
               "the JSON arguments (the engine stops on <|call|>)",
    "solar_open": f"<|calls|>: {_STOP}; the grammar ends with the last <|tool_call:end|>",
    "gigachat3": f"<|message_sep|>: {_STOP}; the grammar ends with the call's JSON object",
    "gigachat3_1": f"<|message_sep|>: {_STOP}; the grammar ends with the call's JSON object",
    "muse_glimmer": f"<|eot|>: {_STOP}; the grammar ends with </atem:function_calls>",
}


def _record(template: str) -> dict[str, Any]:
    return json.loads((FAMILIES / (template[: -len(".jinja")] + ".json")).read_text(encoding="utf-8"))


#: (template, turn) for every template that renders calls with an implemented format.
TURNS = [(t, which) for t, e in sorted(INDEX.items()) if e["renders_calls"] and e["format"] in FORMATS
         for which in ("one_call", "two_calls") if _record(t)[which] is not None]
DETECTED = sorted({t for t, _ in TURNS})
#: index entries whose format id is not implemented (None = renders no tool calls: nothing to implement)
GAP = sorted(t for t, e in INDEX.items() if e["format"] is not None and e["format"] not in FORMATS)


def reasoning_setting(fmt: str, text: str, settings: dict[str, Any] | None = None) -> str:
    """The reasoning option for an output (see the module docstring); ``settings``: a test-chat case's."""
    r = FORMATS[fmt].reasoning
    if r is None or (settings or {}).get("reasoning") == "off":
        return "none"
    if r.close in text:
        return "optional" if r.open in text else "forced"
    if settings is not None:  # test-chat cases only; fixture turns never hold an unclosed open tag
        if r.open in text:
            return "optional"
        if settings.get("generation_prompt_ends", "").endswith(r.open):
            return "forced"
    return "none"


def _calls(msg: Any) -> list[tuple[str, Any]]:
    return [(c["function"]["name"], json.loads(c["function"]["arguments"])) for c in msg.get("tool_calls") or []]


def _same_text(got: str | None, want: str | None) -> bool:
    return (got or "").strip() == (want or "").strip()


def _turn(template: str, which: str) -> tuple[str, dict[str, Any], str, bool]:
    rec = _record(template)
    fmt = rec["format"]
    turn = rec[which]["turn"]
    return fmt, rec[which], reasoning_setting(fmt, turn), which == "two_calls"


# ------------------------------------------------------------------------------------------------ coverage


def test_every_family_states_its_end_of_turn() -> None:
    ids = {e["format"] for e in INDEX.values() if e["format"] is not None}
    assert not ids - set(END_OF_TURN), f"say how the end of turn is handled for {sorted(ids - set(END_OF_TURN))}"


def test_every_family_has_a_format() -> None:
    """Every template of the collection that writes calls has an implemented format (no gap)."""
    gap = {t: INDEX[t]["format"] for t in GAP}
    assert not gap, f"{len(gap)} templates of {len(set(gap.values()))} formats not implemented: " + ", ".join(
        f"{t} ({f})" for t, f in gap.items())


# ------------------------------------------------------------------------------------------------ the turns


@pytest.mark.parametrize("template", DETECTED)
def test_detect(template: str) -> None:
    found = detect_format((TEMPLATES / template).read_text(encoding="utf-8"))
    assert (found and found[0]) == INDEX[template]["format"], found


#: formats whose templates pretty-print the call JSON (Command-R+'s ``tojson(indent=4)``): toolgram's
#: canonical spelling is compact, so the templates' own turns are the ``whitespace="flexible"`` language
#: (a known difference, SPEC section 1)
PRETTY_TEMPLATES = {"command_r_plus"}


def _grammar_turn(fmt: str, turn: str) -> tuple[str, str]:
    """The turn as a grammar (and strict parsing) reads it, and the ``whitespace`` option for it. SPEC
    section 1: at most one newline after the last call, so a template's longer tail (Reka-Edge's "\n\n"
    before ``<sep>``) is cut to one newline; the lenient parser reads the whole turn."""
    tail = turn[len(turn.rstrip(" \t\n")):]
    if tail and tail != "\n":
        turn = turn.rstrip(" \t\n") + ("\n" if "\n" in tail else "")
    return turn, "flexible" if fmt in PRETTY_TEMPLATES else "canonical"


@pytest.mark.parametrize("mode", ["strict", "lenient"])
@pytest.mark.parametrize(("template", "which"), TURNS)
def test_parse(template: str, which: str, mode: str) -> None:
    fmt, case, reasoning, parallel = _turn(template, which)
    turn, whitespace = _grammar_turn(fmt, case["turn"]) if mode == "strict" else (case["turn"], None)
    msg = toolgram.parse(fmt, turn, TOOLS, mode=mode, reasoning=reasoning, parallel_tool_calls=parallel,
                         whitespace=whitespace)
    want = case["expected"]
    assert _calls(msg) == [(c["name"], c["arguments"]) for c in want["calls"]], msg
    assert _same_text(msg.get("content"), want["content"]), msg
    assert _same_text(msg.get("reasoning_content"), want["reasoning"]), msg


@functools.cache
def _bundle(fmt: str, dialect: str, choice: str, reasoning: str, parallel: bool) -> Any:
    return toolgram.compile(fmt, TOOLS, dialect=dialect, tool_choice=choice, reasoning=reasoning,
                            parallel_tool_calls=parallel, whitespace=_grammar_turn(fmt, "")[1])


@functools.cache
def _openvino_loads(ebnf: str) -> bool:
    import_engine("openvino").check_ebnf(ebnf)  # raises when OpenVINO GenAI's xgrammar refuses the grammar
    return True


def _accepts(fmt: str, dialect: str, choice: str, reasoning: str, parallel: bool, text: str) -> bool | str:
    """llama.cpp / xgrammar / Lark acceptance (strategies.engine_results: GBNF in ``auto`` is lazy, with the
    format's trigger patterns, as llama.cpp runs it); for EBNF also OpenVINO GenAI loading the grammar."""
    try:
        b = _bundle(fmt, dialect, choice, reasoning, parallel)
        ok = all(r[0] for r in engine_results(b, text).values())
        if dialect == "ebnf":
            return ok and _openvino_loads(b.grammar)
        return ok
    except Exception as exc:  # noqa: BLE001 -- reported per dialect
        return repr(exc)[:300]


#: every turn under both choices; the default run takes one choice per turn (turns take turns, so a template
#: with two turns runs both choices), the other choice is slow
TURN_CHOICES = [pytest.param(t, which, choice, marks=() if k == i % 2 else pytest.mark.slow)
                for i, (t, which) in enumerate(TURNS) for k, choice in enumerate(("auto", "required"))]


@pytest.mark.parametrize(("template", "which", "choice"), TURN_CHOICES)
def test_grammars_accept_the_turn(template: str, which: str, choice: str) -> None:
    fmt, case, reasoning, parallel = _turn(template, which)
    results = {d: _accepts(fmt, d, choice, reasoning, parallel, _grammar_turn(fmt, case["turn"])[0])
               for d in DIALECT_NAMES}
    bad = {d: r for d, r in results.items() if r is not True}
    assert not bad, (reasoning, bad)


def _stream(fmt: str, chunks: list[str], **kw: Any) -> dict[str, Any]:
    sp = toolgram.StreamParser(fmt, TOOLS, **kw)
    for c in chunks:
        sp.feed(c)
    sp.finish()
    return sp.message


@pytest.mark.parametrize(("template", "which"), TURNS)
def test_streaming_is_chunk_invariant(template: str, which: str) -> None:
    fmt, case, reasoning, parallel = _turn(template, which)
    text = case["turn"]
    kw = {"reasoning": reasoning, "parallel_tool_calls": parallel}
    whole = toolgram.parse(fmt, text, TOOLS, **kw)
    rng = random.Random(f"{template}/{which}")
    chunkings = [list(text)]
    for _ in range(3):
        cuts = sorted({0, len(text), *(rng.randrange(len(text) + 1) for _ in range(rng.randint(1, 8)))})
        chunkings.append([text[a:b] for a, b in zip(cuts, cuts[1:], strict=False)])
    for chunks in chunkings:
        assert _stream(fmt, chunks, **kw) == whole, chunks


# ------------------------------------------------------------------------------------------------ test-chat cases


def _cases() -> list[tuple[str, int]]:
    out = []
    for path in sorted((FAMILIES / "cases").glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        if data["format"] in FORMATS:
            out += [(data["format"], i) for i in range(len(data["cases"]))]
    return out


def _json_type(value: Any) -> dict[str, Any]:
    for py, name in ((bool, "boolean"), (int, "integer"), (float, "number"), (str, "string"), (list, "array"),
                     (dict, "object")):
        if isinstance(value, py):
            return {"type": name}
    return {}


@functools.cache
def _case_file(fmt: str) -> dict[str, Any]:
    data = json.loads((FAMILIES / "cases" / f"{fmt}.json").read_text(encoding="utf-8"))
    # test-chat.cpp's tools are not in the fixtures: each name gets a schema typed by the expected values
    props: dict[str, dict[str, Any]] = {}
    for case in data["cases"]:
        for c in case["expected"]["calls"]:
            p = props.setdefault(c["name"], {})
            for k, v in c["arguments"].items():
                p.setdefault(k, _json_type(v))
    data["tools"] = [{"type": "function", "function": {"name": n, "parameters": {
        "type": "object", "properties": p}}} for n, p in props.items()]
    return data


#: (format id, case source) -> the documented reason toolgram reads a test-chat case differently from llama.cpp
#: (docs/parsing.md "Known differences", docs/formats.md per-family choices); such a case is a strict xfail, so
#: the entry goes when the behaviour changes.
CASE_DIFFERENCES: dict[tuple[str, str], str] = {
    ("gpt_oss", "tests/test-chat.cpp:6548-6549"): "a recipient other than functions.* (to=container.exec) is kept as "
        "content; llama.cpp drops the message (docs/formats.md, gpt_oss: nothing is lost)",
    ("kimi_k2", "tests/test-chat.cpp:5103-5105"): "bare call blocks inside unclosed reasoning stay reasoning: only the "
        "section opening ends <think> (docs/formats.md, Kimi-K2 bare blocks); llama.cpp reads two calls",
}


def _case_params() -> list[Any]:
    out = []
    for fmt, i in _cases():
        why = CASE_DIFFERENCES.get((fmt, _case_file(fmt)["cases"][i]["source"]))
        out.append(pytest.param(fmt, i, marks=pytest.mark.xfail(reason=why, strict=True) if why else ()))
    return out


@pytest.mark.parametrize(("fmt", "index"), _case_params())
def test_llama_cpp_case(fmt: str, index: int) -> None:
    """Lenient parsing of llama.cpp's test-chat output for the family. Settings used: ``parallel`` and the
    reasoning keys (see :func:`reasoning_setting`); template variants (``style``, ``variant``, ``call_id``,
    ...) are what the format id already fixes. Call ids the model wrote are not compared (SPEC: ids are
    ``call_<index>``)."""
    data = _case_file(fmt)
    case = data["cases"][index]
    settings = case["settings"]
    text = case["input"]
    msg = toolgram.parse(fmt, text, data["tools"], reasoning=reasoning_setting(fmt, text, settings),
                         parallel_tool_calls=bool(settings.get("parallel", False)))
    want = case["expected"]
    assert _calls(msg) == [(c["name"], c["arguments"]) for c in want["calls"]], (case["source"], msg)
    assert _same_text(msg.get("content"), want["content"]), (case["source"], msg)
    assert _same_text(msg.get("reasoning_content"), want["reasoning"]), (case["source"], msg)
