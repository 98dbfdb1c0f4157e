"""Upstage Solar-Open: ``<|tool_calls|>`` then one
``<|tool_call:begin|>ID<|tool_call:name|>N<|tool_call:args|>{...}<|tool_call:end|>`` block per call.

The call id stands before the name (required; the renderer writes ``call00001``...). The turn ends
with ``<|calls|>`` (the end-of-turn token, not part of the section). Reasoning is a separate
``<|think|>`` message and text replies start with ``<|content|>``: neither is modelled here.
"""

from .spec import CallId, Fingerprint, FormatSpec, Markup, NamedJsonCall, Scope, Trigger, Wrapper

FORMAT = FormatSpec(
    id="solar_open",
    summary="Solar-Open <|tool_calls|><|tool_call:begin|>ID<|tool_call:name|>N<|tool_call:args|>{...}"
            "<|tool_call:end|>...",
    call=NamedJsonCall(name_end="<|tool_call:args|>",
                       call_id=CallId(close="<|tool_call:name|>", before_name=True, optional=False)),
    scope=Scope(per_call=True, open="<|tool_call:begin|>", close="<|tool_call:end|>", canonical_join="",
                section=Wrapper("<|tool_calls|>")),
    triggers=(Trigger("word", "<|tool_calls|>"),),
    special_tokens=("<|tool_calls|>", "<|tool_call:begin|>", "<|tool_call:name|>", "<|tool_call:args|>",
                    "<|tool_call:end|>", "<|calls|>"),
    # a text message's framing (<|content|>...<|end|>, the next <|begin|>assistant) and the turn's end token
    markup=Markup(tokens=("<|end|><|begin|>assistant", "<|begin|>assistant", "<|content|>", "<|end|>", "<|calls|>")),
    detect=(Fingerprint((("<|tool_call:begin|>", "<|tool_call:name|>"),),
                "Solar-Open tool-call tokens with the id before the name", priority=30),),
    instructions=(
        "To call functions, reply with <|tool_calls|> and then one block per call (a call id, "
        "<|tool_call:name|>, the function name, <|tool_call:args|>, then the JSON arguments), exactly like this:\n"
        "{example}\n"
        "Write nothing after the last block.\n"
    ),
    order=140,
)
