"""The runtime's cancel signal (the host's signal or the runtime's own one), and who asked
for the cancel, as the `run_cancelled` event records it."""

from __future__ import annotations

import time
from datetime import datetime
from typing import Any, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict

from atlas.runtime.memory import MemoryCancelSignal
from atlas.runtime.ports import CancelSignal


class CancelRequest(BaseModel):
    """A person's request to cancel a run."""

    model_config = ConfigDict(extra="forbid")

    # A name the console can show (never a password or an e-mail address), and the
    # person's user id, which stays the same should the name change.
    requested_by: str | None = None
    requested_by_id: str | None = None
    requested_at: datetime | None = None


@runtime_checkable
class CancelRequests(Protocol):
    """A store that knows who asked to cancel a run (the host's; an in-memory one does not)."""

    def cancel_request(self, run_id: str) -> CancelRequest | None:
        """The person's request to cancel the run; None when no person asked (a scenario's
        cancel_on, an interrupted or stopped process)."""


def cancel_request_data(store: object, run_id: str) -> dict[str, Any]:
    """Who asked for the cancel and when, for the `run_cancelled` event's data."""
    request = store.cancel_request(run_id) if isinstance(store, CancelRequests) else None
    if request is None:
        return {
            "requested_by_person": False,
            "requested_by": None,
            "requested_by_id": None,
            "requested_at": None,
        }
    return {"requested_by_person": True, **request.model_dump()}


class AnyCancel:
    """Set when either the host's signal or the runtime's own one is set."""

    def __init__(self, external: CancelSignal | None, local: MemoryCancelSignal) -> None:
        self.external = external
        self.local = local

    def is_set(self) -> bool:
        return self.local.is_set() or (self.external is not None and self.external.is_set())

    def wait(self, timeout: float) -> bool:
        if self.external is None:
            return self.local.wait(timeout)
        # Poll both in small slices; neither can wake the other. What is left is read off
        # the clock, so the time each poll takes does not stretch the wait.
        give_up_at = time.monotonic() + timeout
        while True:
            if self.is_set():
                return True
            remaining = give_up_at - time.monotonic()
            if remaining <= 0:
                return False
            if self.local.wait(min(0.02, remaining)):
                return True
