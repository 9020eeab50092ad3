"""A run taken over after its worker died mid-step: the step's trace time is its own work,
and the wait for the dead worker's lease to run out is shown as what it was."""

from __future__ import annotations

import pytest

from atlas.runtime.adapters.playbook import Playbook
from atlas.runtime.memory import MemoryCancelSignal
from atlas.runtime.tools.gateway import ToolGateway
from runs import leases
from runs.actions import do_start_run
from runs.execution import advance_run
from runs.models import Run, TraceEvent
from runs.views.trace_steps import trace_page
from tests.worker_harness import WorkerThread, wait_for

pytestmark = pytest.mark.django_db(transaction=True)

DEAD = "worker:gone-host:1:dead"
LEASE_SECONDS = 2.0


class WorkerDied(BaseException):
    """The process stops: nothing after this point of the run's code runs."""


def held_by_a_worker_that_dies(case, analyst, monkeypatch) -> Run:
    """A run whose worker dies where the test's patches make it die (undone for the next
    worker): what it committed stays, and nobody takes the run over until the lease it
    renewed just before dying runs out."""
    run = do_start_run(case, analyst, wake=False)
    held = Run.objects.filter(pk=run.pk)
    held.update(lease_owner=DEAD, lease_expires_at=leases.lease_expiry())
    with pytest.raises(WorkerDied):
        advance_run(run.pk, owner=DEAD, cancel=MemoryCancelSignal())
    monkeypatch.undo()
    held.update(lease_expires_at=leases.lease_expiry())  # its last renewal
    return run


def taken_over(run: Run) -> Run:
    """A live worker's sweep takes the run over once the dead worker's lease runs out."""
    worker = WorkerThread(lease_seconds=LEASE_SECONDS, sweep_seconds=0.2)
    try:
        wait_for(lambda: Run.objects.get(pk=run.pk).status not in Run.ACTIVE_STATUSES, 30)
    finally:
        worker.stop()
    run.refresh_from_db()
    assert run.termination_reason == "finish_proposed"
    return run


def resumed_step(run: Run):
    resumed = TraceEvent.objects.get(run=run, type="run_resumed")
    (step,) = [s for s in trace_page(run).steps if resumed.seq in [e.seq for e in s.events]]
    return resumed, step


@pytest.fixture(autouse=True)
def _short_lease(settings):
    settings.ATLAS_LEASE_SECONDS = LEASE_SECONDS


def test_a_tool_call_taken_over_takes_its_own_time_not_the_lease(case, analyst, monkeypatch):
    def dies(*args, **kwargs):
        raise WorkerDied

    monkeypatch.setattr(ToolGateway, "execute", dies)
    run = taken_over(held_by_a_worker_that_dies(case, analyst, monkeypatch))
    resumed, step = resumed_step(run)
    assert step.title == "resolve_entity"
    assert [e.type for e in step.events][-3:] == ["run_resumed", "tool_started", "tool_succeeded"]
    assert step.duration_ms < 1000  # the tool and the bookkeeping, not the 2 s lease
    assert resumed.data["waited_seconds"] >= LEASE_SECONDS
    summary = next(e.summary for e in step.events if e.type == "run_resumed")
    waited = f"{resumed.data['waited_seconds']:,.1f}"
    assert summary == (
        f"recovery after {waited} s waiting for the lease of a worker that stopped to run out"
    )
    in_flight = [change for change in step.changes if "in-flight call" in change[1]]
    key = resumed.data["in_flight"]
    assert in_flight == [
        ("+", f"in-flight call {key}"),
        ("~", f"in-flight call {key} again"),
        ("-", f"in-flight call {key}"),
    ]


def test_a_death_mid_model_call_does_not_lengthen_the_step_before(case, analyst, monkeypatch):
    decide = Playbook.decide
    calls = []

    def dies_on_the_second_call(self, context):
        calls.append(context)
        if len(calls) == 2:
            raise WorkerDied
        return decide(self, context)

    monkeypatch.setattr(Playbook, "decide", dies_on_the_second_call)
    run = taken_over(held_by_a_worker_that_dies(case, analyst, monkeypatch))
    resumed, step = resumed_step(run)
    assert step.number == 1 and step.title == "resolve_entity"
    # The step's outcome was held for the next step's commit, which never came: the result
    # the dying worker saved on its own is taken up, not run again.
    assert [event.type for event in step.events][-2:] == ["run_resumed", "tool_succeeded"]
    assert TraceEvent.objects.get(run=run, seq=step.events[-1].seq).data["reconciled"] is True
    assert step.duration_ms < 1000
    assert resumed.data["waited_seconds"] >= LEASE_SECONDS
