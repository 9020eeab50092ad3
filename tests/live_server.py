"""A real Atlas for browser tests: daphne and the run worker, in this process, on the test DB.

    from tests.live_server import atlas_server  # noqa: F401 (a fixture)

    @pytest.mark.browser
    @pytest.mark.django_db(transaction=True)
    def test_steps_appear_live(page, atlas_server, analyst): ...
        page.goto(f"{atlas_server.url}/login/")

The server runs on a background thread for the whole session (Twisted's reactor starts only
once per process). It serves HTTP and websockets exactly as `manage.py serve` does, and its
worker drives the runs a page starts. Runs a test starts itself (`do_start_run`) are found
by the worker's sweep, every 0.3 s during a test, because a wake-up cannot be sent from the
thread where Playwright's event loop runs. Between tests the worker takes no work (no
wake-ups, no sweeps) and the fixture waits for runs in flight to pause, so no thread
touches a database being reset, and tests with their own workers are left alone.
"""

from __future__ import annotations

import asyncio
import threading
import time
from dataclasses import dataclass

import pytest
from channels.layers import get_channel_layer
from channels.routing import get_default_application
from daphne.server import Server
from django.conf import settings

from runs.management.commands.runworker import RunWorkerServer
from runs.management.commands.serve import embed_worker
from runs.worker import RunWorker, current_worker

START_TIMEOUT = 15.0
IDLE_TIMEOUT = 10.0
SWEEP_SECONDS = 0.3


@dataclass
class AtlasServer:
    url: str
    server: Server
    thread: threading.Thread

    @property
    def worker(self) -> RunWorker:
        worker = current_worker()
        if worker is None:
            raise RuntimeError("The live server's run worker has not started")
        return worker

    @property
    def loop(self) -> asyncio.AbstractEventLoop:
        from twisted.internet import reactor

        return reactor._asyncioEventloop

    def wait_idle(self, timeout: float = IDLE_TIMEOUT) -> bool:
        """True once the worker drives no run (every run paused, ended or handed back)."""
        future = asyncio.run_coroutine_threadsafe(self.worker.idle(timeout), self.loop)
        return future.result(timeout + 5)


def start_atlas_server() -> AtlasServer:
    application = get_default_application()
    server = Server(
        application,
        endpoints=["tcp:port=0:interface=127.0.0.1"],
        signal_handlers=False,
        verbosity=0,
    )
    worker = RunWorkerServer(
        application, [settings.ATLAS_WORKER_CHANNEL], get_channel_layer(), handle_signals=False
    )
    embed_worker(worker)
    thread = threading.Thread(target=server.run, name="atlas-live-server", daemon=True)
    thread.start()
    deadline = time.monotonic() + START_TIMEOUT
    while not (server.listening_addresses and current_worker()):
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("The live Atlas server did not start")
        time.sleep(0.02)
    host, port = server.listening_addresses[0]
    return AtlasServer(url=f"http://{host}:{port}", server=server, thread=thread)


def stop_atlas_server(live: AtlasServer) -> None:
    from twisted.internet import reactor

    reactor.callFromThread(reactor.stop)
    live.thread.join(IDLE_TIMEOUT + 5)


_live: AtlasServer | None = None


@pytest.fixture(scope="session")
def _atlas_server_stopped_at_end(django_db_setup, django_db_blocker):
    """Stops the live server, if a test started it, before the test databases are dropped:
    its worker holds connections to them until it stops."""
    yield
    global _live
    if _live is not None:
        with django_db_blocker.unblock():
            stop_atlas_server(_live)
        _live = None


def end_other_sessions(timeout: float = 5.0) -> None:
    """Before a PostgreSQL test database is dropped: wait for the sessions other threads
    of this test process closed to end (PostgreSQL ends one a moment after its client
    closes it), then end any a test thread left open (a live server's request thread, for
    one), which would otherwise keep the database from being dropped. Done from the
    server's maintenance database, so no session of ours stays on the test database."""
    from django.db import connection

    if connection.vendor != "postgresql":
        return
    database = connection.settings_dict["NAME"]
    connection.close()
    deadline = time.monotonic() + timeout
    with connection._nodb_cursor() as cursor:
        while time.monotonic() < deadline:
            cursor.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = %s", [database])
            if cursor.fetchone()[0] == 0:
                return
            time.sleep(0.05)
        cursor.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s "
            "AND usename = current_user AND backend_type = 'client backend'",
            [database],
        )


@pytest.fixture
def atlas_server(_atlas_server_stopped_at_end, transactional_db) -> AtlasServer:
    """The live server (started on first use, shared by the session), one test at a time."""
    global _live
    if _live is None:
        _live = start_atlas_server()
    # Tests that start runs from the test thread while Playwright's event loop runs there
    # cannot send the wake-up (async_to_sync refuses); a quick sweep finds those runs.
    _live.worker.sweep_seconds = SWEEP_SECONDS
    _live.worker.accepting = True
    _live.loop.call_soon_threadsafe(_live.worker.sweep_wanted.set)
    yield _live
    _live.worker.accepting = False
    if not _live.wait_idle():
        pytest.fail(f"Runs were still being driven {IDLE_TIMEOUT:g}s after the test")
    if not other_statements_ended():
        pytest.fail(f"The server was still querying the database {IDLE_TIMEOUT:g}s after the test")


def other_statements_ended(timeout: float = IDLE_TIMEOUT) -> bool:
    """True once no other session runs a statement on the test database: a request or a
    live page's consumer the browser left behind may still be reading when the test ends,
    and the reset's TRUNCATE, locking table after table, deadlocks with a query that has
    locked some of them. Idle sessions hold no locks and may stay."""
    from django.db import connection

    if connection.vendor != "postgresql":
        return True
    deadline = time.monotonic() + timeout
    with connection.cursor() as cursor:
        while True:
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                "AND pid <> pg_backend_pid() AND backend_type = 'client backend' "
                "AND state <> 'idle'"
            )
            if cursor.fetchone()[0] == 0:
                return True
            if time.monotonic() > deadline:
                return False
            time.sleep(0.02)
