"""Ling 3 (inclusionAI): GLM's tags, ``<tool_call>N\\n<arg_key>K</arg_key>\\n<arg_value>V</arg_value>...``.

GLM-4.6's format (:mod:`.glm4`: same tags, scope, trigger, reasoning and instructions) in another
layout: a newline inside each pair (between ``</arg_key>`` and ``<arg_value>``), none between pairs,
and one before ``</tool_call>`` (so a call without arguments is ``<tool_call>N\\n\\n</tool_call>``).
Calls are joined by ``\\n``. The generation prompt opens the reasoning block
(``<role>ASSISTANT</role>\\n<think>``) unless thinking is off.
"""

from dataclasses import replace

from .glm4 import FORMAT as GLM4
from .spec import Fingerprint

FORMAT = replace(
    GLM4,
    id="ling3",
    summary="Ling 3 <tool_call>N\\n<arg_key>K</arg_key>\\n<arg_value>V</arg_value>\\n</tool_call>",
    call=replace(GLM4.call, param_end="</arg_value>", function_end="\n"),
    detect=(Fingerprint((("'\\n<arg_value>'", "'</arg_value>'", "'\\n</tool_call>'"),),
                "the template writes <tool_call>NAME with <arg_key>K</arg_key>\\n<arg_value>V</arg_value> pairs "
                "and a newline before </tool_call>", priority=57),),
    order=42,
)
