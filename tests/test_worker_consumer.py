"""The worker consumer: start, resume and cancel messages; bad messages; crashing runs."""

from __future__ import annotations

import threading
import time

import pytest

from reviews.actions import do_sign_off
from reviews.models import ReviewItem
from runs import leases
from runs.actions import do_request_cancel, do_start_run
from runs.models import Run, ToolCall
from tests.worker_harness import WorkerThread, event_types, scenario, status_of, wait_for

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def worker():
    # No sweep: whatever happens here happens because of a message. With no sweep to take
    # up a run the worker let go of, a lease long enough that a loaded machine's late
    # renewal never makes the worker think it lost the run.
    thread = WorkerThread(sweeping=False, lease_seconds=30)
    yield thread
    thread.stop()


def paused(run: Run) -> bool:
    return status_of(run) not in Run.ACTIVE_STATUSES


def test_a_start_message_drives_the_run_to_its_pause_and_releases_it(worker, case, analyst):
    run = do_start_run(case, analyst, wake=False)
    time.sleep(0.3)
    assert status_of(run) == Run.Status.QUEUED  # nothing happens without the message

    worker.send({"type": "run.start", "run_id": run.pk})

    wait_for(lambda: paused(run))
    run.refresh_from_db()
    assert (run.status, run.termination_reason) == ("awaiting_review", "finish_proposed")
    types = event_types(run)
    assert types[0] == "run_started"
    assert types[-1] == "finish_proposed"
    assert "run_resumed" not in types
    wait_for(lambda: not Run.objects.get(pk=run.pk).lease_owner)
    wait_for(lambda: worker.worker.driven == {})


def test_a_resume_message_applies_the_sign_off(worker, case, analyst, reviewer):
    run = do_start_run(case, analyst, wake=False)
    worker.send({"type": "run.start", "run_id": run.pk})
    wait_for(lambda: paused(run))
    # Once handed back: a worker still holding the run takes a sign-off up at once.
    wait_for(lambda: not Run.objects.get(pk=run.pk).lease_owner)
    signoff = wait_for(
        lambda: ReviewItem.objects.filter(run=run, kind=ReviewItem.Kind.SIGNOFF).first()
    )

    do_sign_off(signoff, reviewer, approve=True, reason="Sources check out.")
    assert Run.objects.get(pk=run.pk).resume_requested_at is not None
    worker.send({"type": "run.resume", "run_id": run.pk})

    wait_for(lambda: status_of(run) == Run.Status.COMPLETED)
    run.refresh_from_db()
    assert run.termination_reason == "packet_approved"
    assert run.resume_requested_at is None
    assert event_types(run)[-1] == "run_completed"


def test_a_cancel_reaches_a_run_in_a_slow_tool_call_within_a_second(worker, case, analyst):
    slow = scenario(case, tool_faults={"resolve_entity": ["slow:5"]})
    run = do_start_run(case, analyst, scenario=slow, wake=False)
    worker.send({"type": "run.start", "run_id": run.pk})
    wait_for(lambda: "tool_started" in event_types(run))

    asked = time.monotonic()
    # The channel message this sends goes nowhere here: the worker must notice by itself.
    do_request_cancel(Run.objects.get(pk=run.pk), analyst)
    wait_for(lambda: status_of(run) == Run.Status.CANCELLED, timeout=3, every=0.01)
    took = time.monotonic() - asked

    assert took < 1.0
    run.refresh_from_db()
    assert run.termination_reason == "cancelled"
    assert event_types(run)[-1] == "run_cancelled"
    assert ToolCall.objects.get(run=run).effect_status in ("cancelled", "unknown")


