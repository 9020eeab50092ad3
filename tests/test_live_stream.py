"""The run's websocket stream: catch-up from the database, pushes after commit, refusals.

`LivePage` applies frames the way the htmx ws extension does (replace by id, append to the
step list) and fails on a duplicate step, so "no gap, no duplicate" is checked on the page
a person would see, not on the wire format.
"""

from __future__ import annotations

import asyncio
import re
from concurrent.futures import ThreadPoolExecutor

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.contrib.auth import get_user_model
from django.db import connections, transaction
from django.test import Client

from atlas.routing import application
from runs.live import announce_run_update, run_group
from runs.models import TraceEvent
from runs.routing import websocket_urlpatterns
from tests.case_rows import XSS, add_events, make_run, tool_step
from tests.conftest import client_for

pytestmark = pytest.mark.django_db(transaction=True)

STEP = re.compile(r'<li id="run-(\d+)-step-(\d+)"[^>]*data-seq-last="(\d+)"([^>]*)>')
APPEND = re.compile(r'<ol id="run-\d+-steps" hx-swap-oob="beforeend">(.*?)</ol>', re.S)
CURSOR = re.compile(r'id="run-\d+-cursor" data-last-seq="(\d+)"')


class LivePage:
    def __init__(self) -> None:
        self.steps: dict[int, int] = {}  # step number -> last seq shown
        self.cursor = 0

    def apply(self, frame: str) -> None:
        appended = "".join(APPEND.findall(frame))
        for _, number, last, _rest in STEP.findall(appended):
            assert int(number) not in self.steps, f"step {number} appended twice"
            self.steps[int(number)] = int(last)
        for _, number, last, rest in STEP.findall(APPEND.sub("", frame)):
            assert 'hx-swap-oob="true"' in rest
            assert int(number) in self.steps, f"step {number} replaced but never shown"
            assert int(last) >= self.steps[int(number)], "a replacement went backwards"
            self.steps[int(number)] = int(last)
        self.cursor = int(CURSOR.search(frame).group(1))


def run_async(function, *args):
    """Run a coroutine function to completion on a thread of its own.

    The session's Playwright (sync API) keeps an event loop on the main thread, and
    async_to_sync refuses to run there, so these tests never depend on test order.
    """

    def in_thread():
        try:
            return async_to_sync(function)(*args)
        finally:
            connections.close_all()

    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(in_thread).result()


def expected_steps(run) -> dict[int, int]:
    shown: dict[int, int] = {}
    for step, seq in TraceEvent.objects.filter(run=run).values_list("step", "seq"):
        shown[step] = max(shown.get(step, 0), seq)
    return shown


def communicator(
    user, run, after: int | None = None, decision: int | None = None
) -> WebsocketCommunicator:
    query = {"after": after, "decision": decision}
    path = f"/ws/runs/{run.pk}/?" + "&".join(f"{k}={v}" for k, v in query.items() if v is not None)
    socket = WebsocketCommunicator(URLRouter(websocket_urlpatterns), path)
    socket.scope["user"] = user
    return socket


def commit_events(run, *events) -> None:
    """What the run store does: write the events and announce them after commit."""
    with transaction.atomic():
        add_events(run, *events)
        announce_run_update(run.pk, run.last_seq)


def test_connecting_sends_every_step_after_the_page_cursor(analyst, case):
    run = make_run(case)
    add_events(
        run,
        ("run_started", 0, {}),
        *tool_step(1, "resolve_entity", {"name": "Acme"}, "2 candidates"),
        ("tool_started", 2, {"tool": "screen_sanctions", "arguments": {}, "attempt": 1}),
    )

    async def scenario():
        socket = communicator(
            analyst, run, after=2
        )  # the page showed run_started and step 1's decision
        connected, _ = await socket.connect()
        assert connected
        frame = await socket.receive_from()
        await socket.disconnect()
        return frame

    frame = run_async(scenario)
    page = LivePage()
    page.steps = {0: 1, 1: 2}
    page.apply(frame)
    assert page.steps == expected_steps(run) == {0: 1, 1: 4, 2: 5}
    assert page.cursor == 5
    assert re.search(rf'<div id="run-{run.pk}-status" [^>]*hx-swap-oob="true"', frame)
    assert f'id="run-{run.pk}-meters"' in frame and f'id="run-{run.pk}-banner"' in frame


