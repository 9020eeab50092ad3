"""The sweep every worker runs: nothing waits forever for a message that was lost.

Every `ATLAS_SWEEP_SECONDS` a worker with free slots claims runs that need work and have no
live lease: queued runs whose wake-up never arrived, runs with a decision to apply
(`resume_requested_at`) or a cancel to carry out, and `researching` runs whose worker died
(its lease expired), or held by a `run_case` process that died. A worker also sweeps as soon as one of its runs pauses or ends, so
queued work flows to free slots without waiting for a tick. The claim itself is in `runs.leases`; any number of workers can sweep
at once. Every few minutes the sweep also clears documents the new-case form kept for a
form that was never sent again (`PendingUpload`), once they have expired.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from typing import TYPE_CHECKING

from runs.leases import claim_due_runs, claim_from_gone_holders
from runs.models import PendingUpload

if TYPE_CHECKING:
    from runs.worker import RunWorker

logger = logging.getLogger(__name__)

PENDING_UPLOADS_CLEARED_EVERY_SECONDS = 300
PENDING_UPLOADS_CLEARED_AT_ONCE = 100


async def sweep_once(worker: RunWorker) -> list[int]:
    """Claim what this worker has room for and start driving it; returns the run ids."""
    if not worker.sweeping or worker.free_slots <= 0:
        return []
    claimed = await worker.db(claim_due_runs, worker.owner, worker.free_slots, list(worker.driven))
    room = worker.free_slots - len(claimed)
    claimed += await worker.db(
        claim_from_gone_holders, worker.owner, room, [*worker.driven, *claimed]
    )
    for run_id in claimed:
        logger.info("Sweep: worker %s picked up run %s", worker.owner, run_id)
        worker.begin_claimed(run_id)
    return claimed


def clear_expired_pending_uploads() -> int:
    """Delete expired kept documents and their files (a case's documents are copies, which
    stay); returns how many. Two workers may race to one: deleting it twice is harmless."""
    expired = list(PendingUpload.objects.expired()[:PENDING_UPLOADS_CLEARED_AT_ONCE])
    for pending in expired:
        pending.discard()
    return len(expired)


async def sweep_forever(worker: RunWorker) -> None:
    """Sweep every `sweep_seconds`, and at once whenever a slot frees up, so a busy worker
    pulls the next queued run itself instead of leaving it until the next tick."""
    pending_uploads_cleared_at = 0.0
    while True:
        worker.sweep_wanted.clear()
        try:
            await sweep_once(worker)
            if (
                time.monotonic() - pending_uploads_cleared_at
                >= PENDING_UPLOADS_CLEARED_EVERY_SECONDS
            ):
                pending_uploads_cleared_at = time.monotonic()
                await worker.db(clear_expired_pending_uploads)
        except asyncio.CancelledError:
            raise
        except Exception:
            logger.exception("Sweep failed in worker %s; trying again", worker.owner)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(worker.sweep_wanted.wait(), worker.sweep_seconds)
