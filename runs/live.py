"""Tell live pages that a run has new committed trace events.

The message only carries the newest sequence number; consumers read the events
themselves from the database, so a lost or repeated message can never leave a gap
or a duplicate on a page.
"""

from __future__ import annotations

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction


def run_group(run_id: int) -> str:
    return f"run-{run_id}"


def announce_run_update(run_id: int, last_seq: int) -> None:
    """Push after commit: the events must be readable by the time a consumer looks."""

    def send() -> None:
        layer = get_channel_layer()
        if layer is None:
            return
        async_to_sync(layer.group_send)(
            run_group(run_id), {"type": "run.updated", "run_id": run_id, "last_seq": last_seq}
        )

    transaction.on_commit(send)