def test_a_reconnect_catches_up_without_gaps_or_duplicates(analyst, case):
    run = make_run(case)
    add_events(
        run, ("run_started", 0, {}), *tool_step(1, "resolve_entity", {"name": "A"}, "one")[:2]
    )
    page = LivePage()

    async def scenario():
        first = communicator(analyst, run, after=0)
        assert (await first.connect())[0]
        page.apply(await first.receive_from())
        # Step 1 completes and step 2 starts while the page is connected ...
        await database_sync_to_async(commit_events)(
            run,
            tool_step(1, "resolve_entity", {"name": "A"}, "one")[2],
            *tool_step(2, "screen_sanctions", {"entity_id": "E1"}, "no hits")[:1],
        )
        page.apply(await first.receive_from())
        await first.disconnect()
        # ... then more happens while it is offline (no nudge reaches it).
        await database_sync_to_async(add_events)(
            run,
            *tool_step(2, "screen_sanctions", {"entity_id": "E1"}, "no hits")[1:],
            *tool_step(3, "search_adverse_media", {"query": "A"}, "1 article"),
        )
        second = communicator(analyst, run, after=page.cursor)
        assert (await second.connect())[0]
        page.apply(await second.receive_from())
        assert await second.receive_nothing(timeout=0.2)
        await second.disconnect()

    run_async(scenario)
    assert page.steps == expected_steps(run)
    assert page.cursor == run.last_seq == 10


def test_a_committed_event_is_pushed_to_a_connected_page(analyst, case):
    run = make_run(case)
    add_events(run, ("run_started", 0, {}))

    async def scenario():
        socket = communicator(analyst, run, after=1)
        assert (await socket.connect())[0]
        assert await socket.receive_nothing(timeout=0.1)  # nothing new yet
        await database_sync_to_async(commit_events)(
            run, *tool_step(1, "resolve_entity", {"name": XSS}, f"found {XSS}")
        )
        frame = await socket.receive_from(timeout=2)
        await socket.disconnect()
        return frame

    frame = run_async(scenario)
    assert f'id="run-{run.pk}-step-1"' in frame and "found &lt;script&gt;" in frame
    assert "<script>" not in frame
    assert 'data-last-seq="4"' in frame


def test_status_and_banner_are_pushed_again_only_when_they_change(analyst, case):
    run = make_run(case)
    add_events(run, ("run_started", 0, {}))
    status = f'id="run-{run.pk}-status"'

    def finish() -> None:
        with transaction.atomic():
            run.refresh_from_db()
            run.status, run.termination_reason = "cancelled", "cancelled"
            run.user_status = "The run was cancelled."
            run.save(update_fields=["status", "termination_reason", "user_status"])
            commit_events(run, ("run_cancelled", 2, {"user_status": "The run was cancelled."}))

    async def scenario():
        socket = communicator(analyst, run, after=0)
        assert (await socket.connect())[0]
        frames = [await socket.receive_from()]
        await database_sync_to_async(commit_events)(
            run, *tool_step(1, "resolve_entity", {"name": "A"}, "one")
        )
        frames.append(await socket.receive_from())
        await database_sync_to_async(finish)()
        frames.append(await socket.receive_from())
        await socket.disconnect()
        return frames

    first, same_status, changed = run_async(scenario)
    assert status in first and f'id="run-{run.pk}-meters"' in first
    assert status not in same_status and f'id="run-{run.pk}-meters"' in same_status
    assert status in changed and "badge-cancelled" in changed and "Run again" in changed
    assert f"/cases/{run.case_id}/correct/" in changed


