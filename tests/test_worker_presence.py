"""A worker's presence lock: a dead worker is known at once, a live one never looks gone."""

from __future__ import annotations

import time

import pytest
from django.conf import settings
from django.db import connection

from runs.actions import do_start_run
from runs.command_presence import CommandHeartbeat
from runs.leases import LOCAL_HOLD_LEASES, claim_due_runs, claim_from_gone_holders, lease_expiry
from runs.models import Run
from runs.presence import WorkerPresence, lock_key, worker_is_gone
from tests.worker_harness import WorkerThread, wait_for

pytestmark = [
    pytest.mark.skipif(connection.vendor != "postgresql", reason="needs PostgreSQL advisory locks"),
    pytest.mark.django_db(transaction=True),
]

OWNER = "worker:host-a:4242:beef01"


@pytest.fixture
def presence():
    held = WorkerPresence(OWNER)
    yield held
    held.withdraw()


def test_a_running_worker_is_present_and_a_stopped_one_is_gone(presence):
    assert worker_is_gone(OWNER) is True  # it never showed up

    assert presence.keep() is True
    assert worker_is_gone(OWNER) is False
    assert presence.keep() is True, "asking did not take the lock from it"

    presence.withdraw()
    assert worker_is_gone(OWNER) is True


def drop_presence_session(owner: str) -> None:
    """What a database restart or a network cut does to the worker's presence session."""
    key = lock_key(owner) & 0xFFFFFFFFFFFFFFFF
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory'"
            " AND classid = %s AND objid = %s AND objsubid = 1",
            [key >> 32, key & 0xFFFFFFFF],
        )
        assert cursor.fetchall() == [(True,)]
    # The backend ends a moment after it is told to.
    wait_for(lambda: worker_is_gone(owner), timeout=5)


def test_a_worker_whose_session_the_database_dropped_takes_its_lock_again(presence):
    presence.keep()
    drop_presence_session(OWNER)

    assert presence.keep() is True
    assert worker_is_gone(OWNER) is False


def test_only_worker_processes_and_headless_commands_can_be_gone():
    for holder in ("local:host-a:4242", "cancel-7-3", "worker-a", ""):
        assert worker_is_gone(holder) is False
    assert worker_is_gone("headless:host-a:4242") is True  # nobody holds its lock


def test_a_run_worker_is_present_from_its_start_to_its_stop():
    worker = WorkerThread(sweeping=False)
    try:
        assert worker.worker.owner.startswith("worker:")
        assert worker_is_gone(worker.worker.owner) is False
    finally:
        worker.stop()
    assert worker_is_gone(worker.worker.owner) is True


HEADLESS_OWNER = "headless:host-a:5151"


def _held_by_a_command(case, analyst, owner: str, renewed_leases_ago: int = 0) -> Run:
    """A run a `run_case` process holds for the next ten minutes, as it does while it runs,
    last renewed `renewed_leases_ago` leases ago."""
    run = do_start_run(case, analyst, wake=False)
    lease = settings.ATLAS_LEASE_SECONDS
    Run.objects.filter(pk=run.pk).update(
        status=Run.Status.RESEARCHING,
        lease_owner=owner,
        lease_expires_at=lease_expiry(lease * (LOCAL_HOLD_LEASES - renewed_leases_ago)),
    )
    return run


def test_the_sweep_takes_a_run_from_a_headless_command_that_died(case, analyst):
    """A killed `run_case` held its run for ten minutes; its presence lock went with it and
    it stopped renewing its hold, so the sweep takes the run after a lease, not ten
    minutes."""
    run = _held_by_a_command(case, analyst, HEADLESS_OWNER, renewed_leases_ago=2)
    assert claim_due_runs("worker:host-b:1:aa", 5) == []  # the hold has not run out

    assert claim_from_gone_holders("worker:host-b:1:aa", 5) == [run.pk]
    run.refresh_from_db()
    assert (run.lease_owner, run.previous_lease_owner) == ("worker:host-b:1:aa", HEADLESS_OWNER)


def test_the_sweep_leaves_a_run_whose_headless_command_is_alive(case, analyst):
    alive = WorkerPresence(HEADLESS_OWNER)
    try:
        assert alive.keep()
        run = _held_by_a_command(case, analyst, HEADLESS_OWNER)
        assert claim_from_gone_holders("worker:host-b:1:aa", 5) == []
        run.refresh_from_db()
        assert run.lease_owner == HEADLESS_OWNER
    finally:
        alive.withdraw()


def test_the_sweep_leaves_a_run_whose_command_renews_its_hold_though_its_lock_is_gone(
    case, analyst
):
    """The database dropped a live command's presence session (an idle timeout, a network
    cut): its lock is gone until its next beat, but its hold is fresh, and the run stays
    its own."""
    run = _held_by_a_command(case, analyst, HEADLESS_OWNER, renewed_leases_ago=0)
    assert worker_is_gone(HEADLESS_OWNER)
    assert claim_from_gone_holders("worker:host-b:1:aa", 5) == []
    run.refresh_from_db()
    assert run.lease_owner == HEADLESS_OWNER


def test_a_commands_heartbeat_keeps_its_lock_and_renews_its_hold(case, analyst, settings):
    settings.ATLAS_LEASE_SECONDS = 0.6
    run = _held_by_a_command(case, analyst, HEADLESS_OWNER, renewed_leases_ago=3)
    stale_until = Run.objects.get(pk=run.pk).lease_expires_at
    presence = WorkerPresence(HEADLESS_OWNER)
    try:
        with CommandHeartbeat(run.pk, HEADLESS_OWNER, presence):
            time.sleep(0.5)
            assert not worker_is_gone(HEADLESS_OWNER)
            assert Run.objects.get(pk=run.pk).lease_expires_at > stale_until
            assert claim_from_gone_holders("worker:host-b:1:aa", 5) == []
            drop_presence_session(HEADLESS_OWNER)  # taken again on the next beat
            wait_for(lambda: not worker_is_gone(HEADLESS_OWNER), timeout=5)
    finally:
        presence.withdraw()
    assert Run.objects.get(pk=run.pk).lease_owner == HEADLESS_OWNER
