"""Gemma 4: ``<|tool_call>call:N{city:<|"|>Paris<|"|>,days:2}<tool_call|>``, one block per call.

Values in Gemma 4's own syntax (:mod:`.syntax.gemma_text`): ``<|"|>`` strings without escapes, bare
keys, no whitespace.  Reasoning is the ``<|channel>thought`` channel closed by ``<channel|>``.
"""

from .spec import Fingerprint, FormatSpec, GemmaCall, Markup, Reasoning, Scope, Trigger

FORMAT = FormatSpec(
    id="gemma4",
    summary='Gemma 4 <|tool_call>call:N{city:<|"|>Paris<|"|>,days:2}<tool_call|>',
    call=GemmaCall(),
    scope=Scope(per_call=True, open="<|tool_call>", close="<tool_call|>", canonical_join=""),
    triggers=(Trigger("word", "<|tool_call>"),),
    reasoning=Reasoning("<|channel>thought", "<channel|>", trigger_ends=False),
    special_tokens=("<|tool_call>", "<tool_call|>", '<|"|>', "<|channel>", "<channel|>", "<|tool_response>"),
    # an empty thought block, written by the generation prompt and anywhere in an interleaved turn
    markup=Markup(tokens=("<|channel>thought\n<channel|>", "<|channel>thought<channel|>", "<turn|>")),
    detect=(Fingerprint((("<|tool_call>call:", '<|"|>'),), 'Gemma 4 <|tool_call>call:N{...} with <|"|> strings',
                        priority=40),),
    instructions=(
        'To call a function, write <|tool_call>call:NAME{...}<tool_call|> with the arguments as key:value '
        'pairs, keys bare, strings between <|"|> and <|"|>, no spaces, exactly like this:\n'
        "{example}\n"
        "Write nothing after the calls.\n"
    ),
    order=135,
)
