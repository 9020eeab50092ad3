"""The run worker: a Channels consumer on a named channel, and the pool that drives runs.

A channel message only wakes a worker; the run's row decides who drives it (see
`runs.leases`). Claimed runs are driven in threads from a bounded pool, so one slow tool
call never holds up other runs or the event loop. While a run is driven, a heartbeat on the
event loop renews the leases and watches the database for cancel requests, so a cancel
reaches the run within a second on whichever worker holds it. The sweep (`runs.sweep`)
finds runs whose message was lost or whose worker died.
"""

from __future__ import annotations

import asyncio
import logging
import os
import secrets
import socket
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Literal

from asgiref.sync import sync_to_async
from channels.consumer import AsyncConsumer
from django.conf import settings
from django.db import DatabaseError, close_old_connections, connection, connections
from pydantic import BaseModel, ConfigDict, Field, StrictInt, ValidationError

from atlas.runtime.memory import MemoryCancelSignal
from atlas.runtime.wording import counted
from runs import leases, live
from runs.audience import record_audience
from runs.execution import advance_run
from runs.models import Run
from runs.presence import WORKER_PREFIX, WorkerPresence

logger = logging.getLogger(__name__)

# A pass ends when the run pauses; a decision or cancel that landed meanwhile gets another
# pass under the same lease. Bounded so a run that keeps changing cannot pin a slot.
MAX_PASSES_PER_CLAIM = 5


class WakeMessage(BaseModel):
    model_config = ConfigDict(extra="ignore")

    type: Literal["run.start", "run.resume", "run.cancel"]
    run_id: StrictInt = Field(gt=0)


def worker_name() -> str:
    return f"{WORKER_PREFIX}{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(3)}"


@dataclass
class DrivenRun:
    """A run this worker holds, shared between the event loop and the run's thread."""

    run_id: int
    lease_seconds: float
    cancel: MemoryCancelSignal = field(default_factory=MemoryCancelSignal)
    lost: threading.Event = field(default_factory=threading.Event)
    stopping: threading.Event = field(default_factory=threading.Event)
    renewed_at: float = field(default_factory=time.monotonic)
    woken: bool = False  # a wake-up arrived while it was being driven (event loop only)
    # Its lease is this worker's: a claim it is still trying (and may lose to another
    # worker) is not a lease to lose.
    holds: bool = False

    def still_owner(self) -> bool:
        # A lease we failed to renew for most of its life may already be someone else's.
        fresh = time.monotonic() - self.renewed_at < self.lease_seconds * 0.8
        return fresh and not self.lost.is_set() and not self.stopping.is_set()


