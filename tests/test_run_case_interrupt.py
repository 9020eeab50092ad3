"""Ctrl+C during `manage.py run_case`: the run is cancelled, not left researching."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from contextlib import closing
from pathlib import Path

from tests.worker_harness import wait_for

PROJECT_ROOT = Path(__file__).resolve().parent.parent


def _query(database: Path, sql: str) -> list[tuple]:
    try:
        with closing(sqlite3.connect(database)) as connection:
            return connection.execute(sql).fetchall()
    except sqlite3.OperationalError:  # not created yet, or busy
        return []


def test_ctrl_c_while_a_tool_runs_cancels_the_run_prints_it_and_exits_0(tmp_path):
    # A database of its own: the command runs in another process, outside the test's
    # transaction.
    database = tmp_path / "db.sqlite3"
    env = {
        **os.environ,
        "DATABASE_URL": f"sqlite:///{database}",
        "REDIS_URL": "",
        "MEDIA_ROOT": str(tmp_path / "media"),
    }
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "-v0"],
        cwd=PROJECT_ROOT,
        env=env,
        check=True,
        timeout=120,
    )
    scenario = tmp_path / "scenario.json"
    scenario.write_text(
        json.dumps(
            {
                "case": {"subject": "Acme Analytics", "jurisdiction": "GB"},
                "model": "playbook",
                "tool_faults": {"resolve_entity": ["slow:30"]},
            }
        )
    )
    command = subprocess.Popen(
        [sys.executable, "manage.py", "run_case", "--scenario", str(scenario), "--json"],
        cwd=PROJECT_ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        started = "select 1 from runs_traceevent where type = 'tool_started'"
        wait_for(lambda: _query(database, started), timeout=60)
        command.send_signal(signal.SIGINT)
        interrupted_at = time.monotonic()
        out, err = command.communicate(timeout=30)
        took = time.monotonic() - interrupted_at
    finally:
        if command.poll() is None:
            command.kill()
            command.wait()

    assert command.returncode == 0, err  # the run's outcome is cancelled (DESIGN.md)
    # Well short of the 30 s tool it interrupted (the margin is for a loaded machine).
    assert took < 10.0
    record = json.loads(out)
    assert (record["status"], record["termination_reason"]) == ("cancelled", "cancelled")
    assert [event["type"] for event in record["trace"]][-3:] == [
        "tool_started",
        "tool_failed",
        "run_cancelled",
    ]
    assert "Traceback" not in err
    assert err.strip().splitlines()[-1] == f"Interrupted: run {record['run_id']} is cancelled."
    assert _query(database, "select tool, effect_status from runs_toolcall") == [
        ("resolve_entity", "cancelled")
    ]


def test_a_second_ctrl_c_stops_at_once_and_leaves_the_run_cancelled(db, monkeypatch, capsys):
    """Without the cancel, the run would stay held for minutes and then be taken up by a
    worker that researches on after the operator stopped it."""
    import pytest
    from django.core.management import call_command

    from runs.management.commands import run_case
    from runs.models import Run

    def interrupted_twice(run, scenario, cancel=None):
        raise KeyboardInterrupt

    monkeypatch.setattr(run_case, "run_headless", interrupted_twice)
    with pytest.raises(SystemExit) as exit_:
        call_command("run_case", "--subject", "Acme Analytics", "--jurisdiction", "GB")
    assert exit_.value.code == 130
    run = Run.objects.get()
    assert (run.status, run.termination_reason, run.lease_owner) == ("cancelled", "cancelled", "")
    assert capsys.readouterr().err.strip().endswith(f"run {run.pk} is cancelled.")
