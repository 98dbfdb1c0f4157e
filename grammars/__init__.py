"""Format descriptions: one module per format, each holding ``FORMAT``.

The formats are discovered: every module of this package other than ``spec`` (and private ones,
``_name``) that defines ``FORMAT`` is a format, so a new format is one new file here.
``FORMATS`` maps a format id to its :class:`~toolgram.grammars.spec.FormatSpec`, in listing
order (``FormatSpec.order``, then id). The ``golden/`` folder holds the checked-in grammars
toolgram emits for the example tools in ``examples/``.
"""

from __future__ import annotations

import importlib
import pkgutil

from ..errors import UnknownFormatError
from .spec import FormatSpec


def _discover() -> dict[str, FormatSpec]:
    found: list[FormatSpec] = []
    for info in pkgutil.iter_modules(__path__):
        if info.name == "spec" or info.name.startswith("_") or info.ispkg:
            continue
        spec = getattr(importlib.import_module(f"{__name__}.{info.name}"), "FORMAT", None)
        if isinstance(spec, FormatSpec):
            found.append(spec)
    found.sort(key=lambda s: (s.order, s.id))
    formats: dict[str, FormatSpec] = {}
    for spec in found:
        if spec.id in formats:
            raise RuntimeError(f"two format descriptions have the id {spec.id!r}")
        formats[spec.id] = spec
    return formats


FORMATS: dict[str, FormatSpec] = _discover()


def get_format(format_id: str) -> FormatSpec:
    """The description of ``format_id``; :class:`UnknownFormatError` lists the known ids otherwise."""
    try:
        return FORMATS[format_id]
    except KeyError:
        raise UnknownFormatError(
            f"unknown format {format_id!r}; known formats: {', '.join(FORMATS)}", "format"
        ) from None


__all__ = ["FORMATS", "FormatSpec", "get_format"]
