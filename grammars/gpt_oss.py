"""OpenAI gpt-oss "harmony": `` to=functions.N<|channel|>commentary json<|message|>{...}`` after ``<|start|>assistant``.

The generation prompt is ``<|start|>assistant``; a call is the rest of that message's header and
its JSON payload, and ``<|call|>`` (the stop token) ends the generation, so harmony itself makes at
most one call per generation (``parallel_default=False``; with parallel calls on, further calls
follow directly, each with its own header).  Reasoning is an analysis message,
``<|channel|>analysis<|message|>...<|end|>``, and the next message's header ``<|start|>assistant``.

The grammar writes the template's spelling (recipient in the role header, content type ``json``);
the lenient parser also reads the recipient in the channel header, ``<|constrain|>json``, other
content types or none, and a trailing ``<|call|>``.
"""

from .spec import Fingerprint, FormatSpec, HeaderJsonCall, Markup, Reasoning, Scope, Trigger

FORMAT = FormatSpec(
    id="gpt_oss",
    summary="OpenAI harmony  to=functions.N<|channel|>commentary json<|message|>{...}",
    call=HeaderJsonCall(
        name_end="<|channel|>commentary json<|message|>",
        read_heads=("<|channel|>commentary to=functions.", "<|channel|>analysis to=functions."),
        body_open="<|message|>",
        read_end="<|call|>",
        glued_types=("json",),
    ),
    scope=Scope(per_call=True, open=" to=functions.", close="", canonical_join="", leading_ws=False),
    triggers=(Trigger("word", " to=functions."),),
    parallel_default=False,
    reasoning=Reasoning("<|channel|>analysis<|message|>", "<|end|><|start|>assistant", trigger_ends=False),
    special_tokens=("<|start|>", "<|end|>", "<|message|>", "<|channel|>", "<|constrain|>", "<|call|>",
                    "<|return|>"),
    # message framing around text: a header's channel and recipient (to=assistant, to=python...) are no
    # text, nor are the end-of-message and stop tokens; a functions. recipient starts a call (the scope)
    markup=Markup(tokens=("<|end|>", "<|return|>", "<|call|>", "<|start|>", "<|channel|>", "<|message|>",
                          "<|constrain|>"),
                  headers=(("<|start|>", "<|message|>"), ("<|channel|>", "<|message|>"), (" to=", "<|message|>"))),
    detect=(Fingerprint((("<|start|>assistant to=", "<|channel|>commentary", "<|call|>"),),
                "harmony messages: an assistant recipient (to=), the commentary channel and <|call|>",
                priority=40),),
    instructions=(
        "To call a function, reply with the function as the recipient of the message in its header, "
        "then the JSON arguments, exactly like this:\n"
        "{example}\n"
        "Write nothing after the arguments.\n"
    ),
    order=120,
)
