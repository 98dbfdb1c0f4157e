"""Qwen3-Coder / Qwen3.5: ``<tool_call>`` blocks with XML parameters, each value on its own lines."""

from .spec import Fingerprint, FormatSpec, Markup, Reasoning, Scope, Trigger, XmlCall

FORMAT = FormatSpec(
    id="qwen3_coder",
    summary="Qwen3-Coder XML <tool_call><function=N><parameter=K>\\nV\\n</parameter></function></tool_call>",
    call=XmlCall(param_name_end=">\n", param_end="\n</parameter>\n"),
    scope=Scope(per_call=True, open="<tool_call>\n", close="</tool_call>", canonical_join="\n"),
    triggers=(Trigger("word", "<tool_call>"),),
    reasoning=Reasoning("<think>", "</think>", trigger_ends=True),
    special_tokens=("<tool_call>", "</tool_call>", "<think>", "</think>"),
    # the end-of-turn token an engine may pass through
    markup=Markup(tokens=("<|im_end|>",)),
    detect=(Fingerprint((("<tool_call>", "<function="),),
                "the template writes <tool_call> blocks holding <function=...><parameter=...> XML", priority=50),),
    instructions=(
        'To call a function, reply with one block per call, exactly like this:\n'
        '{example}\n'
        'String values are written raw; numbers, booleans, null, objects and arrays as JSON. Write '
        'nothing after the last block.\n'
    ),
    order=20,
)
