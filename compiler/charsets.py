"""Sets of code points, as sorted ``(low, high)`` ranges: what a pattern's class, ``\\d \\w \\s``, ECMAScript's
``\\p{…}`` or an ignore-case match names.  Pure data and set arithmetic; :mod:`.regex` and :mod:`.ecmascript`
read patterns with them."""

from __future__ import annotations

import unicodedata
from functools import cache
from re import _constants as c  # type: ignore[attr-defined]

from ..errors import UnsupportedSchemaError

Ranges = tuple[tuple[int, int], ...]

MAXCP = 0x10FFFF
DIGIT = ((48, 57),)
WORD = ((48, 57), (65, 90), (95, 95), (97, 122))
SPACE = (
    (9, 13),
    (32, 32),
    (0xA0, 0xA0),
    (0x1680, 0x1680),
    (0x2000, 0x200A),
    (0x2028, 0x2029),
    (0x202F, 0x202F),
    (0x205F, 0x205F),
    (0x3000, 0x3000),
    (0xFEFF, 0xFEFF),
)


def negate(ranges: Ranges) -> Ranges:
    out = []
    prev = 0
    for lo, hi in sorted(ranges):
        if lo > prev:
            out.append((prev, lo - 1))
        prev = max(prev, hi + 1)
    if prev <= MAXCP:
        out.append((prev, MAXCP))
    return tuple(out)


def merge(ranges: list[tuple[int, int]]) -> Ranges:
    out: list[list[int]] = []
    for lo, hi in sorted(ranges):
        if out and lo <= out[-1][1] + 1:
            out[-1][1] = max(out[-1][1], hi)
        else:
            out.append([lo, hi])
    return tuple((a, b) for a, b in out)


#: Python's parsed ``\\d \\w \\s`` and their negations, as ECMAScript means them (ASCII digits and word characters,
#: ECMAScript white space)
CATEGORIES = {
    c.CATEGORY_DIGIT: DIGIT,
    c.CATEGORY_WORD: WORD,
    c.CATEGORY_SPACE: SPACE,
    c.CATEGORY_NOT_DIGIT: negate(DIGIT),
    c.CATEGORY_NOT_WORD: negate(WORD),
    c.CATEGORY_NOT_SPACE: negate(SPACE),
}


#: ECMAScript's General_Category values (``\p{L}``, ``\p{Letter}``, ``\p{gc=Lu}``): long name -> short name
_GENERAL = {
    "Letter": "L", "Cased_Letter": "LC", "Uppercase_Letter": "Lu", "Lowercase_Letter": "Ll", "Titlecase_Letter": "Lt",
    "Modifier_Letter": "Lm", "Other_Letter": "Lo", "Mark": "M", "Combining_Mark": "M", "Nonspacing_Mark": "Mn",
    "Spacing_Mark": "Mc", "Enclosing_Mark": "Me", "Number": "N", "Decimal_Number": "Nd", "digit": "Nd",
    "Letter_Number": "Nl", "Other_Number": "No", "Punctuation": "P", "punct": "P", "Connector_Punctuation": "Pc",
    "Dash_Punctuation": "Pd", "Open_Punctuation": "Ps", "Close_Punctuation": "Pe", "Initial_Punctuation": "Pi",
    "Final_Punctuation": "Pf", "Other_Punctuation": "Po", "Symbol": "S", "Math_Symbol": "Sm",
    "Currency_Symbol": "Sc", "Modifier_Symbol": "Sk", "Other_Symbol": "So", "Separator": "Z",
    "Space_Separator": "Zs", "Line_Separator": "Zl", "Paragraph_Separator": "Zp", "Other": "C", "Control": "Cc",
    "cntrl": "Cc", "Format": "Cf", "Surrogate": "Cs", "Private_Use": "Co", "Unassigned": "Cn",
}
_SHORT = set(_GENERAL.values()) | {"L&"}


@cache
def _categories() -> dict[str, Ranges]:
    """Every code point's General_Category, as ranges per category (Python's Unicode database; read once)."""
    spans: dict[str, list[tuple[int, int]]] = {}
    start, current = 0, unicodedata.category(chr(0))
    for cp in range(1, MAXCP + 2):
        cat = unicodedata.category(chr(cp)) if cp <= MAXCP else None
        if cat != current:
            spans.setdefault(current, []).append((start, cp - 1))
            start, current = cp, cat
    return {k: tuple(v) for k, v in spans.items()}


