"""Hermes 2 Pro / 3, Qwen2.5, Qwen3: one JSON object per ``<tool_call>`` block."""

from .spec import FormatSpec, JsonCall, Reasoning, Scope, Trigger

FORMAT = FormatSpec(
    id="hermes",
    summary='Hermes <tool_call>\\n{"name": N, "arguments": {...}}\\n</tool_call>',
    call=JsonCall(args_key="arguments"),
    scope=Scope(per_call=True, open="<tool_call>\n", close="\n</tool_call>", canonical_join="\n"),
    triggers=(Trigger("word", "<tool_call>"),),
    reasoning=Reasoning("<think>", "</think>", trigger_ends=True),
    special_tokens=("<tool_call>", "</tool_call>", "<think>", "</think>"),
)
