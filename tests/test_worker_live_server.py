"""The live-server fixture other browser tests use: daphne plus the worker, in-process."""

from __future__ import annotations

import urllib.request

import pytest

from runs.actions import do_start_run
from runs.models import Run
from tests.live_server import atlas_server  # noqa: F401 - the fixture
from tests.worker_harness import status_of, wait_for


@pytest.mark.django_db(transaction=True)
def test_the_live_server_serves_pages_and_its_worker_drives_runs(atlas_server, case, analyst):  # noqa: F811
    with urllib.request.urlopen(f"{atlas_server.url}/login/", timeout=10) as response:
        assert response.status == 200
        assert b"id_username" in response.read()

    run = do_start_run(case, analyst)  # the wake-up crosses into the server's event loop

    wait_for(lambda: status_of(run) not in Run.ACTIVE_STATUSES, timeout=15)
    run.refresh_from_db()
    assert run.termination_reason == "finish_proposed"
    assert atlas_server.wait_idle(5)
