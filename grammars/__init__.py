"""Format descriptions: one module per format, each holding ``FORMAT``.

``FORMATS`` maps a format id to its :class:`~toolgram.grammars.spec.FormatSpec`.
The ``golden/`` folder holds the checked-in grammars toolgram emits for the
example tools in ``examples/``.
"""

from __future__ import annotations

from ..errors import UnknownFormatError
from . import hermes, llama3_json, llama4_pythonic, pythonic, qwen3_coder, seed_oss
from .spec import FormatSpec

FORMATS: dict[str, FormatSpec] = {
    m.FORMAT.id: m.FORMAT for m in (seed_oss, qwen3_coder, hermes, llama3_json, pythonic, llama4_pythonic)
}


def get_format(format_id: str) -> FormatSpec:
    """The description of ``format_id``; :class:`UnknownFormatError` lists the known ids otherwise."""
    try:
        return FORMATS[format_id]
    except KeyError:
        raise UnknownFormatError(
            f"unknown format {format_id!r}; known formats: {', '.join(FORMATS)}", "format"
        ) from None


__all__ = ["FORMATS", "FormatSpec", "get_format"]
