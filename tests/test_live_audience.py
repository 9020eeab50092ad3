"""A worker announces a run's steps only while a live page watches it, and a page that
opens in the middle of a run is still brought up to date."""

from __future__ import annotations

import asyncio

import pytest
from channels.layers import get_channel_layer

from runs.actions import do_start_run
from runs.audience import watched_runs
from runs.live import run_group
from runs.models import Run
from tests.worker_harness import WorkerThread, event_types, scenario, status_of, wait_for

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def worker():
    thread = WorkerThread(sweeping=False, lease_seconds=5, poll_seconds=0.1)
    yield thread
    thread.stop()


@pytest.fixture
def sends(worker, monkeypatch):
    """The run announcements the worker's channel layer is asked to send."""
    layer = get_channel_layer()
    sent: list[tuple[str, int]] = []
    original = layer.group_send

    async def group_send(group, message):
        if message.get("type") == "run.updated":
            sent.append((group, message["last_seq"]))
        await original(group, message)

    monkeypatch.setattr(layer, "group_send", group_send)
    return sent


def test_the_channel_layer_says_which_runs_have_a_live_page(worker):
    layer = get_channel_layer()

    async def ask():
        channel = await layer.new_channel()
        await layer.group_add(run_group(900_001), channel)
        try:
            return await watched_runs(layer, [900_001, 900_002])
        finally:
            await layer.group_discard(run_group(900_001), channel)

    assert worker.call(ask()) == {900_001}


def test_nobody_watching_the_newest_step_is_announced_when_the_worker_lets_go(
    worker, sends, case, analyst
):
    run = do_start_run(case, analyst, wake=False)
    worker.send({"type": "run.start", "run_id": run.pk})
    wait_for(lambda: status_of(run) not in Run.ACTIVE_STATUSES)
    wait_for(lambda: worker.worker.driven == {})
    run.refresh_from_db()

    commits_with_events = len(set(run.events.values_list("step", flat=True)))
    ours = [seq for group, seq in sends if group == run_group(run.pk)]
    assert ours and ours[-1] == run.last_seq, "a page opened at the end still catches up"
    assert len(ours) < commits_with_events, "announced to an empty group step by step"


def test_a_page_that_opens_mid_run_hears_of_steps_committed_before_the_worker_noticed(
    worker, case, analyst
):
    slow = scenario(case, tool_faults={"resolve_entity": ["slow:6"]})
    run = do_start_run(case, analyst, scenario=slow, wake=False)
    worker.send({"type": "run.start", "run_id": run.pk})
    wait_for(lambda: "tool_started" in event_types(run))
    layer = get_channel_layer()

    async def open_page() -> dict:
        channel = await layer.new_channel()
        await layer.group_add(run_group(run.pk), channel)
        try:
            # Well within the tool's 6 s, and time for a heartbeat on a loaded machine.
            return await asyncio.wait_for(layer.receive(channel), timeout=4.5)
        finally:
            await layer.group_discard(run_group(run.pk), channel)

    # The run sits in its 6 s tool call: nothing new is committed, so the only message the
    # page can get is the one held back while nobody watched.
    message = worker.call(open_page())
    run.refresh_from_db()
    assert run.status == Run.Status.RESEARCHING
    assert (message["type"], message["last_seq"]) == ("run.updated", run.last_seq)
