"""DeepSeek R1 (and its Distill templates): fenced JSON in
``<｜tool▁call▁begin｜>function<｜tool▁sep｜>N\\n```json\\n{...}\\n```<｜tool▁call▁end｜>`` blocks
inside ``<｜tool▁calls▁begin｜>``...``<｜tool▁calls▁end｜>``.

The section close is optional: the R1-Distill-Llama template writes none after a single call.
The closing fence may follow the JSON directly (llama.cpp's tests) or after a newline (templates).
"""

from .spec import Fingerprint, FormatSpec, Markup, NamedJsonCall, Reasoning, Scope, Trigger, Wrapper

FORMAT = FormatSpec(
    id="deepseek_r1",
    summary="DeepSeek R1 <｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>N\\n```json\\n{...}\\n```"
            "<｜tool▁call▁end｜>...",
    call=NamedJsonCall(head="function<｜tool▁sep｜>", name_end="\n```json\n", end="\n```"),
    scope=Scope(per_call=True, open="<｜tool▁call▁begin｜>", close="<｜tool▁call▁end｜>", canonical_join="\n",
                section=Wrapper("<｜tool▁calls▁begin｜>", "<｜tool▁calls▁end｜>", close_optional=True)),
    triggers=(Trigger("word", "<｜tool▁calls▁begin｜>"),),
    reasoning=Reasoning("<think>", "</think>", trigger_ends=False),
    special_tokens=("<｜tool▁calls▁begin｜>", "<｜tool▁calls▁end｜>", "<｜tool▁call▁begin｜>", "<｜tool▁call▁end｜>",
                    "<｜tool▁sep｜>", "<think>", "</think>"),
    # the end-of-turn token an engine may pass through
    markup=Markup(tokens=("<｜end▁of▁sentence｜>",)),
    detect=(Fingerprint((("<｜tool▁calls▁begin｜>", "<｜tool▁sep｜>", "```json"),),
                "DeepSeek tool-call tokens with a ```json fence after the name (R1)", priority=35),),
    instructions=(
        "To call functions, reply with one <｜tool▁calls▁begin｜> section holding one block per call "
        "(function<｜tool▁sep｜>, the function name, then the JSON arguments in a ```json fence), "
        "exactly like this:\n"
        "{example}\n"
        "Write nothing after the section.\n"
    ),
    order=101,
)
