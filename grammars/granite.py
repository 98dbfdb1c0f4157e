"""IBM Granite 3.x: ``<|tool_call|>`` then a JSON list of calls (no closing marker); the lenient parser also
reads Granite 3.1's ``<tool_call>`` there."""

from .spec import Fingerprint, FormatSpec, JsonCall, Markup, Reasoning, Scope, Trigger, Wrapper

FORMAT = FormatSpec(
    id="granite",
    summary='Granite 3.x <|tool_call|>[{"name": N, "arguments": {...}}, ...]',
    call=JsonCall(args_key="arguments"),
    scope=Scope(per_call=False, open="[", close="]", separator=",", canonical_join=", ",
                section=Wrapper("<|tool_call|>")),
    triggers=(Trigger("word", "<|tool_call|>"),),
    reasoning=Reasoning("<think>", "</think>", trigger_ends=False),
    special_tokens=("<|tool_call|>",),
    # Granite 3.1 writes the word as text (vLLM's parser reads both)
    read_spellings=(("<tool_call>", "<|tool_call|>"),),
    # the end-of-turn token an engine may pass through
    markup=Markup(tokens=("<|end_of_text|>",)),
    detect=(Fingerprint((("<|tool_call|>", "<|start_of_role|>"),),
                "Granite role tokens and a system text asking for <|tool_call|> followed by a JSON list",
                priority=30),),
    instructions=(
        "To call functions, reply with <|tool_call|> followed by a JSON list of calls, exactly like this:\n"
        "{example}\n"
        "Write nothing after the list.\n"
    ),
    order=111,
)
