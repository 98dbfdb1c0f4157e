"""The diagnostic record that parsers attach to a message (SPEC section 4)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass
class Diagnostic:
    """One finding about model output: a stable ``code``, a human ``message`` and a character ``offset``.

    ``offset`` is the position in the model output the finding refers to, or ``None`` when unknown.
    """

    code: str
    message: str
    offset: int | None = None

    def to_json(self) -> dict[str, Any]:
        """The JSON object printed in a message's ``diagnostics`` list."""
        return {"code": self.code, "message": self.message, "offset": self.offset}