def test_a_decision_by_another_person_reaches_the_page_with_the_next_push(analyst, reviewer, case):
    from reviews.actions import do_decide_approval
    from reviews.models import ReviewItem

    run = make_run(case)
    add_events(run, ("run_started", 0, {}))
    panel = re.compile(
        rf'<section class="panel" id="case-{case.pk}-decisions" '
        r'data-newest-decision="(\d+)" hx-swap-oob="true">(.*?)</section>',
        re.S,
    )
    approval = {"action_id": "a-1", "tool": "fetch_registry_filing", "arguments": {}}

    def ask_for_approval() -> ReviewItem:
        with transaction.atomic():
            commit_events(run, ("approval_requested", 1, approval))
            return ReviewItem.objects.create(
                tenant=case.tenant,
                case=case,
                run=run,
                kind=ReviewItem.Kind.APPROVAL,
                key="a-1",
                summary="Fetch the registry filing",
                payload=approval,
                requested_at=run.created_at,
            )

    async def scenario():
        socket = communicator(analyst, run, after=1, decision=0)  # the page showed none
        assert (await socket.connect())[0]
        assert await socket.receive_nothing(timeout=0.1)
        item = await database_sync_to_async(ask_for_approval)()
        frames = [await socket.receive_from(timeout=2)]
        # The reviewer decides from the queue; the decision alone commits no trace event ...
        decision = await database_sync_to_async(do_decide_approval)(
            item, reviewer, True, f"Registry fetch is in scope {XSS}"
        )
        assert await socket.receive_nothing(timeout=0.1)
        # ... but the run's resume does, and that push carries the panel.
        await database_sync_to_async(commit_events)(
            run, ("approval_granted", 1, approval), *tool_step(2, "screen_sanctions", {}, "none")
        )
        frames.append(await socket.receive_from(timeout=2))
        await database_sync_to_async(commit_events)(
            run, *tool_step(3, "search_adverse_media", {}, "none")
        )
        frames.append(await socket.receive_from(timeout=2))
        await socket.disconnect()
        return decision, frames

    decision, (before, with_decision, after) = run_async(scenario)
    assert not panel.search(before) and not panel.search(after)
    newest, shown = panel.search(with_decision).groups()
    assert int(newest) == decision.pk
    assert "<strong>Approved</strong> by Reviewer" in shown
    assert "Registry fetch is in scope &lt;script&gt;" in shown and "<script>" not in shown


def test_a_page_that_never_said_which_decisions_it_shows_gets_the_panel_once(analyst, case):
    run = make_run(case)
    add_events(run, ("run_started", 0, {}))
    panel = f'id="case-{case.pk}-decisions"'

    async def scenario():
        socket = communicator(analyst, run, after=0)
        assert (await socket.connect())[0]
        frames = [await socket.receive_from()]
        await database_sync_to_async(commit_events)(run, *tool_step(1, "resolve_entity", {}, "1"))
        frames.append(await socket.receive_from(timeout=2))
        await socket.disconnect()
        return frames

    first, second = run_async(scenario)
    assert panel in first and "No human decisions yet." in first
    assert panel not in second


def test_a_stale_or_repeated_nudge_sends_nothing_twice(analyst, case):
    run = make_run(case)
    add_events(run, ("run_started", 0, {}), *tool_step(1, "resolve_entity", {"name": "A"}, "one"))

    async def scenario():
        socket = communicator(analyst, run)
        assert (await socket.connect())[0]
        await socket.receive_from()
        layer = get_channel_layer()
        for last_seq in (0, 4, 99):  # the message's seq is never trusted
            await layer.group_send(
                run_group(run.pk), {"type": "run.updated", "run_id": run.pk, "last_seq": last_seq}
            )
        assert await socket.receive_nothing(timeout=0.3)
        await socket.disconnect()

    run_async(scenario)


def test_a_run_that_is_paused_for_input_streams_the_question_banner(analyst, case):
    from tests.case_rows import waiting_for_answer

    run = waiting_for_answer(case)

    async def scenario():
        socket = communicator(analyst, run, after=0)
        assert (await socket.connect())[0]
        frame = await socket.receive_from()
        await socket.disconnect()
        return frame

    frame = run_async(scenario)
    assert "Which Acme do you mean?" in frame
    assert f'hx-post="/runs/{run.pk}/answer/"' in frame
    assert "csrfmiddlewaretoken" not in frame  # htmx sends the token from <body hx-headers>


