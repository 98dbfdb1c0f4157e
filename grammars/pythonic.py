"""Pythonic (Llama 3.2 style): one Python list of calls ``[f(a=1, b='x'), g()]``."""

from .spec import Fingerprint, FormatSpec, PythonCall, Scope, Trigger

FORMAT = FormatSpec(
    id="pythonic",
    summary="Pythonic [f(a=1, b='x'), g()]",
    call=PythonCall(),
    scope=Scope(per_call=False, open="[", close="]", separator=",", canonical_join=", ", anchored=True),
    triggers=(Trigger("pattern_full", r"^\s*(\[[\s\S]*)"),),
    detect=(Fingerprint(
        tuple((t,) for t in ("[func_name(", "[func_name1(", "python list of calls", "python list for calls",
                             "python list of function calls", "python list for function calls")),
        "the template asks for a python list of calls ([func_name1(params_name1=...)])",
        priority=30,
    ),),
    instructions=(
        'To call functions, reply with only a Python list of calls with keyword arguments, exactly like this:\n'
        '{example}\n'
        'Write nothing after the list.\n'
    ),
    order=50,
)
