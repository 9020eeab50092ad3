"""A run_case that dies (kill -9) while it drives a run: the run is not left held for the
length of its local hold, since a cancel sees at once that the command is gone."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.db import connection

from reviews.models import HumanDecision
from runs.actions import do_request_cancel
from runs.models import Run
from runs.presence import worker_is_gone
from tests.worker_harness import database_url_of_the_tests, event_types, wait_for

ROOT = Path(__file__).resolve().parent.parent

pytestmark = [
    pytest.mark.skipif(connection.vendor != "postgresql", reason="needs PostgreSQL advisory locks"),
    pytest.mark.django_db(transaction=True),
]


def test_a_cancel_after_run_case_died_mid_tool_ends_the_run_within_a_second(
    tmp_path, tenant, analyst
):
    scenario = tmp_path / "slow.json"
    scenario.write_text(
        json.dumps(
            {
                "case": {"subject": "Acme Analytics", "jurisdiction": "GB"},
                "tool_faults": {"resolve_entity": ["slow:4"]},
            }
        )
    )
    command = subprocess.Popen(
        [sys.executable, "manage.py", "run_case", "--scenario", str(scenario)],
        cwd=ROOT,
        env={**os.environ, "DATABASE_URL": database_url_of_the_tests()},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for(lambda: Run.objects.exists(), timeout=30)
        run = Run.objects.get()
        wait_for(lambda: "tool_started" in event_types(run), timeout=30)
        holder = Run.objects.values_list("lease_owner", flat=True).get(pk=run.pk)
        assert holder.startswith("headless:") and worker_is_gone(holder) is False
    finally:
        command.send_signal(signal.SIGKILL)
        command.wait(5)
    wait_for(lambda: worker_is_gone(holder), timeout=5)

    asked = time.monotonic()
    run = do_request_cancel(Run.objects.get(pk=run.pk), analyst)

    assert time.monotonic() - asked < 1.0, "no wait for the dead command's hold"
    assert (run.status, run.lease_owner) == ("cancelled", "")
    assert HumanDecision.objects.filter(run=run, kind=HumanDecision.Kind.CANCEL).exists()
