"""Kimi-K2: ``<|tool_call_begin|>functions.N:IDX<|tool_call_argument_begin|>{...}<|tool_call_end|>``
blocks inside ``<|tool_calls_section_begin|>``...``<|tool_calls_section_end|>``.

IDX is a call counter (per message or per conversation, depending on the template): the renderer
writes the call's position in the turn, parsers accept any number; parsed ids are ``call_N``, or with
``parse(..., call_ids="model")`` the head as written (``functions.N:IDX``), which the template renders back.
"""

from .spec import Fingerprint, FormatSpec, Markup, NamedJsonCall, Reasoning, Scope, Trigger, Wrapper

FORMAT = FormatSpec(
    id="kimi_k2",
    summary="Kimi-K2 <|tool_calls_section_begin|><|tool_call_begin|>functions.N:0<|tool_call_argument_begin|>{...}"
            "<|tool_call_end|>...",
    call=NamedJsonCall(head="functions.", name_end=":", counter="<|tool_call_argument_begin|>"),
    scope=Scope(per_call=True, open="<|tool_call_begin|>", close="<|tool_call_end|>", canonical_join="",
                section=Wrapper("<|tool_calls_section_begin|>", "<|tool_calls_section_end|>")),
    triggers=(Trigger("word", "<|tool_calls_section_begin|>"),),
    reasoning=Reasoning("<think>", "</think>", trigger_ends=True),
    special_tokens=("<|tool_calls_section_begin|>", "<|tool_calls_section_end|>", "<|tool_call_begin|>",
                    "<|tool_call_argument_begin|>", "<|tool_call_end|>", "<think>", "</think>"),
    # the end-of-turn token an engine may pass through
    markup=Markup(tokens=("<|im_end|>",)),
    detect=(Fingerprint((("<|tool_calls_section_begin|>", "<|tool_call_begin|>"),),
                "Kimi-K2 tool-call section tokens", priority=30),),
    instructions=(
        "To call functions, reply with one <|tool_calls_section_begin|> section holding one block per call "
        "(functions.NAME:INDEX, <|tool_call_argument_begin|>, then the JSON arguments), exactly like this:\n"
        "{example}\n"
        "Write nothing after the section.\n"
    ),
    order=105,
)
