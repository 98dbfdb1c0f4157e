"""MiniMax-M3: ``]<]minimax[>[<invoke name="N">`` blocks of arguments expanded into nested elements.

Every tag is led by the namespace token ``]<]minimax[>[`` (NS): the section
``NS<tool_call>\\n`` ... ``NS</tool_call>``, one ``NS<invoke name="N">`` ... ``NS</invoke>\\n`` per
call, and one element per argument named by its key, ``NS<city>Paris NS</city>``. Objects and
arrays are expanded into elements too (``NS<item>`` per array item; see
:mod:`.syntax.xml_elements`): strings are raw, numbers and booleans JSON text, and the schema tells
a value's type. The template leaves out a member whose value is null; toolgram writes ``null``.
Reasoning is ``<mm:think>``...``</mm:think>``; a turn without reasoning starts with ``</mm:think>``.
"""

from .spec import ElementCall, Fingerprint, FormatSpec, Reasoning, Scope, Trigger, Wrapper

NS = "]<]minimax[>["

FORMAT = FormatSpec(
    id="minimax_m3",
    summary='MiniMax-M3 ]<]minimax[>[<tool_call>\\n]<]minimax[>[<invoke name="N">]<]minimax[>[<K>V'
            ']<]minimax[>[</K>...]<]minimax[>[</invoke>\\n...]<]minimax[>[</tool_call>',
    call=ElementCall(ns=NS, name_end='">'),
    scope=Scope(per_call=True, open=NS + '<invoke name="', close=NS + "</invoke>\n", canonical_join="",
                section=Wrapper(NS + "<tool_call>\n", NS + "</tool_call>")),
    triggers=(Trigger("word", NS + "<tool_call>"),),
    reasoning=Reasoning("<mm:think>", "</mm:think>", trigger_ends=False),
    special_tokens=(NS, "<mm:think>", "</mm:think>"),
    detect=(Fingerprint((("]<]minimax[>[", "<tool_call>", '<invoke name="'),),
                "the template writes ]<]minimax[>[-led <tool_call> sections of <invoke> blocks with element "
                "arguments (MiniMax-M3)", priority=65),),
    instructions=(
        "To call functions, reply with one " + NS + "<tool_call> section holding one <invoke> block per call "
        "and one element per argument, named by its key, exactly like this:\n"
        "{example}\n"
        "String values are written raw; numbers and booleans as JSON; objects and arrays as nested elements "
        "(<item> for each array item). Write nothing after the section.\n"
    ),
    order=143,
)
