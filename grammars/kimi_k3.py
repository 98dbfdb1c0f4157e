"""Kimi-K3 XTML: ``<|open|>call tool="N" index="1"<|sep|>`` blocks of typed
``<|open|>argument key="K" type="T"<|sep|>V<|close|>argument<|sep|>`` inside ``<|open|>tools<|sep|>``.

Every tag is ``<|open|>NAME attrs<|sep|>`` ... ``<|close|>NAME<|sep|>``. The template writes an
assistant message as ``think``, ``response`` and ``tools`` blocks, then ``<|close|>message<|sep|>``:
the reasoning block ends where the response opens, and the tools section opens where the response
closes (the template writes the two back to back), and closes with the message. Calls carry the
index ``index="1"``, ``"2"``... (the renderer writes the position from 1; parsers read any index).
Each argument names its type: ``string`` (the value raw), ``number``, ``boolean``, ``null``,
``object``, ``array`` (JSON text); the grammar writes the words of the types the schema admits.
"""

from .spec import Fingerprint, FormatSpec, Reasoning, Scope, Trigger, Wrapper, XmlCall

FORMAT = FormatSpec(
    id="kimi_k3",
    summary='Kimi-K3 XTML <|open|>tools<|sep|><|open|>call tool="N" index="1"<|sep|>'
            '<|open|>argument key="K" type="T"<|sep|>V<|close|>argument<|sep|>...<|close|>call<|sep|>...',
    call=XmlCall(function_open="", name_end='" index="', counter='"<|sep|>', counter_base=1,
                 param_open='<|open|>argument key="', param_name_end='" type="{type}"<|sep|>',
                 param_end="<|close|>argument<|sep|>", function_end="",
                 type_words=(("string", "string"), ("integer", "number"), ("number", "number"),
                             ("boolean", "boolean"), ("null", "null"), ("object", "object"), ("array", "array"))),
    scope=Scope(per_call=True, open='<|open|>call tool="', close="<|close|>call<|sep|>", canonical_join="",
                section=Wrapper("<|close|>response<|sep|><|open|>tools<|sep|>",
                                "<|close|>tools<|sep|><|close|>message<|sep|>")),
    triggers=(Trigger("word", "<|close|>response<|sep|><|open|>tools<|sep|>"),),
    reasoning=Reasoning("<|open|>think<|sep|>", "<|close|>think<|sep|><|open|>response<|sep|>", trigger_ends=False),
    special_tokens=("<|open|>", "<|close|>", "<|sep|>"),
    detect=(Fingerprint((("<|open|>", "<|close|>", "<|sep|>", "open_tag('call'", "open_tag('argument'"),),
                "the template writes XTML <|open|>call tool=...<|sep|> blocks of typed arguments (Kimi-K3)",
                priority=60),),
    instructions=(
        "To call functions, close your response and reply with one tools block holding one call block per "
        "call and one typed argument per argument, exactly like this:\n"
        "{example}\n"
        'String values are written raw with type="string"; numbers, booleans, null, objects and arrays as '
        "JSON with their type. Write nothing after the block.\n"
    ),
    order=141,
)