def test_a_paused_run_is_not_shown_as_live_research(client, analyst, case):
    """The badge beside the status tells an analyst whether the agent is at work: a run
    waiting for a person says it is paused (the page still updates when they act)."""
    from tests.case_rows import waiting_for_answer

    researching = make_run(case)
    page = client_for(client, analyst).get(f"/cases/{case.pk}/?run={researching.pk}")
    assert re.search(r'<span class="live-dot"[^>]*>live</span>', page.content.decode())

    waiting = waiting_for_answer(case)
    page = client.get(f"/cases/{case.pk}/?run={waiting.pk}").content.decode()
    assert re.search(r'<span class="live-dot paused"[^>]*>paused</span>', page)
    assert ">live</span>" not in page


@pytest.mark.parametrize(
    ("who", "code"), [("outsider", 4404), ("anonymous", 4403), ("no_membership", 4403)]
)
def test_the_stream_is_refused_to_people_outside_the_tenant(who, code, outsider, case, request):
    from django.contrib.auth.models import AnonymousUser

    run = make_run(case)
    add_events(run, ("run_started", 0, {}))
    users = {
        "outsider": outsider,
        "anonymous": AnonymousUser(),
        "no_membership": get_user_model().objects.create_user("drifter", password="x"),
    }

    async def scenario():
        socket = communicator(users[who], run)
        await socket.connect()
        closed = await socket.receive_output(timeout=1)
        await socket.wait()
        return closed

    closed = run_async(scenario)
    assert closed == {"type": "websocket.close", "code": code}


def test_the_full_application_authenticates_by_session_cookie(analyst, outsider, case):
    run = make_run(case)
    add_events(run, ("run_started", 0, {}))

    def cookie_for(user) -> bytes:
        browser = Client()
        browser.force_login(user)
        return f"sessionid={browser.cookies['sessionid'].value}".encode()

    async def connect_as(cookie: bytes, origin: bytes = b"http://testserver"):
        socket = WebsocketCommunicator(
            application, f"/ws/runs/{run.pk}/", headers=[(b"cookie", cookie), (b"origin", origin)]
        )
        connected, _ = await socket.connect()
        message = await socket.receive_output(timeout=1)
        await socket.disconnect()
        return connected, message

    analyst_cookie = cookie_for(analyst)
    outsider_cookie = cookie_for(outsider)
    connected, message = run_async(connect_as, analyst_cookie)
    assert connected and message["type"] == "websocket.send"
    assert f'id="run-{run.pk}-step-0"' in message["text"]
    _, refused = run_async(connect_as, outsider_cookie)
    assert refused == {"type": "websocket.close", "code": 4404}


def test_a_cursor_no_column_holds_is_read_as_no_cursor(analyst, case):
    run = make_run(case)
    add_events(run, ("run_started", 0, {}))

    async def scenario():
        socket = communicator(analyst, run, after="9" * 25)
        connected, _ = await socket.connect()
        frame = await socket.receive_from()
        await socket.disconnect()
        return connected, frame

    connected, frame = run_async(scenario)
    assert connected and f'id="run-{run.pk}-status"' in frame


def test_a_documents_note_follows_the_run_without_a_reload(client, analyst, case):
    from django.core.files.uploadedfile import SimpleUploadedFile
    from django.urls import reverse

    from runs.actions import do_attach_document

    run = make_run(case, state={"brief": {"documents": []}})
    add_events(run, ("run_started", 0, {}))
    given, unread = (
        do_attach_document(case, SimpleUploadedFile(name, b"Director: Jane Roe\n"), user=analyst)
        for name in ("minutes.txt", "register.txt")
    )
    client.force_login(analyst)
    page = client.get(reverse("runs-case-detail", args=[case.pk])).content.decode()
    assert page.count("it is given to the run with your next answer") == 2

    def give_the_first_document() -> None:
        with transaction.atomic():
            run.refresh_from_db()
            run.state = {"brief": {"documents": [{"document_id": str(given.pk)}]}}
            run.save(update_fields=["state"])
            commit_events(run, ("document_added", 1, {"document_id": str(given.pk)}))

    def stop() -> None:
        with transaction.atomic():
            run.refresh_from_db()
            run.status, run.termination_reason = "cancelled", "cancelled"
            run.save(update_fields=["status", "termination_reason"])
            commit_events(run, ("run_cancelled", 2, {}))

    async def scenario():
        socket = communicator(analyst, run, after=1)
        assert (await socket.connect())[0]
        frames = []
        for change in (give_the_first_document, stop):
            await database_sync_to_async(change)()
            frames.append(await socket.receive_from(timeout=2))
        await socket.disconnect()
        return frames

    added, stopped = run_async(scenario)
    note = '<div id="document-{}-run-note" hx-swap-oob="true">{}</div>'
    assert note.format(given.pk, "") in added
    assert f'id="document-{unread.pk}-run-note" hx-swap-oob="true"><div' in added
    assert note.format(given.pk, "") in stopped
    unread_note = note.format(
        unread.pk,
        '<div class="small warn-text">Attached after this run started: not read by it.</div>',
    )
    assert unread_note in stopped


