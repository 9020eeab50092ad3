"""A wait on both cancel signals ends when its time is up, however slow each poll is."""

from __future__ import annotations

from atlas.runtime import cancellation
from atlas.runtime.cancellation import AnyCancel
from atlas.runtime.memory import MemoryCancelSignal


class SlowToAsk(MemoryCancelSignal):
    """A host's signal that costs `seconds` of the clock each time it is asked."""

    def __init__(self, clock: list[float], seconds: float) -> None:
        super().__init__()
        self.clock, self.seconds, self.asked = clock, seconds, 0

    def is_set(self) -> bool:
        self.asked += 1
        self.clock[0] += self.seconds
        return False


def test_a_wait_ends_when_its_time_is_up_however_long_each_poll_takes(monkeypatch):
    clock = [1000.0]
    monkeypatch.setattr(cancellation.time, "monotonic", lambda: clock[0])
    external = SlowToAsk(clock, seconds=0.5)
    assert AnyCancel(external, MemoryCancelSignal()).wait(2.0) is False
    # Each poll takes 0.5 s of the clock: 2 s is up after 4 of them, not after 100.
    assert external.asked <= 5


def test_a_wait_still_ends_at_once_on_either_signal():
    external, local = MemoryCancelSignal(), MemoryCancelSignal()
    external.set()
    assert AnyCancel(external, local).wait(30.0) is True
