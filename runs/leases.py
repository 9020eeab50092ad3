"""Who drives a run right now: a lease on the run's row.

A worker owns a run while `lease_owner` is its name and `lease_expires_at` is in the
future. Every claim is a compare-and-set update, so two workers can never both win; a
worker that dies simply stops renewing and its lease runs out.

Lease times are set and compared by the database's clock, never a host's: workers on
hosts whose clocks disagree still agree on whether a lease has run out.
"""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Iterable
from datetime import timedelta

from django.conf import settings
from django.db import connection, transaction
from django.db.models import F, Q
from django.db.models.expressions import CombinedExpression
from django.db.models.functions import Now

from runs.models import Run
from runs.presence import worker_is_gone

# After this many crashes of the code driving a run, workers stop picking it up and the
# run waits for an operator (its last_error says why).
MAX_WORKER_FAILURES = 5


# The owner of the runs this process drives itself (run_case, tests), not through workers.
THIS_PROCESS = f"local:{socket.gethostname()}:{os.getpid()}"
# The owner of a run a headless command (run_case) drives: it shows it is alive as a
# worker does (runs.presence), so a cancel after the command died ends the run at once.
HEADLESS_PREFIX = "headless:"
HEADLESS = f"{HEADLESS_PREFIX}{socket.gethostname()}:{os.getpid()}"
# How long such a hold keeps workers' sweeps away: a run_case that dies leaves the run to
# the workers after this.
LOCAL_HOLD_LEASES = 40

# A run nobody holds; a clean pass also clears its failure count.
RELEASED = {"lease_owner": "", "lease_expires_at": None, "worker_failures": 0}

# The holder of a run that waits until its model endpoint said to call again: no worker
# slot waits with it, and the sweep takes it when the lease runs out (a cancel, at once).
WAITING_FOR_MODEL = "waiting:model-endpoint"


def lease_expiry(seconds: float | None = None) -> CombinedExpression:
    """The database's now plus a lease (or `seconds`), for an UPDATE."""
    return Now() + timedelta(seconds=settings.ATLAS_LEASE_SECONDS if seconds is None else seconds)


def local_hold_expiry() -> CombinedExpression:
    return lease_expiry(settings.ATLAS_LEASE_SECONDS * LOCAL_HOLD_LEASES)


def hold_here(run_id: int, owner: str = THIS_PROCESS) -> bool:
    """Hold a run for this process (as `owner`) unless a worker (or another process)
    holds it."""
    held = Run.objects.filter(pk=run_id, lease_owner__in=["", THIS_PROCESS, owner]).update(
        lease_owner=owner, lease_expires_at=local_hold_expiry()
    )
    return held == 1


class LocalHold:
    """This process's hold on a run it drives itself, renewed as the run goes (at most
    once a lease) so that a headless run longer than the hold is not swept up by a worker.
    Called between steps: False once someone else holds the run, and the driving stops."""

    def __init__(self, run_id: int, owner: str = THIS_PROCESS) -> None:
        self.run_id = run_id
        self.owner = owner
        self.renewed_at = monotonic()

    def __call__(self) -> bool:
        if monotonic() - self.renewed_at < settings.ATLAS_LEASE_SECONDS:
            return True
        if not hold_here(self.run_id, self.owner):
            return False
        self.renewed_at = monotonic()
        return True


def monotonic() -> float:
    return time.monotonic()


def needs_work() -> Q:
    """Runs a worker has something to do for: start, continue, apply a decision, cancel."""
    return ~Q(status__in=Run.TERMINAL_STATUSES) & (
        Q(status__in=Run.ACTIVE_STATUSES) | has_a_request()
    )


def is_free() -> Q:
    return Q(lease_owner="") | Q(lease_expires_at__isnull=True) | Q(lease_expires_at__lt=Now())


def has_a_request() -> Q:
    """A person asked for something since the run last moved: a decision or a cancel."""
    return Q(resume_requested_at__isnull=False) | Q(cancel_requested_at__isnull=False)


def claimable() -> Q:
    # A run waiting for its model endpoint is taken at once for what a person asked.
    asked_while_waiting = Q(lease_owner=WAITING_FOR_MODEL) & has_a_request()
    return (
        needs_work()
        & (is_free() | asked_while_waiting)
        & Q(worker_failures__lt=MAX_WORKER_FAILURES)
    )


def taken_by(owner: str) -> dict:
    """The columns of a claim. The previous holder is read in the same UPDATE, from the row
    as it was (SQL reads every right-hand side from the old row)."""
    return {
        "previous_lease_owner": F("lease_owner"),
        "lease_owner": owner,
        "lease_expires_at": lease_expiry(),
    }


def was_waiting_for_model(run: Run) -> bool:
    """The current holder took the run from a planned wait for its model endpoint, not
    from a worker that stopped before handing it back."""
    return run.previous_lease_owner == WAITING_FOR_MODEL


def claim_run(run_id: int, owner: str) -> bool:
    """Take one run if it needs work and nobody holds it (the wake-up message path)."""
    claimed = Run.objects.filter(claimable(), pk=run_id).update(**taken_by(owner))
    return claimed == 1


def take_from_gone_worker(run_id: int, owner: str) -> bool:
    """Take a run whose lease is held by a worker process that died (runs.presence), without
    waiting for the lease to run out."""
    holder = Run.objects.filter(pk=run_id).values_list("lease_owner", flat=True).first()
    if not holder or not worker_is_gone(holder):
        return False
    taken = Run.objects.filter(pk=run_id, lease_owner=holder).update(**taken_by(owner))
    return taken == 1


