"""Functionary v3.1 (Llama 3.1 based): ``<function=N>{...}</function>`` per call."""

from .spec import Fingerprint, FormatSpec, Markup, NamedJsonCall, Scope, Trigger

FORMAT = FormatSpec(
    id="functionary_v3_1",
    summary="Functionary v3.1 <function=N>{...}</function>",
    call=NamedJsonCall(name_end=">"),
    scope=Scope(per_call=True, open="<function=", close="</function>", canonical_join=""),
    triggers=(Trigger("word", "<function="),),
    special_tokens=(),
    # the end-of-turn tokens an engine may pass through
    markup=Markup(tokens=("<|eom_id|>", "<|eot_id|>")),
    detect=(Fingerprint((("<function=", "</function>", "<|start_header_id|>"),),
                "Llama 3 headers with <function=NAME>{json}</function> calls (Functionary v3.1)", priority=40),),
    instructions=(
        "To call a function, reply with one <function=NAME> block per call holding the JSON arguments, "
        "exactly like this:\n"
        "{example}\n"
        "Write nothing after the last block.\n"
    ),
    order=130,
)
