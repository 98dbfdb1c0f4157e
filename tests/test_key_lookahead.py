"""An extra key's two spellings are one language.

Grammar dialects print an extra key (a string that is none of the declared names, in any spelling) as the
complement of the names' trie (:mod:`toolgram.compiler.keys`); Lark, the strict parser, prints the same token
as any key behind a negative look-ahead for the names' spellings (``Token.unless``), a regex a fraction of
the size.  Both are built from the same names; here both regexes, as the Lark printer writes them, are run on
spellings of the names (raw, ``\\u`` escapes in either case, single escapes, surrogate pairs, a high surrogate
with another low one) and on texts near them, and must agree on every one.
"""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st
from toolgram.compiler.emit.lark import LarkPrinter
from toolgram.compiler.ir import Grammar, Token
from toolgram.compiler.schema import SchemaContext
from toolgram.compiler.values import ValueBuilder

#: characters that stand raw, need an escape, have a single escape, or lie outside the BMP (two sharing a
#: high surrogate: U+1F600 and U+1F601 are both \\ud83d + a low one)
ALPHABET = 'ab"\\/\n\x01é\u2028😀😁'
_SINGLE = {'"': '\\"', "\\": "\\\\", "/": "\\/", "\n": "\\n", "\b": "\\b", "\f": "\\f", "\r": "\\r", "\t": "\\t"}
_PY_SINGLE = {"\\": "\\\\", "\n": "\\n", "'": "\\'", '"': '\\"'}


def _hex(v: int, digits: int, upper: bool) -> str:
    text = f"{v:0{digits}x}"
    return text.upper() if upper else text


@st.composite
def json_spelling(draw: st.DrawFn, text: str) -> str:
    """One JSON spelling of ``text`` (inside the quotes), each character spelled at random."""
    out = []
    for ch in text:
        cp = ord(ch)
        ways = [f"\\u{_hex(cp, 4, draw(st.booleans()))}"] if cp <= 0xFFFF else []
        if cp > 0xFFFF:
            hi, lo = 0xD800 + ((cp - 0x10000) >> 10), 0xDC00 + ((cp - 0x10000) & 0x3FF)
            ways.append(f"\\u{_hex(hi, 4, draw(st.booleans()))}\\u{_hex(lo, 4, draw(st.booleans()))}")
        if ch in _SINGLE:
            ways.append(_SINGLE[ch])
        if cp >= 0x20 and ch not in '"\\':
            ways.append(ch)
        out.append(draw(st.sampled_from(ways)))
    return "".join(out)


@st.composite
def python_spelling(draw: st.DrawFn, text: str, quote: str) -> str:
    out = []
    for ch in text:
        cp = ord(ch)
        ways = [f"\\U{_hex(cp, 8, draw(st.booleans()))}"]
        if cp <= 0xFFFF:
            ways.append(f"\\u{_hex(cp, 4, draw(st.booleans()))}")
        if cp <= 0xFF:
            ways.append(f"\\x{_hex(cp, 2, draw(st.booleans()))}")
        if ch in _PY_SINGLE:
            ways.append(_PY_SINGLE[ch])
        if ch not in (quote, "\\", "\n", "\r"):
            ways.append(ch)
        out.append(draw(st.sampled_from(ways)))
    return "".join(out)


def _regexes(names: tuple[str, ...], syntax: str) -> tuple[re.Pattern[str], re.Pattern[str]]:
    """(the complement's regex, the look-ahead form's) of the extra-key token, as Lark's printer writes them."""
    token = ValueBuilder(Grammar(), syntax, SchemaContext({}, "$"), "t").any_key(names)
    assert isinstance(token, Token) and token.unless is not None
    printer = LarkPrinter(Grammar(rules={"root": token}, root="root"))
    complement = printer.regex(token.expr)
    anything, starts = token.unless
    lookahead = "(?!" + "|".join(printer.regex(x) for x in starts) + ")" + printer.regex(anything)
    assert len(lookahead) < len(complement) or len(names) < 2
    return re.compile(complement), re.compile(lookahead)


_NAMES = st.lists(st.text(alphabet=ALPHABET, max_size=3), min_size=1, max_size=4, unique=True)


@st.composite
def near(draw: st.DrawFn, names: list[str]) -> str:
    """A name, or a text near one: a character more or fewer, or a random one."""
    base = draw(st.sampled_from(names))
    kind = draw(st.sampled_from(["same", "longer", "shorter", "other"]))
    if kind == "longer":
        return base + draw(st.sampled_from(ALPHABET))
    if kind == "shorter":
        return base[:-1]
    if kind == "other":
        return draw(st.text(alphabet=ALPHABET, max_size=4))
    return base


@settings(max_examples=300, deadline=None)
@given(names=_NAMES, data=st.data())
def test_json_extra_key_lookahead_equals_the_complement(names: list[str], data: st.DataObject) -> None:
    complement, lookahead = _regexes(tuple(names), "json")
    for _ in range(12):
        key = data.draw(near(names))
        body = data.draw(json_spelling(key))
        if data.draw(st.booleans()) and "\\ud83d" in body.lower():  # a high surrogate with another low one
            at = body.lower().index("\\ud83d") + 6
            body = body[:at] + data.draw(st.sampled_from(["\\ude02", "\\uDE00", "x", "\\n", "\\u0061"])) + body[at:]
        text = f'"{body}": '
        assert bool(complement.fullmatch(text)) == bool(lookahead.fullmatch(text)), (names, text)


@settings(max_examples=200, deadline=None)
@given(names=_NAMES, data=st.data())
def test_python_extra_key_lookahead_equals_the_complement(names: list[str], data: st.DataObject) -> None:
    complement, lookahead = _regexes(tuple(names), "python")
    for _ in range(12):
        quote = data.draw(st.sampled_from("'\""))
        key = data.draw(near(names))
        text = f"{quote}{data.draw(python_spelling(key, quote))}{quote}="
        text = text[:-1] + ": "  # a dict key and its colon
        assert bool(complement.fullmatch(text)) == bool(lookahead.fullmatch(text)), (names, text)


def test_examples_that_tell_the_spellings_apart() -> None:
    """A declared name in any spelling is no extra key; a text one character off is; so is a high surrogate
    escape followed by a low one no name has there only where the complement narrows (module docs of keys)."""
    complement, lookahead = _regexes(("a", "😀x"), "json")
    for text, ok in [('"a": ', False), ('"\\u0061": ', False), ('"\\u0041": ', True), ('"ab": ', True),
                     ('"": ', True), ('"😀x": ', False), ('"\\ud83d\\ude00x": ', False), ('"\\uD83D\\uDE00x": ', False),
                     ('"😀": ', True), ('"😀y": ', True), ('"\\ud83d\\ude01": ', False), ('"b\\ud83d\\ude01": ', True)]:
        assert bool(complement.fullmatch(text)) == ok, text
        assert bool(lookahead.fullmatch(text)) == ok, text
