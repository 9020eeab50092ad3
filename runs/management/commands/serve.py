"""`manage.py serve`: the embedded default, web server and run worker in one process.

Daphne serves HTTP and websockets, and on the same event loop a run worker listens on the
worker channel and sweeps for runs, so the in-memory channel layer reaches it. With SQLite
and no `REDIS_URL` this is the whole of Atlas on a laptop; production runs daphne and
`runworker` as separate processes instead (see the Procfile).
"""

from __future__ import annotations

import asyncio

from channels.layers import get_channel_layer
from channels.routing import get_default_application
from daphne.endpoints import build_endpoint_description_strings
from daphne.server import Server
from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from twisted.internet import defer, reactor

from runs.management.commands.runworker import RunWorkerServer
from runs.management.migrated import require_migrated_database


class Command(BaseCommand):
    help = "Serve Atlas (HTTP, websockets) and run the run worker in this one process."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--host", default="127.0.0.1")
        parser.add_argument("--port", type=int, default=8000)

    def handle(self, *args, host: str, port: int, **options) -> None:
        require_migrated_database()
        if not 0 < port < 65536:
            raise CommandError(f"--port must be between 1 and 65535, not {port}.")
        layer = get_channel_layer()
        if layer is None:
            raise CommandError("No channel layer is configured.")
        application = get_default_application()
        server = AnnouncingServer(
            application,
            endpoints=build_endpoint_description_strings(host=host, port=port),
            verbosity=0,
        )
        server.announce = lambda: self._announce(host, port)
        worker = RunWorkerServer(
            application, [settings.ATLAS_WORKER_CHANNEL], layer, handle_signals=False
        )
        embed_worker(worker)
        server.run()

    def _announce(self, host: str, port: int) -> None:
        shown = "127.0.0.1" if host in ("0.0.0.0", "::") else host
        self.stdout.write(
            f"Atlas is running at http://{shown}:{port}/ "
            "(web server and run worker in one process; Ctrl-C stops both)"
        )
        self.stdout.flush()


class AnnouncingServer(Server):
    announce = staticmethod(lambda: None)

    def listen_success(self, port) -> None:
        super().listen_success(port)
        self.announce()


def embed_worker(worker: RunWorkerServer) -> None:
    """Run `worker` on the reactor's event loop; on shutdown, let it hand its runs back."""
    running: dict[str, asyncio.Future] = {}

    def start() -> None:
        running["task"] = asyncio.ensure_future(worker.arun())

    def stop() -> defer.Deferred | None:
        task = running.get("task")
        if task is None or task.done():
            return None
        worker.request_stop()
        return defer.Deferred.fromFuture(task)

    reactor.callWhenRunning(start)
    reactor.addSystemEventTrigger("before", "shutdown", stop)
