"""Continuous batching: many requests decoded together on ``openvino_genai.ContinuousBatchingPipeline``.

:class:`BatchGenerator` is a :class:`~toolgram.runtime.generator.Generator` whose engine is a
``ContinuousBatchingPipeline``: prompt rendering, the grammar compile cache, the stop rules and
the parsing are the Generator's (:class:`~toolgram.runtime.generator.Turn`); only the decoding
differs. ``chat`` may be called from many threads at once: each call puts a job on a queue and
waits; one worker thread runs the step loop:

1. admit queued jobs (FIFO) while fewer than ``max_batch`` run: ``add_request`` with the job's
   own ``GenerationConfig`` (its grammar in ``structured_output_config``, sampling, seed); a job
   whose deadline passed while queued fails with :class:`QueueTimeout`, one whose client left
   with :class:`Cancelled`;
2. ``step()`` once: every running request advances by one token;
3. read each handle's new tokens, detokenize the job's whole output and feed the new text to its
   ``Turn`` (its own ``StreamParser`` and deltas); a ``Turn`` asking to stop (client gone, timeout,
   calls complete) stops only that handle (``cancel()`` for a client that left, ``stop()``
   otherwise); stop strings are applied here (text held back while it may start one).

Grammar memory stays bounded as with the Generator: OpenVINO keeps every grammar the pipeline
compiled, so when a new grammar would exceed ``max_grammars`` the loop stops admitting, lets the
running requests finish and reloads the pipeline.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..errors import ToolgramError
from .generator import Cancelled, EngineRun, Generator, QueueTimeout, Turn
from .models import engine_reason

__all__ = ["BatchGenerator"]


class _Job:
    """One request waiting for, or running in, the batch."""

    def __init__(self, prompt: str, config: Any, grammar: str | None, turn: Turn, begin: Callable[[], None],
                 n_prompt: int, deadline: float | None) -> None:
        self.prompt, self.config, self.grammar, self.turn, self.begin = prompt, config, grammar, turn, begin
        self.n_prompt, self.deadline = n_prompt, deadline
        self.handle: Any = None
        self.ids: list[int] = []
        self.sent = ""  # text fed to the turn
        self.text = ""  # the output so far (stop strings cut)
        self.engine_done = False
        self.hit_length = False
        self.held: bool | None = None
        self.t_start = 0.0
        self.t_first: float | None = None
        self.done = threading.Event()
        self.error: BaseException | None = None
        self.run: EngineRun | None = None


class BatchGenerator(Generator):
    """A :class:`Generator` decoding concurrent ``chat`` calls together (continuous batching).

    ``max_batch``: requests decoded at once (``SchedulerConfig.max_num_seqs``); ``kv_cache_size``:
    the KV cache in GB (``SchedulerConfig.cache_size``); ``prefix_caching``: requests that start with the same
    prompt text (the system prompt and tools) reuse its KV blocks instead of computing them again
    (``SchedulerConfig.enable_prefix_caching``). Call :meth:`close` to stop the worker.
    """

    engine = "batch"

    def __init__(self, model: str | Path | None = None, device: str = "CPU",
                 progress: Callable[[str], None] | None = None, *, max_grammars: int = 16,
                 compile_cache_size: int = 256, max_batch: int = 8, kv_cache_size: int = 1,
                 prefix_caching: bool = True) -> None:
        if max_batch < 1 or kv_cache_size < 1:
            raise ToolgramError("max_batch and kv_cache_size (GB) must be at least 1")
        self.max_batch = max_batch
        self.kv_cache_size = kv_cache_size
        self.prefix_caching = prefix_caching
        self._jobs: deque[_Job] = deque()
        self._cond = threading.Condition()
        self._closed = False
        self._dropped = False  # a request was stopped: one more step() frees its KV blocks
        self._next_id = 0
        super().__init__(model, device, progress, max_grammars=max_grammars, compile_cache_size=compile_cache_size)
        self._worker = threading.Thread(target=self._loop, name="toolgram-batch", daemon=True)
        self._worker.start()

    def _load(self) -> Any:
        import openvino_genai as ov

        if self._progress:
            self._progress(f"loading {self.model_path.name} on {self.device} (continuous batching)")
        t0 = time.perf_counter()
        sc = ov.SchedulerConfig()
        sc.max_num_seqs = self.max_batch
        sc.cache_size = self.kv_cache_size
        sc.enable_prefix_caching = self.prefix_caching
        try:
            pipeline = ov.ContinuousBatchingPipeline(str(self.model_path), sc, self.device)
        except Exception as exc:  # noqa: BLE001 - RuntimeError, or IndexError on a broken GGUF
            raise ToolgramError(f"OpenVINO cannot load the model for continuous batching: {engine_reason(exc)}",
                                str(self.model_path)) from None
        self.load_s = time.perf_counter() - t0
        if self._progress:
            self._progress(f"loaded in {self.load_s:.1f} s")
        return pipeline

    # ------------------------------------------------------------------ callers' side

    def _generate(self, prompt: str, config: Any, grammar: str | None, turn: Turn, begin: Callable[[], None],
                  n_prompt: int, deadline: float | None) -> EngineRun:
        job = _Job(prompt, config, grammar, turn, begin, n_prompt, deadline)
        with self._cond:
            if self._closed:
                raise Cancelled("the engine is shut down")
            self._jobs.append(job)
            self._cond.notify()
        job.done.wait()
        if job.error is not None:
            raise job.error
        assert job.run is not None
        return job.run

    @property
    def waiting(self) -> int:
        """Jobs queued for a batch slot."""
        return len(self._jobs)

    def close(self) -> None:
        """Stop the worker: running and queued requests end (``Cancelled``)."""
        with self._cond:
            self._closed = True
            self._cond.notify()
        if self._worker.is_alive() and threading.current_thread() is not self._worker:
            self._worker.join(timeout=30)

    # ------------------------------------------------------------------ the step loop

    def _loop(self) -> None:
        active: list[_Job] = []
        while True:
            with self._cond:
                while not self._closed and not self._jobs and not active and not self._dropped:
                    self._cond.wait()
                if self._closed:
                    for job in [*active, *self._jobs]:
                        self._fail(job, Cancelled("the engine is shut down"))
                    self._jobs.clear()
                    return
                admitted = self._admit(active)
            for job in admitted:
                self._start(job, active)
            if not active and not self._dropped:
                continue
            self._dropped = False  # this step frees the requests stopped since the last one
            try:
                self.pipeline.step()
            except Exception as exc:  # noqa: BLE001 - the engine failed the whole step
                reason = engine_reason(exc)
                for job in active:
                    what = "grammar" if job.grammar is not None else "generation"
                    self._fail(job, ToolgramError(f"OpenVINO {what} failed: {reason}"))
                active.clear()
                self._reload_now()
                continue
            time.sleep(0)  # step() holds the GIL: let the event loop (/health, new requests) run between steps
            for job in list(active):
                try:
                    over = self._pump(job)
                except Exception as exc:  # noqa: BLE001 - e.g. the client's delta callback failed
                    with _quiet():
                        job.handle.cancel()
                    self._dropped = True
                    active.remove(job)
                    self._fail(job, exc)
                    continue
                if over:
                    active.remove(job)
                    self._finish(job)

    def _admit(self, active: list[_Job]) -> list[_Job]:
        """Jobs to start now (called with the queue's lock held)."""
        out: list[_Job] = []
        while self._jobs and len(active) + len(out) < self.max_batch:
            job = self._jobs[0]
            if job.turn.timed_out():
                self._jobs.popleft()
                self._fail(job, QueueTimeout("the request timed out waiting for a batch slot"))
                continue
            if job.turn.cancelled():
                self._jobs.popleft()
                self._fail(job, Cancelled("the client left before the request ran"))
                continue
            if job.grammar is not None and job.grammar not in self._pipeline_grammars \
                    and len(self._pipeline_grammars) >= self.max_grammars:
                if active or out:
                    break  # let the batch drain, then reload (memory bound)
                self._reload_now()
            self._jobs.popleft()
            job.held = self._admit_grammar(job.grammar) if job.grammar is not None else None
            out.append(job)
        return out

    def _reload_now(self) -> None:
        with self._lock:
            self._reload()

    def _start(self, job: _Job, active: list[_Job]) -> None:
        try:
            job.begin()
            job.config.stop_strings = set()  # applied by _pump, on text
            self._next_id += 1
            job.t_start = time.perf_counter()
            job.handle = self.pipeline.add_request(self._next_id, job.prompt, job.config)
        except Exception as exc:  # noqa: BLE001 - a grammar the engine refuses, an on_start that failed
            if job.grammar is not None:
                self._pipeline_grammars.discard(job.grammar)
            err = exc if isinstance(exc, ToolgramError) else ToolgramError(
                f"OpenVINO rejected the request: {engine_reason(exc)}")
            self._fail(job, err)
            return
        active.append(job)

    def _pump(self, job: _Job) -> bool:
        """Read the job's new tokens into its turn; true when the job is over."""
        h = job.handle
        got = False
        while h.can_read():
            for out in h.read().values():
                job.ids.extend(out.generated_ids)
                got = got or bool(out.generated_ids)
                reason = str(out.finish_reason).rsplit(".", 1)[-1].upper()
                if reason != "NONE":
                    job.engine_done = True
                    job.hit_length = reason == "LENGTH"
        if got and job.t_first is None:
            job.t_first = time.perf_counter()
        if not job.engine_done and str(h.get_status()).rsplit(".", 1)[-1].upper() not in ("RUNNING", "WAITING"):
            job.engine_done = True
        if got:
            with self._tok_lock:
                full = self.tokenizer.decode(job.ids)
            safe, hit = _cut_stops(full, job.turn.stop)
            if not hit and job.engine_done:
                safe = full
            if hit:
                job.engine_done = True
                job.hit_length = False
            elif not job.engine_done and safe.endswith("\ufffd"):
                safe = safe.rstrip("\ufffd")  # an incomplete UTF-8 sequence: wait for its next token
            job.text = safe
            new = safe[len(job.sent):] if safe.startswith(job.sent) else ""
            if new:
                job.sent = safe
                if job.turn.feed(new) and not job.engine_done:
                    (h.cancel if job.turn.stopped == "client" else h.stop)()
                    self._dropped = True
                    return True
            if hit:
                h.stop()
                self._dropped = True
        if not job.engine_done and job.turn.cancelled():  # no new text this step, client gone
            job.turn.stopped = "client"
            h.cancel()
            self._dropped = True
            return True
        if not job.engine_done and job.turn.timed_out():
            job.turn.stopped = "timeout"
            h.stop()
            self._dropped = True
            return True
        if not job.engine_done and len(job.ids) >= job.config.max_new_tokens:
            job.hit_length = True
            return True
        return job.engine_done

    def _finish(self, job: _Job) -> None:
        end = time.perf_counter()
        gen = len(job.ids)
        ttft = (job.t_first - job.t_start) * 1000 if job.t_first is not None else None
        tps = (gen - 1) / (end - job.t_first) if job.t_first is not None and gen > 1 and end > job.t_first else None
        job.run = EngineRun(text=job.text, prompt_tokens=job.n_prompt, generated=gen, hit_length=job.hit_length,
                            grammar_reused=job.held, grammar_compile_ms=None,
                            ttft_ms=round(ttft, 3) if ttft is not None else None,
                            tokens_per_s=round(tps, 3) if tps is not None else None)
        job.handle = None
        job.done.set()

    @staticmethod
    def _fail(job: _Job, error: BaseException) -> None:
        job.error = error
        job.handle = None
        job.done.set()


def _quiet() -> contextlib.AbstractContextManager[None]:
    return contextlib.suppress(Exception)


def _cut_stops(text: str, stops: list[str]) -> tuple[str, bool]:
    """``text`` cut before the first stop string (true), or without a tail that may start one (false)."""
    if not stops:
        return text, False
    at = min((i for i in (text.find(s) for s in stops) if i >= 0), default=-1)
    if at >= 0:
        return text[:at], True
    keep = len(text)
    for s in stops:
        for k in range(min(len(s) - 1, len(text)), 0, -1):
            if text.endswith(s[:k]):
                keep = min(keep, len(text) - k)
                break
    return text[:keep], False
