"""Pythonic (Llama 3.2 style): one Python list of calls ``[f(a=1, b='x'), g()]``."""

from .spec import FormatSpec, PythonCall, Scope, Trigger

FORMAT = FormatSpec(
    id="pythonic",
    summary="Pythonic [f(a=1, b='x'), g()]",
    call=PythonCall(),
    scope=Scope(per_call=False, open="[", close="]", separator=",", canonical_join=", ", anchored=True),
    triggers=(Trigger("pattern_full", r"^\s*(\[[\s\S]*)"),),
)
