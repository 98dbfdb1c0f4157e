"""Every dialect rejects bad calls: wrong tool name, missing required argument, wrong value type,
a second call with parallel off, text after the calls, and another tool under a named tool_choice.

Each case is checked in xgrammar (EBNF and structural tag), llama.cpp (GBNF; lazy in ``auto``) and
Lark, for every format, under ``auto`` and ``required`` (the named case under the named choice).
Every test first checks that the matching GOOD text is accepted by the same grammar, so a
rejection is about the defect and not a broken setup.
"""

from __future__ import annotations

from typing import Any

import pytest
from strategies import TIME, engine_results, tool
from toolgram.compiler.bundle import compile
from toolgram.compiler.dialects import NAMES as DIALECT_NAMES
from toolgram.grammars import FORMATS
from toolgram.grammars.render import render_calls

TOOLS = [
    tool("get_weather", {
        "type": "object",
        "properties": {"location": {"type": "string"}, "unit": {"enum": ["celsius", "fahrenheit"]},
                       "days": {"type": "integer"}},
        "required": ["location"],
    }),
    TIME,
]
GOOD = ("get_weather", {"location": "Paris", "unit": "celsius", "days": 3})
DIALECTS = list(DIALECT_NAMES)  # the registry's order (toolgram.compiler.dialects)


def _wrong_type(fmt: str) -> str:
    """``days`` as a non-integer: a word in XML formats (raw values), a string in the others."""
    bad = "soon" if FORMATS[fmt].values in ("xml", "elements") else "3"  # a raw "3" would be the integer
    return render_calls(fmt, [("get_weather", {"location": "Paris", "days": bad})])


#: case -> (good text, bad text, compile options) for a format
def cases(fmt: str, choice: str) -> dict[str, tuple[str, str, dict[str, Any]]]:
    one = render_calls(fmt, [GOOD])
    on = {"tool_choice": choice, "parallel_tool_calls": True}
    off = {"tool_choice": choice, "parallel_tool_calls": False}
    return {
        "wrong_name": (one, render_calls(fmt, [("get_wether", GOOD[1])]), on),
        "missing_required": (one, render_calls(fmt, [("get_weather", {"unit": "celsius"})]), on),
        "wrong_type": (one, _wrong_type(fmt), on),
        "second_call_parallel_off": (one, render_calls(fmt, [GOOD, ("get_time", {"timezone": "UTC"})]), off),
        "text_after_calls": (one, one + "\nDone.", on),
        "other_tool_named": (one, render_calls(fmt, [("get_time", {"timezone": "UTC"})]),
                             {"tool_choice": "get_weather", "parallel_tool_calls": True}),
    }


#: (choice, case); the named-choice case sets its own tool_choice, so it runs once.
CHOICE_CASES = [(c, k) for k in cases("hermes", "auto") for c in ("auto", "required")
                if not (k == "other_tool_named" and c == "auto")]


@pytest.mark.parametrize(("choice", "case"), CHOICE_CASES)
@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("fmt", list(FORMATS))
def test_rejects(fmt: str, dialect: str, choice: str, case: str) -> None:
    good, bad, opts = cases(fmt, choice)[case]
    bundle = compile(fmt, TOOLS, dialect=dialect, **opts)
    for engine, (ok, pos) in engine_results(bundle, good).items():
        assert ok, f"{engine} rejects the good text at {pos}: {good!r}"
    for engine, (ok, _) in engine_results(bundle, bad).items():
        assert not ok, f"{engine} accepts {case} ({opts}): {bad!r}"