def claim_due_runs(owner: str, limit: int, exclude: Iterable[int] = ()) -> list[int]:
    """The sweep's claim: up to `limit` runs that need work and have no live lease."""
    if limit <= 0:
        return []
    with transaction.atomic():
        due = Run.objects.filter(claimable()).exclude(pk__in=list(exclude)).order_by("id")
        if connection.features.has_select_for_update_skip_locked:
            # Every worker sweeps at once: skip rows another sweeper is claiming right now
            # instead of queueing behind its lock and then losing the compare-and-set.
            due = due.select_for_update(skip_locked=True)
        run_ids = list(due.values_list("pk", flat=True)[:limit])
        if not run_ids:
            return []
        claimed = Run.objects.filter(claimable(), pk__in=run_ids).update(**taken_by(owner))
        if claimed == len(run_ids):
            return run_ids
        return list(
            Run.objects.filter(pk__in=run_ids, lease_owner=owner)
            .order_by("id")
            .values_list("pk", flat=True)
        )


def claim_from_gone_holders(owner: str, limit: int, exclude: Iterable[int] = ()) -> list[int]:
    """Up to `limit` runs that need work, held by headless commands that died: a `run_case`
    killed mid-run holds its run for LOCAL_HOLD_LEASES leases, which no sweep would
    otherwise take before they run out. Died means its presence lock is gone (runs.presence;
    only PostgreSQL knows) and its hold has not been renewed for a lease."""
    if limit <= 0 or connection.vendor != "postgresql":
        return []
    # A live command renews its hold a few times a lease (runs.command_presence): one not
    # renewed for a lease is a command that stopped, not one whose presence session the
    # database dropped a moment ago.
    not_renewed = lease_expiry(settings.ATLAS_LEASE_SECONDS * (LOCAL_HOLD_LEASES - 1))
    holders = (
        Run.objects.filter(
            needs_work(),
            lease_owner__startswith=HEADLESS_PREFIX,
            lease_expires_at__lt=not_renewed,
        )
        .exclude(pk__in=list(exclude))
        .values_list("pk", "lease_owner")
        .order_by("id")
    )
    taken: list[int] = []
    for run_id, holder in holders[: limit * 4]:
        if len(taken) == limit:
            break
        if worker_is_gone(holder) and take_from_gone_worker(run_id, owner):
            taken.append(run_id)
    return taken


def renew_leases(owner: str, run_ids: Iterable[int]) -> set[int]:
    """Extend this worker's leases; returns the runs it still holds."""
    run_ids = list(run_ids)
    if not run_ids:
        return set()
    held = Run.objects.filter(pk__in=run_ids, lease_owner=owner)
    held.update(lease_expires_at=lease_expiry())
    return set(held.values_list("pk", flat=True))


def release_lease(run_id: int, owner: str) -> bool:
    """Let go of a run that waits or ended; a clean pass also clears its failure count."""
    return Run.objects.filter(pk=run_id, lease_owner=owner).update(**RELEASED) == 1


def park_until_model_retry(run_id: int, owner: str, seconds: float) -> bool:
    """Hand a run back until its model endpoint's Retry-After, instead of waiting in a
    worker's slot. A clean pass, so its failure count is cleared. Refused while a request
    waits, so the holder takes it now instead of leaving it until the retry."""
    parked = Run.objects.filter(~has_a_request(), pk=run_id, lease_owner=owner).update(
        lease_owner=WAITING_FOR_MODEL, lease_expires_at=lease_expiry(seconds), worker_failures=0
    )
    return parked == 1


def is_parked(run_id: int) -> bool:
    return Run.objects.filter(pk=run_id, lease_owner=WAITING_FOR_MODEL).exists()


def record_worker_failure(run_id: int, owner: str, message: str) -> int:
    """Keep the lease for a back-off window, so the run is retried later, not in a loop.

    Returns the run's failure count (0 if the run is gone or no longer ours).
    """
    held = Run.objects.filter(pk=run_id, lease_owner=owner)
    row = held.values_list("worker_failures", flat=True).first()
    if row is None:
        return 0
    failures = row + 1
    backoff = settings.ATLAS_LEASE_SECONDS * (2 ** min(failures, 6))
    if failures >= MAX_WORKER_FAILURES:
        message = f"Workers gave up after {failures} attempts; an operator must look. {message}"
    held.update(
        worker_failures=F("worker_failures") + 1,
        last_error=message[:4000],
        lease_expires_at=lease_expiry(backoff),
    )
    return failures


def cancel_requested(run_ids: Iterable[int]) -> set[int]:
    run_ids = list(run_ids)
    if not run_ids:
        return set()
    return set(
        Run.objects.filter(pk__in=run_ids, cancel_requested_at__isnull=False).values_list(
            "pk", flat=True
        )
    )


def release_lease_if_done(run_id: int, owner: str) -> bool:
    """After a pass: let go of the run unless a decision or a cancel arrived meanwhile, in
    one statement. False if it needs another pass (or is no longer ours)."""
    released = Run.objects.filter(~needs_work(), pk=run_id, lease_owner=owner).update(**RELEASED)
    return released == 1


def note_bad_message(run_id: int, message: str) -> bool:
    """Record a wake-up message that could not be acted on, on the run it names."""
    return Run.objects.filter(pk=run_id).update(last_error=message[:4000]) == 1
