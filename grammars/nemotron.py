"""NVIDIA Nemotron Nano v2: a JSON list of calls inside ``<TOOLCALL>``...``</TOOLCALL>``."""

from .spec import Fingerprint, FormatSpec, JsonCall, Markup, Reasoning, Scope, Trigger, Wrapper

FORMAT = FormatSpec(
    id="nemotron",
    summary='Nemotron Nano v2 <TOOLCALL>[{"name": N, "arguments": {...}}, ...]</TOOLCALL>',
    call=JsonCall(args_key="arguments"),
    scope=Scope(per_call=False, open="[", close="]", separator=",", canonical_join=", ",
                section=Wrapper("<TOOLCALL>", "</TOOLCALL>")),
    triggers=(Trigger("word", "<TOOLCALL>"),),
    reasoning=Reasoning("<think>", "</think>", trigger_ends=False),
    special_tokens=("<TOOLCALL>", "</TOOLCALL>", "<think>", "</think>"),
    # the end-of-turn token an engine may pass through
    markup=Markup(tokens=("<SPECIAL_12>",)),
    detect=(Fingerprint((("<TOOLCALL>",),), "the template writes a JSON list of calls inside <TOOLCALL>",
                        priority=30),),
    instructions=(
        "To call functions, reply with one <TOOLCALL> block holding a JSON list of calls, exactly like this:\n"
        "{example}\n"
        "Write nothing after the block.\n"
    ),
    order=110,
)
