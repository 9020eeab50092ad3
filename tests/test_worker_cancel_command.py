"""`manage.py cancel_run`: cancelling from the command line, and refusing bad requests."""

from __future__ import annotations

import io
import time

import pytest
from django.core.management import CommandError, call_command

from reviews.models import HumanDecision
from runs.actions import do_start_run
from runs.models import Run
from tests.case_rows import make_run
from tests.worker_harness import WorkerThread, event_types, scenario, status_of, wait_for


def cancel(*args) -> str:
    out = io.StringIO()
    call_command("cancel_run", *[str(arg) for arg in args], stdout=out)
    return out.getvalue()


@pytest.mark.django_db(transaction=True)
def test_it_cancels_a_run_in_the_middle_of_a_tool_call_on_the_worker_holding_it(case, analyst):
    worker = WorkerThread(sweeping=False, lease_seconds=5)
    try:
        slow = scenario(case, tool_faults={"resolve_entity": ["slow:5"]})
        run = do_start_run(case, analyst, scenario=slow, wake=False)
        worker.send({"type": "run.start", "run_id": run.pk})
        wait_for(lambda: "tool_started" in event_types(run))

        asked = time.monotonic()
        output = cancel(run.pk, "--user", "analyst")

        assert time.monotonic() - asked < 1.5
        assert f"Run {run.pk}: cancelled (cancelled)" in output
        assert status_of(run) == Run.Status.CANCELLED
        decision = HumanDecision.objects.get(run=run, kind=HumanDecision.Kind.CANCEL)
        assert decision.actor == analyst
    finally:
        worker.stop()


@pytest.mark.django_db
def test_it_cancels_a_queued_run_no_worker_holds(case, analyst):
    run = do_start_run(case, analyst, wake=False)

    output = cancel(run.pk, "--user", "analyst", "--wait", "0")

    assert "cancelled" in output
    assert status_of(run) == Run.Status.CANCELLED


@pytest.mark.django_db
def test_it_says_so_when_the_run_had_already_ended(case, analyst):
    run = do_start_run(case, analyst, wake=False)
    Run.objects.filter(pk=run.pk).update(status=Run.Status.COMPLETED)

    assert "had already ended: completed" in cancel(run.pk, "--user", "analyst")


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("who", "message"),
    [
        ("nobody", "There is no user 'nobody'"),
        ("outsider", "outsider is not a member of Demo Bank"),
        ("reviewer", "reviewer is a reviewer; only an analyst or admin cancels"),
    ],
)
def test_it_refuses_people_who_may_not_cancel_the_run(
    case, analyst, reviewer, outsider, who, message
):
    run = do_start_run(case, analyst, wake=False)

    with pytest.raises(CommandError, match=message):
        cancel(run.pk, "--user", who)

    assert status_of(run) == Run.Status.QUEUED
    assert Run.objects.get(pk=run.pk).cancel_requested_at is None


@pytest.mark.django_db
@pytest.mark.parametrize("reason", ["finish_proposed", "max_iterations", "no_progress"])
def test_it_refuses_a_run_waiting_for_a_reviewer_as_the_page_does(case, analyst, reason):
    """A packet or an escalation in a reviewer's queue is theirs to end: cancelling it here
    would withdraw it from review unseen."""
    run = make_run(case, status="awaiting_review", reason=reason)

    with pytest.raises(CommandError, match="This run waits for a reviewer"):
        cancel(run.pk, "--user", "analyst")

    run.refresh_from_db()
    assert run.status == Run.Status.AWAITING_REVIEW and run.cancel_requested_at is None
    assert not HumanDecision.objects.exists()


@pytest.mark.django_db
def test_it_records_the_cancel_as_made_from_the_command_line(case, analyst):
    run = do_start_run(case, analyst, wake=False)

    cancel(run.pk, "--user", "analyst", "--wait", "0")

    decision = HumanDecision.objects.get(run=run, kind=HumanDecision.Kind.CANCEL)
    assert decision.reason == "Cancelled from the command line"


@pytest.mark.django_db
def test_it_refuses_an_unknown_run_and_a_negative_wait(case, analyst):
    with pytest.raises(CommandError, match="There is no run 424242"):
        cancel(424242, "--user", "analyst")
    run = do_start_run(case, analyst, wake=False)
    with pytest.raises(CommandError, match="--wait must be 0 or more"):
        cancel(run.pk, "--user", "analyst", "--wait", "-1")
