"""Live-stream latency: from a trace event's commit to its frame at a websocket client.

    .venv/bin/python bench/stream_latency.py [--rounds 200]

Compared with a bare channel-layer round trip measured in the same run (a `group_send` to
a group with one member, until that member has received it), so the ratio says what our
stream adds on top of the layer: the nudge, the consumer's database read of the new
events and the run, rendering the fragments, and the websocket send. Goal: ratio <= 3.

The client is Channels' `WebsocketCommunicator` speaking ASGI to the real consumer (the
same code daphne runs, without TCP). Uses PostgreSQL and Redis when DATABASE_URL and
REDIS_URL are set, otherwise SQLite and the in-memory layer; a throwaway test database
is created and dropped. With the in-memory layer the bare round trip is little more than a
function call (~0.1 ms), so the ratio there says little: the goal is for the production
stack. Run it as production runs daphne: DEBUG=0 (with a SECRET_KEY)
and persistent database connections (DB_CONN_MAX_AGE=60), e.g.

    DEBUG=0 SECRET_KEY=... DB_CONN_MAX_AGE=60 DATABASE_URL=postgres://... \
        REDIS_URL=redis://... .venv/bin/python bench/stream_latency.py
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "atlas.settings")


WARM_UP = 10


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * fraction))]


class BareRoundTrip:
    """One member of a group; `once()` times a group_send until that member has it."""

    async def start(self) -> None:
        from channels.layers import get_channel_layer

        self.layer = get_channel_layer()
        self.channel = await self.layer.new_channel()
        await self.layer.group_add("bench-bare", self.channel)

    async def once(self, n: int) -> float:
        began = time.perf_counter()
        message = {"type": "run.updated", "run_id": 0, "last_seq": n}
        await self.layer.group_send("bench-bare", message)
        await self.layer.receive(self.channel)
        return time.perf_counter() - began

    async def stop(self) -> None:
        await self.layer.group_discard("bench-bare", self.channel)


def commit_one_event(run, seq: int) -> float:
    """Write one step's events the way the run store does; return the commit time."""
    from django.db import transaction
    from django.utils import timezone

    from runs.live import announce_run_update
    from runs.models import Run, TraceEvent

    committed = {}
    with transaction.atomic():
        TraceEvent.objects.create(
            run=run,
            seq=seq,
            step=seq,
            type="tool_succeeded",
            data={"tool": "screen_sanctions", "summary": f"No hits ({seq})", "duration_ms": 50},
            timestamp=timezone.now(),
        )
        Run.objects.filter(pk=run.pk).update(last_seq=seq, iterations=seq)
        # Registered before the announcement, so it runs first once the commit is done.
        transaction.on_commit(lambda: committed.setdefault("at", time.perf_counter()))
        announce_run_update(run.pk, seq)
    return committed["at"]


# The worker commits from a thread of its own pool, entered through sync_to_async as
# runs.worker does (so its channel sends reuse the event loop's layer connection), with
# its own database connection, never the consumer's.
WRITER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="bench-writer")


async def in_writer(function, *args):
    from asgiref.sync import sync_to_async

    return await sync_to_async(function, thread_sensitive=False, executor=WRITER)(*args)


async def measure(rounds: int) -> tuple[list[float], list[float]]:
    """Alternate one bare round trip and one committed event, so both see the same load."""
    from channels.db import database_sync_to_async
    from channels.routing import URLRouter
    from channels.testing import WebsocketCommunicator
    from django.contrib.auth import get_user_model
    from django.db import connections

    from runs.models import Case, Membership, Run, Tenant
    from runs.routing import websocket_urlpatterns

    @database_sync_to_async
    def setup():
        tenant = Tenant.objects.create(name="Bench", slug="bench")
        user = get_user_model().objects.create_user("bench-analyst")
        Membership.objects.create(user=user, tenant=tenant, role="analyst")
        case = Case.objects.create(
            tenant=tenant, subject_name="Acme", subject_type="company", created_by=user
        )
        run = Run.objects.create(tenant=tenant, case=case, created_by=user, status="researching")
        return user, run

    user, run = await setup()
    socket = WebsocketCommunicator(URLRouter(websocket_urlpatterns), f"/ws/runs/{run.pk}/?after=0")
    socket.scope["user"] = user
    connected, _ = await socket.connect()
    assert connected, "the stream refused the bench user"
    bare = BareRoundTrip()
    await bare.start()
    bare_timings, stream_timings = [], []
    for seq in range(1, rounds + WARM_UP + 1):
        bare_time = await bare.once(seq)
        committed_at = await in_writer(commit_one_event, run, seq)
        frame = await socket.receive_from(timeout=5)
        received_at = time.perf_counter()
        assert f'data-seq-last="{seq}"' in frame, "the frame does not carry the new event"
        if seq > WARM_UP:
            bare_timings.append(bare_time)
            stream_timings.append(received_at - committed_at)
    await bare.stop()
    await socket.disconnect()
    # Persistent connections in the helper threads would block dropping the database.
    await database_sync_to_async(connections.close_all)()
    await in_writer(connections.close_all)
    return bare_timings, stream_timings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=200)
    args = parser.parse_args()

    import django

    django.setup()
    from django.conf import settings
    from django.db import connection

    old_name = connection.creation.create_test_db(verbosity=0, autoclobber=True, keepdb=False)
    try:
        bare, stream = asyncio.run(measure(args.rounds))
    finally:
        connection.creation.destroy_test_db(old_name, verbosity=0)
    layer = settings.CHANNEL_LAYERS["default"]["BACKEND"].rsplit(".", 1)[-1]
    bare_ms, stream_ms = statistics.median(bare) * 1000, statistics.median(stream) * 1000
    print(
        f"database: {connection.vendor} (CONN_MAX_AGE={settings.DATABASES['default']['CONN_MAX_AGE']}), "
        f"channel layer: {layer}, DEBUG={settings.DEBUG}, rounds: {args.rounds}"
    )
    print(
        f"bare channel-layer round trip: median {bare_ms:.3f} ms, p95 {percentile(bare, 0.95) * 1000:.3f} ms"
    )
    print(
        f"commit -> frame at client:     median {stream_ms:.3f} ms, p95 {percentile(stream, 0.95) * 1000:.3f} ms"
    )
    if connection.vendor == "postgresql" and not settings.DATABASES["default"]["CONN_MAX_AGE"]:
        print(
            "note: DB_CONN_MAX_AGE=0 opens a new database connection for every frame; "
            "run daphne with persistent connections (e.g. DB_CONN_MAX_AGE=60)"
        )
    ratio = stream_ms / bare_ms
    print(f"ratio (median stream / median bare): {ratio:.2f} (goal <= 3)")


if __name__ == "__main__":
    main()
