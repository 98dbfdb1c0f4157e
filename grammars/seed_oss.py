"""ByteDance Seed-OSS: ``<seed:tool_call>`` blocks with XML parameters, values unpadded."""

from .spec import Fingerprint, FormatSpec, Markup, Reasoning, Scope, Trigger, XmlCall

FORMAT = FormatSpec(
    id="seed_oss",
    summary="Seed-OSS <seed:tool_call><function=N><parameter=K>V</parameter></function></seed:tool_call>",
    call=XmlCall(param_name_end=">", param_end="</parameter>\n"),
    scope=Scope(per_call=True, open="<seed:tool_call>\n", close="</seed:tool_call>", canonical_join="\n"),
    triggers=(Trigger("word", "<seed:tool_call>"),),
    reasoning=Reasoning("<seed:think>", "</seed:think>", trigger_ends=False),
    special_tokens=("<seed:tool_call>", "</seed:tool_call>", "<seed:think>", "</seed:think>"),
    # the end-of-turn token an engine may pass through
    markup=Markup(tokens=("<seed:eos>",)),
    detect=(Fingerprint((("<seed:tool_call>",),), "the template writes <seed:tool_call> blocks", priority=60),),
    instructions=(
        'To call a function, reply with one block per call, exactly like this:\n'
        '{example}\n'
        'String values are written raw; numbers, booleans, null, objects and arrays as JSON. Write '
        'nothing after the last block.\n'
    ),
    order=10,
)
