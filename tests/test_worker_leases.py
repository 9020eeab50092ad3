"""Run leases: exactly one worker drives a run, a dead worker's runs are taken over."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from django.db import connection, connections
from django.utils import timezone

from runs import leases
from runs.actions import do_start_run
from runs.models import Run


def queued_run(case, analyst) -> Run:
    return do_start_run(case, analyst, wake=False)


def set_run(run: Run, **fields) -> Run:
    Run.objects.filter(pk=run.pk).update(**fields)
    run.refresh_from_db()
    return run


def expired() -> timezone.datetime:
    return timezone.now() - timedelta(seconds=1)


@pytest.mark.django_db
def test_a_queued_run_goes_to_the_first_worker_that_claims_it(case, analyst):
    run = queued_run(case, analyst)

    assert leases.claim_run(run.pk, "worker-a") is True
    assert leases.claim_run(run.pk, "worker-b") is False

    run.refresh_from_db()
    assert run.lease_owner == "worker-a"
    assert run.lease_expires_at > timezone.now()


@pytest.mark.django_db
def test_a_dead_workers_expired_lease_is_taken_over(case, analyst):
    run = set_run(
        queued_run(case, analyst),
        status=Run.Status.RESEARCHING,
        lease_owner="dead-worker",
        lease_expires_at=expired(),
    )

    assert leases.claim_run(run.pk, "worker-b") is True
    assert leases.renew_leases("dead-worker", [run.pk]) == set()
    assert leases.renew_leases("worker-b", [run.pk]) == {run.pk}


@pytest.mark.django_db
def test_renewing_moves_the_expiry_forward_only_for_the_owner(case, analyst, settings):
    settings.ATLAS_LEASE_SECONDS = 30
    run = queued_run(case, analyst)
    leases.claim_run(run.pk, "worker-a")
    Run.objects.filter(pk=run.pk).update(lease_expires_at=timezone.now() + timedelta(seconds=2))

    assert leases.renew_leases("worker-b", [run.pk]) == set()
    assert leases.renew_leases("worker-a", [run.pk]) == {run.pk}

    run.refresh_from_db()
    assert run.lease_expires_at > timezone.now() + timedelta(seconds=25)


@pytest.mark.django_db
def test_finished_and_paused_runs_are_not_claimed(case, analyst):
    finished = set_run(queued_run(case, analyst), status=Run.Status.COMPLETED)
    waiting = set_run(queued_run(case, analyst), status=Run.Status.WAITING_FOR_INPUT)
    cancelled_with_resume = set_run(
        queued_run(case, analyst), status=Run.Status.CANCELLED, resume_requested_at=timezone.now()
    )

    for run in (finished, waiting, cancelled_with_resume):
        assert leases.claim_run(run.pk, "worker-a") is False
    assert leases.claim_due_runs("worker-a", limit=10) == []


@pytest.mark.django_db
def test_a_paused_run_with_a_decision_or_a_cancel_needs_a_worker(case, analyst):
    answered = set_run(
        queued_run(case, analyst),
        status=Run.Status.WAITING_FOR_INPUT,
        resume_requested_at=timezone.now(),
    )
    cancelled = set_run(
        queued_run(case, analyst),
        status=Run.Status.AWAITING_REVIEW,
        cancel_requested_at=timezone.now(),
    )

    assert leases.claim_due_runs("worker-a", limit=10) == [answered.pk, cancelled.pk]


@pytest.mark.django_db
def test_the_sweep_takes_lost_and_orphaned_runs_but_leaves_live_leases_alone(case, analyst):
    lost_message = queued_run(case, analyst)
    orphaned = set_run(
        queued_run(case, analyst),
        status=Run.Status.RESEARCHING,
        lease_owner="dead-worker",
        lease_expires_at=expired(),
    )
    held = set_run(
        queued_run(case, analyst),
        status=Run.Status.RESEARCHING,
        lease_owner="live-worker",
        lease_expires_at=timezone.now() + timedelta(seconds=30),
    )

    claimed = leases.claim_due_runs("worker-a", limit=10)

    assert claimed == [lost_message.pk, orphaned.pk]
    held.refresh_from_db()
    assert held.lease_owner == "live-worker"


@pytest.mark.django_db
def test_the_sweep_claims_no_more_than_the_free_slots(case, analyst):
    runs = [queued_run(case, analyst) for _ in range(5)]

    first = leases.claim_due_runs("worker-a", limit=2)
    second = leases.claim_due_runs("worker-b", limit=10)

    assert first == [runs[0].pk, runs[1].pk]
    assert second == [run.pk for run in runs[2:]]
    assert leases.claim_due_runs("worker-c", limit=0) == []


@pytest.mark.django_db
def test_release_hands_the_run_back_and_clears_its_failures(case, analyst):
    run = queued_run(case, analyst)
    leases.claim_run(run.pk, "worker-a")
    Run.objects.filter(pk=run.pk).update(worker_failures=2)

    assert leases.release_lease(run.pk, "worker-b") is False
    assert leases.release_lease(run.pk, "worker-a") is True

    run.refresh_from_db()
    assert (run.lease_owner, run.lease_expires_at, run.worker_failures) == ("", None, 0)


@pytest.mark.django_db
def test_a_crashing_run_is_retried_after_a_back_off_and_given_up_at_the_cap(case, analyst):
    run = queued_run(case, analyst)
    for attempt in range(1, leases.MAX_WORKER_FAILURES + 1):
        assert leases.claim_run(run.pk, "worker-a") is True
        assert leases.record_worker_failure(run.pk, "worker-a", "KeyError: 'x'") == attempt
        run.refresh_from_db()
        assert run.lease_expires_at > timezone.now() + timedelta(seconds=10)
        assert leases.claim_run(run.pk, "worker-b") is False  # backing off
        set_run(run, lease_expires_at=expired())

    run.refresh_from_db()
    assert run.worker_failures == leases.MAX_WORKER_FAILURES
    assert run.last_error.startswith("Workers gave up after 5 attempts")
    assert "KeyError: 'x'" in run.last_error
    assert leases.claim_due_runs("worker-b", limit=10) == []


@pytest.mark.django_db
def test_cancel_requests_are_reported_for_the_runs_asked_about(case, analyst):
    quiet = queued_run(case, analyst)
    cancelled = set_run(queued_run(case, analyst), cancel_requested_at=timezone.now())

    assert leases.cancel_requested([quiet.pk, cancelled.pk]) == {cancelled.pk}
    assert leases.cancel_requested([]) == set()


@pytest.mark.skipif(connection.vendor != "postgresql", reason="needs PostgreSQL row locks")
@pytest.mark.django_db(transaction=True)
def test_two_workers_racing_for_one_run_exactly_one_claims_it(case, analyst):
    for _ in range(20):
        run = queued_run(case, analyst)
        barrier = threading.Barrier(4)
        results: dict[str, object] = {}

        def race(name: str, how: str, run_id: int = run.pk, barrier=barrier, results=results):
            try:
                barrier.wait()
                if how == "message":
                    results[name] = [run_id] if leases.claim_run(run_id, name) else []
                else:
                    results[name] = leases.claim_due_runs(name, limit=5)
            finally:
                connections.close_all()

        threads = [
            threading.Thread(target=race, args=(f"w{i}", "message" if i % 2 else "sweep"))
            for i in range(4)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()

        winners = [name for name, claimed in results.items() if run.pk in claimed]
        assert len(results) == 4
        assert len(winners) == 1
        run.refresh_from_db()
        assert run.lease_owner == winners[0]
        Run.objects.filter(pk=run.pk).update(status=Run.Status.COMPLETED)


@pytest.mark.skipif(connection.vendor != "postgresql", reason="needs PostgreSQL's planner")
@pytest.mark.django_db
def test_the_sweep_query_can_be_served_by_the_partial_sweep_index(case, analyst):
    # With sequential scans priced out, the planner must still find an index plan:
    # possible only if the partial index's condition covers every arm of the sweep.
    due = Run.objects.filter(leases.claimable()).values_list("pk", flat=True)
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")
        plan = due.explain()

    assert "runs_run_sweep_idx" in plan, plan


@pytest.mark.django_db
def test_a_pass_lets_go_of_a_paused_run_but_keeps_one_a_decision_arrived_for(case, analyst):
    paused = set_run(queued_run(case, analyst), status=Run.Status.WAITING_FOR_INPUT)
    answered = set_run(
        queued_run(case, analyst),
        status=Run.Status.WAITING_FOR_INPUT,
        resume_requested_at=timezone.now(),
    )
    for run in (paused, answered):
        set_run(run, lease_owner="worker-a", lease_expires_at=timezone.now() + timedelta(60))

    assert leases.release_lease_if_done(paused.pk, "worker-b") is False, "not its lease"
    assert leases.release_lease_if_done(paused.pk, "worker-a") is True
    assert leases.release_lease_if_done(answered.pk, "worker-a") is False
    paused.refresh_from_db()
    answered.refresh_from_db()
    assert (paused.lease_owner, paused.lease_expires_at) == ("", None)
    assert answered.lease_owner == "worker-a", "it needs another pass under the same lease"


@pytest.fixture
def host_clock(monkeypatch):
    """Moves this host's clock by a number of seconds; the database's stays right."""
    real_now = timezone.now

    def move(seconds: float) -> None:
        monkeypatch.setattr(timezone, "now", lambda: real_now() + timedelta(seconds=seconds))

    return move


@pytest.mark.django_db
def test_a_host_whose_clock_runs_ahead_takes_no_healthy_run(case, analyst, host_clock, settings):
    settings.ATLAS_LEASE_SECONDS = 15
    run = set_run(queued_run(case, analyst), status=Run.Status.RESEARCHING)
    assert leases.claim_run(run.pk, "worker-a")

    host_clock(+120)
    assert leases.claim_run(run.pk, "worker-b") is False
    assert leases.claim_due_runs("worker-b", limit=10) == []
    assert Run.objects.get(pk=run.pk).lease_owner == "worker-a"


@pytest.mark.django_db
def test_a_host_whose_clock_runs_behind_renews_leases_that_stay_live(
    case, analyst, host_clock, settings
):
    settings.ATLAS_LEASE_SECONDS = 15
    run = set_run(queued_run(case, analyst), status=Run.Status.RESEARCHING)
    host_clock(-120)
    assert leases.claim_run(run.pk, "worker-a")
    assert leases.renew_leases("worker-a", [run.pk]) == {run.pk}

    host_clock(0)
    assert leases.claim_run(run.pk, "worker-b") is False
    assert Run.objects.get(pk=run.pk).lease_expires_at > timezone.now() + timedelta(seconds=10)
