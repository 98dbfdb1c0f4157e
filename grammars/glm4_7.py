"""GLM-4.7 (Spark2.5, poolside Laguna-S): ``<tool_call>N<arg_key>K</arg_key><arg_value>V</arg_value></tool_call>``."""

from .spec import Fingerprint, FormatSpec, Reasoning, Scope, Trigger, XmlCall

FORMAT = FormatSpec(
    id="glm4_7",
    summary="GLM-4.7 <tool_call>N<arg_key>K</arg_key><arg_value>V</arg_value></tool_call> (no newlines)",
    call=XmlCall(function_open="", name_end="", param_open="<arg_key>", param_name_end="</arg_key><arg_value>",
                 param_end="</arg_value>", function_end=""),
    scope=Scope(per_call=True, open="<tool_call>", close="</tool_call>", canonical_join=""),
    triggers=(Trigger("word", "<tool_call>"),),
    reasoning=Reasoning("<think>", "</think>", trigger_ends=False),
    special_tokens=("<tool_call>", "</tool_call>", "<arg_key>", "</arg_key>", "<arg_value>", "</arg_value>",
                    "<think>", "</think>"),
    detect=(Fingerprint((("</arg_key><arg_value>",), ('"</arg_key>" -}}', '"<arg_value>" -}}')),
                "the template writes <tool_call>NAME<arg_key>K</arg_key><arg_value>V</arg_value> without newlines",
                priority=56),),
    instructions=(
        "To call a function, reply with one <tool_call> block per call: the function name, then one "
        "<arg_key>/<arg_value> pair per argument, with no newlines between the tags, exactly like this:\n"
        "{example}\n"
        "String values are written raw; numbers, booleans, null, objects and arrays as JSON. Write "
        "nothing after the last block.\n"
    ),
    order=41,
)
