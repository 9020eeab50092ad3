"""A model endpoint that asks the run to call again later: the worker hands the run back
until then instead of holding a slot, and a cancel still ends it at once."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from django.utils import timezone

from atlas.runtime.memory import MemoryCancelSignal
from runs import execution, leases
from runs.actions import do_request_cancel, do_start_run
from runs.models import Run
from tests.worker_harness import WorkerThread, event_types, status_of, wait_for

pytestmark = pytest.mark.django_db(transaction=True)

SLOW_DOWN = (429, {"error": {"message": "rate limited"}}, {"Retry-After": "60"})


@pytest.fixture
def endpoint(server, settings):
    settings.OPENAI_BASE_URL = server.base_url
    return server


def lease_owner(run: Run) -> str:
    return Run.objects.values_list("lease_owner", flat=True).get(pk=run.pk)


def test_a_long_retry_after_frees_the_workers_slot_and_a_cancel_still_ends_the_run(
    endpoint, case, analyst
):
    endpoint.responses = [SLOW_DOWN] * 3
    run = do_start_run(case, analyst, model_name="openai:gpt-test", wake=False)
    thread = WorkerThread(sweeping=False, lease_seconds=5)
    try:
        thread.send({"type": "run.start", "run_id": run.pk})
        wait_for(lambda: lease_owner(run) == leases.WAITING_FOR_MODEL)
        wait_for(lambda: thread.worker.driven == {})

        run.refresh_from_db()
        assert run.status == Run.Status.RESEARCHING and len(endpoint.requests) == 1
        assert 50 < (run.lease_expires_at - timezone.now()).total_seconds() <= 60
        failed = run.events.get(type="model_failed").data
        assert failed["retry_after_seconds"] == 60

        run = do_request_cancel(run, analyst)
        assert (run.status, run.termination_reason) == ("cancelled", "cancelled")
        assert run.lease_owner == "" and len(endpoint.requests) == 1
    finally:
        thread.stop()


def slow_then_asks(endpoint, monkeypatch, retry_after: str) -> None:
    """The endpoint says to call again after `retry_after` seconds, then asks a question.
    The call's own back-off is shorter than that wait, so it gives the wait to the run."""
    configured = execution.openai_options
    monkeypatch.setattr(execution, "openai_options", lambda: {**configured(), "backoff_max": 0.1})
    endpoint.responses = [
        (429, {"error": "rate limited"}, {"Retry-After": retry_after}),
        endpoint.completion({"kind": "ask_human", "question": "Which Acme do you mean?"}),
    ]


def test_the_sweep_takes_the_run_up_again_when_the_endpoint_said_to(
    endpoint, case, analyst, monkeypatch
):
    slow_then_asks(endpoint, monkeypatch, retry_after="1.5")
    run = do_start_run(case, analyst, model_name="openai:gpt-test", wake=False)
    thread = WorkerThread(sweep_seconds=0.2, lease_seconds=5)
    try:
        wait_for(lambda: lease_owner(run) == leases.WAITING_FOR_MODEL)
        wait_for(lambda: status_of(run) == Run.Status.WAITING_FOR_INPUT, timeout=10)
    finally:
        thread.stop()

    assert endpoint.request_times[1] - endpoint.request_times[0] >= 1.5
    # A planned wait, not a dead worker: no recovery, and the deadline was not moved.
    assert "run_resumed" not in event_types(run)
    run.refresh_from_db()
    started = run.events.get(type="run_started").data
    assert datetime.fromisoformat(run.state["deadline_at"]) == datetime.fromisoformat(
        started["deadline_at"]
    )


def test_a_worker_that_dies_before_handing_the_run_back_is_recovered_from(
    endpoint, case, analyst, monkeypatch
):
    slow_then_asks(endpoint, monkeypatch, retry_after="0.5")
    run = do_start_run(case, analyst, model_name="openai:gpt-test", wake=False)
    assert leases.claim_run(run.pk, "worker-a")
    # worker-a commits the endpoint's answer and dies before it hands the run back.
    with monkeypatch.context() as dying:
        dying.setattr(execution, "park_until_model_retry", lambda *args: None)
        execution.advance_run(
            run.pk, owner="worker-a", cancel=MemoryCancelSignal(), park_model_waits=True
        )
    assert lease_owner(run) == "worker-a" and event_types(run)[-1] == "model_failed"
    Run.objects.filter(pk=run.pk).update(lease_expires_at=timezone.now() - timedelta(seconds=1))

    assert leases.claim_due_runs("worker-b", limit=5) == [run.pk]
    status = execution.advance_run(run.pk, owner="worker-b", cancel=MemoryCancelSignal())
    assert status == Run.Status.WAITING_FOR_INPUT
    types = event_types(run)
    assert (
        types.index("model_failed")
        < types.index("run_resumed")
        < types.index("clarification_requested")
    )


def _parked(run: Run) -> Run:
    Run.objects.filter(pk=run.pk).update(status=Run.Status.RESEARCHING, lease_owner="worker-a")
    assert leases.park_until_model_retry(run.pk, "worker-a", 60)
    return run


def test_a_decision_for_a_run_waiting_on_its_endpoint_is_taken_up_at_once(case, analyst):
    run = _parked(do_start_run(case, analyst, wake=False))
    assert not leases.claim_run(run.pk, "worker-b")

    Run.objects.filter(pk=run.pk).update(resume_requested_at=timezone.now())
    assert leases.claim_due_runs("worker-b", limit=5) == [run.pk]
    assert lease_owner(run) == "worker-b"
    assert leases.was_waiting_for_model(Run.objects.get(pk=run.pk))


@pytest.mark.parametrize("request_field", ["resume_requested_at", "cancel_requested_at"])
def test_a_run_is_not_handed_back_while_a_request_waits(case, analyst, request_field):
    run = do_start_run(case, analyst, wake=False)
    Run.objects.filter(pk=run.pk).update(
        status=Run.Status.RESEARCHING, lease_owner="worker-a", **{request_field: timezone.now()}
    )
    assert not leases.park_until_model_retry(run.pk, "worker-a", 60)
    assert lease_owner(run) == "worker-a"
