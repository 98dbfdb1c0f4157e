"""Mistral v11+ tokenizers (Small 3.2, Devstral, Magistral, Ministral 3):
``[TOOL_CALLS]N[ARGS]{...}`` per call, Small 3.2 with ``[CALL_ID]ID`` after the name."""

from .spec import CallId, Fingerprint, FormatSpec, Markup, NamedJsonCall, Reasoning, Scope, Trigger

FORMAT = FormatSpec(
    id="mistral_args",
    summary="Mistral Small 3.2 / Devstral / Ministral 3 [TOOL_CALLS]N[ARGS]{...} (optionally N[CALL_ID]ID[ARGS])",
    call=NamedJsonCall(name_end="[ARGS]", call_id=CallId(open="[CALL_ID]")),
    scope=Scope(per_call=True, open="[TOOL_CALLS]", close="", canonical_join=""),
    triggers=(Trigger("word", "[TOOL_CALLS]"),),
    reasoning=Reasoning("[THINK]", "[/THINK]", trigger_ends=False),
    special_tokens=("[TOOL_CALLS]", "[ARGS]", "[CALL_ID]", "[THINK]", "[/THINK]"),
    # the end-of-turn token an engine may pass through
    markup=Markup(tokens=("</s>",)),
    detect=(Fingerprint((("[TOOL_CALLS]", "[ARGS]"),),
                "the template writes [TOOL_CALLS]NAME[ARGS]{...} calls (Mistral v11+)", priority=40),),
    instructions=(
        "To call a function, write [TOOL_CALLS], the function name, [ARGS] and the JSON arguments, "
        "once per call, exactly like this:\n"
        "{example}\n"
        "Write nothing after the last call.\n"
    ),
    order=120,
)