#: Java's POSIX classes (``\\p{Print}``: US-ASCII only, Java's default), which patterns written for Java carry
_POSIX: dict[str, Ranges] = {
    "Lower": ((0x61, 0x7A),), "Upper": ((0x41, 0x5A),), "Alpha": ((0x41, 0x5A), (0x61, 0x7A)),
    "Digit": ((0x30, 0x39),), "Alnum": ((0x30, 0x39), (0x41, 0x5A), (0x61, 0x7A)),
    "Punct": ((0x21, 0x2F), (0x3A, 0x40), (0x5B, 0x60), (0x7B, 0x7E)), "Graph": ((0x21, 0x7E),),
    "Print": ((0x20, 0x7E),), "Blank": ((0x09, 0x09), (0x20, 0x20)), "Cntrl": ((0x00, 0x1F), (0x7F, 0x7F)),
    "XDigit": ((0x30, 0x39), (0x41, 0x46), (0x61, 0x66)), "Space": ((0x09, 0x0D), (0x20, 0x20)),
}


def unicode_property(name: str, pattern: str) -> Ranges:
    """The code points of ECMAScript's ``\\p{name}`` (a General_Category, ``Any``, ``ASCII``), or of one of Java's
    POSIX classes (:data:`_POSIX`), which ECMAScript does not define."""
    if name.startswith(("gc=", "General_Category=")):
        name = name.split("=", 1)[1]
    if name == "Any":
        return ((0, MAXCP),)
    if name == "ASCII":
        return ((0, 0x7F),)
    if name in _POSIX:
        return _POSIX[name]
    short = _GENERAL.get(name, name)
    if short not in _SHORT:
        raise UnsupportedSchemaError(f"pattern {pattern!r}: the Unicode property \\p{{{name}}} is not supported "
                                     "(General_Category values, Any, ASCII and Java's POSIX classes are)")
    table = _categories()
    if short in ("LC", "L&"):
        return merge([r for c in ("Lu", "Ll", "Lt") for r in table.get(c, ())])
    return merge([r for c, rs in table.items() if c.startswith(short) for r in rs])


@cache
def _case_groups() -> dict[int, tuple[int, ...]]:
    """Each cased code point's case variants, itself included (simple case mappings: ``k``, ``K`` and the
    Kelvin sign ``K`` are one group), as an ignore-case match reads them."""
    parent: dict[int, int] = {}

    def find(x: int) -> int:
        while parent.get(x, x) != x:
            x = parent[x]
        return x

    for cp in range(0x20000):
        ch = chr(cp)
        for other in (ch.lower(), ch.upper()):
            if len(other) == 1 and other != ch:
                a, b = find(cp), find(ord(other))
                if a != b:
                    parent[max(a, b)] = min(a, b)
    groups: dict[int, list[int]] = {}
    for cp in parent:
        groups.setdefault(find(cp), []).append(cp)
    out: dict[int, tuple[int, ...]] = {}
    for root, members in groups.items():
        every = tuple(sorted({root, *members}))
        for m in every:
            out[m] = every
    return out


def case_closed(ranges: Ranges) -> Ranges:
    """``ranges`` with every case variant of the characters in them."""
    cased = _case_groups()
    extra = [(v, v) for cp in sorted(cased) if any(lo <= cp <= hi for lo, hi in ranges) for v in cased[cp]]
    return merge([*ranges, *extra])


def class_ranges(items: list, pattern: str, path: str | None = None) -> Ranges:
    """The code points a class's items (literals, ranges, ``\\d \\w \\s``) name, merged."""
    ranges: list[tuple[int, int]] = []
    for iop, iav in items:
        if iop == c.LITERAL:
            ranges.append((iav, iav))
        elif iop == c.RANGE:
            ranges.append(iav)
        elif iop == c.CATEGORY and iav in CATEGORIES:
            ranges.extend(CATEGORIES[iav])
        else:
            raise UnsupportedSchemaError(f"pattern {pattern!r}: unsupported class item {iop}", path)
    return merge(ranges)


def subtract(ranges: Ranges, remove: Ranges) -> Ranges:
    """``ranges`` minus ``remove``."""
    out = []
    for lo, hi in ranges:
        pieces = [(lo, hi)]
        for rlo, rhi in remove:
            nxt = []
            for a, b in pieces:
                if rhi < a or rlo > b:
                    nxt.append((a, b))
                    continue
                if a < rlo:
                    nxt.append((a, rlo - 1))
                if rhi < b:
                    nxt.append((rhi + 1, b))
            pieces = nxt
        out.extend(pieces)
    return tuple(out)
