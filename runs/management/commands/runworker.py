"""`manage.py runworker atlas-runs`: Channels' worker plus Atlas's run worker.

Channels' own command only creates a consumer when the first message arrives; this one
starts the run worker at once, so a freshly started process sweeps for runs whose message
was lost or whose worker died even if no message ever comes. SIGTERM or Ctrl-C stops it
cleanly: each run finishes its current step and its lease is handed back for another
worker to take.
"""

from __future__ import annotations

import asyncio
import logging
import signal
import time

from channels.management.commands.runworker import Command as ChannelsRunworkerCommand
from channels.worker import Worker

from runs.management.migrated import require_migrated_database
from runs.outages import Outage
from runs.worker import running_worker

logger = logging.getLogger(__name__)
LISTENING_WELL_SECONDS = 60
MAX_RETRY_SECONDS = 30


class RunWorkerServer(Worker):
    def __init__(self, *args, handle_signals: bool = True, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.handle_signals = handle_signals
        self.stop_requested: asyncio.Event | None = None

    def request_stop(self) -> None:
        if self.stop_requested is not None:
            self.stop_requested.set()

    async def listener(self, channel: str) -> None:
        # A channel-layer hiccup (Redis restarting, a timeout) must not end the process:
        # runs in flight keep going and the sweep keeps working while we reconnect.
        outage = Outage(logger, f"Receiving on {channel}")
        while True:
            began = time.monotonic()
            try:
                await super().listener(channel)
            except asyncio.CancelledError:
                raise
            except Exception as error:
                if time.monotonic() - began > LISTENING_WELL_SECONDS:
                    outage.succeeded()  # it received for a while before this failure
                outage.failed(error)
                # Waiting longer the longer the layer stays down: a second, doubling to 30.
                await asyncio.sleep(min(2 ** (outage.failures - 1), MAX_RETRY_SECONDS))

    async def handle(self) -> None:
        loop = asyncio.get_running_loop()
        self.stop_requested = asyncio.Event()
        if self.handle_signals:
            for signum in (signal.SIGTERM, signal.SIGINT):
                loop.add_signal_handler(signum, self.request_stop)
        worker = await running_worker()
        listening = asyncio.ensure_future(super().handle())
        stopping = asyncio.ensure_future(self.stop_requested.wait())
        try:
            await asyncio.wait({listening, stopping}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            listening.cancel()
            stopping.cancel()
            await worker.stop()
        if listening.done() and not listening.cancelled() and listening.exception():
            raise listening.exception()


class Command(ChannelsRunworkerCommand):
    help = "Run a worker: drives runs woken on the named channel and sweeps for lost ones."
    worker_class = RunWorkerServer

    def handle(self, *args, **options) -> None:
        require_migrated_database()
        super().handle(*args, **options)
