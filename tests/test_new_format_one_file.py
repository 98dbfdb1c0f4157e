"""A new format is one description file (issue 8).

A toy ``<call name="N">{json}</call>`` family is added to a staged copy of the installed package
(``scripts/lint_layers.stage``) as one new module, ``toolgram/grammars/toy_call.py``, and nothing
else is edited. In a fresh interpreter on that copy it is listed, compiles in all four dialects,
its grammars load and accept a rendered turn in the real engines, the strict, lenient and stream
parsers return the calls, and ``detect`` recognises a template written for it.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

TOY = '''"""A toy family: ``<call name="N">{json}</call>`` blocks."""

from .spec import Fingerprint, FormatSpec, NamedJsonCall, Scope, Trigger

FORMAT = FormatSpec(
    id="toy_call",
    summary='Toy <call name="N">{...}</call>',
    call=NamedJsonCall(head="", name_end='">', end=""),
    scope=Scope(per_call=True, open='<call name="', close="</call>", canonical_join="\\n"),
    triggers=(Trigger("word", '<call name="'),),
    special_tokens=(),
    detect=(Fingerprint((('<call name="',),), "the template writes <call name=...> blocks", priority=100),),
    instructions="To call a function, reply with blocks exactly like this:\\n{example}\\n",
)
'''

CHECK = r'''
import json, sys
import toolgram
from toolgram.grammars import FORMATS
from toolgram.runtime.detect import detect_format
from toolgram.runtime.prompts import render_prompt
from toolgram.grammars.render import render_calls
from toolgram.engines import import_engine

tools = json.loads(sys.argv[1])
calls = [("get_weather", {"location": "Paris", "unit": "celsius"}), ("get_weather", {"location": "Köln"})]
text = render_calls("toy_call", calls)
assert text.startswith('<call name="get_weather">{"location": "Paris"'), text
want = [(n, json.dumps(a, ensure_ascii=False)) for n, a in calls]
out = {"listed": "toy_call" in FORMATS, "text": text, "accepted": {}}
lark = import_engine("lark")
from toolgram.compiler.dialects import NAMES
for dialect in NAMES:
    bundle = toolgram.compile("toy_call", tools, dialect=dialect, tool_choice="required")
    if dialect == "gbnf":
        out["accepted"]["llama.cpp"] = import_engine("llamacpp").accepts_gbnf(bundle.grammar, text)[0]
    elif dialect == "ebnf":
        out["accepted"]["xgrammar"] = import_engine("xgrammar").accepts_ebnf(bundle.grammar, text)[0]
        import_engine("openvino").check_ebnf(bundle.grammar)
        out["accepted"]["openvino-compiled"] = True
    elif dialect == "lark":
        out["accepted"]["lark"] = lark.accepts_lark(bundle.grammar, text, bundle.lark_parser)[0]
    else:
        out["accepted"]["xgrammar-structural-tag"] = import_engine("xgrammar").accepts_structural_tag(
            bundle.grammar, text)[0]
lazy = toolgram.compile("toy_call", tools, dialect="gbnf")  # auto: lazy from the trigger
out["accepted"]["llama.cpp-lazy"] = import_engine("llamacpp").accepts_gbnf(
    lazy.grammar, "Let me look.\n" + text, lazy_patterns=['<call name="'])[0]
got = {}
for mode in ("strict", "lenient"):
    msg = toolgram.parse("toy_call", text, tools, mode=mode, tool_choice="required")
    got[mode] = [(c["function"]["name"], c["function"]["arguments"]) for c in msg["tool_calls"]]
sp = toolgram.StreamParser("toy_call", tools)
for ch in "Sure. " + text:
    sp.feed(ch)
sp.finish()
got["stream"] = [(c["function"]["name"], c["function"]["arguments"]) for c in sp.message["tool_calls"]]
got["stream_content"] = sp.message["content"]
out["parsed"] = {k: v == want for k, v in got.items() if k != "stream_content"}
out["stream_content"] = got["stream_content"]
out["detect"] = (detect_format('{% for m in messages %}<call name="{{ m.name }}">{% endfor %}') or [None])[0]
prompt, kind = render_prompt("toy_call", [{"role": "user", "content": "hi"}], tools)
out["prompt"] = kind == "toolgram" and '<call name="function_name">' in prompt
print(json.dumps(out))
'''


def test_a_seventh_format_is_one_file(tmp_path: Path) -> None:
    spec = importlib.util.spec_from_file_location("lint_layers", ROOT / "scripts" / "lint_layers.py")
    assert spec and spec.loader
    lint_layers = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(lint_layers)
    staged = lint_layers.stage(tmp_path, keep_data=True)
    before = sorted(str(p.relative_to(staged)) for p in staged.rglob("*") if p.is_file())
    (staged / "toolgram" / "grammars" / "toy_call.py").write_text(TOY, encoding="utf-8")
    after = sorted(str(p.relative_to(staged)) for p in staged.rglob("*") if p.is_file())
    assert sorted(set(after) - set(before)) == ["toolgram/grammars/toy_call.py"]  # one new file, nothing else
    tools = (ROOT / "grammars" / "examples" / "tools.json").read_text(encoding="utf-8")
    proc = subprocess.run([sys.executable, "-c", CHECK, tools], capture_output=True, text=True, timeout=600,
                          cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(staged)})
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["listed"]
    assert out["accepted"] == {"llama.cpp": True, "xgrammar": True, "openvino-compiled": True, "lark": True,
                               "xgrammar-structural-tag": True, "llama.cpp-lazy": True}, out
    assert out["parsed"] == {"strict": True, "lenient": True, "stream": True}, out
    assert out["stream_content"] == "Sure."
    assert out["detect"] == "toy_call"
    assert out["prompt"]