def test_a_cancel_message_for_a_run_it_drives_stops_it_at_once(case, analyst):
    # The database poll is slowed to a crawl: only the message can stop the run in time.
    thread = WorkerThread(sweeping=False, lease_seconds=5, poll_seconds=30)
    try:
        slow = scenario(case, tool_faults={"resolve_entity": ["slow:5"]})
        run = do_start_run(case, analyst, scenario=slow, wake=False)
        thread.send({"type": "run.start", "run_id": run.pk})
        wait_for(lambda: "tool_started" in event_types(run))
        Run.objects.filter(pk=run.pk).update(cancel_requested_at=time_now())

        asked = time.monotonic()
        thread.send({"type": "run.cancel", "run_id": run.pk})
        wait_for(lambda: status_of(run) == Run.Status.CANCELLED, timeout=3, every=0.01)

        assert time.monotonic() - asked < 1.0
    finally:
        thread.stop()


def time_now():
    from django.utils import timezone

    return timezone.now()


@pytest.mark.parametrize(
    "message",
    [
        {"type": "run.start"},
        {"type": "run.start", "run_id": "seven"},
        {"type": "run.start", "run_id": -1},
        {"type": "run.start", "run_id": True},
        {"type": "run.explode", "run_id": 1},
        {"type": "run.start", "run_id": 987654},  # no such run
    ],
    ids=["no-run-id", "text-id", "negative-id", "bool-id", "unknown-type", "unknown-run"],
)
def test_a_bad_message_is_logged_and_the_consumer_keeps_going(
    worker, case, analyst, message, caplog
):
    run = do_start_run(case, analyst, wake=False)

    worker.send(message)
    worker.send({"type": "run.start", "run_id": run.pk})

    wait_for(lambda: paused(run))
    assert worker.consumer_alive()
    wait_for(
        lambda: any(
            "bad worker message" in record.message or "does not exist" in record.message
            for record in caplog.records
        )
    )


def test_a_bad_message_naming_a_run_is_recorded_on_that_run(worker, case, analyst):
    run = do_start_run(case, analyst, wake=False)

    worker.send({"type": "run.restart", "run_id": run.pk})

    wait_for(lambda: Run.objects.get(pk=run.pk).last_error)
    run.refresh_from_db()
    assert "Ignored a bad worker message" in run.last_error
    assert "run.restart" in run.last_error
    assert run.status == Run.Status.QUEUED
    assert worker.consumer_alive()


def test_a_run_that_crashes_the_worker_is_recorded_and_backed_off(worker, case, analyst):
    broken = do_start_run(case, analyst, wake=False)
    Run.objects.filter(pk=broken.pk).update(state={"not": "a state"})
    healthy = do_start_run(case, analyst, wake=False)

    worker.send({"type": "run.start", "run_id": broken.pk})
    wait_for(lambda: Run.objects.get(pk=broken.pk).worker_failures == 1)
    worker.send({"type": "run.start", "run_id": healthy.pk})

    wait_for(lambda: paused(healthy))
    broken.refresh_from_db()
    assert broken.status == Run.Status.QUEUED
    assert "ValidationError" in broken.last_error
    # It keeps its lease for a back-off window: no worker retries it in a tight loop.
    assert leases.claim_run(broken.pk, "another-worker") is False
    assert worker.consumer_alive()


def test_a_full_worker_leaves_the_run_for_a_sweep(case, analyst):
    thread = WorkerThread(sweeping=False, concurrency=1, lease_seconds=5)
    try:
        slow = scenario(case, tool_faults={"resolve_entity": ["slow:2"]})
        busy = do_start_run(case, analyst, scenario=slow, wake=False)
        waiting = do_start_run(case, analyst, wake=False)
        thread.send({"type": "run.start", "run_id": busy.pk})
        wait_for(lambda: "tool_started" in event_types(busy))

        thread.send({"type": "run.start", "run_id": waiting.pk})
        time.sleep(0.3)

        assert status_of(waiting) == Run.Status.QUEUED
        assert Run.objects.get(pk=waiting.pk).lease_owner == ""
        wait_for(lambda: paused(busy))
    finally:
        thread.stop()


