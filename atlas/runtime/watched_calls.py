"""A blocking call (a tool, a model over the network) run on a helper thread while the
runtime watches the run's cancel signal and a time limit, so neither waits on the call.

The caller waits on the call itself, so a fast call returns at once; the cancel signal and
the limit are checked between slices of POLL_SECONDS. When the caller stops waiting it sets
the call's `stop` event, which a well-behaved call reads to give up early; the thread stays
busy until the call returns, and its result is dropped.
"""

from __future__ import annotations

import contextlib
import os
import queue
import threading
import time
from collections.abc import Callable
from typing import Literal, TypeVar

from atlas.runtime.ports import CancelSignal

POLL_SECONDS = 0.02
# With less time than this left a call cannot be met: the caller would not look at it even
# once before the limit passed.
MIN_CALL_SECONDS = POLL_SECONDS

T = TypeVar("T")


class Interrupted(Exception):
    """The caller stopped waiting: the run was cancelled or the time limit passed."""

    def __init__(self, cause: Literal["cancelled", "timed_out"]) -> None:
        super().__init__(cause)
        self.cause = cause


def call_watched(
    call: Callable[[], T], *, cancel: CancelSignal, seconds: float, stop: threading.Event
) -> T:
    """`call()`'s result or exception; Interrupted when the cancel signal is set or
    `seconds` of real time pass first (the limit bounds a thread, whatever the runtime's
    clock says)."""
    done = threading.Event()
    box: dict = {}

    def job() -> None:
        try:
            box["result"] = call()
        except BaseException as error:  # handed to the waiting thread
            box["error"] = error
        finally:
            done.set()

    _HELPERS.run(job)
    limit = time.monotonic() + seconds
    while not done.wait(POLL_SECONDS):
        if cancel.is_set():
            stop.set()
            raise Interrupted("cancelled")
        if time.monotonic() >= limit:
            stop.set()
            raise Interrupted("timed_out")
    if "error" in box:
        raise box["error"]
    if cancel.is_set():
        raise Interrupted("cancelled")
    return box["result"]


def call_inline(call: Callable[[], T], *, cancel: CancelSignal, seconds: float) -> T:
    """`call()` in the caller's thread, for a call bounded to a few milliseconds, judged as
    `call_watched` judges one once it returns: Interrupted if the cancel signal was set
    meanwhile or it took `seconds` or more."""
    began = time.monotonic()
    result = call()
    if cancel.is_set():
        raise Interrupted("cancelled")
    if time.monotonic() - began >= seconds:
        raise Interrupted("timed_out")
    return result


class _HelperThreads:
    """Reused daemon threads: starting a thread costs more than a fast call.

    A thread whose call was abandoned stays busy until the call returns, and a new thread is
    started whenever none is idle, so a stuck call never delays another.
    """

    MAX_IDLE = 16

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._jobs: queue.SimpleQueue[Callable[[], None]] = queue.SimpleQueue()
        self._idle = 0  # threads waiting for a job that no job has been promised to yet

    def run(self, job: Callable[[], None]) -> None:
        with self._lock:
            if self._idle:
                self._idle -= 1
                self._jobs.put(job)
                return
        threading.Thread(target=self._work, args=(job,), name="atlas-call", daemon=True).start()

    def _work(self, job: Callable[[], None]) -> None:
        while True:
            with contextlib.suppress(BaseException):  # a job reports its own errors
                job()
            with self._lock:
                if self._idle >= self.MAX_IDLE:
                    return
                self._idle += 1
            job = self._jobs.get()


_HELPERS = _HelperThreads()


def _forget_threads_after_fork() -> None:
    # Threads do not survive a fork: a child must not wait for the parent's idle ones.
    global _HELPERS
    _HELPERS = _HelperThreads()


os.register_at_fork(after_in_child=_forget_threads_after_fork)
