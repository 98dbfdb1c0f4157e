"""Liquid LFM2 / LFM2.5: a Python list of calls inside ``<|tool_call_start|>``...``<|tool_call_end|>``."""

from .spec import Fingerprint, FormatSpec, Markup, PythonCall, Reasoning, Scope, Trigger, Wrapper

FORMAT = FormatSpec(
    id="lfm2",
    summary="LFM2 <|tool_call_start|>[f(a=1), g(b='x')]<|tool_call_end|>",
    call=PythonCall(),
    scope=Scope(per_call=False, open="[", close="]", separator=",", canonical_join=", ",
                section=Wrapper("<|tool_call_start|>", "<|tool_call_end|>")),
    triggers=(Trigger("word", "<|tool_call_start|>"),),
    reasoning=Reasoning("<think>", "</think>", trigger_ends=False),
    special_tokens=("<|tool_call_start|>", "<|tool_call_end|>", "<think>", "</think>"),
    # the end-of-turn token an engine may pass through
    markup=Markup(tokens=("<|im_end|>",)),
    detect=(Fingerprint((("<|tool_call_start|>",), ("<|tool_list_start|>",), ("<|im_start|>", "List of tools: [")),
                "LFM2 tool tokens (<|tool_call_start|>, <|tool_list_start|>) or LFM2.5's 'List of tools: ['",
                priority=30),),
    instructions=(
        "To call functions, reply with <|tool_call_start|>, a Python list of calls with keyword "
        "arguments, and <|tool_call_end|>, exactly like this:\n"
        "{example}\n"
        "Write nothing after the list.\n"
    ),
    order=116,
)
