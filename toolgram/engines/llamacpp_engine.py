"""llama.cpp GBNF adapter (through ``llama-cpp-python``), using SmolLM2's vocabulary.

- **Compile check.** ``llama_sampler_init_grammar`` returns NULL when llama.cpp rejects a grammar
  (``LlamaGrammar.from_string`` does not validate). The parser prints its reason with a raw
  ``fprintf(stderr)``, so :func:`check_gbnf` captures file descriptor 2 around the call; the
  shorter messages from llama.cpp's log callback are captured too.
- **Acceptance.** The text is tokenized with ``tokenize(s, add_bos=False, special=True)``. For each
  token, the grammar sampler is applied to a *one-element* candidate array (about 0.01 ms, against
  about 8 ms for the full 49k vocabulary); a ``-inf`` logit means rejected, otherwise the token is
  accepted. With ``complete=True`` the same check on EOS tells whether the grammar may end.
  Positions are character offsets of the start of the rejected token (approximate: a token can
  start inside a multi-byte character, and the position is then that character's).
- **Lazy grammars** (``lazy_patterns``/``trigger_tokens``) go through
  ``llama_sampler_init_grammar_lazy_patterns``: free text is allowed until a pattern matches the
  text generated so far, then the grammar is applied to the text from the match start (or from
  the first capture group) on, so the grammar must itself begin with the trigger. Measured here:

  * A WORD trigger passed as the plain regex-escaped word (``re.escape("<tool_call>")``) works;
    so do ``^[\\s\\S]*?(<word>)[\\s\\S]*`` (what llama.cpp's ``common`` layer builds) and the
    un-anchored form.
  * A trigger word split over several tokens (``<tool_call>`` is ``<`` ``tool`` ``_`` ``call``
    ``>`` in SmolLM2; ``" <"`` even carries the preceding space) still fires: llama.cpp buffers
    the generated pieces and matches the pattern against the buffer, then replays the buffered
    text from the match start into the grammar.
  * Text with no trigger at all is accepted (EOS is allowed while the grammar awaits a trigger).
  * Once the root rule completes, only end-of-generation is allowed.

llama.cpp's log output is silenced with a no-op-ish callback (it keeps the last messages, for
error reasons); a reference to the callback is held for the life of the process.
"""

from __future__ import annotations

import ctypes
import math
import os
import re
import sys
import tempfile
import threading
from collections import deque
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from functools import lru_cache
from typing import Any

import llama_cpp

from . import GrammarRejected, smollm2_gguf_path

__all__ = ["ENGINE", "accepts_gbnf", "check_gbnf", "tokenize", "word_trigger_pattern"]

ENGINE = "llama.cpp"

_LOCK = threading.RLock()
_LOG: deque[str] = deque(maxlen=64)


@llama_cpp.llama_log_callback
def _log_callback(level: int, text: bytes, user_data: Any) -> None:
    """Keep llama.cpp's recent log lines (for error reasons) instead of printing them."""
    try:
        _LOG.append(text.decode("utf-8", "replace"))
    except Exception:  # never let an exception cross the C boundary
        pass


llama_cpp.llama_log_set(_log_callback, ctypes.c_void_p(0))


@contextmanager
def _capture_fd2() -> Iterator[list[str]]:
    """Redirect OS-level stderr into a buffer for the duration of the block."""
    out: list[str] = []
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as tmp:
        os.dup2(tmp.fileno(), 2)
        try:
            yield out
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            tmp.seek(0)
            out.append(tmp.read().decode("utf-8", "replace"))


@lru_cache(maxsize=4)
def _llama(path: str | None = None) -> llama_cpp.Llama:
    """The vocabulary-only model (SmolLM2 by default), loaded once."""
    gguf = path or smollm2_gguf_path()
    with _LOCK, _capture_fd2():
        llm = llama_cpp.Llama(gguf, vocab_only=True, verbose=False)
    llama_cpp.llama_log_set(_log_callback, ctypes.c_void_p(0))  # in case loading replaced it
    return llm


def _vocab(llm: llama_cpp.Llama) -> Any:
    return llama_cpp.llama_model_get_vocab(llm.model)


def tokenize(s: str | bytes) -> list[int]:
    """Token ids of ``s`` (no BOS; special-token text becomes the special token)."""
    data = s.encode("utf-8") if isinstance(s, str) else s
    return _llama().tokenize(data, add_bos=False, special=True)


def word_trigger_pattern(word: str) -> str:
    """The lazy-grammar pattern for a WORD trigger: the regex-escaped word."""
    return re.escape(word)


def _reason(stderr_text: str, log_lines: Sequence[str]) -> str:
    m = re.search(r"error parsing grammar: (.*?)(?:\n\n|\Z)", stderr_text, re.S)
    parts: list[str] = []
    if m:
        detail = " ".join(m.group(1).split())
        parts.append(detail if len(detail) <= 160 else detail[:157] + "...")
    for line in log_lines:
        line = line.strip()
        if line and line not in parts:
            parts.append(line)
    if not parts and stderr_text.strip():
        parts.append(" ".join(stderr_text.split())[:200])
    return "; ".join(parts) or "llama_sampler_init_grammar returned NULL"


