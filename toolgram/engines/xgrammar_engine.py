"""Python xgrammar (0.2.x) adapter: compile EBNF and structural tags, check strings without a model.

Strings are matched with a tokenizer-free ``GrammarMatcher`` (an empty ``TokenizerInfo``,
``terminate_without_stop_token=True``) and ``accept_string``. Each grammar text is compiled
once per process (LRU cache), and a fresh matcher costs a few microseconds, so thousands
of strings per grammar are cheap. On rejection, the string is fed again one character at a
time to find the offset where matching stopped.

Importing this module imports ``xgrammar``, which imports ``torch`` (about 2.5 s).
"""

from __future__ import annotations

from functools import lru_cache

import xgrammar as xgr

from . import GrammarRejected, clean_reason

__all__ = [
    "ENGINE",
    "accepts_compiled",
    "accepts_ebnf",
    "accepts_structural_tag",
    "compile_ebnf",
    "compile_structural_tag",
]

ENGINE = "xgrammar"


@lru_cache(maxsize=1)
def _compiler() -> xgr.GrammarCompiler:
    return xgr.GrammarCompiler(xgr.TokenizerInfo([]), cache_enabled=False)


@lru_cache(maxsize=512)
def compile_ebnf(text: str, root: str = "root") -> xgr.CompiledGrammar:
    """Parse and compile xgrammar EBNF; raises :class:`GrammarRejected` with xgrammar's message."""
    try:
        grammar = xgr.Grammar.from_ebnf(text, root_rule_name=root)
        return _compiler().compile_grammar(grammar)
    except (RuntimeError, ValueError, TypeError) as e:
        raise GrammarRejected(ENGINE, clean_reason(e)) from None


@lru_cache(maxsize=512)
def compile_structural_tag(json_text: str) -> xgr.CompiledGrammar:
    """Compile a structural tag given as its JSON text (``{"type": "structural_tag", "format": …}``).

    Raises :class:`GrammarRejected` for invalid JSON or an invalid structural tag.
    """
    try:
        grammar = xgr.Grammar.from_structural_tag(json_text)
        return _compiler().compile_grammar(grammar)
    except (RuntimeError, ValueError, TypeError) as e:
        raise GrammarRejected(ENGINE, clean_reason(e)) from None


def _matcher(compiled: xgr.CompiledGrammar) -> xgr.GrammarMatcher:
    return xgr.GrammarMatcher(compiled, terminate_without_stop_token=True)


def _feed(matcher: xgr.GrammarMatcher, piece: str | bytes) -> bool:
    try:
        return matcher.accept_string(piece)
    except UnicodeEncodeError:  # lone surrogates cannot be UTF-8 encoded, so no grammar matches them
        return False


def accepts_compiled(compiled: xgr.CompiledGrammar, s: str | bytes) -> tuple[bool, int | None]:
    """Whether ``s`` is a complete match of ``compiled``.

    Returns ``(True, None)``, or ``(False, position)`` where ``position`` is the offset of the
    first character (byte, for ``bytes`` input) that could not be matched, or ``len(s)`` when the
    whole input is a valid prefix but the grammar is not complete there.
    """
    matcher = _matcher(compiled)
    if _feed(matcher, s):
        return (True, None) if matcher.is_terminated() else (False, len(s))
    matcher = _matcher(compiled)
    for i in range(len(s)):
        if not _feed(matcher, s[i : i + 1]):
            return False, i
    # Only reachable if piecewise feeding accepts what the one-shot call refused.
    return (True, None) if matcher.is_terminated() else (False, len(s))


def accepts_ebnf(grammar_text: str, s: str | bytes, root: str = "root") -> tuple[bool, int | None]:
    """Compile (cached) and check ``s`` against xgrammar EBNF; see :func:`accepts_compiled`."""
    return accepts_compiled(compile_ebnf(grammar_text, root), s)


def accepts_structural_tag(json_text: str, s: str | bytes) -> tuple[bool, int | None]:
    """Compile (cached) and check ``s`` against a structural tag; see :func:`accepts_compiled`."""
    return accepts_compiled(compile_structural_tag(json_text), s)
