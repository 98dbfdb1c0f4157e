"""DeepSeek V4 DSML: ``<｜DSML｜tool_calls>`` around ``<｜DSML｜invoke name="N">`` blocks.

The same call syntax as ``deepseek_dsml`` (V3.2) under the section name V4 renamed; one id per
section name, so each grammar writes and each parser reads exactly its template's spelling.
"""

from dataclasses import replace

from .deepseek_dsml import FORMAT as V3_2
from .spec import Fingerprint, FormatSpec, Markup, Trigger, Wrapper

FORMAT = FormatSpec(
    id="deepseek_v4",
    summary='DeepSeek V4 DSML <｜DSML｜tool_calls>\\n<｜DSML｜invoke name="N">\\n'
            '<｜DSML｜parameter name="K" string="true|false">V</｜DSML｜parameter>...',
    call=V3_2.call,
    scope=replace(V3_2.scope, section=Wrapper("<｜DSML｜tool_calls>\n", "</｜DSML｜tool_calls>")),
    triggers=(Trigger("word", "<｜DSML｜tool_calls>"),),
    reasoning=V3_2.reasoning,
    special_tokens=V3_2.special_tokens,
    # the end-of-turn token an engine may pass through
    markup=Markup(tokens=("<｜end▁of▁sentence｜>",)),
    detect=(Fingerprint((("｜DSML｜", "tool_calls>"),),
                "the template writes DSML <｜DSML｜tool_calls> blocks (DeepSeek V4)", priority=60),),
    instructions=V3_2.instructions.replace("function_calls", "tool_calls"),
    order=102,
)