def test_a_documents_note_changes_when_the_run_starts_waiting_for_a_reviewer(analyst, case):
    from django.core.files.uploadedfile import SimpleUploadedFile

    from runs.actions import do_attach_document

    run = make_run(case, state={"brief": {"documents": []}})
    add_events(run, ("run_started", 0, {}))
    late = do_attach_document(
        case, SimpleUploadedFile("late.txt", b"Directors: X Y\n"), user=analyst
    )

    def propose_a_packet() -> None:
        with transaction.atomic():
            run.refresh_from_db()
            run.status, run.termination_reason = "awaiting_review", "finish_proposed"
            run.save(update_fields=["status", "termination_reason"])
            commit_events(run, ("finish_proposed", 1, {}))

    async def scenario():
        socket = communicator(analyst, run, after=1)
        assert (await socket.connect())[0]
        await database_sync_to_async(propose_a_packet)()
        frame = await socket.receive_from(timeout=2)
        await socket.disconnect()
        return frame

    frame = run_async(scenario)
    assert f'id="document-{late.pk}-run-note" hx-swap-oob="true"' in frame
    assert "read only if a reviewer sends the packet back and you reply" in frame


def test_a_channel_layer_that_is_down_never_fails_the_commit_it_follows(
    analyst, case, monkeypatch, caplog
):
    class DownLayer:
        async def group_send(self, group, message):
            raise ConnectionError("Error 111 connecting to 127.0.0.1:6390. Connection refused.")

    monkeypatch.setattr("runs.live.get_channel_layer", lambda: DownLayer())
    run = make_run(case)

    def commit_and_announce():  # as run_case commits: a thread with no event loop
        try:
            with transaction.atomic():
                add_events(run, ("run_started", 0, {}))
                announce_run_update(run.pk, 1)
        finally:
            connections.close_all()

    with ThreadPoolExecutor(max_workers=1) as pool:
        pool.submit(commit_and_announce).result()
    assert TraceEvent.objects.filter(run=run).exists()
    assert f"Could not announce run {run.pk} up to event 1: ConnectionError(" in caplog.text


def test_with_the_channel_layer_down_a_page_catches_up_and_is_told_why_pushes_stop(
    analyst, case, monkeypatch
):
    run = make_run(case)
    add_events(run, ("run_started", 0, {}), *tool_step(1, "resolve_entity", {"name": "A"}, "one"))

    async def refuse(group, channel):
        raise ConnectionError("Error 111 connecting to 127.0.0.1:6390. Connection refused.")

    async def cannot_receive(channel):
        raise ConnectionError("Error 111 connecting to 127.0.0.1:6390. Connection refused.")

    layer = get_channel_layer()
    monkeypatch.setattr(layer, "group_add", refuse)
    monkeypatch.setattr(layer, "receive", cannot_receive)

    async def scenario():
        socket = communicator(analyst, run, after=1)
        assert (await socket.connect())[0]
        frame = await socket.receive_from()
        closed = await socket.receive_output()
        await socket.wait()  # re-raises whatever ended the consumer, if anything did
        return frame, closed

    frame, closed = run_async(scenario)
    assert f'id="run-{run.pk}-step-1"' in frame
    assert closed == {"type": "websocket.close", "code": 4503}


def _frame_and_close_without_the_layer(analyst, run, monkeypatch) -> tuple[str, dict]:
    """The one frame a page gets when the channel layer refuses it, and how it is closed."""

    async def refuse(group, channel):
        raise ConnectionError("Connection refused.")

    monkeypatch.setattr(get_channel_layer(), "group_add", refuse)

    async def scenario():
        socket = communicator(analyst, run, after=1)
        assert (await socket.connect())[0]
        frame = await socket.receive_from()
        return frame, await socket.receive_output()

    return run_async(scenario)


