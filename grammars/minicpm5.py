"""MiniCPM5 (OpenBMB): ``<function name="N"><param name="K">V</param></function>`` blocks.

Strings are raw; one holding ``<``, ``&`` or a newline is written ``<![CDATA[...]]>`` (the template's
rule) and read back unwrapped. Blocks are joined by ``\\n``. The template writes other types with
Jinja's ``str`` (``True``, ``['a']``): toolgram's grammar and writer use JSON (``true``, ``["a"]``),
and the lenient parser reads both. It also reads the tags as some decoders spell them, with the space
marker ``Ġ`` or without the space (``<functionname="N">``), as vLLM's parser does.
"""

from .spec import Fingerprint, FormatSpec, Markup, Reasoning, Scope, Trigger, XmlCall

FORMAT = FormatSpec(
    id="minicpm5",
    summary='MiniCPM5 <function name="N"><param name="K">V</param></function>',
    call=XmlCall(function_open="", name_end='">', param_open='<param name="', param_name_end='">',
                 param_end="</param>", function_end="", cdata=True),
    scope=Scope(per_call=True, open='<function name="', close="</function>", canonical_join="\n"),
    triggers=(Trigger("word", '<function name="'),),
    reasoning=Reasoning("<think>", "</think>", trigger_ends=False),
    special_tokens=("<think>", "</think>"),
    # decoded tags as vLLM's MiniCPM5 parser reads them: the tokenizer's space marker (U+0120) or no space
    read_spellings=tuple((f"<{tag}{sep}name=\"", f"<{tag} name=\"") for tag in ("function", "param")
                         for sep in ("\u0120", "")),
    # the end-of-turn token an engine may pass through
    markup=Markup(tokens=("<|im_end|>",)),
    detect=(Fingerprint((("'<function name=\"'", "'<param name=\"'", "<![CDATA["),),
                'the template writes <function name="N"> blocks of <param name="K"> values (MiniCPM5)',
                priority=60),),
    instructions=(
        "To call a function, reply with one <function> block per call and one <param> per argument, "
        "exactly like this:\n"
        "{example}\n"
        "String values are written raw (in <![CDATA[...]]> when they hold <, & or a newline); numbers, "
        "booleans, null, objects and arrays as JSON. Write nothing after the last block.\n"
    ),
    order=122,
)
