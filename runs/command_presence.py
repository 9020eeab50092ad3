"""A headless command's heartbeat while it drives a run (`run_case`).

A worker shows it is alive on its heartbeat; a command that drives a run itself does the
same on a thread of its own: it keeps its presence lock (runs.presence), taken again on a
new connection should the database drop the old one, and renews its hold on the run. A
worker's sweep takes a command's run only when both have stopped (runs.leases
.claim_from_gone_holders): the command died, rather than its presence session alone.
"""

from __future__ import annotations

import threading

from django.conf import settings
from django.db import DatabaseError, connection

from runs.leases import hold_here
from runs.presence import WorkerPresence

BEATS_PER_LEASE = 3


class CommandHeartbeat:
    def __init__(self, run_id: int, owner: str, presence: WorkerPresence) -> None:
        self.run_id = run_id
        self.owner = owner
        self.presence = presence
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._beat, name=f"presence-{run_id}", daemon=True)

    def __enter__(self) -> CommandHeartbeat:
        self._thread.start()
        return self

    def __exit__(self, *exc_info) -> None:
        self._stop.set()
        self._thread.join()

    def _beat(self) -> None:
        interval = settings.ATLAS_LEASE_SECONDS / BEATS_PER_LEASE
        try:
            while not self._stop.wait(interval):
                try:
                    self.presence.keep()
                    hold_here(self.run_id, self.owner)
                except DatabaseError:
                    connection.close()  # a new one on the next beat
        finally:
            connection.close()
