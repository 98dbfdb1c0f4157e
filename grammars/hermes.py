"""Hermes 2 Pro / 3, Qwen2.5, Qwen3: one JSON object per ``<tool_call>`` block."""

from .spec import Fingerprint, FormatSpec, JsonCall, Markup, Reasoning, Scope, Trigger

FORMAT = FormatSpec(
    id="hermes",
    summary='Hermes <tool_call>\\n{"name": N, "arguments": {...}}\\n</tool_call>',
    call=JsonCall(args_key="arguments"),
    scope=Scope(per_call=True, open="<tool_call>\n", close="\n</tool_call>", canonical_join="\n"),
    triggers=(Trigger("word", "<tool_call>"),),
    reasoning=Reasoning("<think>", "</think>", trigger_ends=True),
    special_tokens=("<tool_call>", "</tool_call>", "<think>", "</think>"),
    # <tool_call> alone is not enough: GLM, Ling, Laguna, Spark and MiniMax-M3 write <tool_call>NAME (no JSON
    # "arguments"); Apriel 1.5 names <tool_call> in prose but writes <tool_calls>[...] lists.
    # the end-of-turn tokens an engine may pass through
    markup=Markup(tokens=("<|im_end|>", "<|end_of_text|>")),
    detect=(Fingerprint((("<tool_call>", '"arguments"'),),
                'the template writes <tool_call> blocks holding {"name": ..., "arguments": ...} JSON', priority=20,
                unless=("<tool_calls>[", "<arg_key>")),),
    instructions=(
        'To call a function, reply with one <tool_call> block per call, each holding a JSON object with '
        'the function name and its arguments, exactly like this:\n'
        '{example}\n'
        'Write nothing after the last block.\n'
    ),
    order=30,
)
