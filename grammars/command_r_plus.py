"""Cohere Command-R+ (tool_use template): ``Action:`` and a fenced JSON list of
``{"tool_name": N, "parameters": {...}}``.

The template writes ``\\nAction:\\n```json\\n[\\n    {...}\\n]```\\n`` after the content: no call ids,
arguments pretty-printed, no newline before the closing fence (llama.cpp's test writes one: any
whitespace is read there). ``Action:`` is plain text, not a special token, so it is the trigger word.
The template's ``directly-answer`` pseudo-tool is an ordinary tool: list it to have it called.
"""

from .spec import Fingerprint, FormatSpec, JsonCall, Markup, Scope, Trigger, Wrapper

FORMAT = FormatSpec(
    id="command_r_plus",
    summary='Command-R+ Action:\\n```json\\n[\\n    {"tool_name": N, "parameters": {...}}\\n]```',
    call=JsonCall(args_key="parameters", name_key="tool_name", read_args_keys=("parameters", "arguments")),
    # the list's padding ("[\n    ", ",\n    ", "\n]") is what the template writes; any whitespace is read
    scope=Scope(per_call=False, open="[\n    ", close="\n]", separator=",", canonical_join=",\n    ",
                section=Wrapper("Action:\n```json\n", "```")),
    triggers=(Trigger("word", "Action:"),),
    special_tokens=(),
    markup=Markup(tokens=("<|START_OF_TURN_TOKEN|>", "<|CHATBOT_TOKEN|>", "<|END_OF_TURN_TOKEN|>")),
    detect=(Fingerprint((("'\\nAction:\\n```json\\n[\\n'", '"tool_name"'),),
                "the template writes Action: and a fenced JSON list of tool_name/parameters objects (Command-R+)",
                priority=30),),
    instructions=(
        "To call functions, reply with Action: and a fenced JSON list of calls (the tool name and its "
        "parameters), exactly like this:\n"
        "{example}\n"
        "Write nothing after the list.\n"
    ),
    order=115,
)
