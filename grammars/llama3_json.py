"""Llama 3.x JSON tool calls: ``{"name": N, "parameters": {...}}``, optionally after ``<|python_tag|>``."""

from .spec import Fingerprint, FormatSpec, JsonCall, Markup, Scope, Trigger, Wrapper

FORMAT = FormatSpec(
    id="llama3_json",
    summary='Llama 3 {"name": N, "parameters": {...}}, calls joined by "; "',
    call=JsonCall(args_key="parameters"),
    scope=Scope(
        per_call=False,
        open="",
        close="",
        separator=";",
        canonical_join="; ",
        wrappers=(Wrapper("<|python_tag|>"),),
        anchored=True,
    ),
    triggers=(Trigger("word", "<|python_tag|>"), Trigger("pattern_full", r'^\s*(\{\s*"name"\s*:[\s\S]*)')),
    parallel_default=False,
    special_tokens=("<|python_tag|>",),
    # Functionary v3.1 is a Llama 3.1 template too (<|python_tag|>, ipython) but writes <function=NAME>{...}.
    # the end-of-turn tokens an engine may pass through
    markup=Markup(tokens=("<|eot_id|>", "<|eom_id|>")),
    detect=(Fingerprint((("<|python_tag|>",), ('"parameters"', "ipython")),
                'Llama 3 ipython role with {"name": ..., "parameters": ...} JSON calls', priority=10,
                unless=("<function=",)),),
    instructions=(
        'To call a function, reply with only a JSON object with the function name and its parameters, '
        'exactly like this:\n'
        '{example}\n'
        'Separate several calls with "; ". Write nothing after the last call.\n'
    ),
    order=40,
)