def test_the_sweep_runs_a_case_whose_wake_up_was_lost(case, analyst):
    run = do_start_run(case, analyst, wake=False)
    thread = WorkerThread(sweep_seconds=0.2, lease_seconds=5)
    try:
        wait_for(lambda: paused(run))
        run.refresh_from_db()
        assert run.termination_reason == "finish_proposed"
    finally:
        thread.stop()


def test_stopping_a_worker_hands_its_runs_back(case, analyst):
    slow = scenario(case, tool_faults={"resolve_entity": ["slow:0.5"]})
    run = do_start_run(case, analyst, scenario=slow, wake=False)
    thread = WorkerThread(sweeping=False, lease_seconds=5)
    thread.send({"type": "run.start", "run_id": run.pk})
    wait_for(lambda: "tool_started" in event_types(run))

    thread.stop()

    run.refresh_from_db()
    assert run.status == Run.Status.RESEARCHING
    assert run.lease_owner == ""  # another worker's sweep can take it at once
    successor = WorkerThread(sweep_seconds=0.2, lease_seconds=5)
    try:
        wait_for(lambda: paused(run))
        assert "run_resumed" in event_types(run)
    finally:
        successor.stop()


def test_a_full_worker_pulls_the_waiting_run_as_soon_as_a_slot_frees(case, analyst):
    thread = WorkerThread(concurrency=1, lease_seconds=5, sweep_seconds=60)
    try:
        slow = scenario(case, tool_faults={"resolve_entity": ["slow:1"]})
        busy = do_start_run(case, analyst, scenario=slow, wake=False)
        thread.send({"type": "run.start", "run_id": busy.pk})
        wait_for(lambda: "tool_started" in event_types(busy))
        waiting = do_start_run(case, analyst, wake=False)
        thread.send({"type": "run.start", "run_id": waiting.pk})  # dropped: no free slot

        wait_for(lambda: paused(busy))
        freed = time.monotonic()
        wait_for(lambda: paused(waiting), timeout=10)

        assert time.monotonic() - freed < 5  # long before the next 60 s tick
    finally:
        thread.stop()


def test_a_run_whose_database_connection_broke_has_the_failure_recorded(
    worker, case, analyst, monkeypatch
):
    """The connection that broke mid-run is not used again to record the failure: a new
    one records it, instead of the run waiting out its lease with no error shown."""
    from django.db import connection

    from runs import worker as worker_module

    def connection_lost(run_id, **options):
        connection.connection.close()  # the server ended the session under us
        return Run.objects.get(pk=run_id).status

    monkeypatch.setattr(worker_module, "advance_run", connection_lost)
    run = do_start_run(case, analyst, wake=False)
    worker.send({"type": "run.start", "run_id": run.pk})

    wait_for(lambda: Run.objects.get(pk=run.pk).worker_failures == 1)
    assert "Error" in Run.objects.get(pk=run.pk).last_error


def test_a_stopping_worker_keeps_renewing_the_lease_of_a_step_still_running(
    case, analyst, settings
):
    """Until its last step ends the worker still drives the run: its lease must not run out
    meanwhile, or another worker's sweep would run the same tool call again beside it."""
    from django.db.models.functions import Now

    settings.ATLAS_LEASE_SECONDS = 1
    slow = scenario(case, tool_faults={"resolve_entity": ["slow:3"]})
    run = do_start_run(case, analyst, scenario=slow, wake=False)
    thread = WorkerThread(sweeping=False, lease_seconds=1)
    thread.send({"type": "run.start", "run_id": run.pk})
    wait_for(lambda: "tool_started" in event_types(run))

    stopping = threading.Thread(target=thread.stop)
    stopping.start()
    time.sleep(2)  # two leases into the three-second tool
    held = Run.objects.filter(pk=run.pk, lease_expires_at__gt=Now()).exists()
    stopping.join(20)

    assert held, "the lease ran out while the step was still running"
    run.refresh_from_db()
    assert run.lease_owner == ""  # handed back once the step ended
    assert "tool_succeeded" in event_types(run)
