"""MiniMax-M1: JSON call objects one per line inside ``<tool_calls>``...``</tool_calls>``.

A list without brackets: the section holds the calls, a newline between them.
"""

from .spec import Fingerprint, FormatSpec, JsonCall, Markup, Scope, Trigger, Wrapper

FORMAT = FormatSpec(
    id="minimax_m1",
    summary='MiniMax-M1 <tool_calls>\\n{"name": N, "arguments": {...}}\\n...\\n</tool_calls>',
    call=JsonCall(args_key="arguments"),
    scope=Scope(per_call=False, open="", close="", separator="\n", canonical_join="\n",
                section=Wrapper("<tool_calls>\n", "\n</tool_calls>")),
    triggers=(Trigger("word", "<tool_calls>"),),
    special_tokens=(),
    # the jinja source spells the newline as an escape: '<tool_calls>\n'
    # the end-of-turn token an engine may pass through
    markup=Markup(tokens=("<end_of_sentence>",)),
    detect=(Fingerprint((("<tool_calls>\\n", '"arguments"'),),
                "the template writes JSON call objects one per line inside <tool_calls>...</tool_calls>",
                priority=30, unless=("<tool_calls>[",)),),
    instructions=(
        "To call functions, reply with one <tool_calls> block holding one JSON object per line, "
        "exactly like this:\n"
        "{example}\n"
        "Write nothing after the block.\n"
    ),
    order=132,
)
