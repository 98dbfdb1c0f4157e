"""Lenient reading rules for spellings models write (issue 23 section 2), and SPEC section 4's
"a top-level argument written twice keeps its first value, with a diagnostic".

The grammars keep one canonical spelling; these are reading rules, each with its diagnostic, the
same whole and streamed at 1, 3 and random chunk sizes."""

from __future__ import annotations

import json
import random

import pytest

import toolgram

TOOLS = [
    {"type": "function", "function": {"name": "get_weather", "parameters": {
        "type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
        "required": ["city"]}}},
    {"type": "function", "function": {"name": "python", "parameters": {
        "type": "object", "properties": {"code": {"type": "string"}}, "required": ["code"]}}},
]
PARIS = '{"city": "Paris"}'
PARIS2 = '{"city": "Paris", "days": 2}'
CODE = '{"code": "x"}'

# (format, output, calls as (name, arguments), content, the diagnostic the rule adds)
CASES = [
    # arguments before the name (Mistral before v11, Granite, any JSON list format)
    ("hermes", '<tool_call>\n{"arguments": {"city": "Paris", "days": 2}, "name": "get_weather"}\n</tool_call>',
     [("get_weather", PARIS2)], None, "arguments_before_name"),
    ("mistral", '[TOOL_CALLS][{"arguments": {"city": "Paris"}, "name": "get_weather", "id": "abcdefghi"}]',
     [("get_weather", PARIS)], None, "arguments_before_name"),
    ("granite", 'Sure.<|tool_call|>[{"arguments": {"city": "Paris"}, "name": "get_weather"}, '
                '{"name": "python", "arguments": {"code": "x"}}]',
     [("get_weather", PARIS), ("python", CODE)], "Sure.", "arguments_before_name"),
    ("hermes", '<tool_call>\n{"parameters": {"city": "P{a}r\\"is"}, "name": "get_weather"}\n</tool_call>',
     [("get_weather", '{"city": "P{a}r\\"is"}')], None, "arguments_before_name"),
    # arguments as a JSON-encoded string (Hermes, Nemotron, Granite 4 models)
    ("hermes", 'Hi <tool_call>\n{"name": "get_weather", "arguments": "{\\"city\\": \\"Paris\\"}"}\n</tool_call>',
     [("get_weather", PARIS)], "Hi", "arguments_string"),
    ("nemotron", '<TOOLCALL>[{"name": "get_weather", "arguments": "{\\"city\\": \\"Paris\\", \\"days\\": 2}"}]'
                 '</TOOLCALL>', [("get_weather", PARIS2)], None, "arguments_string"),
    # several call objects in one block
    ("hermes", '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}, '
               '{"name": "python", "arguments": {"code": "x"}}\n</tool_call>',
     [("get_weather", PARIS), ("python", CODE)], None, "calls_in_one_block"),
    ("hermes", '<tool_call>\n[{"name": "get_weather", "arguments": {"city": "Paris"}}, '
               '{"name": "python", "arguments": {"code": "x"}}]\n</tool_call>',
     [("get_weather", PARIS), ("python", CODE)], None, "calls_in_one_block"),
    ("hermes", '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n'
               '{"name": "python", "arguments": {"code": "x"}}\n</tool_call>',
     [("get_weather", PARIS), ("python", CODE)], None, "calls_in_one_block"),
    # whitespace around special tokens in a call head (Kimi-K2)
    ("kimi_k2", "<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0 <|tool_call_argument_begin|>"
                + PARIS + "<|tool_call_end|><|tool_calls_section_end|>", [("get_weather", PARIS)], None,
     "head_whitespace"),
    ("kimi_k2", "<|tool_calls_section_begin|><|tool_call_begin|> functions.get_weather:0\n"
                "<|tool_call_argument_begin|> " + PARIS + " <|tool_call_end|>\n<|tool_calls_section_end|>",
     [("get_weather", PARIS)], None, "head_whitespace"),
    # a call head without its fixed text before the name, inside the call's opening (vLLM reads Kimi-K2's)
    ("kimi_k2", "Hi <|tool_calls_section_begin|><|tool_call_begin|>get_weather:0<|tool_call_argument_begin|>"
                + PARIS + "<|tool_call_end|><|tool_calls_section_end|>", [("get_weather", PARIS)], "Hi",
     "missing_head"),
    ("deepseek_r1", "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather\n```json\n" + PARIS
                    + "\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>", [("get_weather", PARIS)], None, "missing_head"),
    ("gemma4", 'Hi: <|tool_call>:get_weather{city:<|"|>Paris<|"|>,days:2}<tool_call|>', [("get_weather", PARIS2)],
     "Hi:", "missing_head"),
    # a Python string argument with raw newlines or its own quote unescaped (shell commands; vLLM's reading):
    # a quote closes the string only where the call goes on after it
    ("pythonic", "[python(code='print(\"a\")\nprint('b')')]", [("python", '{"code": "print(\\"a\\")\\nprint(\'b\')"}')],
     None, "raw_newline"),
    ("lfm2", "<|tool_call_start|>[get_weather(city='Martha's Vineyard', days=2)]<|tool_call_end|>",
     [("get_weather", '{"city": "Martha\'s Vineyard", "days": 2}')], None, "unescaped_quote"),
    ("llama4_pythonic", "[python(code='sed -n '1,5p' f', ), get_weather(city='Paris')]",
     [("python", '{"code": "sed -n \'1,5p\' f"}'), ("get_weather", PARIS)], None, "unescaped_quote"),
    # a value without its closing tag ends at the next declared parameter's opening line (vLLM's reading)
    ("qwen3_coder", "Hi\n<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n<parameter=days>\n2\n"
                    "</parameter>\n</function>\n</tool_call>", [("get_weather", PARIS2)], "Hi", "missing_close"),
    ("qwen3_coder", "<tool_call>\n<function=get_weather>\n<parameter=days>\n2\n<parameter=city>\nParis\n"
                    "</parameter>\n</function>\n</tool_call>", [("get_weather", '{"days": 2, "city": "Paris"}')], None,
     "missing_close"),
    ("seed_oss", "<seed:tool_call>\n<function=get_weather>\n<parameter=city>Paris\n<parameter=days>2</parameter>\n"
                 "</function>\n</seed:tool_call>", [("get_weather", PARIS2)], None, "missing_close"),
    # Functionary v3.2's python recipient with a raw-code body (llama.cpp's rule)
    ("functionary_v3_2", "python\nprint(1)\n", [("python", '{"code": "print(1)"}')], None, "raw_code"),
    ("functionary_v3_2", 'all\nSure>>>python\nfor i in "ab":\n    print(i)',
     [("python", '{"code": "for i in \\"ab\\":\\n    print(i)"}')], "Sure", "raw_code"),
    # Hy3 without its :opensource suffixes (vLLM's reading)
    ("hy3", "<tool_calls>\n<tool_call>get_weather<tool_sep>\n<arg_key>city</arg_key>\n<arg_value>Paris"
            "</arg_value>\n<arg_key>days</arg_key>\n<arg_value>2</arg_value>\n</tool_call>\n</tool_calls>",
     [("get_weather", PARIS2)], None, "other_spelling"),
    # MiniCPM5's tags as some decoders spell them (vLLM's reading); a value keeps its own text
    ("minicpm5", 'Hi <function\u0120name="get_weather"><paramname="city">Pa\u0120ris</param>'
                 '<param\u0120name="days">2</param></function>',
     [("get_weather", '{"city": "Pa\u0120ris", "days": 2}')], "Hi", "other_spelling"),
    ("minicpm5", '<functionname="get_weather"><paramname="city">Paris</param></function>',
     [("get_weather", PARIS)], None, "other_spelling"),
    # Granite 3.1's word as text (vLLM's reading)
    ("granite", 'Sure. <tool_call> [{"name": "get_weather", "arguments": {"city": "Paris"}}]', [("get_weather", PARIS)],
     "Sure.", "other_spelling"),
    # GigaChat 3.1's header read as GigaChat 3's (vLLM's one parser reads both)
    ("gigachat3", "I'll check.<|function_call|>" + '{"name": "get_weather", "arguments": {"city": "Paris"}}',
     [("get_weather", PARIS)], "I'll check.", "other_spelling"),
    # SPEC section 4: a top-level argument written twice keeps its first value
    ("hermes", '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris", "city": "Rome"}}\n</tool_call>',
     [("get_weather", PARIS)], None, "duplicate_argument"),
    ("qwen3_coder", "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n"
                    "<parameter=city>\nRome\n</parameter>\n</function>\n</tool_call>",
     [("get_weather", PARIS)], None, "duplicate_argument"),
    ("pythonic", "[get_weather(city='Paris', city='Rome')]", [("get_weather", PARIS)], None, "duplicate_argument"),
    ("gemma4", '<|tool_call>call:get_weather{city:<|"|>Paris<|"|>,city:<|"|>Rome<|"|>}<tool_call|>',
     [("get_weather", PARIS)], None, "duplicate_argument"),
]


