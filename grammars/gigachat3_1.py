"""GigaChat 3.1 (Sber): ``<|function_call|>{"name": N, "arguments": {...}}`` after the content.

The template renders only the first call of a message, so parallel calls are off by default.
"""

from .spec import Fingerprint, FormatSpec, JsonCall, Markup, Scope, Trigger

FORMAT = FormatSpec(
    id="gigachat3_1",
    summary='GigaChat 3.1 <|function_call|>{"name": N, "arguments": {...}}',
    call=JsonCall(args_key="arguments"),
    scope=Scope(per_call=True, open="<|function_call|>", close="", canonical_join=""),
    triggers=(Trigger("word", "<|function_call|>"),),
    parallel_default=False,
    special_tokens=("<|function_call|>", "<|message_sep|>", "<|role_sep|>"),
    # a message header (<|message_sep|>...ROLE<|role_sep|>: an unknown function call's header too, its body
    # then stays content) and the end-of-message and end-of-sequence tokens an engine may pass through
    markup=Markup(tokens=("<|message_sep|>", "<|role_sep|>", "</s>"), headers=(("<|message_sep|>", "<|role_sep|>"),)),
    detect=(Fingerprint((("<|function_call|>", "<|message_sep|>"),),
                "the template writes <|function_call|> and a JSON object after the content (GigaChat 3.1)",
                priority=40),),
    instructions=(
        "To call a function, write <|function_call|> and a JSON object with the function name and its "
        "arguments, exactly like this:\n"
        "{example}\n"
        "Write nothing after the JSON object.\n"
    ),
    order=126,
)
