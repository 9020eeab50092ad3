"""Helpers for worker tests: a run worker on its own event loop, fed like Channels feeds it."""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import Callable

from asgiref.testing import ApplicationCommunicator
from django.conf import settings
from django.db import connection

from atlas.runtime.scenario import parse_scenario
from runs.models import Run
from runs.worker import RunWorker, RunWorkerConsumer, worker_running


class WorkerThread:
    """A RunWorker plus its channel consumer, running on an event loop in a thread.

    `send()` delivers a message exactly as `runworker` would; the test thread stays
    synchronous and watches the database.
    """

    def __init__(self, **options) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self._running = worker_running(**options)
        self.worker: RunWorker = self.call(self._running.__aenter__())
        self.consumer: ApplicationCommunicator = self.call(self._connect())

    def call(self, coroutine, timeout: float = 20.0):
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(timeout)

    async def _connect(self) -> ApplicationCommunicator:
        scope = {"type": "channel", "channel": settings.ATLAS_WORKER_CHANNEL}
        communicator = ApplicationCommunicator(RunWorkerConsumer.as_asgi(), scope)
        communicator.future  # noqa: B018 - starts the consumer on this loop
        return communicator

    def send(self, message: dict) -> None:
        self.call(self.consumer.send_input(message))

    def consumer_alive(self) -> bool:
        return not self.consumer.future.done()

    def stop(self) -> None:
        try:
            self.call(self._running.__aexit__(None, None, None))
            self.call(self._disconnect())
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)
            self.thread.join(5)

    async def _disconnect(self) -> None:
        self.consumer.future.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self.consumer.future


def wait_for(condition: Callable[[], object], timeout: float = 15.0, every: float = 0.02):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(every)
    raise AssertionError(f"Condition not met within {timeout}s")


def status_of(run: Run) -> str:
    return Run.objects.values_list("status", flat=True).get(pk=run.pk)


def event_types(run: Run) -> list[str]:
    return list(run.events.order_by("seq").values_list("type", flat=True))


def scenario(case, **fields):
    return parse_scenario(
        {
            "case": {"subject": case.subject_name, "subject_type": case.subject_type},
            **fields,
        }
    )


def database_url_of_the_tests() -> str:
    """The test database as a DATABASE_URL, for a process started by a test."""
    db = connection.settings_dict
    return (
        f"postgres://{db['USER']}:{db['PASSWORD'] or ''}@{db['HOST'] or '127.0.0.1'}:"
        f"{db['PORT'] or 5432}/{db['NAME']}"
    )
