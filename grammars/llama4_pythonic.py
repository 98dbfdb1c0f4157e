"""Llama 4 pythonic: ``[f(a=1)]``, optionally wrapped in ``<|python_start|>``...``<|python_end|>``."""

from .spec import Fingerprint, FormatSpec, PythonCall, Scope, Trigger, Wrapper

FORMAT = FormatSpec(
    id="llama4_pythonic",
    summary="Llama 4 [f(a=1)] or <|python_start|>[f(a=1)]<|python_end|>",
    call=PythonCall(),
    scope=Scope(
        per_call=False,
        open="[",
        close="]",
        separator=",",
        canonical_join=", ",
        wrappers=(Wrapper("<|python_start|>", "<|python_end|>"),),
        anchored=True,
    ),
    triggers=(Trigger("word", "<|python_start|>"), Trigger("pattern_full", r"^\s*(\[[\s\S]*)")),
    special_tokens=("<|python_start|>", "<|python_end|>"),
    detect=(Fingerprint((("<|python_start|>",), ("<|header_start|>", "[func_name")),
                "Llama 4 header tokens with a python list of calls ([func_name1(...)])", priority=40),),
    instructions=(
        'To call functions, reply with only a Python list of calls with keyword arguments, exactly like this:\n'
        '{example}\n'
        'Write nothing after the list.\n'
    ),
    order=60,
)
