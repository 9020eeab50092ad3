"""Crash reconciliation: a tool call the store says succeeded is not executed again."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime
from decimal import Decimal

import pytest
from runtime_helpers import events_of

from atlas.runtime.memory import MemoryRunStore
from atlas.runtime.ports import StaleRunVersion, StepCommit, ToolCallRecord
from atlas.runtime.state import InFlightToolCall
from atlas.runtime.tools.registry import ToolRegistry, default_registry


class SimulatedCrash(Exception):
    pass


class CrashingStore(MemoryRunStore):
    """Dies on the first state commit after a tool returned (the worker crash window)."""

    def __init__(self) -> None:
        super().__init__()
        self.armed = True

    def commit_step(self, commit: StepCommit) -> None:
        finished = [r for r in commit.tool_calls if r.effect_status != "intended"]
        if self.armed and finished:
            self.armed = False
            raise SimulatedCrash
        super().commit_step(commit)


def counting_registry(counter: dict[str, int]) -> ToolRegistry:
    tools = []
    for spec in default_registry():

        def handler(args, ctx, _inner=spec.handler, _name=spec.name):
            counter[_name] = counter.get(_name, 0) + 1
            return _inner(args, ctx)

        tools.append(dataclasses.replace(spec, handler=handler))
    return ToolRegistry(tools)


def abandoned_resolve(key: str) -> InFlightToolCall:
    """A resolve_entity call whose intent was recorded by a worker that then died."""
    return InFlightToolCall(
        idempotency_key=key,
        tool_name="resolve_entity",
        arguments={"name": "Acme Analytics", "jurisdiction": "GB", "entity_type": "company"},
        signature="sig-resolve",
        step=1,
    )


def crashed_after_the_first_tool(make_runtime, make_state):
    """A run whose worker died between its first tool's success and the step's commit:
    the store, the calls each tool got, and the state the step started from."""
    store = CrashingStore()
    calls: dict[str, int] = {}
    runtime = make_runtime(store=store, registry=counting_registry(calls))
    state = runtime.start(make_state())
    with pytest.raises(SimulatedCrash):
        runtime.step(state)
    return store, calls, state


def test_a_call_that_succeeded_before_the_crash_is_not_executed_again(make_runtime, make_state):
    store, calls, state = crashed_after_the_first_tool(make_runtime, make_state)
    assert calls == {"resolve_entity": 1}

    # Another worker picks the run up from what was durably stored.
    stored = store.load_state(state.run_id)
    assert stored.in_flight is not None
    key = stored.in_flight.idempotency_key
    assert store.find_tool_call(key).effect_status == "succeeded"

    recovering = make_runtime(store=store, registry=counting_registry(calls))
    state = recovering.resume_after_crash(stored)
    assert state.in_flight is None
    assert state.selected_entity.entity_id == "co-acme-analytics-gb"
    reconciled = events_of(store, state, "tool_succeeded")[0]
    assert reconciled.data["reconciled"] is True and reconciled.data["idempotency_key"] == key
    state = recovering.run_until_pause(state)
    assert state.termination_reason == "finish_proposed"
    assert calls["resolve_entity"] == 1
    assert store.event_types(state.run_id)[:5] == [
        "run_started",
        "model_requested",
        "model_decision",
        "tool_started",
        "run_resumed",
    ]


def test_a_call_whose_effect_is_unknown_is_run_again_under_the_same_key(make_runtime, make_state):
    store = MemoryRunStore()
    calls: dict[str, int] = {}
    runtime = make_runtime(store=store, registry=counting_registry(calls))
    state = runtime.start(make_state())
    # Simulate a worker that died after recording the intent but before the tool returned.
    state = state.model_copy(deep=True)
    state.in_flight = abandoned_resolve("run-x:1:abc")
    state = runtime.resume_after_crash(state)
    assert state.approved_action is not None
    state = runtime.step(state)
    started = events_of(store, state, "tool_started")
    assert started[-1].data["idempotency_key"] == "run-x:1:abc"
    assert calls == {"resolve_entity": 1}
    assert store.find_tool_call("run-x:1:abc").effect_status == "succeeded"


def test_effect_unknown_is_reconciled_by_key_and_not_run_again(make_runtime, make_state, store):
    # The connection drops after the provider did the work: asked by the call's key, the
    # provider says what it did, and the call is neither repeated nor charged twice.
    calls: dict[str, int] = {}
    runtime = make_runtime(registry=counting_registry(calls))
    state = runtime.run_until_pause(
        runtime.start(make_state(faults={"resolve_entity": ["effect_unknown"]}))
    )
    assert state.termination_reason == "finish_proposed"
    assert store.event_types(state.run_id)[:5] == [
        "run_started",
        "model_requested",
        "model_decision",
        "tool_started",
        "tool_succeeded",
    ]
    assert events_of(store, state, "tool_succeeded")[0].data["reconciled"] is True
    assert calls["resolve_entity"] == 1
    key = events_of(store, state, "tool_started")[0].data["idempotency_key"]
    assert store.find_tool_call(key).cost_usd == Decimal("0.01")


def test_a_stale_version_is_refused(make_runtime, make_state, store):
    runtime = make_runtime()
    state = runtime.start(make_state())
    runtime.step(state)
    with pytest.raises(StaleRunVersion):
        runtime.step(state)  # computed from a version another step already replaced


def test_cancelling_a_run_whose_holder_died_keeps_a_success_and_runs_nothing(
    make_runtime, make_state
):
    store, calls, state = crashed_after_the_first_tool(make_runtime, make_state)
    stored = store.load_state(state.run_id)
    key = stored.in_flight.idempotency_key

    state = make_runtime(store=store, registry=counting_registry(calls)).cancel(stored)
    assert (state.status, state.termination_reason) == ("cancelled", "cancelled")
    assert state.in_flight is None
    assert state.selected_entity.entity_id == "co-acme-analytics-gb"  # the success is kept
    assert store.event_types(state.run_id)[-2:] == ["tool_succeeded", "run_cancelled"]
    assert calls == {"resolve_entity": 1}
    assert store.find_tool_call(key).effect_status == "succeeded"


def test_cancelling_a_run_whose_holder_died_mid_call_records_the_call(make_runtime, make_state):
    store = MemoryRunStore()
    calls: dict[str, int] = {}
    runtime = make_runtime(store=store, registry=counting_registry(calls))
    state = runtime.start(make_state()).model_copy(deep=True)
    # The intent was recorded, then its worker died before the tool returned.
    state.in_flight = abandoned_resolve("run-y:1:abc")
    state = runtime.cancel(state)
    assert (state.status, state.termination_reason) == ("cancelled", "cancelled")
    assert state.in_flight is None and calls == {}
    failed = events_of(store, state, "tool_failed")[-1].data
    assert failed["error_type"] == "cancelled" and failed["idempotency_key"] == "run-y:1:abc"
    assert "duration_ms" not in failed  # its worker died before the call was timed
    assert store.event_types(state.run_id)[-2:] == ["tool_failed", "run_cancelled"]
    record = store.find_tool_call("run-y:1:abc")
    assert (record.effect_status, record.error_type) == ("unknown", "cancelled")


def test_a_result_the_step_never_absorbed_is_kept_and_not_fetched_again(
    make_runtime, make_state, monkeypatch
):
    # Anything between the tool's return and the step's commit may fail (here the reducer).
    from atlas.runtime import reducer

    store = MemoryRunStore()
    calls: dict[str, int] = {}
    runtime = make_runtime(store=store, registry=counting_registry(calls))
    state = runtime.start(make_state())
    original = reducer.apply_in_place

    def fails_once(*args, **kwargs):
        monkeypatch.setattr(reducer, "apply_in_place", original)
        raise SimulatedCrash

    monkeypatch.setattr(reducer, "apply_in_place", fails_once)
    with pytest.raises(SimulatedCrash):
        runtime.step(state)
    stored = store.load_state(state.run_id)
    assert store.find_tool_call(stored.in_flight.idempotency_key).effect_status == "succeeded"
    recovering = make_runtime(store=store, registry=counting_registry(calls))
    state = recovering.run_until_pause(recovering.resume_after_crash(stored))
    assert state.selected_entity.entity_id == "co-acme-analytics-gb"
    assert calls["resolve_entity"] == 1


def test_a_call_in_flight_whose_tool_is_gone_is_refused_not_crashed_on(make_runtime, make_state):
    store = MemoryRunStore()
    runtime = make_runtime(store=store)
    state = runtime.start(make_state()).model_copy(deep=True)
    state.in_flight = abandoned_resolve("run-x:1:abc")
    without_resolve = ToolRegistry([s for s in default_registry() if s.name != "resolve_entity"])
    recovering = make_runtime(store=store, registry=without_resolve)
    state = recovering.step(recovering.resume_after_crash(state))
    rejected = events_of(store, state, "tool_rejected")[-1].data
    assert (rejected["tool"], rejected["reason"]) == ("resolve_entity", "unknown_tool")
    assert state.status == "researching"


def test_a_call_retried_after_a_crash_continues_the_step_it_began_in(make_runtime, make_state):
    store = MemoryRunStore()
    runtime = make_runtime(store=store)
    state = runtime.start(make_state()).model_copy(deep=True)
    # The intent was recorded at step 1, then its worker died before the tool returned.
    state.step = 1
    state.in_flight = abandoned_resolve("run-z:1:abc")
    recovering = make_runtime(store=store)
    state = recovering.step(recovering.resume_after_crash(state))
    steps = {
        event.type: event.step
        for event in store.events[state.run_id]
        if event.type in ("run_resumed", "tool_started", "tool_succeeded")
    }
    assert steps == {"run_resumed": 1, "tool_started": 1, "tool_succeeded": 1}
    assert store.find_tool_call("run-z:1:abc").step == 1
    assert state.selected_entity.entity_id == "co-acme-analytics-gb"
    assert recovering.step(state).step == 2  # the next decision is a step of its own


def test_a_call_run_again_after_a_crash_counts_on_from_the_attempt_it_began(
    make_runtime, make_state
):
    """The dead worker's attempt happened: the call run again is attempt 2, and the call's
    record keeps when it first started."""
    store = MemoryRunStore()
    runtime = make_runtime(store=store)
    state = runtime.start(make_state()).model_copy(deep=True)
    state.step = 1
    state.in_flight = abandoned_resolve("run-w:1:abc")
    began = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
    store.save_tool_call(
        ToolCallRecord(
            idempotency_key="run-w:1:abc",
            run_id=state.run_id,
            step=1,
            tool="resolve_entity",
            arguments=state.in_flight.arguments,
            effect_status="intended",
            attempts=1,
            started_at=began,
        )
    )
    recovering = make_runtime(store=store)
    state = recovering.step(recovering.resume_after_crash(state))
    (started,) = events_of(store, state, "tool_started")
    assert started.data["attempt"] == 2
    record = store.find_tool_call("run-w:1:abc")
    assert (record.effect_status, record.attempts, record.started_at) == ("succeeded", 2, began)
