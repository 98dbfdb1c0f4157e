"""Fireworks FireFunction v2: `` functools`` then a JSON list of calls (no closing marker)."""

from .spec import Fingerprint, FormatSpec, JsonCall, Markup, Scope, Trigger, Wrapper

FORMAT = FormatSpec(
    id="firefunction_v2",
    summary='FireFunction v2 functools[{"name": N, "arguments": {...}}, ...]',
    call=JsonCall(args_key="arguments"),
    # the template writes " functools[": the space is free text before the section
    scope=Scope(per_call=False, open="[", close="]", separator=",", canonical_join=", ",
                section=Wrapper("functools")),
    triggers=(Trigger("word", "functools"),),
    # the end-of-turn token an engine may pass through
    markup=Markup(tokens=("<|eot_id|>",)),
    detect=(Fingerprint((("functools[",),), "the template writes functools[...] JSON call lists", priority=30),),
    instructions=(
        "To call functions, reply with functools followed by a JSON list of calls, exactly like this:\n"
        "{example}\n"
        "Write nothing after the list.\n"
    ),
    order=117,
)