def _init_sampler(
    text: str,
    root: str,
    lazy_patterns: Sequence[str] | None,
    trigger_tokens: Sequence[int] | None,
) -> Any:
    """Create a grammar sampler; raise :class:`GrammarRejected` (with llama.cpp's reason) on NULL."""
    llm = _llama()
    vocab = _vocab(llm)
    grammar = text.encode("utf-8")
    with _LOCK:
        _LOG.clear()
        with _capture_fd2() as err:
            if lazy_patterns is None and trigger_tokens is None:
                smpl = llama_cpp.llama_sampler_init_grammar(vocab, grammar, root.encode())
            else:
                pats = list(lazy_patterns or [])
                toks = list(trigger_tokens or [])
                c_pats = (ctypes.c_char_p * max(len(pats), 1))(*[p.encode("utf-8") for p in pats])
                c_toks = (llama_cpp.llama_token * max(len(toks), 1))(*toks)
                smpl = llama_cpp.llama_sampler_init_grammar_lazy_patterns(
                    vocab, grammar, root.encode(), c_pats, len(pats), c_toks, len(toks)
                )
        logs = list(_LOG)
    if not smpl:
        raise GrammarRejected(ENGINE, _reason(err[0] if err else "", logs))
    return smpl


@lru_cache(maxsize=512)
def _checked(text: str, root: str) -> bool:
    llama_cpp.llama_sampler_free(_init_sampler(text, root, None, None))
    return True


def check_gbnf(text: str, root: str = "root") -> None:
    """Load a GBNF grammar in llama.cpp; raises :class:`GrammarRejected` with llama.cpp's reason."""
    _checked(text, root)


class _OneToken:
    """A reusable one-element ``llama_token_data_array``."""

    def __init__(self) -> None:
        self.data = llama_cpp.llama_token_data()
        self.array = llama_cpp.llama_token_data_array()

    def allowed(self, smpl: Any, token: int) -> bool:
        self.data.id, self.data.logit, self.data.p = token, 0.0, 0.0
        self.array.data = ctypes.pointer(self.data)
        self.array.size, self.array.selected, self.array.sorted = 1, -1, False
        llama_cpp.llama_sampler_apply(smpl, ctypes.byref(self.array))
        return not math.isinf(self.array.data[0].logit)


def _char_offsets(s: str | bytes, pieces: list[bytes]) -> list[int]:
    """Offset (chars for ``str``, bytes for ``bytes``) where each token starts, plus the end."""
    starts, b = [], 0
    for piece in pieces:
        starts.append(b)
        b += len(piece)
    starts.append(b)
    if isinstance(s, bytes):
        return [min(x, len(s)) for x in starts]
    raw = s.encode("utf-8")
    return [len(raw[:x].decode("utf-8", "ignore")) for x in starts]


def accepts_gbnf(
    text: str,
    s: str | bytes,
    *,
    root: str = "root",
    lazy_patterns: list[str] | None = None,
    trigger_tokens: list[int] | None = None,
    complete: bool = True,
) -> tuple[bool, int | None]:
    """Whether llama.cpp's grammar sampler lets the tokens of ``s`` through.

    Returns ``(True, None)`` or ``(False, position)``, the position being the (character) offset
    where the rejected token starts, or ``len(s)`` when the text is a valid prefix that may not
    end there (``complete=True``). An end-of-generation token inside ``s`` ends the check: text
    after it is rejected. Raises :class:`GrammarRejected` if the grammar does not load.
    """
    llm = _llama()
    vocab = _vocab(llm)
    tokens = tokenize(s)
    smpl = _init_sampler(text, root, lazy_patterns, trigger_tokens)
    probe = _OneToken()
    try:
        for i, tok in enumerate(tokens):
            if not probe.allowed(smpl, tok):
                return False, _offset(llm, s, tokens, i)
            if llama_cpp.llama_vocab_is_eog(vocab, tok):
                # llama.cpp would stop generating here; do not accept it (accept on EOG can abort).
                if i + 1 < len(tokens):
                    return False, _offset(llm, s, tokens, i + 1)
                return True, None
            llama_cpp.llama_sampler_accept(smpl, tok)
        if complete and not probe.allowed(smpl, llama_cpp.llama_vocab_eos(vocab)):
            return False, len(s)
        return True, None
    finally:
        llama_cpp.llama_sampler_free(smpl)


def _offset(llm: llama_cpp.Llama, s: str | bytes, tokens: list[int], index: int) -> int:
    pieces = [llm.detokenize([t], special=True) for t in tokens[:index]]
    return _char_offsets(s, pieces)[index]
