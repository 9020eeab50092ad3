"""Real worker processes (`manage.py runworker atlas-runs`) on PostgreSQL and Redis.

Each test starts workers as subprocesses against the test database and the test's Redis
channel prefix, then kills, starves or cancels them the way production would.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection

from runs.actions import do_request_cancel, do_start_run
from runs.models import Run, ToolCall, TraceEvent
from runs.presence import worker_is_gone
from tests.worker_harness import (
    database_url_of_the_tests,
    event_types,
    scenario,
    status_of,
    wait_for,
)

ROOT = Path(__file__).resolve().parent.parent

pytestmark = [
    pytest.mark.skipif(
        connection.vendor != "postgresql" or not settings.REDIS_URL,
        reason="worker processes share a run only through PostgreSQL and Redis",
    ),
    pytest.mark.django_db(transaction=True),
]


class WorkerProcesses:
    def __init__(self, log_dir: Path) -> None:
        self.log_dir = log_dir
        self.processes: list[subprocess.Popen] = []

    def environment(self, lease_seconds: float) -> dict[str, str]:
        return {
            **os.environ,
            "DATABASE_URL": database_url_of_the_tests(),
            "REDIS_URL": settings.REDIS_URL,
            "ATLAS_LEASE_SECONDS": str(lease_seconds),
            "ATLAS_SWEEP_SECONDS": "0.3",
            "LOG_LEVEL": "INFO",
        }

    def start(self, count: int = 1, *, lease_seconds: float = 2) -> list[subprocess.Popen]:
        """`count` worker processes; a short lease by default, so a takeover after a crash
        is quick to test."""
        started = []
        for _ in range(count):
            log = open(self.log_dir / f"worker-{len(self.processes)}.log", "w")  # noqa: SIM115
            process = subprocess.Popen(
                [sys.executable, "manage.py", "runworker", settings.ATLAS_WORKER_CHANNEL],
                cwd=ROOT,
                env=self.environment(lease_seconds),
                stdout=log,
                stderr=subprocess.STDOUT,
            )
            process.log_path = log.name
            self.processes.append(process)
            started.append(process)
        for process in started:
            wait_for(lambda p=process: "started" in Path(p.log_path).read_text(), timeout=30)
        return started

    def holding(self, run: Run) -> subprocess.Popen:
        owner = Run.objects.values_list("lease_owner", flat=True).get(pk=run.pk)
        pid = int(owner.split(":")[2])
        return next(p for p in self.processes if p.pid == pid)

    def logs(self) -> str:
        return "\n".join(Path(p.log_path).read_text() for p in self.processes)

    def stop_all(self) -> None:
        for process in self.processes:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        for process in self.processes:
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


@pytest.fixture
def workers(transactional_db, tmp_path):
    processes = WorkerProcesses(tmp_path)
    yield processes
    processes.stop_all()


def tool_started(run: Run, tool: str) -> bool:
    return TraceEvent.objects.filter(run=run, type="tool_started", data__tool=tool).exists()


def run_in_slow_tool(case, analyst, tool: str, seconds: int) -> Run:
    """A run the workers were woken for, now inside a `tool` call that takes `seconds`."""
    slow = scenario(case, tool_faults={tool: [f"slow:{seconds}"]})
    run = do_start_run(case, analyst, scenario=slow)
    wait_for(lambda: tool_started(run, tool), timeout=20)
    return run


def test_a_worker_killed_mid_run_leaves_it_to_another_that_finishes_it(case, analyst, workers):
    workers.start(2)
    run = run_in_slow_tool(case, analyst, "screen_sanctions", seconds=3)
    finished_before = set(
        TraceEvent.objects.filter(run=run, type="tool_succeeded").values_list(
            "data__idempotency_key", flat=True
        )
    )

    victim = workers.holding(run)
    victim.send_signal(signal.SIGKILL)
    victim.wait(5)

    try:
        wait_for(lambda: status_of(run) not in Run.ACTIVE_STATUSES, timeout=30)
    except AssertionError:
        run.refresh_from_db()
        raise AssertionError(
            f"{run.status} {run.lease_owner} {run.last_error} {event_types(run)}\n{workers.logs()}"
        ) from None
    run.refresh_from_db()
    assert (run.status, run.termination_reason) == ("awaiting_review", "finish_proposed"), (
        workers.logs()
    )
    types = event_types(run)
    assert types.count("run_started") == 1
    assert types.count("run_resumed") == 1
    resumed_at = TraceEvent.objects.get(run=run, type="run_resumed").seq
    restarted = set(
        TraceEvent.objects.filter(run=run, type="tool_started", seq__gt=resumed_at).values_list(
            "data__idempotency_key", flat=True
        )
    )
    assert finished_before and not finished_before & restarted  # done work is not redone
    succeeded = list(
        TraceEvent.objects.filter(run=run, type="tool_succeeded").values_list(
            "data__idempotency_key", flat=True
        )
    )
    assert len(succeeded) == len(set(succeeded))  # no side effect twice
    calls = ToolCall.objects.filter(run=run)
    assert set(calls.values_list("effect_status", flat=True)) <= {"succeeded", "failed"}
    assert set(succeeded) == set(
        calls.filter(effect_status="succeeded").values_list("idempotency_key", flat=True)
    )


def test_the_sweep_runs_a_case_whose_wake_up_was_lost(case, analyst, workers):
    workers.start(1)
    run = do_start_run(case, analyst, wake=False)

    wait_for(lambda: status_of(run) not in Run.ACTIVE_STATUSES, timeout=20)

    run.refresh_from_db()
    assert run.termination_reason == "finish_proposed"
    assert "Sweep: worker" in workers.logs()


def test_a_cancel_during_a_slow_tool_call_ends_the_run_within_a_second(case, analyst, workers):
    workers.start(2)
    run = run_in_slow_tool(case, analyst, "resolve_entity", seconds=5)

    asked = time.monotonic()
    do_request_cancel(Run.objects.get(pk=run.pk), analyst)
    wait_for(lambda: status_of(run) == Run.Status.CANCELLED, timeout=5, every=0.01)

    assert time.monotonic() - asked < 1.0
    assert event_types(run)[-1] == "run_cancelled"


def test_a_cancel_after_the_worker_died_mid_tool_ends_the_run_within_a_second(
    case, analyst, workers
):
    (worker,) = workers.start(1)
    run = run_in_slow_tool(case, analyst, "resolve_entity", seconds=30)
    holder = Run.objects.values_list("lease_owner", flat=True).get(pk=run.pk)
    worker.send_signal(signal.SIGKILL)
    worker.wait(5)
    # The database ends the dead process's session (and its presence lock) a moment later.
    wait_for(lambda: worker_is_gone(holder), timeout=5)

    asked = time.monotonic()
    run = do_request_cancel(Run.objects.get(pk=run.pk), analyst)

    assert time.monotonic() - asked < 1.0, "no wait for the dead worker's lease"
    assert (run.status, run.termination_reason, run.lease_owner) == ("cancelled", "cancelled", "")
    assert event_types(run)[-1] == "run_cancelled"
    (call,) = ToolCall.objects.filter(run=run)
    assert call.effect_status == "unknown", "the call it left in flight is settled, not intended"


def test_two_worker_processes_share_many_runs_and_drive_each_exactly_once(case, analyst, workers):
    # A production-length lease: on a starved machine a 2 s lease can run out between two
    # renewals, and the other worker then rightly takes the run over (`run_resumed`).
    workers.start(2, lease_seconds=15)
    runs = [do_start_run(case, analyst) for _ in range(12)]

    for run in runs:
        wait_for(lambda run=run: status_of(run) not in Run.ACTIVE_STATUSES, timeout=30)

    for run in runs:
        types = event_types(run)
        assert types.count("run_started") == 1, workers.logs()
        assert "run_resumed" not in types, workers.logs()
        assert types[-1] == "finish_proposed"
    assert Run.objects.filter(pk__in=[r.pk for r in runs]).exclude(lease_owner="").count() == 0


def test_sigterm_finishes_the_step_and_hands_the_run_straight_back(case, analyst, workers):
    (first,) = workers.start(1)
    run = run_in_slow_tool(case, analyst, "screen_sanctions", seconds=1)

    first.send_signal(signal.SIGTERM)
    first.wait(10)

    run.refresh_from_db()
    assert run.status == Run.Status.RESEARCHING
    assert run.lease_owner == ""  # handed back, not left to expire
    assert TraceEvent.objects.filter(
        run=run, type="tool_succeeded", data__tool="screen_sanctions"
    ).exists()  # the step in flight was finished, not abandoned
    workers.start(1)
    wait_for(lambda: status_of(run) not in Run.ACTIVE_STATUSES, timeout=20)
    run.refresh_from_db()
    assert run.termination_reason == "finish_proposed"
    assert event_types(run).count("run_resumed") == 1
