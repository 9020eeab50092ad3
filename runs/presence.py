"""Whether a worker process is still alive, known at once on PostgreSQL.

A worker holds a session advisory lock named after it, on a database connection of its own,
for as long as it runs. The database drops the session of a process that died (kill -9, a
lost host) and the lock with it, so whoever can take the lock knows the worker is gone and
need not wait for its leases to run out. A worker whose presence connection broke takes the
lock again on its next heartbeat; until then it only looks gone: a cancel would end the run
a moment sooner than the worker itself would have. The sweep asks only about headless
commands (`run_case`), which hold their runs far longer than a worker's lease.

On SQLite nobody asks: the server and the worker are one process.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging

from django.db import DEFAULT_DB_ALIAS, DatabaseError, connection, connections

logger = logging.getLogger(__name__)

# Names of the holders that hold a presence lock while they drive runs: workers
# (runs.worker.worker_name) and headless commands (runs.leases.HEADLESS).
WORKER_PREFIX = "worker:"
TRACKED_PREFIXES = (WORKER_PREFIX, "headless:")


def tracked(owner: str) -> bool:
    return owner.startswith(TRACKED_PREFIXES) and connection.vendor == "postgresql"


def lock_key(owner: str) -> int:
    digest = hashlib.sha256(f"atlas-presence:{owner}".encode()).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


class WorkerPresence:
    """The lock one worker holds while it runs. Call it from one thread only."""

    def __init__(self, owner: str) -> None:
        self.owner = owner
        self._session = None  # a DatabaseWrapper of its own, outside `connections`

    def keep(self) -> bool:
        """Hold the lock, taking it again on a new connection if the old one broke;
        False if it cannot be held right now."""
        if not tracked(self.owner):
            return False
        if self._session is not None:
            try:
                with self._session.cursor() as cursor:
                    cursor.execute("SELECT 1")
                return True
            except DatabaseError:
                self.withdraw()
        session = connections.create_connection(DEFAULT_DB_ALIAS)
        try:
            with session.cursor() as cursor:
                cursor.execute("SELECT pg_try_advisory_lock(%s)", [lock_key(self.owner)])
                (held,) = cursor.fetchone()
        except DatabaseError:
            session.close()
            logger.warning("Worker %s cannot reach the database to show it is alive", self.owner)
            return False
        if not held:  # someone is checking on us this very moment: try again next beat
            session.close()
            return False
        self._session = session
        return True

    def withdraw(self) -> None:
        """Let go of the lock (a worker that stops cleanly), then of the connection."""
        session, self._session = self._session, None
        if session is not None:
            with contextlib.suppress(DatabaseError), session.cursor() as cursor:
                # Released here and now: closing alone lets the server end the session
                # a moment later.
                cursor.execute("SELECT pg_advisory_unlock(%s)", [lock_key(self.owner)])
            with contextlib.suppress(DatabaseError):
                session.close()


def worker_is_gone(owner: str) -> bool:
    """True when `owner` is a worker and no live session holds its presence lock."""
    if not tracked(owner):
        return False
    key = lock_key(owner)
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_lock(%s)", [key])
        (free,) = cursor.fetchone()
        if free:
            cursor.execute("SELECT pg_advisory_unlock(%s)", [key])
    return free
