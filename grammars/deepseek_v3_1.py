"""DeepSeek V3.1: one ``<｜tool▁calls▁begin｜>`` section of
``<｜tool▁call▁begin｜>N<｜tool▁sep｜>{json}<｜tool▁call▁end｜>`` blocks."""

from .spec import Fingerprint, FormatSpec, Markup, NamedJsonCall, Reasoning, Scope, Trigger, Wrapper

FORMAT = FormatSpec(
    id="deepseek_v3_1",
    summary="DeepSeek V3.1 <｜tool▁calls▁begin｜><｜tool▁call▁begin｜>N<｜tool▁sep｜>{...}<｜tool▁call▁end｜>...",
    call=NamedJsonCall(name_end="<｜tool▁sep｜>"),
    scope=Scope(per_call=True, open="<｜tool▁call▁begin｜>", close="<｜tool▁call▁end｜>", canonical_join="",
                section=Wrapper("<｜tool▁calls▁begin｜>", "<｜tool▁calls▁end｜>")),
    triggers=(Trigger("word", "<｜tool▁calls▁begin｜>"),),
    reasoning=Reasoning("<think>", "</think>", trigger_ends=False),
    special_tokens=("<｜tool▁calls▁begin｜>", "<｜tool▁calls▁end｜>", "<｜tool▁call▁begin｜>", "<｜tool▁call▁end｜>",
                    "<｜tool▁sep｜>", "<think>", "</think>"),
    # the end-of-turn token an engine may pass through
    markup=Markup(tokens=("<｜end▁of▁sentence｜>",)),
    detect=(Fingerprint((("<｜tool▁calls▁begin｜>", "<｜tool▁sep｜>"),),
                "DeepSeek tool-call tokens with the name before <｜tool▁sep｜> (V3.1)", priority=30),),
    instructions=(
        "To call functions, reply with one <｜tool▁calls▁begin｜> section holding one block per call "
        "(the function name, <｜tool▁sep｜>, then the JSON arguments), exactly like this:\n"
        "{example}\n"
        "Write nothing after the section.\n"
    ),
    order=100,
)
