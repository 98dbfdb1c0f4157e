"""ServiceNow Apriel 1.5 / 1.6: a JSON list of calls inside ``<tool_calls>``...``</tool_calls>``;
history calls carry an ``"id"`` after the arguments."""

from .spec import Fingerprint, FormatSpec, JsonCall, Markup, Reasoning, Scope, Trigger, Wrapper

FORMAT = FormatSpec(
    id="apriel",
    summary='Apriel <tool_calls>[{"name": N, "arguments": {...}, "id": ID}, ...]</tool_calls> (id optional)',
    # the template writes no id for the last message (what the model continues), ids in history
    call=JsonCall(args_key="arguments", id_key="id"),
    scope=Scope(per_call=False, open="[", close="]", separator=",", canonical_join=", ",
                section=Wrapper("<tool_calls>", "</tool_calls>")),
    triggers=(Trigger("word", "<tool_calls>"),),
    # Apriel 1.6's generation prompt opens the reasoning with this line (reasoning="forced");
    # the reasoning ends at [BEGIN FINAL RESPONSE]
    reasoning=Reasoning("Here are my reasoning steps:\n", "[BEGIN FINAL RESPONSE]", trigger_ends=False),
    special_tokens=(),
    # the end-of-turn tokens an engine may pass through
    markup=Markup(tokens=("<|end|>", "</s>")),
    detect=(Fingerprint((("<tool_calls>[",),),
                'the template writes a JSON list of calls inside <tool_calls>...</tool_calls>', priority=30),),
    instructions=(
        "To call functions, reply with one <tool_calls> block holding a JSON list of calls, exactly like this:\n"
        "{example}\n"
        "Write nothing after the block.\n"
    ),
    order=112,
)
