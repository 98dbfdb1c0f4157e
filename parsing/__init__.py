"""Parsing: model output back into OpenAI-shaped messages (SPEC section 4).

:func:`parse` and :class:`StreamParser` (:mod:`.parser`) read with the same format descriptions
the compiler writes grammars from: strict parsing runs the compiler's Lark grammar
(:mod:`.strict`), lenient and streaming parsing the incremental scanner (:mod:`.scanner`); both
convert values in one place (:mod:`.values`, :mod:`.pyliteral`) and report what they could not
read as :class:`~.diagnostics.Diagnostic` entries. Nothing here imports an inference engine.
"""

from __future__ import annotations

from .diagnostics import Diagnostic
from .parser import StreamParser, parse

__all__ = ["Diagnostic", "StreamParser", "parse"]