class RunWorker:
    def __init__(
        self,
        *,
        owner: str | None = None,
        concurrency: int | None = None,
        lease_seconds: float | None = None,
        sweep_seconds: float | None = None,
        poll_seconds: float = 0.2,
        sweeping: bool = True,
    ) -> None:
        self.owner = owner or worker_name()
        self.presence = WorkerPresence(self.owner)
        self.concurrency = concurrency or settings.ATLAS_WORKER_CONCURRENCY
        self.lease_seconds = lease_seconds or settings.ATLAS_LEASE_SECONDS
        self.sweep_seconds = sweep_seconds or settings.ATLAS_SWEEP_SECONDS
        self.poll_seconds = poll_seconds
        self.driven: dict[int, DrivenRun] = {}
        self.sweeping = sweeping
        # False: ignore wake-ups and do not sweep (a test server between tests).
        self.accepting = True
        self.sweep_wanted = asyncio.Event()
        self._tasks: set[asyncio.Task] = set()
        self._drives: set[asyncio.Task] = set()
        self._stopping = threading.Event()
        self._pool = ThreadPoolExecutor(self.concurrency, thread_name_prefix="atlas-run")
        # One thread for lease and cancel bookkeeping, so it never waits behind a slow run.
        self._housekeeping = ThreadPoolExecutor(1, thread_name_prefix="atlas-leases")
        self._loop: asyncio.AbstractEventLoop | None = None
        self._heartbeat_task: asyncio.Task | None = None

    # --- lifecycle -------------------------------------------------------------

    @property
    def running(self) -> bool:
        return self._loop is not None and not self._stopping.is_set()

    async def start(self) -> None:
        from runs.sweep import sweep_forever

        self._loop = asyncio.get_running_loop()
        # Before any claim: while it holds no presence lock, a cancel treats it as gone.
        await self.db(self.presence.keep)
        self._heartbeat_task = self._spawn(self._heartbeat())
        self._spawn(sweep_forever(self))
        logger.info("Run worker %s started (%s slots)", self.owner, self.concurrency)

    async def stop(self, grace_seconds: float = 10.0) -> None:
        """Stop claiming, let each run finish its current step, hand the leases back."""
        if self._stopping.is_set():
            return
        self._stopping.set()
        for driven in self.driven.values():
            driven.stopping.set()
        # The heartbeat goes on while the last steps run: it renews their leases, so no
        # other worker takes a run whose tool call is still under way, and passes on cancels.
        for task in self._tasks - {self._heartbeat_task}:
            task.cancel()
        if self._drives:
            done, pending = await asyncio.wait(set(self._drives), timeout=grace_seconds)
            if pending:
                # Their threads finish the step before the process exits, then hand the
                # lease back; if the process is killed first, the lease runs out.
                logger.warning(
                    "Run worker %s stops waiting for %s runs mid-step; each hands its lease "
                    "back when its step ends",
                    self.owner,
                    len(pending),
                )
        if self._heartbeat_task is not None:
            self._heartbeat_task.cancel()
        await self.db(self.presence.withdraw)
        await self.db(connections.close_all)
        self._pool.shutdown(wait=False, cancel_futures=True)
        self._housekeeping.shutdown(wait=False)
        logger.info("Run worker %s stopped", self.owner)

    def _spawn(self, coroutine) -> asyncio.Task:
        task = asyncio.ensure_future(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def idle(self, timeout: float) -> bool:
        """Wait until no run is being driven; True if that happened within `timeout`."""
        deadline = time.monotonic() + timeout
        while self._drives and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        return not self._drives

    # --- waking and driving ------------------------------------------------------

    @property
    def free_slots(self) -> int:
        if self._stopping.is_set() or not self.accepting:
            return 0
        return self.concurrency - len(self.driven)

    async def wake(self, run_id: int, action: str) -> None:
        driven = self.driven.get(run_id)
        if driven is not None:
            if action == "run.cancel":
                driven.cancel.set()
            # It may be between its last look at the row and handing the lease back:
            # have it look again afterwards, or this wake-up would wait for a sweep.
            driven.woken = True
            return
        if self.free_slots <= 0:
            if self.accepting:
                logger.info("Worker %s is full; run %s waits for a sweep", self.owner, run_id)
            return
        self._begin(run_id, claimed=False)

    def begin_claimed(self, run_id: int) -> None:
        """Drive a run the sweep already claimed for this worker."""
        self._begin(run_id, claimed=True)

    def _begin(self, run_id: int, *, claimed: bool) -> None:
        driven = DrivenRun(run_id=run_id, lease_seconds=self.lease_seconds)
        self.driven[run_id] = driven
        # Ask at once rather than at the next heartbeat: most of a short run's announcements
        # would go out before that.
        self._spawn(self._refresh_audience([run_id]))
        task = asyncio.ensure_future(self._drive(driven, claimed))
        self._drives.add(task)
        task.add_done_callback(self._drives.discard)

    async def _drive(self, driven: DrivenRun, claimed: bool) -> None:
        # sync_to_async (not run_in_executor) so channel sends made by the run's thread, such
        # as live-page updates after each commit, are scheduled on this event loop.
        drive = sync_to_async(self._drive_blocking, thread_sensitive=False, executor=self._pool)
        try:
            while True:
                await drive(driven, claimed)
                if not driven.woken or self._stopping.is_set():
                    break
                driven.woken, claimed = False, False
        except Exception:
            logger.exception("Driving run %s failed outside the run's own handling", driven.run_id)
        finally:
            # No await between the last check of `woken` and this: a wake-up arriving from
            # now on starts a fresh drive instead of landing on this finished one.
            if self.driven.get(driven.run_id) is driven:
                del self.driven[driven.run_id]
                live.forget_audience(driven.run_id)
            self.sweep_wanted.set()  # a free slot: pull the next run that waits

    def _drive_blocking(self, driven: DrivenRun, claimed: bool) -> None:
        run_id = driven.run_id
        driven.holds = claimed
        close_old_connections()
        try:
            if not claimed and not leases.claim_run(run_id, self.owner):
                if not Run.objects.filter(pk=run_id).exists():
                    logger.warning("Wake-up for run %s, which does not exist", run_id)
                return
            driven.renewed_at = time.monotonic()
            driven.holds = True
            # A cancel requested before now is on the row advance_run loads; later ones
            # reach the run through the heartbeat's poll or a wake-up.
            for _ in range(MAX_PASSES_PER_CLAIM):
                status = advance_run(
                    run_id,
                    owner=self.owner,
                    cancel=driven.cancel,
                    still_owner=driven.still_owner,
                    park_model_waits=True,
                )
                logger.info("Run %s is %s (worker %s)", run_id, status, self.owner)
                if not driven.still_owner():
                    break
                if status == "researching" and leases.is_parked(run_id):
                    logger.info("Run %s waits for its model endpoint; slot freed", run_id)
                    return
                if leases.release_lease_if_done(run_id, self.owner):
                    return
                if leases.cancel_requested([run_id]):
                    driven.cancel.set()
            leases.release_lease(run_id, self.owner)
        except Exception as error:
            logger.exception("Worker %s crashed driving run %s", self.owner, run_id)
            if isinstance(error, DatabaseError):
                connection.close()  # most likely broken: the failure is recorded on a new one
            try:
                failures = leases.record_worker_failure(
                    run_id, self.owner, f"{type(error).__name__}: {error}"
                )
                logger.warning("Run %s has failed in workers %s", run_id, counted(failures, "time"))
            except DatabaseError:
                logger.exception("Could not record the failure of run %s", run_id)
        finally:
            # Closes this thread's connection unless DB_CONN_MAX_AGE lets it live on.
            close_old_connections()

    # --- bookkeeping on the event loop -----------------------------------------

    async def db(self, function: Callable[..., Any], *args: Any) -> Any:
        """Run a short query on the bookkeeping thread."""
        return await asyncio.get_running_loop().run_in_executor(
            self._housekeeping, partial(_guarded, function, *args)
        )

    async def _heartbeat(self) -> None:
        last_beat = time.monotonic()
        while True:
            await asyncio.sleep(self.poll_seconds)
            beat_due = time.monotonic() - last_beat >= self.lease_seconds / 3
            try:
                if beat_due:
                    await self.db(self.presence.keep)
                if self.driven:
                    await self._poll_cancels()
                    if beat_due:
                        await self._renew()
                if beat_due:
                    last_beat = time.monotonic()
            except asyncio.CancelledError:
                raise
            except Exception:
                logger.exception("Worker %s could not renew leases or poll cancels", self.owner)
            if self.driven:
                await self._refresh_audience()

    async def _poll_cancels(self) -> None:
        watched = [run_id for run_id, run in self.driven.items() if not run.cancel.is_set()]
        for run_id in await self.db(leases.cancel_requested, watched):
            if run_id in self.driven:
                logger.info("Cancel requested for run %s; stopping it", run_id)
                self.driven[run_id].cancel.set()

    async def _refresh_audience(self, run_ids: list[int] | None = None) -> None:
        """Which driven runs have a live page: the others' announcements are held back."""
        await record_audience(
            list(self.driven) if run_ids is None else run_ids, self.driven.__contains__
        )

    async def _renew(self) -> None:
        # Only leases held when asked: a claim made meanwhile was not among those renewed.
        renewing = {run_id: driven for run_id, driven in self.driven.items() if driven.holds}
        renewed_at = time.monotonic()
        held = await self.db(leases.renew_leases, self.owner, list(renewing))
        for run_id, driven in renewing.items():
            if run_id in held:
                driven.renewed_at = renewed_at
            elif self.driven.get(run_id) is driven:
                logger.warning("Worker %s lost the lease on run %s", self.owner, run_id)
                driven.lost.set()
            # else: the run paused or ended while its lease was being renewed, and let go of it


def _guarded(function: Callable[..., Any], *args: Any) -> Any:
    try:
        return function(*args)
    except DatabaseError:
        # A broken connection stays broken: drop it so the next call reconnects.
        connection.close()
        raise


# --- the process's worker and its consumer ---------------------------------------

_current: RunWorker | None = None


def current_worker() -> RunWorker | None:
    return _current


async def running_worker() -> RunWorker:
    """This process's worker, started on the current event loop if it is not running."""
    global _current
    if _current is None or not _current.running:
        _current = RunWorker()
        await _current.start()
    return _current


@asynccontextmanager
async def worker_running(**options: Any):
    """Run a worker as this process's worker for the duration of the block."""
    global _current
    worker = RunWorker(**options)
    previous, _current = _current, worker
    await worker.start()
    try:
        yield worker
    finally:
        await worker.stop()
        _current = previous


class RunWorkerConsumer(AsyncConsumer):
    """Takes `run.start`, `run.resume` and `run.cancel` on the worker channel."""

    # It only listens on the named worker channel: no reply channel of its own, which
    # would be one more receive loop per process on Redis for nothing.
    channel_layer_alias = None

    async def dispatch(self, message: dict) -> None:
        # Never let one message kill the consumer: log, record on the run, carry on.
        try:
            wake = WakeMessage.model_validate(message)
        except ValidationError as error:
            await self._reject(message, error)
            return
        try:
            worker = await running_worker()
            await worker.wake(wake.run_id, wake.type)
        except Exception:
            logger.exception("Could not act on %s for run %s", wake.type, wake.run_id)

    async def _reject(self, message: Any, error: ValidationError) -> None:
        problems = "; ".join(
            f"{'.'.join(str(part) for part in issue['loc']) or 'message'}: {issue['msg']}"
            for issue in error.errors()
        )
        summary = f"Ignored a bad worker message {_preview(message)}: {problems}"
        logger.warning(summary)
        run_id = message.get("run_id") if isinstance(message, dict) else None
        if isinstance(run_id, int) and not isinstance(run_id, bool) and run_id > 0:
            try:
                await sync_to_async(leases.note_bad_message)(run_id, summary)
            except Exception:
                logger.exception("Could not record the bad message on run %s", run_id)


def _preview(message: Any) -> str:
    text = repr(message)
    return text if len(text) <= 200 else text[:200] + "…"
