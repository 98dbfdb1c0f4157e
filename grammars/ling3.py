"""Ling 3 (inclusionAI): GLM's tags, ``<tool_call>N\\n<arg_key>K</arg_key>\\n<arg_value>V</arg_value>...``.

GLM-4.6's tags in another layout: a newline inside each pair (between ``</arg_key>`` and
``<arg_value>``), none between pairs, and one before ``</tool_call>`` (so a call without arguments
is ``<tool_call>N\\n\\n</tool_call>``). Calls are joined by ``\\n``. The generation prompt opens the
reasoning block (``<role>ASSISTANT</role>\\n<think>``) unless thinking is off.
"""

from .spec import Fingerprint, FormatSpec, Reasoning, Scope, Trigger, XmlCall

FORMAT = FormatSpec(
    id="ling3",
    summary="Ling 3 <tool_call>N\\n<arg_key>K</arg_key>\\n<arg_value>V</arg_value>\\n</tool_call>",
    call=XmlCall(function_open="", name_end="\n", param_open="<arg_key>", param_name_end="</arg_key>\n<arg_value>",
                 param_end="</arg_value>", function_end="\n"),
    scope=Scope(per_call=True, open="<tool_call>", close="</tool_call>", canonical_join="\n"),
    triggers=(Trigger("word", "<tool_call>"),),
    reasoning=Reasoning("<think>", "</think>", trigger_ends=False),
    special_tokens=("<tool_call>", "</tool_call>", "<arg_key>", "</arg_key>", "<arg_value>", "</arg_value>",
                    "<think>", "</think>"),
    detect=(Fingerprint((("'\\n<arg_value>'", "'</arg_value>'", "'\\n</tool_call>'"),),
                "the template writes <tool_call>NAME with <arg_key>K</arg_key>\\n<arg_value>V</arg_value> pairs "
                "and a newline before </tool_call>", priority=57),),
    instructions=(
        "To call a function, reply with one <tool_call> block per call: the function name on the first line, "
        "then one <arg_key>/<arg_value> pair per argument, exactly like this:\n"
        "{example}\n"
        "String values are written raw; numbers, booleans, null, objects and arrays as JSON. Write "
        "nothing after the last block.\n"
    ),
    order=42,
)
