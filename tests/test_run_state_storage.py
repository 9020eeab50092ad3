"""A run's row leaves out the state's recent observations (they are the last rows of its
observations table) and keeps the loop's bookkeeping apart from the jsonb state; loading
the run gives the runtime back exactly what it had."""

from __future__ import annotations

import json

import pytest

from atlas.runtime.state import AtlasState, ObservationNote
from runs.actions import do_start_run
from runs.execution import run_inline
from runs.models import Case, Run
from runs.run_state import LOOP_MEMORY, load_state
from runs.storage import DjangoRunStore


@pytest.fixture
def committed_observations(monkeypatch) -> list[list[ObservationNote]]:
    """The observations each commit's state held, as the runtime had them in memory."""
    seen: list[list[ObservationNote]] = []
    commit_step = DjangoRunStore.commit_step

    def spy(store, commit):
        commit_step(store, commit)
        seen.append([note.model_copy() for note in commit.state.observations])

    monkeypatch.setattr(DjangoRunStore, "commit_step", spy)
    return seen


@pytest.fixture
def committed_states(monkeypatch) -> list[AtlasState]:
    """Each commit's state, as the runtime had it in memory."""
    seen: list[AtlasState] = []
    commit_step = DjangoRunStore.commit_step

    def spy(store, commit):
        commit_step(store, commit)
        seen.append(commit.state.clone())

    monkeypatch.setattr(DjangoRunStore, "commit_step", spy)
    return seen


def _paused_run(tenant, analyst) -> Run:
    case = Case.objects.create(
        tenant=tenant, subject_name="Northwind Trading", subject_type="company", created_by=analyst
    )
    run = run_inline(do_start_run(case, analyst, wake=False))
    assert run.status == "waiting_for_input"
    return run


def test_a_paused_run_loads_with_the_observations_it_had(tenant, analyst, committed_observations):
    run = _paused_run(tenant, analyst)
    assert "observations" not in run.state
    loaded = load_state(run).observations
    assert loaded == committed_observations[-1]
    assert [note.name for note in loaded][-1] == "resolve_entity"


def test_a_row_that_still_holds_its_observations_keeps_them(tenant, analyst):
    run = _paused_run(tenant, analyst)
    note = ObservationNote(step=1, source="runtime", name="older", ok=True, model_view="kept")
    run.state = {**run.state, "observations": [note.model_dump(mode="json")]}
    assert load_state(run).observations == [note]


def test_after_the_answer_the_model_is_shown_what_it_saw_before_the_pause(
    tenant, analyst, committed_observations, monkeypatch
):
    from atlas.runtime import engine
    from reviews.actions import do_answer_question
    from reviews.models import ReviewItem

    run = _paused_run(tenant, analyst)
    before_pause = committed_observations[-1]
    item = ReviewItem.objects.get(run=run, kind="clarification")
    do_answer_question(item, analyst, item.payload["candidates"][0])
    shown: list[list[ObservationNote]] = []
    build_context = engine.build_context

    def spy(state, *args, **kwargs):
        shown.append(list(state.observations))
        return build_context(state, *args, **kwargs)

    monkeypatch.setattr(engine, "build_context", spy)
    run_inline(run)
    first_after = shown[0]
    assert first_after[:-1] == before_pause[len(before_pause) - len(first_after) + 1 :]
    assert first_after[-1].source == "human"


def test_the_loop_memory_is_kept_apart_and_loads_back_whole(tenant, analyst, committed_states):
    run = _paused_run(tenant, analyst)
    assert not LOOP_MEMORY & set(run.state)
    memory = json.loads(run.loop_memory)
    assert set(memory) == LOOP_MEMORY
    assert memory["action_counts"] and memory["executed_actions"] and memory["decision_history"]
    last = committed_states[-1]
    assert load_state(run).model_dump(exclude={"observations"}) == last.model_dump(
        exclude={"observations"}
    )


def test_a_row_that_still_holds_its_loop_memory_in_the_state_keeps_it(tenant, analyst):
    run = _paused_run(tenant, analyst)
    memory = json.loads(run.loop_memory)
    run.state, run.loop_memory = {**run.state, **memory}, ""
    loaded = load_state(run)
    assert loaded.action_counts == memory["action_counts"]
    assert loaded.executed_actions == memory["executed_actions"]
    assert loaded.decision_history == memory["decision_history"]
