"""A step that changed only the run's counters and the loop's bookkeeping does not write
the research state again; a step that changed it, or a row another writer moved on, does."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from atlas.runtime.ports import StaleRunVersion, StepCommit, TraceEventRecord
from atlas.runtime.state import AtlasState
from runs.actions import do_start_run
from runs.models import Run
from runs.run_state import STEP_COUNTERS, load_state
from runs.storage import DjangoRunStore

NOW = datetime(2026, 12, 4, 12, 0, tzinfo=UTC)


@pytest.fixture
def run(case, analyst) -> Run:
    return do_start_run(case, analyst, wake=False)


def step(state: AtlasState, **changes) -> StepCommit:
    """The next step of `state`: one event, the counters moved on, and `changes`."""
    event = TraceEventRecord(
        run_id=state.run_id,
        seq=state.next_seq,
        step=state.step + 1,
        type="model_requested",
        timestamp=NOW,
    )
    moved_on = state.model_copy(
        update={
            "version": state.version + 1,
            "step": state.step + 1,
            "iteration": state.iteration + 1,
            "next_seq": state.next_seq + 1,
            "updated_at": NOW,
            **changes,
        }
    )
    return StepCommit(
        run_id=state.run_id, expected_version=state.version, state=moved_on, events=[event]
    )


def writes_state(store: DjangoRunStore, commit: StepCommit) -> bool:
    """Commit the step; whether its run update set the `state` column."""
    with CaptureQueriesContext(connection) as queries:
        store.commit_step(commit)
    quoted = connection.ops.quote_name("state")
    updates = [q["sql"] for q in queries if 'UPDATE "runs_run"' in q["sql"]]
    assert len(updates) == 1
    return f"{quoted} = " in updates[0]


def test_a_step_that_found_nothing_new_leaves_the_research_state_alone(run):
    store = DjangoRunStore()
    first = step(AtlasState.from_json(run.state))
    assert writes_state(store, first)
    second = step(first.state)
    assert not writes_state(store, second)
    run.refresh_from_db()
    assert load_state(run).model_dump(exclude={"observations"}) == second.state.model_dump(
        exclude={"observations"}
    )
    assert not STEP_COUNTERS & set(run.state)
    assert (run.state_version, run.iterations) == (second.state.version, 2)


def test_a_step_that_changed_the_research_writes_it(run):
    store = DjangoRunStore()
    first = step(AtlasState.from_json(run.state))
    store.commit_step(first)
    second = step(first.state, completed_steps=["resolve_entity"])
    assert writes_state(store, second)
    run.refresh_from_db()
    assert run.state["completed_steps"] == ["resolve_entity"]


def test_a_row_another_writer_moved_on_gets_the_whole_state(run):
    mine, theirs = DjangoRunStore(), DjangoRunStore()
    first = step(AtlasState.from_json(run.state))
    mine.commit_step(first)
    # Another writer (a reviewer's decision applied elsewhere) moves the run on.
    other = step(first.state, completed_steps=["screen_sanctions"])
    theirs.commit_step(other)
    # This store's next step is built on the row as it now is, with the same research as
    # its own last commit: it must not take the row's state for the one it left there.
    mine_again = step(other.state, completed_steps=[])
    assert writes_state(mine, mine_again)
    run.refresh_from_db()
    assert run.state["completed_steps"] == []


def test_a_refused_step_leaves_nothing_remembered(run):
    store = DjangoRunStore()
    first = step(AtlasState.from_json(run.state))
    store.commit_step(first)
    with pytest.raises(StaleRunVersion):
        store.commit_step(step(AtlasState.from_json(run.state)))
    assert writes_state(store, step(first.state))


def test_a_row_written_before_the_counters_moved_keeps_them_in_its_state(run):
    store = DjangoRunStore()
    first = step(AtlasState.from_json(run.state))
    store.commit_step(first)
    run.refresh_from_db()
    memory = load_state(run)
    # As such a row was: the counters in the state, the loop memory without them.
    counters = memory.model_dump(mode="json", include=STEP_COUNTERS)
    run.state = {**run.state, **counters}
    run.loop_memory = memory.model_dump_json(include={"action_counts", "decision_history"})
    assert load_state(run).model_dump(exclude={"observations"}) == first.state.model_dump(
        exclude={"observations"}
    )
