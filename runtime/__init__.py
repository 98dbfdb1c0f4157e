"""Runtime: generation and serving (OpenVINO GenAI), chat templates, tool-format detection and the bundled model.

Parsing lives in ``toolgram.parsing``; this layer uses it and is above it.

``toolgram.runtime.Generator`` (OpenVINO GenAI) is imported on first use, so parsing never
loads OpenVINO, xgrammar or torch.
"""

from __future__ import annotations

from typing import Any

__all__ = ["BatchGenerator", "Generator"]


def __getattr__(name: str) -> Any:
    if name == "Generator":
        from .generator import Generator

        return Generator
    if name == "BatchGenerator":
        from .batching import BatchGenerator

        return BatchGenerator
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
