"""Bounded pools of daemon worker threads, one per kind of blocking work.

Tool work (reading files, walking trees) runs on `TOOL_WORKERS`, never on asyncio's default
executor, so a tool that blocks — a FIFO whose `open()` never returns, a hung network mount —
cannot starve settings and credential writes, the model loader, or shutdown
(docs/decisions.md "Reliability"). Python cannot stop a thread: a job whose caller was cancelled
keeps its thread until it returns, but stops counting against the pool, and a spare thread
takes its place (at most `spares` of them). The threads are daemons, so a stuck one never holds
up the process's exit.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import queue
import threading
from collections.abc import Callable
from typing import Any, TypeVar

log = logging.getLogger(__name__)
T = TypeVar("T")


class _Job:
    __slots__ = ("abandoned", "args", "fn", "future", "loop", "started")

    def __init__(
        self, fn: Callable[..., Any], args: tuple[Any, ...], loop: asyncio.AbstractEventLoop
    ) -> None:
        self.fn = fn
        self.args = args
        self.loop = loop
        self.future: asyncio.Future[Any] = loop.create_future()
        self.started = False
        self.abandoned = False


class WorkerPool:
    """`await pool.run(fn, *args)`: `fn(*args)` on one of at most `workers` busy threads."""

    def __init__(self, name: str, workers: int, spares: int = 16) -> None:
        self.name = name
        self.workers = workers
        self.spares = spares
        self._jobs: queue.SimpleQueue[_Job] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._threads = 0
        self._idle = 0
        self._stuck = 0
        """Running jobs whose caller gave up (cancelled): they no longer count as busy."""

    @property
    def stuck(self) -> int:
        return self._stuck

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        job = _Job(fn, args, asyncio.get_running_loop())
        self._jobs.put(job)
        self._grow()
        try:
            return await asyncio.shield(job.future)
        except asyncio.CancelledError:
            with self._lock:
                job.abandoned = True
                if job.started:
                    self._stuck += 1
            self._grow()
            raise

    def _grow(self) -> None:
        with self._lock:
            busy = self._threads - self._idle - self._stuck
            if self._idle > 0 or busy >= self.workers or self._stuck > self.spares:
                return
            self._threads += 1
            number = self._threads
        threading.Thread(target=self._work, name=f"{self.name}-{number}", daemon=True).start()

    def _work(self) -> None:
        while True:
            with self._lock:
                self._idle += 1
            try:
                job = self._jobs.get(timeout=30.0)
            except queue.Empty:
                with self._lock:
                    self._idle -= 1
                    self._threads -= 1
                return
            with self._lock:
                self._idle -= 1
                if job.abandoned:
                    continue
                job.started = True
            value: Any = None
            error: BaseException | None = None
            try:
                value = job.fn(*job.args)
            except BaseException as exc:
                error = exc
            with self._lock:
                if job.abandoned:
                    self._stuck -= 1
                    log.info("%s: a job whose caller gave up has finished", self.name)
            with contextlib.suppress(RuntimeError):  # the loop is gone
                job.loop.call_soon_threadsafe(settle, job.future, value, error)


def settle(future: asyncio.Future[Any], value: Any, error: BaseException | None) -> None:
    """Resolve `future` with a worker thread's outcome, on the future's loop; a future its caller
    already gave up on (cancelled, timed out) is left as it is."""
    if future.done():
        return
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(value)


TOOL_WORKERS = WorkerPool("harnessdesk-tool", workers=4, spares=16)
"""Blocking tool work (files, search). Separate from everything the host itself needs."""
