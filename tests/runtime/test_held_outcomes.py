"""A decision maker that answers at once (the playbook, a script) has its next step decided
within a millisecond of a tool's end, so the tool's outcome is committed with that step's
first write: one commit per iteration instead of two, the same trace, and nothing lost when
the next step fails or the run must stop."""

from __future__ import annotations

import pytest
from runtime_helpers import ScriptThenPlaybook, call, events_of, run
from test_crash_recovery import CrashingStore, SimulatedCrash, counting_registry

from atlas.runtime.memory import MemoryRunStore

SEARCHES = [
    call("search_adverse_media", query=f"Acme Analytics {word}")
    for word in ("fraud", "fine", "probe")
]


class ScriptOverTheNetwork(ScriptThenPlaybook):
    """The same decisions, from a decision maker that waits on the network."""

    waits_on_network = True


class WorkerStopped(BaseException):
    """What no error handling of the runtime catches (a worker shut down mid-step)."""


class StopsOnItsSecondDecision(ScriptThenPlaybook):
    def decide(self, context):
        if context.turn_index == 1:
            raise WorkerStopped
        return super().decide(context)


def _trace(store: MemoryRunStore, run_id: str) -> list[tuple]:
    """Every event but how long it took."""
    return [
        (e.seq, e.step, e.type, {k: v for k, v in e.data.items() if k != "duration_ms"})
        for e in store.events[run_id]
    ]


def test_each_tool_call_costs_one_commit_not_two_and_the_trace_is_the_same(
    make_runtime, make_state
):
    local, networked = MemoryRunStore(), MemoryRunStore()
    state = run(make_runtime(ScriptThenPlaybook(SEARCHES), store=local), make_state())
    same = run(
        make_runtime(ScriptOverTheNetwork(SEARCHES), store=networked),
        make_state().model_copy(update={"run_id": state.run_id}),
    )

    assert _trace(local, state.run_id) == _trace(networked, state.run_id)
    assert same.proposed_packet == state.proposed_packet
    assert state.termination_reason == "finish_proposed"
    tool_calls = len(events_of(local, state, "tool_started"))
    assert tool_calls >= len(SEARCHES)
    assert networked.commits - local.commits == tool_calls
    assert local.states[state.run_id]["version"] == state.version


def test_a_run_that_must_stop_commits_the_step_it_holds(make_runtime, make_state, store):
    runtime = make_runtime(turns=SEARCHES)
    state = runtime.start(make_state())
    steps_allowed = iter([True])
    state = runtime.run_until_pause(state, keep_going=lambda: next(steps_allowed, False))

    stored = store.load_state(state.run_id)
    assert stored.version == state.version and stored.in_flight is None
    assert [e.type for e in store.events[state.run_id]][-2:] == ["tool_started", "tool_succeeded"]


def test_a_commit_that_fails_after_a_held_step_keeps_the_tools_result(make_runtime, make_state):
    store = CrashingStore()
    calls: dict[str, int] = {}
    runtime = make_runtime(store=store, registry=counting_registry(calls))
    state = runtime.start(make_state())
    with pytest.raises(SimulatedCrash):
        runtime.run_until_pause(state)

    stored = store.load_state(state.run_id)
    assert store.find_tool_call(stored.in_flight.idempotency_key).effect_status == "succeeded"
    recovering = make_runtime(store=store, registry=counting_registry(calls))
    state = recovering.run_until_pause(recovering.resume_after_crash(stored))
    assert state.termination_reason == "finish_proposed"
    assert calls["resolve_entity"] == 1


def test_a_decision_that_fails_after_a_held_step_keeps_the_tools_result(
    make_runtime, make_state, store
):
    runtime = make_runtime(StopsOnItsSecondDecision([]))
    state = runtime.start(make_state())
    with pytest.raises(WorkerStopped):
        runtime.run_until_pause(state)

    stored = store.load_state(state.run_id)
    assert stored.in_flight.tool_name == "resolve_entity"
    assert store.find_tool_call(stored.in_flight.idempotency_key).effect_status == "succeeded"