def test_with_the_channel_layer_down_a_finished_runs_stream_closes_for_good(
    analyst, case, monkeypatch
):
    run = make_run(case, status="completed", reason="packet_approved")
    add_events(run, ("run_started", 0, {}), ("run_completed", 1, {}))
    frame, closed = _frame_and_close_without_the_layer(analyst, run, monkeypatch)
    assert "run_completed" in frame or "badge-completed" in frame
    assert closed == {"type": "websocket.close", "code": 1000}  # the page does not come back


def test_with_the_channel_layer_down_a_run_that_ends_after_the_frame_is_caught_up_later(
    analyst, case, monkeypatch
):
    from runs import consumers
    from runs.models import Run

    run = make_run(case)
    add_events(run, ("run_started", 0, {}), *tool_step(1, "resolve_entity", {"name": "A"}, "one"))
    read = consumers.read_frame

    def read_then_the_run_ends(run_id, after):
        frame = read(run_id, after)
        Run.objects.filter(pk=run_id).update(status="completed", termination_reason="done")
        return frame

    monkeypatch.setattr(consumers, "read_frame", read_then_the_run_ends)
    frame, closed = _frame_and_close_without_the_layer(analyst, run, monkeypatch)
    assert f'id="run-{run.pk}-step-1"' in frame  # sent while the run was still researching
    # So the page comes back for the end of the run it has not seen.
    assert closed == {"type": "websocket.close", "code": 4503}


def test_the_steps_are_not_live_and_one_short_status_line_says_what_changed(client, analyst, case):
    from tests.case_rows import waiting_for_answer
    from tests.conftest import client_for

    run = make_run(case)
    add_events(run, ("run_started", 0, {}))
    page = client_for(client, analyst).get(f"/cases/{case.pk}/").content.decode()
    assert f'<ol id="run-{run.pk}-steps" class="steps">' in page  # not aria-live
    assert f'<p id="run-{run.pk}-announce" class="visually-hidden" role="status"></p>' in page
    line = re.compile(rf'<p id="run-{run.pk}-announce"[^>]*hx-swap-oob="innerHTML">([^<]*)</p>')

    async def scenario():
        socket = communicator(analyst, run, after=1)
        assert (await socket.connect())[0]
        await database_sync_to_async(commit_events)(
            run, *tool_step(1, "resolve_entity", {"name": "A"}, "one")
        )
        frame = await socket.receive_from(timeout=2)
        await socket.disconnect()
        return frame

    frame = run_async(scenario)
    assert line.findall(frame) == ["Step 1: resolve_entity done."]
    assert frame.count("aria-live") == 0 and 'role="status"' in frame

    waiting = waiting_for_answer(case)
    page = client.get(f"/cases/{case.pk}/?run={waiting.pk}").content.decode()
    # As the page opens the line already says it (so the first frame repeats, not news).
    assert 'role="status">Waiting for your answer.</p>' in page
    answered = client.post(
        f"/runs/{waiting.pk}/answer/", {"answer_text": "The first"}, HTTP_HX_REQUEST="true"
    ).content.decode()
    assert re.search(
        rf'id="run-{waiting.pk}-announce"[^>]*hx-swap-oob="innerHTML">Answer recorded; the run resumes.',
        answered,
    )


def test_a_layer_failure_after_connect_closes_the_socket_so_the_page_catches_up(
    analyst, case, monkeypatch
):
    run = make_run(case)
    add_events(run, ("run_started", 0, {}))
    layer = get_channel_layer()
    real = layer.receive
    calls = []

    async def fails_once(channel):
        calls.append(channel)
        if len(calls) == 1:
            await asyncio.sleep(0.2)
            raise ConnectionError("Redis restarted")
        return await real(channel)

    monkeypatch.setattr(layer, "receive", fails_once)

    async def scenario():
        socket = communicator(analyst, run, after=1)
        assert (await socket.connect())[0]
        return await socket.receive_output(timeout=2)

    assert run_async(scenario) == {"type": "websocket.close", "code": 4503}
