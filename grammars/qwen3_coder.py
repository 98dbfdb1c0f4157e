"""Qwen3-Coder / Qwen3.5: ``<tool_call>`` blocks with XML parameters, each value on its own lines."""

from .spec import FormatSpec, Reasoning, Scope, Trigger, XmlCall

FORMAT = FormatSpec(
    id="qwen3_coder",
    summary="Qwen3-Coder XML <tool_call><function=N><parameter=K>\\nV\\n</parameter></function></tool_call>",
    call=XmlCall(param_name_end=">\n", param_end="\n</parameter>\n"),
    scope=Scope(per_call=True, open="<tool_call>\n", close="</tool_call>", canonical_join="\n"),
    triggers=(Trigger("word", "<tool_call>"),),
    reasoning=Reasoning("<think>", "</think>", trigger_ends=True),
    special_tokens=("<tool_call>", "</tool_call>", "<think>", "</think>"),
)
