"""The live stream of one run to a case page.

On connect and on every `run.updated` nudge the consumer reads, from the database, the
run's trace events after the last one it sent, and pushes them as out-of-band fragments
rendered by `runs.fragments`. The nudge's own `last_seq` is never trusted: a lost or
repeated message cannot cause a gap or a duplicate.

The case's decisions panel rides along whenever the newest HumanDecision of the case is
not the one the page last got (`?decision=` on connect). A decision commits no trace event,
but the run commits after every one (a cancel ends it, the others resume it), so checking
on each frame is enough.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from datetime import UTC, datetime
from importlib import import_module
from typing import Any

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from django.contrib.auth import SESSION_KEY
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from reviews.models import HumanDecision, ReviewItem
from runs import fragments
from runs.access import has_role, membership_of
from runs.live import run_group
from runs.models import Membership, Run, TraceEvent
from runs.numbers import whole_number

logger = logging.getLogger(__name__)

# How stale a viewer's access may be when a frame is sent: who lost it sees at most this
# much more of a run.
ACCESS_RECHECK_SECONDS = 2.0

CLOSE_FORBIDDEN = 4403
CLOSE_NOT_FOUND = 4404
# The page reconnects after it a few seconds later (static/atlas/live.js). The protocol's
# "try again later" (1013) is not a code an ASGI server lets an application send.
CLOSE_LAYER_DOWN = 4503
READERS = ("analyst", "reviewer", "admin")


# Every frame reads the run and its new events in one statement: one snapshot, one round
# trip. This is the stream's hot path; compiling the equivalent ORM queries cost more than
# running them (bench/stream_latency.py). The newest decision comes from the same snapshot,
# so a decision made before a step in this frame is always seen with it.
FRAME_SQL = (
    "SELECT r.id, r.tenant_id, r.case_id, r.status, r.termination_reason, r.user_status, "
    "r.budgets, r.iterations, r.tokens, r.cost_usd, r.elapsed_seconds, r.last_seq, "
    "r.cancel_requested_at, r.cancel_requested_by_id, r.created_at, r.finished_at, "
    f"(SELECT MAX(d.id) FROM {HumanDecision._meta.db_table} d WHERE d.case_id = r.case_id) "
    "AS newest_decision, "
    "e.id AS event_id, e.seq AS event_seq, e.step AS event_step, e.type AS event_type, "
    "e.data AS event_data, e.timestamp AS event_timestamp, e.duration_ms AS event_duration "
    f"FROM {Run._meta.db_table} r LEFT JOIN {TraceEvent._meta.db_table} e "
    "ON e.run_id = r.id AND e.seq > %s WHERE r.id = %s ORDER BY e.seq"
)


def _json(value: Any) -> Any:
    return json.loads(value) if isinstance(value, str) else value


def _moment(value: Any) -> datetime:
    if isinstance(value, str):  # SQLite hands back text for a column read without its field
        value = parse_datetime(value)
    if timezone.is_naive(value):
        value = timezone.make_aware(value, UTC)
    return value


def read_frame(run_id: int, after: int) -> tuple[Run, list[TraceEvent]]:
    """The run (with `newest_decision` of its case, 0 for none) and its trace events after
    `after`, as of one moment."""
    rows = list(Run.objects.raw(FRAME_SQL, [after, run_id]))
    if not rows:
        raise Run.DoesNotExist(run_id)
    rows[0].newest_decision = rows[0].newest_decision or 0
    events = [
        TraceEvent(
            id=row.event_id,
            run_id=run_id,
            seq=row.event_seq,
            step=row.event_step,
            type=row.event_type,
            data=_json(row.event_data),
            timestamp=_moment(row.event_timestamp),
            duration_ms=row.event_duration,
        )
        for row in rows
        if row.event_id is not None
    ]
    return rows[0], events


class RunStreamConsumer(AsyncWebsocketConsumer):
    run_id: int
    last_sent: int
    rendered_steps: set[int]
    group: str | None = None
    status_shown: tuple | None = None  # what the status and banner last pushed showed
    decision_shown: int | None = None  # the page's newest decision id; None: not known
    tenant_id: int | None = None  # the viewer's tenant, as of connecting
    access_checked_at: float = 0.0  # time.monotonic() when the viewer's access was last read
    viewer_gone: bool = False  # the viewer may no longer read the run: the socket closes

    # Channels sets this to the channel layer's receive for the socket's own channel, and
    # ends the socket (1011, a traceback) the moment it fails. With the layer down, this
    # page is still served from the database: a failed receive waits instead, and
    # connect() says pushes are delayed.
    @property
    def channel_receive(self):
        return self._channel_receive

    @channel_receive.setter
    def channel_receive(self, receive) -> None:
        async def receive_while_the_layer_works() -> dict:
            try:
                return await receive()
            except Exception as error:
                if self.group:
                    # Connected, then the layer failed: close so the page reconnects
                    # and catches up, rather than wait on a socket no push reaches.
                    logger.warning("Live stream of run %s lost its pushes: %r", self.run_id, error)
                    self.group = None
                    await self.close(code=CLOSE_LAYER_DOWN)
                await asyncio.Event().wait()  # until the socket closes
                raise

        self._channel_receive = receive_while_the_layer_works

    async def connect(self) -> None:
        self.run_id = int(self.scope["url_route"]["kwargs"]["run_id"])
        self.last_sent = self._query_int("after", default=0)
        self.decision_shown = self._query_int("decision", default=None)
        refusal = await self._refusal()
        # Accept first so the browser sees our close code and does not retry forever.
        await self.accept()
        if refusal:
            logger.info("Live stream of run %s refused with %s", self.run_id, refusal)
            await self.close(code=refusal)
            return
        # Join before the first read: an event committed in between is then nudged.
        try:
            await self.channel_layer.group_add(run_group(self.run_id), self.channel_name)
        except Exception as error:
            # The channel layer is down: the page gets what is new once, from the
            # database, and is told pushes are delayed; it reconnects a few seconds later
            # and catches up again each time.
            logger.warning("Live stream of run %s without updates: %r", self.run_id, error)
            ended = await self._push_new()
            # A finished run has nothing more to say: the page need not come back. Judged
            # from the frame just sent, so a run that ends after it is still caught up.
            if not self.viewer_gone:
                await self.close(code=1000 if ended else CLOSE_LAYER_DOWN)
            return
        self.group = run_group(self.run_id)
        await self._push_new()

    async def disconnect(self, code: int) -> None:
        if self.group:
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive(self, text_data=None, bytes_data=None) -> None:
        """The page never needs to talk; anything it sends is ignored."""

    async def run_updated(self, message: dict) -> None:
        await self._push_new()

    def _query_int(self, name: str, *, default: int | None) -> int | None:
        from urllib.parse import parse_qs

        query = parse_qs(self.scope.get("query_string", b"").decode("latin-1"))
        number = whole_number(query.get(name, [""])[0])
        return default if number is None else number

    @database_sync_to_async
    def _refusal(self) -> int | None:
        user = self.scope.get("user")
        if user is None or not user.is_authenticated or not has_role(user, *READERS):
            return CLOSE_FORBIDDEN
        membership = membership_of(user)
        if membership is None:
            return CLOSE_FORBIDDEN
        if not Run.objects.filter(pk=self.run_id, tenant=membership.tenant).exists():
            return CLOSE_NOT_FOUND
        self.tenant_id = membership.tenant_id
        self.access_checked_at = time.monotonic()
        self.rendered_steps = set(
            TraceEvent.objects.filter(run_id=self.run_id, seq__lte=self.last_sent)
            .values_list("step", flat=True)
            .distinct()
        )
        return None

    async def _push_new(self) -> bool:
        """Send what is new; whether the run had ended as of what was sent."""
        if self.viewer_gone:
            return True
        frame, ended = await self._frame()
        if self.viewer_gone:
            logger.info(
                "Live stream of run %s closed: its viewer may no longer read it", self.run_id
            )
            await self.close(code=CLOSE_FORBIDDEN)
            return True
        if frame:
            await self.send(text_data=frame)
        return ended

    def _viewer_may_still_read(self) -> bool:
        """Whether the person the socket was opened for may still read the run. A socket
        outlives what ends their access over HTTP (a deactivation, a removal from the
        tenant, signing out elsewhere), so it is asked again before a frame, at most every
        ACCESS_RECHECK_SECONDS: asked before each, it cost a third of a frame's latency."""
        if time.monotonic() - self.access_checked_at < ACCESS_RECHECK_SECONDS:
            return True
        self.access_checked_at = time.monotonic()
        user = self.scope["user"]
        still_member = Membership.objects.filter(
            user_id=user.pk, user__is_active=True, tenant_id=self.tenant_id, role__in=READERS
        ).exists()
        return still_member and self._session_still_signs_in(user)

    def _session_still_signs_in(self, user) -> bool:
        """The session the socket was opened with still names the user (signing out
        deletes it). A socket opened without a session (a test's) has nothing to check."""
        session = self.scope.get("session")
        key = getattr(session, "session_key", None) if session is not None else None
        if not key:
            return session is None
        stored = import_module(settings.SESSION_ENGINE).SessionStore(session_key=key)
        return stored.get(SESSION_KEY) == str(user.pk)

    @database_sync_to_async
    def _frame(self) -> tuple[str | None, bool]:
        run, events = read_frame(self.run_id, self.last_sent)
        if not events:
            return None, run.is_terminal
        if not self._viewer_may_still_read():
            self.viewer_gone = True
            return None, run.is_terminal
        newest = events[-1].seq
        if run.status in Run.ACTIVE_STATUSES:
            run.state = {}  # the banner and packet link need it only once the run stops
        else:
            run.state = Run.objects.values_list("state", flat=True).get(pk=run.pk)
        is_latest = True
        if run.is_terminal:  # only a finished case can have been run again
            is_latest = not Run.objects.filter(case_id=run.case_id, pk__gt=run.pk).exists()
        item_id = None
        if run.status == Run.Status.WAITING_FOR_INPUT:
            item_id = (
                ReviewItem.objects.filter(
                    run=run, kind=ReviewItem.Kind.CLARIFICATION, status=ReviewItem.Status.OPEN
                )
                .values_list("id", flat=True)
                .first()
            )
        context = fragments.live_context(
            run,
            user=self.scope["user"],
            clarification_item_id=item_id,
            is_latest=is_latest,
            last_seq=newest,
        )

        def step_events(numbers: list[int]) -> list[TraceEvent]:
            return list(
                TraceEvent.objects.filter(
                    run_id=self.run_id, step__in=numbers, seq__lte=newest
                ).order_by("seq")
            )

        signature = fragments.status_signature(run) + (item_id, is_latest)
        matched = None
        if fragments.resolves_the_subject(events):
            if run.state:  # a stopped run's state is read whole above
                selected = run.state.get("selected_entity")
            else:
                selected = Run.objects.values_list("state__selected_entity", flat=True).get(
                    pk=run.pk
                )
            matched = selected or {}
        decisions = None
        if run.newest_decision != self.decision_shown:
            decisions = fragments.decisions_context(run.case_id)
        status_changed = signature != self.status_shown
        notes = None
        if fragments.changes_document_notes(events, status_changed):
            notes = fragments.document_notes(run)
        frame = fragments.render_push(
            context,
            events,
            self.rendered_steps,
            step_events,
            include_status=status_changed,
            decisions=decisions,
            matched=matched,
            notes=notes,
        )
        self.status_shown = signature
        if decisions is not None:
            self.decision_shown = decisions["newest_decision"]
        self.last_sent = newest
        self.rendered_steps.update(event.step for event in events)
        return frame, run.is_terminal
