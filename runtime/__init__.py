"""Runtime: output parsers, value conversion and generation.

``toolgram.runtime.Generator`` (OpenVINO GenAI) is imported on first use, so parsing never
loads OpenVINO, xgrammar or torch.
"""

from __future__ import annotations

from typing import Any

__all__ = ["Generator"]


def __getattr__(name: str) -> Any:
    if name == "Generator":
        from .generator import Generator

        return Generator
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
