"""The live stream of one run to a case page.

On connect and on every `run.updated` nudge the consumer reads, from the database, the
run's trace events after the last one it sent, and pushes them as out-of-band fragments
rendered by `runs.fragments`. The nudge's own `last_seq` is never trusted: a lost or
repeated message cannot cause a gap or a duplicate.
"""

from __future__ import annotations

import logging

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer

from reviews.models import ReviewItem
from runs import fragments
from runs.access import has_role, membership_of
from runs.live import run_group
from runs.models import Run, TraceEvent

logger = logging.getLogger(__name__)

CLOSE_FORBIDDEN = 4403
CLOSE_NOT_FOUND = 4404
READERS = ("analyst", "reviewer", "admin")


# The two reads behind every frame, in plain SQL: this is the hot path of the stream and
# compiling the equivalent ORM queries cost more than running them (bench/stream_latency.py).
EVENTS_SQL = (
    f"SELECT id, run_id, seq, step, type, data, timestamp, duration_ms "
    f"FROM {TraceEvent._meta.db_table} WHERE run_id = %s AND seq > %s ORDER BY seq"
)
RUN_SQL = (
    f"SELECT id, tenant_id, case_id, status, termination_reason, user_status, budgets, "
    f"iterations, tokens, cost_usd, elapsed_seconds, last_seq, cancel_requested_at, "
    f"cancel_requested_by_id, created_at, finished_at FROM {Run._meta.db_table} WHERE id = %s"
)


def new_events(run_id: int, after: int) -> list[TraceEvent]:
    return list(TraceEvent.objects.raw(EVENTS_SQL, [run_id, after]))


def live_run(run_id: int) -> Run:
    return list(Run.objects.raw(RUN_SQL, [run_id]))[0]


class RunStreamConsumer(AsyncWebsocketConsumer):
    run_id: int
    last_sent: int
    rendered_steps: set[int]
    group: str | None = None
    status_shown: tuple | None = None  # what the status and banner last pushed showed

    async def connect(self) -> None:
        self.run_id = int(self.scope["url_route"]["kwargs"]["run_id"])
        self.last_sent = self._after_from_query()
        refusal = await self._refusal()
        # Accept first so the browser sees our close code and does not retry forever.
        await self.accept()
        if refusal:
            logger.info("Live stream of run %s refused with %s", self.run_id, refusal)
            await self.close(code=refusal)
            return
        # Join before the first read: an event committed in between is then nudged.
        self.group = run_group(self.run_id)
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self._push_new()

    async def disconnect(self, code: int) -> None:
        if self.group:
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive(self, text_data=None, bytes_data=None) -> None:
        """The page never needs to talk; anything it sends is ignored."""

    async def run_updated(self, message: dict) -> None:
        await self._push_new()

    def _after_from_query(self) -> int:
        from urllib.parse import parse_qs

        query = parse_qs(self.scope.get("query_string", b"").decode("latin-1"))
        try:
            return max(0, int(query.get("after", ["0"])[0]))
        except ValueError:
            return 0

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
        self.rendered_steps = set(
            TraceEvent.objects.filter(run_id=self.run_id, seq__lte=self.last_sent)
            .values_list("step", flat=True)
            .distinct()
        )
        return None

    async def _push_new(self) -> None:
        frame = await self._frame()
        if frame:
            await self.send(text_data=frame)

    @database_sync_to_async
    def _frame(self) -> str | None:
        events = new_events(self.run_id, self.last_sent)
        if not events:
            return None
        # Read the run after its events: its row is at least as new as what we send.
        run = live_run(self.run_id)
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
        frame = fragments.render_push(
            context,
            events,
            self.rendered_steps,
            step_events,
            include_status=signature != self.status_shown,
        )
        self.status_shown = signature
        self.last_sent = newest
        self.rendered_steps.update(event.step for event in events)
        return frame
