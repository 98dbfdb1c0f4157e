"""Print a compiled grammar as an xgrammar / OpenVINO structural tag (placeholder until engine facts are in)."""

from __future__ import annotations

from typing import Any

from ...grammars.spec import FormatSpec
from ..ir import Grammar
from ..options import Options
from ..schema import Tool
from .bnf import to_ebnf


def to_structural_tag(spec: FormatSpec, tools: list[Tool], opts: Options, ir: Grammar) -> dict[str, Any]:
    return {"type": "structural_tag", "format": {"type": "grammar", "grammar": to_ebnf(ir)}}
