"""OpenVINO GenAI adapter: does OpenVINO's embedded xgrammar load a grammar?

OpenVINO GenAI 2026.4.1 builds its own xgrammar (v0.1.31) in C++, older than the Python
package (0.2.9). It has no accept-string API and compiles a grammar only inside ``generate()``
(``GenerationConfig.validate()`` passes ``root ::= (``), so a grammar is checked with a
1-token ``generate`` (``max_new_tokens=1``) on one SmolLM2 ``LLMPipeline`` loaded once per
process. Results are cached per grammar text. Cost measured on 2 cores: pipeline load
about 3.5 s, first check about 0.5-0.9 s (tokenizer setup), then about 10-17 ms per grammar.

EBNF goes in ``StructuredOutputConfig(grammar=...)``. A structural tag goes in as its raw JSON
string: ``StructuredOutputConfig.structural_tags_config`` accepts a ``str`` in 2026.4.1 and
hands it to xgrammar as it is (``{"type": "structural_tag", "format": ...}``).

Compatibility, measured with both engines (OV = OpenVINO 2026.4.1 / xgrammar v0.1.31):

=====================================================  ==========  ==========
EBNF construct                                         xgr 0.2.9   OV
=====================================================  ==========  ==========
``[^]`` (any character)                                ok          ok
``"\\U0001F600"``, ``"\\u00e9"``, ``"\\x41"`` in strings  ok          ok (generates 😀, é, A)
``[\\U0001F600-\\U0001F64F]``, ``[\\u00e0-\\u00ff]``         ok          ok
literal UTF-8 in strings                               ok          ok
``"\\""`` ``"\\\\"`` ``"\\n"`` ``"\\t"`` ``"\\r"`` ``"\\'"``      ok          ok
``[^<\\n\\\\\\]]``                                         ok          ok
``{2}`` ``{2,3}`` ``{2, 3}`` ``{2,}`` ``{0,}``                 ok          ok
``{0,-1}`` / ``{0, -1}`` (how 0.2.9 *prints* ``*``)      ok          REJECTED: "Expect integer, but got -1"
``""`` as an alternative, ``("a" | "") "b"``           ok          ok
rule names with ``-``, ``_``, digits, ``.``            ok          ok
``#`` comments, lookahead ``(= "x")``, ``? * +``       ok          ok
``TagDispatch(("<t>", r))`` (and as a sub-rule)        ok          ok
``TagDispatch(..., loop_after_dispatch=false|true)``   ok          ok
``excludes=("<x>", "<y>")``, ``excludes=("<x>")``,     ok          ok
``excludes=()``
``excludes=("<x>",)`` -- 1-tuple, trailing comma       ok          REJECTED: "Expect string, integer,
                                                                   boolean, or tuple in macro argument"
``stop_eos=true`` / ``stop_str=("END", "FIN")``        REJECTED:   ok
                                                       "Unknown
                                                       named arg"
``stop_eos=false`` without ``stop_str``                REJECTED    REJECTED: "must have stop_eos=true
                                                                   or stop_str is not empty"
``TagDispatch(("<t>", r),)`` trailing comma            REJECTED    REJECTED
=====================================================  ==========  ==========

So the portable ``TagDispatch`` writes one exclude as ``excludes=("<x>")`` (no trailing comma;
both versions read it as a one-element list, and OV does enforce it: with
``excludes=("Hello")`` the model's first word changes) and never names ``stop_eos``/``stop_str``
(OV's default is ``stop_eos=true``). Never emit EBNF printed by 0.2.9 (``{0, -1}``).

Structural tags (``{"type": "structural_tag", "format": ...}``): OV and 0.2.9 both load every
content type tried, as ``triggered_tags`` content and at top level: ``grammar``,
``json_schema``, ``any_text``, ``const_string``, ``sequence`` (``elements``), ``or``
(``elements``), ``tags_with_separator`` (``tags``, ``separator``, ``at_least_one``,
``stop_after_first``), ``regex`` (``pattern``), ``qwen_xml_parameter``, ``tag`` (``end`` may be a
list of strings or ``""``). ``triggered_tags`` fields ``triggers``, ``tags``, ``excludes``,
``at_least_one``, ``stop_after_first`` load in both, and OV enforces ``excludes`` and
``at_least_one`` (checked by generating). Differences:

- ``json_schema`` ``style``: 0.2.9 validates it (``"bogus"`` is rejected); OV accepts any value
  and ignores it (``"qwen_xml"`` still generates JSON).
- ``qwen_xml_parameter``: OV writes string enum values JSON-quoted (``"blue"``), and REJECTS a
  schema without properties (``{"type": "object"}``, ``"properties": {}`` -- a tool with no
  parameters): its generated EBNF fails to parse ("EBNF parser error at line 16, column 1:
  Expect element"). 0.2.9 loads it. ``json_schema`` content with the same schema loads in both.
- A ``grammar`` content is parsed by the engine's own EBNF parser, so the EBNF table applies
  inside structural tags too (``{0,-1}`` is rejected by OV there).
- Unknown fields are ignored by both; wrong field types (``"at_least_one": "no"``,
  ``"excludes": "x"``) and unknown ``type`` values are rejected by both. The legacy
  ``{"structures": ..., "triggers": ...}`` form is rejected by both as raw JSON.
"""

