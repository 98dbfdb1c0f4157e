"""ECMAScript ``pattern`` syntax read with Python's regex parser (``re._parser``), where the two differ.

Before parsing, :func:`ecmascript` rewrites what Python's parser lacks: ``\\p{…}``/``\\P{…}`` as the class of their
code points (:func:`.charsets.unicode_property`), named groups ``(?<name>…)`` as ``(?P<name>…)``, and the classes
``[^]`` (any character) and ``[]`` (none).  After, :func:`flagged` applies the inline flags that patterns written
for Python or Java carry (ECMAScript has none): ``(?i)`` as classes of every case variant, ``(?s)`` as a ``.``
that matches a newline; ``(?m)``, which changes what the anchors mean, is refused.  A flag group written after
the start (``^(?i)yes|no``) holds, as in Java, from there to the end of its group: :func:`late_flags` scopes it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from re import _constants as c  # type: ignore[attr-defined]

from ..errors import UnsupportedSchemaError
from .charsets import MAXCP, case_closed, class_ranges, negate, unicode_property


def _ranges_text(ranges: tuple[tuple[int, int], ...]) -> str:
    return "".join(f"\\U{lo:08x}" if lo == hi else f"\\U{lo:08x}-\\U{hi:08x}" for lo, hi in ranges)


def ecmascript(pattern: str) -> str:
    """``pattern`` (ECMAScript) in the syntax Python's regex parser reads, where they differ: ``\\p{…}`` /
    ``\\P{…}`` as the class of their code points, named groups ``(?<name>…)`` as ``(?P<name>…)``, the classes
    ``[^]`` (any character) and ``[]`` (none), a ``-`` beside a class escape inside a class (``[\\w-.]``: the
    character, where Python refuses the range), and a surrogate pair ``\\uD83D\\uDE00`` as its code point."""
    pattern = _SURROGATES.sub(_paired, late_flags(pattern))
    if not any(s in pattern for s in ("\\p", "\\P", "(?<", "[]", "[^]")) and not _SET_DASH.search(pattern):
        return pattern
    out: list[str] = []
    i, in_class, after_set = 0, False, False
    while i < len(pattern):
        ch = pattern[i]
        if in_class and ch == "-" and (after_set or _SET_ESCAPE.match(pattern, i + 1)) and not pattern.startswith(
                "]", i + 1):
            out.append("\\-")  # ECMAScript (Annex B): a class escape is no range's end, so the dash is itself
            i += 1
            after_set = False
            continue
        after_set = in_class and _SET_ESCAPE.match(pattern, i) is not None
        if ch == "\\" and i + 1 < len(pattern):
            nxt = pattern[i + 1]
            if nxt in "pP" and i + 2 < len(pattern) and pattern[i + 2] == "{":
                end = pattern.find("}", i + 3)
                if end < 0:
                    raise UnsupportedSchemaError(f"pattern {pattern!r} is not a valid regex: unterminated \\{nxt}{{")
                ranges = unicode_property(pattern[i + 3:end], pattern)
                if nxt == "P":
                    ranges = negate(ranges)
                body = _ranges_text(ranges)
                out.append(body if in_class else f"[{body}]" if body else _NOTHING)
                i = end + 1
                continue
            out.append(pattern[i:i + 2])
            i += 2
            continue
        if not in_class and pattern.startswith("[^]", i):
            out.append("[\\s\\S]")
            i += 3
            continue
        if not in_class and pattern.startswith("[]", i):
            out.append(_NOTHING)
            i += 2
            continue
        if ch == "[" and not in_class:
            in_class = True
            out.append(ch)
            i += 1
            if pattern.startswith("^", i):
                out.append("^")
                i += 1
            continue
        if ch == "]" and in_class:
            in_class = False
        if not in_class and pattern.startswith("(?<", i) and not pattern.startswith(("(?<=", "(?<!"), i):
            out.append("(?P<")
            i += 3
            continue
        out.append(ch)
        i += 1
    return "".join(out)


#: a class escape that names a set (no range may end at it), a dash beside one, and a UTF-16 surrogate pair
_SET_ESCAPE = re.compile(r"\\[dDsSwW]|\\[pP]\{")
_SET_DASH = re.compile(r"\\[dDsSwW]-|\\[pP]\{[^}]*\}-|-\\[dDsSwWpP]")
_SURROGATES = re.compile(r"(?<!\\)((?:\\\\)*)\\u(d[89ab][0-9a-f]{2})\\u(d[c-f][0-9a-f]{2})", re.IGNORECASE)


def _paired(m: re.Match) -> str:
    high, low = int(m.group(2), 16), int(m.group(3), 16)
    return f"{m.group(1)}\\U{0x10000 + (high - 0xD800) * 0x400 + (low - 0xDC00):08x}"


#: an inline flag group that Python may also scope (``(?i)``, ``(?is)``; not ``a``/``L``/``u``)
_FLAGS = re.compile(r"\(\?([imsx]+)\)")


def _outside_classes(pattern: str) -> Iterator[tuple[int, str]]:
    """Each character of ``pattern`` that is syntax: not escaped and not inside a class (ECMAScript's ``[]`` and
    ``[^]`` are whole classes)."""
    i, n = 0, len(pattern)
    while i < n:
        ch = pattern[i]
        if ch == "\\":
            i += 2
        elif ch == "[":
            i = pattern.find("]", i + 2 if pattern.startswith("[^", i) else i + 1)
            while i > 0 and _escaped(pattern, i):
                i = pattern.find("]", i + 1)
            i = n if i < 0 else i + 1
        else:
            yield i, ch
            i += 1


def _escaped(pattern: str, i: int) -> bool:
    """Whether the character at ``i`` follows an odd run of backslashes."""
    n = 0
    while i - n - 1 >= 0 and pattern[i - n - 1] == "\\":
        n += 1
    return n % 2 == 1


def late_flags(pattern: str) -> str:
    """``pattern`` with each inline flag group written after its start scoped over what it governs: Java reads
    ``X(?i)Y|Z`` with the flags from there to the end of the enclosing group, so it is written ``X(?i:Y)|(?i:Z)``
    (Python refuses a global flag group after the start).  A flag group at the very start is left to Python."""
    while "(?" in pattern:
        syntax = dict(_outside_classes(pattern))
        found = next((m for m in _FLAGS.finditer(pattern) if m.start() > 0 and m.start() in syntax), None)
        if found is None:
            return pattern
        depth, end, bars = 0, len(pattern), []
        for i, ch in syntax.items():
            if i < found.end():
                continue
            if ch == "(":
                depth += 1
            elif ch == ")" and depth:
                depth -= 1
            elif ch == ")":
                end = i
                break
            elif ch == "|" and depth == 0:
                bars.append(i)
        cuts = [found.end(), *(b + 1 for b in bars)]
        scoped = "|".join(_scoped(found.group(1), pattern[a:b]) for a, b in zip(cuts, [*bars, end], strict=True))
        pattern = pattern[:found.start()] + scoped + pattern[end:]
    return pattern


def _scoped(flags: str, piece: str) -> str:
    """``piece`` under ``flags``, its leading ``^`` and trailing ``$`` kept outside the group (where they are
    anchors toolgram reads)."""
    body = piece.lstrip("^")
    head = piece[:len(piece) - len(body)]
    tail = len(body) - len(body.rstrip("$"))
    while tail and _escaped(body, len(body) - tail):
        tail -= 1
    return f"{head}(?{flags}:{body[:len(body) - tail]}){body[len(body) - tail:]}"


#: a class no character is in (``[]``, a ``\\p{…}`` of no code point)
_NOTHING = "[^\\x00-\\U0010ffff]"


def flagged(items: list, flags: int, pattern: str) -> list:
    """A parsed pattern with the inline flags it sets applied to its nodes: ``(?i)`` (also scoped, ``(?i:…)``) as
    classes holding every case variant, ``(?s)`` as a ``.`` that matches a newline; ``(?m)`` changes what the
    anchors mean and is refused.  (ECMAScript has no inline flags; patterns written for Python or Java do.)"""
    if flags & c.SRE_FLAG_MULTILINE:
        raise UnsupportedSchemaError(f"pattern {pattern!r}: the multi-line flag (?m) is not supported")
    return [_flag_node(op, av, flags, pattern) for op, av in items]


def _flag_node(op, av, flags: int, pattern: str) -> tuple:  # noqa: C901 - one case per opcode
    fold = flags & c.SRE_FLAG_IGNORECASE
    if op == c.LITERAL and fold:
        return (c.IN, [(c.RANGE, r) for r in case_closed(((av, av),))])
    if op == c.NOT_LITERAL and fold:
        return (c.IN, [(c.NEGATE, None), *((c.RANGE, r) for r in case_closed(((av, av),)))])
    if op == c.ANY and flags & c.SRE_FLAG_DOTALL:
        return (c.IN, [(c.RANGE, (0, MAXCP))])
    if op == c.IN and fold:
        negated = any(iop == c.NEGATE for iop, _ in av)
        ranges = class_ranges([(iop, iav) for iop, iav in av if iop != c.NEGATE], pattern)
        return (c.IN, [*([(c.NEGATE, None)] if negated else []), *((c.RANGE, r) for r in case_closed(ranges))])
    if op == c.SUBPATTERN:
        group, add, remove, sub = av
        return (op, (group, 0, 0, flagged(list(sub), (flags | add) & ~remove, pattern)))
    if op == c.BRANCH:
        return (op, (av[0], [flagged(list(b), flags, pattern) for b in av[1]]))
    if op in (c.MAX_REPEAT, c.MIN_REPEAT, getattr(c, "POSSESSIVE_REPEAT", None)):
        return (op, (av[0], av[1], flagged(list(av[2]), flags, pattern)))
    if op in (c.ASSERT, c.ASSERT_NOT):
        return (op, (av[0], flagged(list(av[1]), flags, pattern)))
    return (op, av)
