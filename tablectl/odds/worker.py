"""Computing odds off the event loop: one request at a time, the latest one wins.

:class:`ProcessWorker` runs :func:`tablectl.odds.position.compute` in one child process (its
own interpreter: the NumPy work never holds the daemon's GIL, and its tables never count in the
daemon's memory), in the idle scheduling class so that it never delays a card read.
:class:`InlineWorker` is its in-memory twin for unit tests: it computes when
:meth:`~InlineWorker.run_pending` is called.

Both follow the same rule (:class:`_Latest`): :meth:`submit` with a token that only grows; at
most one request is being computed and at most one waits; a newer request replaces the waiting
one; a result is handed to ``on_result`` only if its token is still the latest submitted, so
figures of a position that has changed since are dropped, never published.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import os
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from typing import Protocol

from tablectl.odds.position import OddsRequest, compute

__all__ = ["InlineWorker", "OddsWorker", "ProcessWorker", "ResultCallback"]

_LOGGER = logging.getLogger(__name__)

ResultCallback = Callable[[int, dict[str, object]], None]
"""``(token, body)`` for the latest request's figures."""


class OddsWorker(Protocol):
    """Where odds are computed."""

    def submit(self, token: int, request: OddsRequest) -> None:
        """Ask for the figures of ``request`` (``token`` larger than every earlier one)."""

    def withdraw(self, token: int) -> None:
        """Nothing is to be valued any more: drop the waiting request and make every result
        in flight stale (``token`` larger than every earlier one)."""

    def close(self) -> None:
        """Stop; results still in flight are dropped."""


class _Latest:
    """The latest-wins bookkeeping shared by both workers."""

    def __init__(self, on_result: ResultCallback) -> None:
        self.on_result = on_result
        self.latest = 0
        self.waiting: tuple[int, OddsRequest] | None = None
        self.busy = False
        self.dropped = 0
        self.closed = False

    def offer(self, token: int, request: OddsRequest) -> tuple[int, OddsRequest] | None:
        """Note a request; the one to start now, if the worker is free."""
        if token <= self.latest:
            raise ValueError(f"token {token} is not newer than {self.latest}")
        self.latest = token
        if self.waiting is not None:
            self.dropped += 1
        self.waiting = (token, request)
        return self.next()

    def withdraw(self, token: int) -> None:
        if token <= self.latest:
            raise ValueError(f"token {token} is not newer than {self.latest}")
        self.latest = token
        if self.waiting is not None:
            self.dropped += 1
            self.waiting = None

    def next(self) -> tuple[int, OddsRequest] | None:
        if self.busy or self.waiting is None or self.closed:
            return None
        job, self.waiting = self.waiting, None
        self.busy = True
        return job

    def finished(self, token: int,
                 body: dict[str, object] | None) -> tuple[int, OddsRequest] | None:
        """A computation ended; deliver it if still the latest; the next job to start."""
        self.busy = False
        if body is not None and token == self.latest and not self.closed:
            self.on_result(token, body)
        elif body is not None:
            self.dropped += 1
        return self.next()


class InlineWorker:
    """The in-memory twin: requests are computed in this thread by :meth:`run_pending`."""

    def __init__(self, on_result: ResultCallback) -> None:
        self._state = _Latest(on_result)
        self._job: tuple[int, OddsRequest] | None = None

    @property
    def dropped(self) -> int:
        """Requests replaced while waiting and results dropped as stale."""
        return self._state.dropped

    def submit(self, token: int, request: OddsRequest) -> None:
        job = self._state.offer(token, request)
        if job is not None:
            self._job = job

    def withdraw(self, token: int) -> None:
        self._state.withdraw(token)

    def run_pending(self) -> int:
        """Compute until nothing waits; returns how many requests were computed."""
        done = 0
        while self._job is not None:
            token, request = self._job
            self._job = self._state.finished(token, compute(request))
            done += 1
        return done

    def close(self) -> None:
        self._state.closed = True


def _lower_priority() -> None:
    """In the child: give way to everything else (card reads first, odds after).

    Linux ``SCHED_IDLE``: the child runs only on a core nothing else wants and is preempted at
    once when the daemon, the broker or a source wakes up; elsewhere ``nice 19``.
    """
    try:
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
    except (AttributeError, OSError):
        with contextlib.suppress(OSError):
            os.nice(19)


class ProcessWorker:
    """Computes in one child process (started at the first request, or by :meth:`start`);
    results come back on ``loop``'s thread.

    Args:
        on_result: called on the loop with ``(token, body)`` of the latest request only.
        loop: the daemon's running loop.
    """

    def __init__(self, on_result: ResultCallback, loop: asyncio.AbstractEventLoop) -> None:
        self._state = _Latest(on_result)
        self._loop = loop
        self._pool: ProcessPoolExecutor | None = None

    def start(self) -> None:
        """Start the child process and build its tables now rather than at the first
        request (which starts it otherwise)."""
        if self._pool is None and not self._state.closed:
            self._pool = ProcessPoolExecutor(max_workers=1,
                                             mp_context=multiprocessing.get_context("spawn"),
                                             initializer=_lower_priority)
            self._pool.submit(_warm)

    @property
    def dropped(self) -> int:
        """Requests replaced while waiting and results dropped as stale."""
        return self._state.dropped

    def submit(self, token: int, request: OddsRequest) -> None:
        self._start(self._state.offer(token, request))

    def withdraw(self, token: int) -> None:
        self._state.withdraw(token)

    def _start(self, job: tuple[int, OddsRequest] | None) -> None:
        if job is None:
            return
        token, request = job
        self.start()
        try:
            assert self._pool is not None
            future = self._pool.submit(compute, request)
        except RuntimeError as exc:          # the pool is shut down or broken
            _LOGGER.error("odds worker unavailable, live odds stopped: %s", exc)
            self.close()
            return
        future.add_done_callback(lambda f: self._back(token, f))

    def _back(self, token: int, future: Future[dict[str, object]]) -> None:
        """In the pool's thread: hand the result to the loop (gone if the daemon stopped)."""
        with contextlib.suppress(RuntimeError):
            self._loop.call_soon_threadsafe(self._done, token, future)

    def _done(self, token: int, future: Future[dict[str, object]]) -> None:
        body: dict[str, object] | None = None
        if not future.cancelled():
            exc = future.exception()
            if exc is not None:
                _LOGGER.error("odds for token %d failed: %s", token, exc)
            else:
                body = future.result()
        self._start(self._state.finished(token, body))

    def close(self) -> None:
        self._state.closed = True
        if self._pool is not None:
            _stop_at_once(self._pool)


def _stop_at_once(pool: ProcessPoolExecutor) -> None:
    """Shut ``pool`` down and end its child now: a result in flight is dropped anyway, and the
    interpreter's exit would otherwise wait for the child to finish it, which in the idle
    scheduling class on a busy machine can take minutes (a stopped demo then ignored SIGTERM
    for over a minute)."""
    children = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for child in children:
        with contextlib.suppress(OSError, ValueError, AttributeError):
            child.terminate()


def _warm() -> None:
    from tablectl.game import fasteval

    fasteval.warm()
