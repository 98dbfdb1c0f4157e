"""GLM-4.5 / GLM-4.6 (and poolside Laguna-XS): ``<tool_call>N`` + ``<arg_key>``/``<arg_value>`` lines."""

from .spec import Fingerprint, FormatSpec, Reasoning, Scope, Trigger, XmlCall

FORMAT = FormatSpec(
    id="glm4",
    summary="GLM-4.5/4.6 <tool_call>N\\n<arg_key>K</arg_key>\\n<arg_value>V</arg_value>\\n</tool_call>",
    call=XmlCall(function_open="", name_end="\n", param_open="<arg_key>", param_name_end="</arg_key>\n<arg_value>",
                 param_end="</arg_value>\n", function_end=""),
    scope=Scope(per_call=True, open="<tool_call>", close="</tool_call>", canonical_join="\n"),
    triggers=(Trigger("word", "<tool_call>"),),
    reasoning=Reasoning("<think>", "</think>", trigger_ends=False),
    special_tokens=("<tool_call>", "</tool_call>", "<arg_key>", "</arg_key>", "<arg_value>", "</arg_value>",
                    "<think>", "</think>"),
    detect=(Fingerprint((("<arg_key>", "</arg_key>\n<arg_value>"), ('"</arg_key>\\n"', '"<arg_value>"')),
                "the template writes <tool_call>NAME with <arg_key>/<arg_value> pairs on their own lines",
                priority=55),),
    instructions=(
        "To call a function, reply with one <tool_call> block per call: the function name on the first line, "
        "then one <arg_key>/<arg_value> pair per argument, exactly like this:\n"
        "{example}\n"
        "String values are written raw; numbers, booleans, null, objects and arrays as JSON. Write "
        "nothing after the last block.\n"
    ),
    order=40,
)
