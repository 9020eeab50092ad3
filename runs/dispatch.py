"""Wake a worker about a run. The message is only a nudge: the run's row decides who owns it."""

from __future__ import annotations

import logging

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.conf import settings
from django.db import transaction

logger = logging.getLogger(__name__)

WAKE_ACTIONS = {"run.start", "run.resume", "run.cancel"}


def wake_worker(run_id: int, action: str) -> None:
    """Send after the surrounding transaction commits; a lost message is picked up by the sweep."""
    if action not in WAKE_ACTIONS:
        raise ValueError(f"Unknown worker action {action!r}")

    def send() -> None:
        layer = get_channel_layer()
        try:
            async_to_sync(layer.send)(
                settings.ATLAS_WORKER_CHANNEL, {"type": action, "run_id": run_id}
            )
        except Exception:  # the sweep will find the run; never fail the caller's request for this
            logger.warning("Could not wake a worker for run %s (%s)", run_id, action, exc_info=True)

    transaction.on_commit(send)
