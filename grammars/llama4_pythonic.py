"""Llama 4 pythonic: ``[f(a=1)]``, optionally wrapped in ``<|python_start|>``...``<|python_end|>``."""

from .spec import FormatSpec, PythonCall, Scope, Trigger, Wrapper

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
)
