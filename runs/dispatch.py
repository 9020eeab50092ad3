"""Wake a worker about a run. The message is only a nudge: the run's row decides who owns it."""

from __future__ import annotations

import logging

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.conf import settings
from django.db import transaction

from runs.outages import Outage

logger = logging.getLogger(__name__)
# A run whose wake-up is lost is picked up by the workers' sweep.
WAKING = Outage(logger, "Waking a worker through the channel layer")

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
        except Exception as error:  # the sweep finds the run; the request must not fail for it
            WAKING.failed(error, about=f"run {run_id}, {action}")
        else:
            WAKING.succeeded()

    transaction.on_commit(send)
