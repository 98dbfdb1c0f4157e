"""The one exception family toolgram raises for user errors (SPEC section 7)."""

from __future__ import annotations


class ToolgramError(Exception):
    """A user error: bad tools, bad options, an unknown format, an unsupported schema feature.

    ``path`` is the JSON path (``$.tools[0].function.parameters.properties.x``) or
    ``file:line`` where the problem is, when there is one.
    """

    def __init__(self, message: str, path: str | None = None) -> None:
        self.message = message
        self.path = path
        super().__init__(f"{message} (at {path})" if path else message)


class SchemaError(ToolgramError):
    """A tool's JSON schema is invalid."""


class EmptySchemaError(SchemaError):
    """A schema that admits no value: its keywords contradict each other (``allOf`` of two types, an
    ``enum`` its other keywords reject, ``false``).  Where toolgram meets schemas itself (a property and
    the ``patternProperties`` its name matches, an array's items) such a part just cannot appear."""


class UnsupportedSchemaError(ToolgramError):
    """A schema feature that cannot be enforced in the grammar (and no permissive fallback was asked)."""


class UnknownFormatError(ToolgramError):
    """The format id is not one of toolgram's formats."""


class OptionError(ToolgramError):
    """An option value is invalid or does not apply to the format."""
