"""The runtime's cancel signal: the host's signal or the runtime's own one."""

from __future__ import annotations

import time

from atlas.runtime.memory import MemoryCancelSignal
from atlas.runtime.ports import CancelSignal


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
