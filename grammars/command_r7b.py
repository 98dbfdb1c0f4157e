"""Cohere Command R7B and Cohere2MoE: ``<|START_ACTION|>`` around a JSON list of
``{"tool_call_id": "0", "tool_name": N, "parameters": {...}}``."""

from .spec import Fingerprint, FormatSpec, JsonCall, Markup, Reasoning, Scope, Trigger, Wrapper

FORMAT = FormatSpec(
    id="command_r7b",
    summary='Command R7B <|START_ACTION|>[\\n    {"tool_call_id": "0", "tool_name": N, "parameters": {...}}\\n]'
            "<|END_ACTION|>",
    # tool_call_id: a decimal counter the model writes as a string, before the name
    call=JsonCall(args_key="parameters", name_key="tool_name", read_args_keys=("parameters", "arguments"),
                  id_key="tool_call_id", id_first=True, id_pattern=r"^[0-9]{1,9}$", id_required=True,
                  id_prefix=""),
    # the list's padding ("[\n    ", ",\n    ", "\n]") is what the template writes; any whitespace is read
    scope=Scope(per_call=False, open="[\n    ", close="\n]", separator=",", canonical_join=",\n    ",
                section=Wrapper("<|START_ACTION|>", "<|END_ACTION|>")),
    triggers=(Trigger("word", "<|START_ACTION|>"),),
    reasoning=Reasoning("<|START_THINKING|>", "<|END_THINKING|>", trigger_ends=False),
    special_tokens=("<|START_ACTION|>", "<|END_ACTION|>", "<|START_THINKING|>", "<|END_THINKING|>",
                    "<|START_RESPONSE|>", "<|END_RESPONSE|>"),
    # R7B's <|START_RESPONSE|> and Cohere2MoE's <|START_TEXT|> wrap a text answer; the turn tokens frame it
    markup=Markup(tokens=("<|START_RESPONSE|>", "<|END_RESPONSE|>", "<|START_TEXT|>", "<|END_TEXT|>",
                          "<|START_OF_TURN_TOKEN|>", "<|CHATBOT_TOKEN|>", "<|END_OF_TURN_TOKEN|>",
                          "<|START_THINKING|><|END_THINKING|>")),
    detect=(Fingerprint((("<|START_ACTION|>",),),
                "the template writes a JSON action list inside <|START_ACTION|>...<|END_ACTION|> (Cohere)",
                priority=30),),
    instructions=(
        "To call functions, reply with one <|START_ACTION|> block holding a JSON list of calls "
        "(a call id, the tool name and its parameters), exactly like this:\n"
        "{example}\n"
        "Write nothing after the block.\n"
    ),
    order=114,
)
