"""Muse Glimmer ATEM: one message per call, `` to=N<|message|>`` then ``<atem:function_calls>``.

The generation prompt is ``<|start|>assistant``; a call message goes on with the recipient header
`` to=N<|message|>`` (harmony-like) and an invoke block that names the tool again:
``<atem:function_calls>\\n<atem:invoke name="N">\\n<atem:parameter name="K">V</atem:parameter>\\n...
</atem:invoke>\\n</atem:function_calls>``. Two calls are two messages: ``<|eom|><|start|>assistant``
stands between them. Strings are raw, other types JSON (the template writes ``true``/``false``/``null``
and ``tojson`` for objects and arrays, ``str`` for numbers).
"""

from .spec import Fingerprint, FormatSpec, Scope, Trigger, XmlCall

FORMAT = FormatSpec(
    id="muse_glimmer",
    summary='Muse Glimmer  to=N<|message|><atem:function_calls>\\n<atem:invoke name="N">\\n'
            '<atem:parameter name="K">V</atem:parameter>\\n</atem:invoke>\\n</atem:function_calls>',
    call=XmlCall(function_open="", name_end='<|message|><atem:function_calls>\n<atem:invoke name="',
                 name_again='">\n', param_open='<atem:parameter name="', param_name_end='">',
                 param_end="</atem:parameter>\n", function_end=""),
    scope=Scope(per_call=True, open=" to=", close="</atem:invoke>\n</atem:function_calls>",
                canonical_join="<|eom|><|start|>assistant", joiner="<|eom|><|start|>assistant", leading_ws=False),
    triggers=(Trigger("word", " to="),),
    special_tokens=("<|start|>", "<|message|>", "<|eom|>", "<|eot|>"),
    detect=(Fingerprint((("<atem:function_calls>", "<atem:invoke name=", "assistant to="),),
                "ATEM messages: an assistant recipient (to=N) and <atem:function_calls> invoke blocks "
                "(Muse Glimmer)", priority=60),),
    instructions=(
        "To call a function, address the message to it and write one <atem:function_calls> block with "
        "one <atem:parameter> per argument, exactly like this:\n"
        "{example}\n"
        "String values are written raw; numbers, booleans, null, objects and arrays as JSON. Write "
        "nothing after the block.\n"
    ),
    order=142,
)
