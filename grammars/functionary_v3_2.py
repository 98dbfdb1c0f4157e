"""Functionary v3.2: ``>>>N\\n{...}`` per call; the generation prompt ends with ``>>>``.

The model's output therefore starts with the first call's name (``N\\n{...}``) and every later call
follows ``>>>``: described as a bare list of calls anchored at the start with ``>>>`` between them.
Free text is the ``all`` recipient (``all\\nTEXT``); the template writes a message's text before its
calls (``all\\nTEXT>>>N\\n{...}``), so ``>>>`` after text is a wrapper word that starts the calls.
The ``all\\n`` recipient line opens free text (``Scope.text_prefix``): grammars require it before
text, and parsers drop it from the content (as llama.cpp does).
"""

from .spec import Fingerprint, FormatSpec, Markup, NamedJsonCall, Scope, Wrapper

FORMAT = FormatSpec(
    id="functionary_v3_2",
    summary="Functionary v3.2 N\\n{...}>>>N\\n{...} (the prompt ends with >>>)",
    # the python recipient's body is raw code when a tool named python is offered (llama.cpp's rule)
    call=NamedJsonCall(name_end="\n", raw_code_tool="python"),
    scope=Scope(per_call=False, open="", close="", separator=">>>", canonical_join=">>>",
                wrappers=(Wrapper(">>>"),), anchored=True, text_prefix="all\n"),
    # no lazy trigger: every reply starts with a recipient line (a tool name, or ``all`` for text),
    # so the whole grammar applies from the first token in every dialect (a pattern trigger firing
    # on a wrong name line made llama.cpp abort: its lazy grammar rejected the captured text)
    triggers=(),
    special_tokens=(),
    # the end-of-turn token an engine may pass through
    markup=Markup(tokens=("<|eot_id|>",)),
    detect=(Fingerprint(((">>>all", "<|start_header_id|>"),),
                "Llama 3 headers with >>>RECIPIENT lines (Functionary v3.2)", priority=40),),
    instructions=(
        "To call a function, reply with the function name, a newline and the JSON arguments; "
        "separate several calls with >>>, exactly like this:\n"
        "{example}\n"
        "Write nothing after the last call.\n"
    ),
    order=131,
)
