"""Swiss AI Apertus: ``<|tools_prefix|>[{"N": {...}}, ...]<|tools_suffix|>`` (the name is the key)."""

from .spec import Fingerprint, FormatSpec, JsonCall, Reasoning, Scope, Trigger, Wrapper

FORMAT = FormatSpec(
    id="apertus",
    summary='Apertus <|tools_prefix|>[{N: {...}}, ...]<|tools_suffix|>',
    call=JsonCall(name_as_key=True),
    scope=Scope(per_call=False, open="[", close="]", separator=",", canonical_join=", ",
                section=Wrapper("<|tools_prefix|>", "<|tools_suffix|>")),
    triggers=(Trigger("word", "<|tools_prefix|>"),),
    reasoning=Reasoning("<|inner_prefix|>", "<|inner_suffix|>", trigger_ends=False),
    special_tokens=("<|tools_prefix|>", "<|tools_suffix|>", "<|inner_prefix|>", "<|inner_suffix|>"),
    detect=(Fingerprint((("<|tools_prefix|>",),),
                "the template writes a JSON list of {name: arguments} objects inside <|tools_prefix|>",
                priority=30),),
    instructions=(
        "To call functions, reply with <|tools_prefix|>, a JSON list of objects each mapping a function "
        "name to its arguments, and <|tools_suffix|>, exactly like this:\n"
        "{example}\n"
        "Write nothing after the list.\n"
    ),
    order=115,
)
