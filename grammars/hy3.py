"""Tencent Hy3: GLM's argument tags, namespaced, in a section of blocks.

``<tool_calls:opensource>\\n<tool_call:opensource>N<tool_sep:opensource>\\n``
``<arg_key:opensource>K</arg_key:opensource>\\n<arg_value:opensource>V</arg_value:opensource>\\n``
... ``</tool_call:opensource>\\n</tool_calls:opensource>``: one section per turn, right after the
content, one block per call. Strings raw, other types JSON (typed by the schema: no type on the wire).
"""

from .spec import Fingerprint, FormatSpec, Markup, Reasoning, Scope, Trigger, Wrapper, XmlCall

SPECIAL = ("<tool_calls:opensource>", "</tool_calls:opensource>", "<tool_call:opensource>",
           "</tool_call:opensource>", "<tool_sep:opensource>", "<arg_key:opensource>",
           "</arg_key:opensource>", "<arg_value:opensource>", "</arg_value:opensource>",
           "<think:opensource>", "</think:opensource>")

FORMAT = FormatSpec(
    id="hy3",
    summary="Tencent Hy3 <tool_calls:opensource>\\n<tool_call:opensource>N<tool_sep:opensource>\\n"
            "<arg_key:opensource>K</arg_key:opensource>\\n<arg_value:opensource>V</arg_value:opensource>...",
    call=XmlCall(function_open="", name_end="<tool_sep:opensource>\n", param_open="<arg_key:opensource>",
                 param_name_end="</arg_key:opensource>\n<arg_value:opensource>",
                 param_end="</arg_value:opensource>\n", function_end=""),
    scope=Scope(per_call=True, open="<tool_call:opensource>", close="</tool_call:opensource>\n", canonical_join="",
                section=Wrapper("<tool_calls:opensource>\n", "</tool_calls:opensource>")),
    triggers=(Trigger("word", "<tool_calls:opensource>"),),
    reasoning=Reasoning("<think:opensource>", "</think:opensource>", trigger_ends=False),
    special_tokens=SPECIAL,
    # vLLM's parser reads the same layout without the suffixes: read both spellings
    read_spellings=tuple((t.replace(":opensource", ""), t) for t in SPECIAL if "tool" in t or "arg_" in t),
    # the end-of-turn token an engine may pass through
    markup=Markup(tokens=("<｜hy_eos:opensource｜>",)),
    detect=(Fingerprint((("<tool_calls{}>", "<tool_sep{}>", "<arg_key{}>"),
                         ("<tool_calls:opensource>", "<tool_sep:opensource>", "<arg_key:opensource>")),
                "the template writes namespaced <tool_calls:opensource> sections of <tool_call:opensource> "
                "blocks with <arg_key>/<arg_value> pairs", priority=60),),
    instructions=(
        "To call functions, reply with one <tool_calls:opensource> section holding one <tool_call:opensource> "
        "block per call: the function name and <tool_sep:opensource>, then one <arg_key:opensource>/"
        "<arg_value:opensource> pair per argument, exactly like this:\n"
        "{example}\n"
        "String values are written raw; numbers, booleans, null, objects and arrays as JSON. Write "
        "nothing after the section.\n"
    ),
    order=43,
)