from __future__ import annotations

import gc
import threading
from functools import lru_cache

import openvino_genai as ov

from . import GrammarRejected, clean_reason, smollm2_gguf_path

__all__ = ["ENGINE", "OpenVINOChecker", "check_ebnf", "check_structural_tag", "get_checker"]

ENGINE = "openvino"
#: reload the shared pipeline after this many grammar compilations (bounds the memory it keeps)
RELOAD_EVERY = 64
_compiled_since_load = 0

_PROMPT = "hi"


class OpenVINOChecker:
    """Compile-checks grammars in OpenVINO GenAI's xgrammar through a 1-token ``generate``.

    The pipeline is shared by all instances (see :func:`_pipeline`); results are cached per text.
    """

    def __init__(self, model_path: str | None = None, device: str = "CPU") -> None:
        self.model_path = model_path
        self.device = device
        self._results: dict[tuple[str, str], str | None] = {}
        self._lock = threading.Lock()

    @property
    def pipeline(self) -> ov.LLMPipeline:
        """The shared ``LLMPipeline`` (loaded on first use)."""
        return _pipeline(self.model_path or smollm2_gguf_path(), self.device)

    def _check(self, kind: str, text: str) -> None:
        key = (kind, text)
        with self._lock:
            if key not in self._results:
                self._results[key] = self._run(kind, text)
            reason = self._results[key]
        if reason is not None:
            raise GrammarRejected(ENGINE, reason)

    def _run(self, kind: str, text: str) -> str | None:
        global _compiled_since_load
        if _compiled_since_load >= RELOAD_EVERY:
            # OpenVINO keeps every compiled grammar (about 20 MB each with SmolLM2's vocabulary)
            # for the pipeline's lifetime; a fresh pipeline is the only way to free them.
            _pipeline.cache_clear()
            gc.collect()
            _compiled_since_load = 0
        _compiled_since_load += 1
        config = ov.GenerationConfig()
        config.max_new_tokens = 1
        config.do_sample = False
        structured = ov.StructuredOutputConfig()
        if kind == "ebnf":
            structured.grammar = text
        else:
            structured.structural_tags_config = text
        config.structured_output_config = structured
        try:
            self.pipeline.generate(_PROMPT, config)
        except RuntimeError as e:
            return clean_reason(e) or "generate() failed"
        return None

    def check_ebnf(self, text: str) -> None:
        """Raise :class:`GrammarRejected` (OpenVINO's message) unless OpenVINO loads the EBNF."""
        self._check("ebnf", text)

    def check_structural_tag(self, json_text: str) -> None:
        """Raise :class:`GrammarRejected` unless OpenVINO loads the structural tag JSON text."""
        self._check("structural_tag", json_text)


@lru_cache(maxsize=2)
def _pipeline(model_path: str, device: str) -> ov.LLMPipeline:
    return ov.LLMPipeline(model_path, device)


@lru_cache(maxsize=1)
def get_checker() -> OpenVINOChecker:
    """The process-wide checker over SmolLM2 on CPU."""
    return OpenVINOChecker()


def check_ebnf(text: str) -> None:
    """``get_checker().check_ebnf(text)``."""
    get_checker().check_ebnf(text)


def check_structural_tag(json_text: str) -> None:
    """``get_checker().check_structural_tag(json_text)``."""
    get_checker().check_structural_tag(json_text)