def _stream(fmt: str, text: str, size: int) -> dict:
    p = toolgram.StreamParser(fmt, TOOLS)
    rnd = random.Random(len(text))
    i = 0
    while i < len(text):
        k = size or rnd.randint(1, 9)
        p.feed(text[i:i + k])
        i += k
    p.finish()
    return p.message


@pytest.mark.parametrize(("fmt", "text", "calls", "content", "code"), CASES,
                         ids=[f"{c[0]}-{c[4]}-{i}" for i, c in enumerate(CASES)])
def test_lenient_spelling(fmt, text, calls, content, code):
    whole = toolgram.parse(fmt, text, TOOLS)
    got = [(c["function"]["name"], c["function"]["arguments"]) for c in whole["tool_calls"]]
    assert (got, whole["content"]) == (calls, content), whole
    assert code in [d["code"] for d in whole["diagnostics"]]
    for size in (1, 3, 0):
        assert _stream(fmt, text, size) == whole, size


@pytest.mark.parametrize("value", [
    "Paris <parameter=days>\n2",  # not at the start of a line
    "Paris\n<parameter=city>\nRome",  # the parameter being read
    "Paris\n<parameter=hours>\n2",  # not declared
])
def test_a_parameter_tag_that_cannot_be_the_next_parameter_is_value_text(value):
    text = (f"<tool_call>\n<function=get_weather>\n<parameter=city>\n{value}\n</parameter>\n</function>\n"
            "</tool_call>")
    whole = toolgram.parse("qwen3_coder", text, TOOLS)
    assert whole["tool_calls"][0]["function"]["arguments"] == json.dumps({"city": value})
    assert whole["diagnostics"] == []
    for size in (1, 3, 0):
        assert _stream("qwen3_coder", text, size) == whole, size


