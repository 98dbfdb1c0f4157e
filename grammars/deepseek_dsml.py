"""DeepSeek V3.2 DSML: ``<｜DSML｜function_calls>`` around ``<｜DSML｜invoke name="N">`` blocks.

Each argument is ``<｜DSML｜parameter name="K" string="true|false">V</｜DSML｜parameter>``: the
grammar writes ``string="true"`` and the raw text for a string schema, ``string="false"`` and JSON
for any other type (either for a union); values are typed by the schema, as llama.cpp does.
DeepSeek V4 renamed the section to ``<｜DSML｜tool_calls>``: that is the ``deepseek_v4`` format.
"""

from .spec import Fingerprint, FormatSpec, Markup, Reasoning, Scope, Trigger, Wrapper, XmlCall

FORMAT = FormatSpec(
    id="deepseek_dsml",
    summary='DeepSeek V3.2 DSML <｜DSML｜function_calls>\\n<｜DSML｜invoke name="N">\\n'
            '<｜DSML｜parameter name="K" string="true|false">V</｜DSML｜parameter>...',
    call=XmlCall(function_open="", name_end='">\n', param_open='<｜DSML｜parameter name="',
                 param_name_end='" string="true">', json_name_end='" string="false">',
                 param_end="</｜DSML｜parameter>\n", function_end=""),
    scope=Scope(per_call=True, open='<｜DSML｜invoke name="', close="</｜DSML｜invoke>\n", canonical_join="",
                section=Wrapper("<｜DSML｜function_calls>\n", "</｜DSML｜function_calls>")),
    triggers=(Trigger("word", "<｜DSML｜function_calls>"),),
    reasoning=Reasoning("<think>", "</think>", trigger_ends=True),
    special_tokens=("｜DSML｜", "<think>", "</think>"),
    # the end-of-turn token an engine may pass through
    markup=Markup(tokens=("<｜end▁of▁sentence｜>",)),
    detect=(Fingerprint((("｜DSML｜", "function_calls>"),),
                "the template writes DSML <｜DSML｜function_calls> blocks (DeepSeek V3.2)", priority=60),),
    instructions=(
        "To call functions, reply with one <｜DSML｜function_calls> block holding one invoke per call and "
        "one parameter per argument, exactly like this:\n"
        "{example}\n"
        'String values are written raw with string="true"; numbers, booleans, null, objects and arrays as '
        'JSON with string="false". Write nothing after the block.\n'
    ),
    order=101,
)
