"""The loop copies the state it is given, once, and leaves it as it was; the states its own
steps return are not copied again on every iteration."""

from __future__ import annotations

from atlas.runtime.state import AtlasState


def test_a_run_copies_the_state_it_was_given_once_and_leaves_it_unchanged(
    make_runtime, make_state, store, monkeypatch
):
    runtime = make_runtime()
    started = runtime.start(make_state("Acme Analytics"))
    given = started.model_dump_json()
    copies: list[int] = []
    real_clone = AtlasState.clone

    def counting_clone(self: AtlasState) -> AtlasState:
        copies.append(self.step)
        return real_clone(self)

    monkeypatch.setattr(AtlasState, "clone", counting_clone)

    state = runtime.run_until_pause(started)

    assert state.iteration > 3
    assert copies == [started.step]
    assert started.model_dump_json() == given
    assert store.states[state.run_id] == state.model_dump(mode="json")
    assert [e.seq for e in store.events[state.run_id]] == list(range(1, state.next_seq))


def test_stepping_a_state_leaves_that_state_unchanged(make_runtime, make_state):
    runtime = make_runtime()
    started = runtime.start(make_state("Acme Analytics"))
    given = started.model_dump_json()

    first = runtime.step(started)
    second = runtime.step(first)

    assert started.model_dump_json() == given
    assert (first.step, second.step) == (started.step + 1, started.step + 2)
    assert first is not started and second is not first
