"""MiniMax-M2: ``<minimax:tool_call>`` around ``<invoke name="N">`` blocks of ``<parameter name="K">V</parameter>``."""

from .spec import Fingerprint, FormatSpec, Markup, Reasoning, Scope, Trigger, Wrapper, XmlCall

FORMAT = FormatSpec(
    id="minimax_m2",
    summary='MiniMax-M2 <minimax:tool_call>\\n<invoke name="N">\\n<parameter name="K">V</parameter>\\n</invoke>...',
    call=XmlCall(function_open="", name_end='">\n', param_open='<parameter name="', param_name_end='">',
                 param_end="</parameter>\n", function_end=""),
    scope=Scope(per_call=True, open='<invoke name="', close="</invoke>\n", canonical_join="",
                section=Wrapper("<minimax:tool_call>\n", "</minimax:tool_call>")),
    triggers=(Trigger("word", "<minimax:tool_call>"),),
    reasoning=Reasoning("<think>", "</think>", trigger_ends=False),
    special_tokens=("<minimax:tool_call>", "</minimax:tool_call>", "<think>", "</think>"),
    # the end-of-turn token an engine may pass through
    markup=Markup(tokens=("[e~[",)),
    detect=(Fingerprint((("<minimax:tool_call>", "<invoke name="),),
                "the template writes <minimax:tool_call> sections of <invoke name=...> blocks", priority=60),),
    instructions=(
        "To call functions, reply with one <minimax:tool_call> section holding one <invoke> block per call "
        "and one <parameter> per argument, exactly like this:\n"
        "{example}\n"
        "String values are written raw; numbers, booleans, null, objects and arrays as JSON. Write "
        "nothing after the section.\n"
    ),
    order=120,
)
