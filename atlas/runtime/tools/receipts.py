"""What a tool provider answered, by idempotency key. A provider that honours the keys (as
payment, registry and screening APIs do) tells a caller whose connection dropped after the
request went out what that request did, so the call is reconciled rather than repeated.
The synthetic world's tools keep these receipts in the process, the newest few only: a
dropped connection is reconciled within moments of it."""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

RECEIPTS_KEPT = 256


class Receipts:
    def __init__(self, kept: int = RECEIPTS_KEPT) -> None:
        self._kept = kept
        self._answers: OrderedDict[str, dict[str, Any]] = OrderedDict()
        self._lock = threading.Lock()

    def record(self, key: str, result: dict[str, Any]) -> None:
        with self._lock:
            self._answers[key] = result
            self._answers.move_to_end(key)
            while len(self._answers) > self._kept:
                self._answers.popitem(last=False)

    def lookup(self, key: str) -> dict[str, Any] | None:
        with self._lock:
            return self._answers.get(key)


PROVIDER_RECEIPTS = Receipts()
