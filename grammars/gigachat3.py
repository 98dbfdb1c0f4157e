"""GigaChat 3 (Sber): the call is a message of its own, role ``function call``.

After the assistant message (possibly empty), the model ends it with ``<|message_sep|>\\n\\n`` and
writes ``function call<|role_sep|>\\n{"name": N, "arguments": {...}}``. The template renders only the
first call of a message, so parallel calls are off by default. ``<|message_sep|>`` also ends every
message: a caller that stops generation on it never sees the call (see docs/formats.md). GigaChat 3.1
writes ``<|function_call|>`` instead: the ``gigachat3_1`` format; the lenient parser reads that header here
too, as vLLM's one GigaChat parser does.
"""

from .spec import Fingerprint, FormatSpec, JsonCall, Markup, Scope, Trigger

OPEN = "<|message_sep|>\n\nfunction call<|role_sep|>\n"

FORMAT = FormatSpec(
    id="gigachat3",
    summary='GigaChat 3 <|message_sep|>\\n\\nfunction call<|role_sep|>\\n{"name": N, "arguments": {...}}',
    call=JsonCall(args_key="arguments"),
    scope=Scope(per_call=True, open=OPEN, close="", canonical_join=""),
    triggers=(Trigger("word", OPEN),),
    parallel_default=False,
    special_tokens=("<|message_sep|>", "<|role_sep|>"),
    # GigaChat 3.1's call header (the ``gigachat3_1`` format), read as this one's (vLLM's parser reads both)
    read_spellings=(("<|function_call|>", OPEN),),
    # a message header (<|message_sep|>...ROLE<|role_sep|>: an unknown function call's header too, its body
    # then stays content) and the end-of-message and end-of-sequence tokens an engine may pass through
    markup=Markup(tokens=("<|message_sep|>", "<|role_sep|>", "</s>"), headers=(("<|message_sep|>", "<|role_sep|>"),)),
    detect=(Fingerprint((("'role': 'function call'", "<|message_sep|>"),),
                "the template writes a call as a 'function call' role message (GigaChat 3)", priority=40),),
    instructions=(
        "To call a function, end your message and write a function call message holding a JSON object "
        "with the function name and its arguments, exactly like this:\n"
        "{example}\n"
        "Write nothing after the JSON object.\n"
    ),
    order=125,
)