@pytest.mark.parametrize("value", ["a', days=2", "a'", "a,b", "it's", "", "x' , "])
def test_a_quote_that_closes_a_python_string_closes_it(value):
    """Valid Python reads as it always did: a quote followed by the call going on closes the string, whatever
    its spacing; the look-ahead is the same whole and streamed."""
    for text, want in ((f"[get_weather(city={value!r})]", {"city": value}),
                       (f"[get_weather(city={value!r} , days = 2 )]", {"city": value, "days": 2}),
                       (f"[get_weather(city={value!r},\n  days=2,\n)]", {"city": value, "days": 2})):
        whole = toolgram.parse("pythonic", text, TOOLS)
        assert json.loads(whole["tool_calls"][0]["function"]["arguments"]) == want, text
        assert whole["diagnostics"] == []
        for size in (1, 3, 0):
            assert _stream("pythonic", text, size) == whole, size


def test_a_given_parameter_is_not_read_again():
    """The tag of a parameter already given is value text: a missing closing tag is read only where the
    parameter after it has not been given yet."""
    text = ("<tool_call>\n<function=get_weather>\n<parameter=days>\n2\n</parameter>\n<parameter=city>\nParis\n"
            "<parameter=days>\n3\n</parameter>\n</function>\n</tool_call>")
    whole = toolgram.parse("qwen3_coder", text, TOOLS)
    assert json.loads(whole["tool_calls"][0]["function"]["arguments"]) == {
        "days": 2, "city": "Paris\n<parameter=days>\n3"}


def test_python_recipient_needs_the_tool():
    """Without a tool named python, a python line stays text (llama.cpp's rule is conditional)."""
    m = toolgram.parse("functionary_v3_2", "python\nprint(1)", TOOLS[:1])
    assert m["tool_calls"] == [] and m["content"] == "python\nprint(1)"


def test_canonical_spelling_keeps_no_diagnostic():
    m = toolgram.parse("hermes", '<tool_call>\n{"name": "get_weather", "arguments": ' + PARIS + '}\n</tool_call>',
                       TOOLS)
    assert m["diagnostics"] == [] and len(m["tool_calls"]) == 1


@pytest.mark.parametrize("fmt, text", [
    ("hermes", '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris", "city": "Rome"}}\n</tool_call>'),
    ("qwen3_coder", "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n"
                    "<parameter=city>\nRome\n</parameter>\n</function>\n</tool_call>"),
])
def test_duplicate_argument_strict(fmt, text):
    """Strict parsing is the grammar's language, which writes each argument once: a repeated
    argument is rejected there (content, strict_rejected), never read with its second value."""
    m = toolgram.parse(fmt, text, TOOLS, mode="strict")
    assert m["tool_calls"] == [] and [d["code"] for d in m["diagnostics"]] == ["strict_rejected"]


def test_canonical_spelling_keeps_other_spelling_in_values():
    """The first tag decides: an output in the canonical spelling keeps the other spelling's text in
    its values byte-exact (a Hy3 value holding ``<tool_call>``)."""
    text = ("<tool_calls:opensource>\n<tool_call:opensource>python<tool_sep:opensource>\n"
            "<arg_key:opensource>code</arg_key:opensource>\n<arg_value:opensource><tool_call></arg_value:opensource>\n"
            "</tool_call:opensource>\n</tool_calls:opensource>")
    whole = toolgram.parse("hy3", text, TOOLS)
    assert whole["tool_calls"][0]["function"]["arguments"] == '{"code": "<tool_call>"}'
    assert whole["diagnostics"] == []
    for size in (1, 3, 0):
        assert _stream("hy3", text, size) == whole
