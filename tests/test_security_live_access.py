"""A live stream already open stops when its viewer loses access: a socket outlives what
ends access over HTTP (deactivation, removal from the tenant, signing out)."""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.contrib.auth import get_user_model
from django.test import Client

from atlas.routing import application
from runs.models import Membership
from tests.case_rows import add_events, make_run, tool_step
from tests.test_live_stream import commit_events, communicator, run_async

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def access_read_before_every_frame(monkeypatch):
    monkeypatch.setattr("runs.consumers.ACCESS_RECHECK_SECONDS", 0.0)


def _next_message_after(user, run, take_access_away) -> dict:
    async def scenario():
        socket = communicator(user, run, after=1)
        assert (await socket.connect())[0]
        await database_sync_to_async(take_access_away)()
        await database_sync_to_async(commit_events)(
            run, *tool_step(1, "resolve_entity", {"name": "Acme"}, "one candidate")
        )
        message = await socket.receive_output(timeout=2)
        await socket.disconnect()
        return message

    return run_async(scenario)


def _started_run(case):
    run = make_run(case)
    add_events(run, ("run_started", 0, {}))
    return run


def test_a_deactivated_viewers_open_stream_closes_instead_of_pushing(analyst, case):
    run = _started_run(case)

    def deactivate():
        get_user_model().objects.filter(pk=analyst.pk).update(is_active=False)

    message = _next_message_after(analyst, run, deactivate)
    assert message == {"type": "websocket.close", "code": 4403}


def test_a_viewer_removed_from_the_tenant_gets_no_more_of_its_run(analyst, case):
    run = _started_run(case)

    def remove_from_tenant():
        Membership.objects.filter(user=analyst).delete()

    message = _next_message_after(analyst, run, remove_from_tenant)
    assert message == {"type": "websocket.close", "code": 4403}


def test_a_viewer_moved_to_another_tenant_gets_no_more_of_the_old_tenants_run(
    analyst, case, other_tenant
):
    run = _started_run(case)

    def move():
        Membership.objects.filter(user=analyst).update(tenant=other_tenant)

    message = _next_message_after(analyst, run, move)
    assert message == {"type": "websocket.close", "code": 4403}


def test_a_viewer_still_allowed_keeps_getting_the_run(analyst, case):
    run = _started_run(case)
    message = _next_message_after(analyst, run, lambda: None)
    assert message["type"] == "websocket.send"
    assert f'id="run-{run.pk}-step-1"' in message["text"]


def test_signing_out_elsewhere_closes_the_stream_opened_with_that_session(analyst, case):
    run = _started_run(case)
    browser = Client()
    browser.force_login(analyst)
    cookie = f"sessionid={browser.cookies['sessionid'].value}".encode()

    async def scenario():
        socket = WebsocketCommunicator(
            application,
            f"/ws/runs/{run.pk}/?after=1",
            headers=[(b"cookie", cookie), (b"origin", b"http://testserver")],
        )
        assert (await socket.connect())[0]
        await database_sync_to_async(browser.post)("/logout/")
        await database_sync_to_async(commit_events)(
            run, *tool_step(1, "resolve_entity", {"name": "Acme"}, "one candidate")
        )
        message = await socket.receive_output(timeout=2)
        await socket.disconnect()
        return message

    assert run_async(scenario) == {"type": "websocket.close", "code": 4403}
