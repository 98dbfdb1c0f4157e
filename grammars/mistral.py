"""Mistral 7B v0.3 / Nemo / Large 2407 (pre-v11 tokenizers): ``[TOOL_CALLS]`` then a JSON list of
calls, each with a 9-character alphanumeric ``"id"`` after its arguments."""

from .spec import Fingerprint, FormatSpec, JsonCall, Markup, Scope, Trigger, Wrapper

FORMAT = FormatSpec(
    id="mistral",
    summary='Mistral v3 / Nemo [TOOL_CALLS][{"name": N, "arguments": {...}, "id": "<9 alnum>"}, ...]',
    # the template always writes the id (and requires 9 alphanumerics); the model writes it
    call=JsonCall(args_key="arguments", id_key="id", id_pattern=r"^[A-Za-z0-9]{9}$", id_required=True,
                  id_prefix="call", id_digits=5),
    # Nemo (tekken) writes "[TOOL_CALLS][", v3 "[TOOL_CALLS] [": whitespace before the list is free
    scope=Scope(per_call=False, open="[", close="]", separator=",", canonical_join=", ",
                section=Wrapper("[TOOL_CALLS]")),
    triggers=(Trigger("word", "[TOOL_CALLS]"),),
    special_tokens=("[TOOL_CALLS]",),
    # the end-of-turn token an engine may pass through
    markup=Markup(tokens=("</s>",)),
    detect=(Fingerprint((("[TOOL_CALLS]",),), "the template writes [TOOL_CALLS] and a JSON list of calls",
                priority=30, unless=("[ARGS]",)),),
    instructions=(
        "To call functions, reply with [TOOL_CALLS] and a JSON list of calls, each with a 9-character "
        "alphanumeric id, exactly like this:\n"
        "{example}\n"
        "Write nothing after the list.\n"
    ),
    order=113,
)
