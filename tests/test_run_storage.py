from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal

import pytest
from django.db import DataError, connection, connections, transaction

from atlas.runtime.ports import (
    ObservationRecord,
    StaleRunVersion,
    StepCommit,
    ToolCallRecord,
    TraceEventRecord,
)
from atlas.runtime.state import AtlasState, PendingQuestion
from reviews.models import ReviewItem
from runs import step_writes
from runs.actions import do_start_run
from runs.models import Observation, Run, ToolCall, TraceEvent
from runs.storage import DjangoRunStore

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


@pytest.fixture
def run(case, analyst) -> Run:
    return do_start_run(case, analyst, wake=False)


@pytest.fixture(params=["one statement", "one statement, queries logged", "statements"])
def write_path(request, monkeypatch):
    """On PostgreSQL a step is one statement, unless it has too many values for one; the
    other path is SQLite's (and that fallback's). While Django logs queries, the one
    statement keeps its %s placeholders, which the log fills in."""
    if request.param == "statements":
        monkeypatch.setattr(step_writes, "MAX_STATEMENT_PARAMETERS", 0)
    elif connection.vendor != "postgresql":
        pytest.skip("one-statement steps are written on PostgreSQL only")
    elif request.param == "one statement, queries logged":
        monkeypatch.setattr(connections["default"], "force_debug_cursor", True)
    return request.param


def _commit(run: Run, state: AtlasState, *types: str, **extra) -> StepCommit:
    events = [
        TraceEventRecord(
            run_id=str(run.pk), seq=state.next_seq + i, step=state.step, type=t, timestamp=NOW
        )
        for i, t in enumerate(types)
    ]
    new_state = state.model_copy(
        update={"version": state.version + 1, "next_seq": state.next_seq + len(types), **extra}
    )
    return StepCommit(
        run_id=str(run.pk), expected_version=state.version, state=new_state, events=events
    )


def _resolve_call(run: Run, cost_usd: Decimal) -> ToolCallRecord:
    return ToolCallRecord(
        idempotency_key=f"{run.pk}:1:abc",
        run_id=str(run.pk),
        step=1,
        tool="resolve_entity",
        effect_status="succeeded",
        attempts=1,
        cost_usd=cost_usd,
    )


def test_a_step_is_written_whole_and_mirrored_on_the_run(
    run, write_path, django_capture_on_commit_callbacks
):
    state = AtlasState.from_json(run.state)
    commit = _commit(
        run, state, "run_started", "model_requested", status="researching", iteration=1
    )
    commit.observations.append(
        ObservationRecord(
            run_id=str(run.pk),
            step=1,
            source="tool",
            name="resolve_entity",
            ok=True,
            data={"candidates": []},
            model_view="<untrusted>…</untrusted>",
        )
    )
    commit.tool_calls.append(_resolve_call(run, Decimal("0.010000")))
    statements = []

    def record(execute, sql, params, many, context):
        statements.append(sql)
        return execute(sql, params, many, context)

    with django_capture_on_commit_callbacks() as callbacks, connection.execute_wrapper(record):
        DjangoRunStore().commit_step(commit)
    if write_path == "one statement":
        (sql,) = statements
        assert sql.startswith("WITH") and "$1" in sql and "%s" not in sql
    elif write_path == "one statement, queries logged":
        (sql,) = statements
        assert "%s" in sql and "$1" not in sql
    run.refresh_from_db()
    assert (run.status, run.state_version, run.last_seq, run.iterations) == ("researching", 1, 2, 1)
    assert list(TraceEvent.objects.filter(run=run).values_list("seq", "type")) == [
        (1, "run_started"),
        (2, "model_requested"),
    ]
    assert Observation.objects.get(run=run).model_view.startswith("<untrusted>")
    assert ToolCall.objects.get(run=run).cost_usd == Decimal("0.01")
    assert len(callbacks) == 1, "one live-page announcement per committed step"


def test_costs_are_stored_rounded_half_up_as_they_read_back(run, write_path):
    state = AtlasState.from_json(run.state)
    commit = _commit(
        run, state, "run_started", model_cost_usd=Decimal("0.0000015"), status="researching"
    )
    commit.tool_calls.append(_resolve_call(run, Decimal("0.0000025")))
    DjangoRunStore().commit_step(commit)
    # What the column holds is what a filter or a sort compares: SQLite keeps what it is
    # given, so an unrounded cost would read back as one value and sort as another.
    assert Run.objects.filter(pk=run.pk, cost_usd=Decimal("0.000002")).exists()
    assert ToolCall.objects.filter(run=run, cost_usd=Decimal("0.000003")).exists()


def test_a_stale_commit_is_refused_and_writes_nothing(run, write_path):
    state = AtlasState.from_json(run.state)
    store = DjangoRunStore()
    store.commit_step(_commit(run, state, "run_started", status="researching"))
    stale = _commit(run, state, "run_started", status="waiting_for_input", iteration=5)
    stale.observations.append(
        ObservationRecord(run_id=str(run.pk), step=1, source="tool", name="x", ok=True)
    )
    stale.tool_calls.append(
        ToolCallRecord(idempotency_key="late", run_id=str(run.pk), step=1, tool="x")
    )
    with pytest.raises(StaleRunVersion):
        store.commit_step(stale)
    assert TraceEvent.objects.filter(run=run).count() == 1
    assert not Observation.objects.filter(run=run).exists()
    assert not ToolCall.objects.filter(run=run).exists()
    run.refresh_from_db()
    assert (run.state_version, run.status, run.iterations) == (1, "researching", 0)


@pytest.mark.skipif(
    connection.vendor != "postgresql", reason="SQLite does not enforce a varchar's length"
)
def test_a_value_too_long_for_its_column_is_refused_not_cut(run, write_path):
    state = AtlasState.from_json(run.state)
    commit = _commit(run, state, "x" * 41, status="researching")  # type is varchar(40)
    with pytest.raises(DataError), transaction.atomic():
        DjangoRunStore().commit_step(commit)
    run.refresh_from_db()
    assert run.state_version == 0 and not TraceEvent.objects.filter(run=run).exists()


def screening_call(run, key: str, **outcome) -> ToolCallRecord:
    """The record of one screen_sanctions call at step 2, in the given state."""
    return ToolCallRecord(
        idempotency_key=key, run_id=str(run.pk), step=2, tool="screen_sanctions", **outcome
    )


def test_a_tool_call_is_upserted_by_its_idempotency_key(run):
    store = DjangoRunStore()
    key = f"{run.pk}:2:xyz"
    store.save_tool_call(screening_call(run, key))
    store.save_tool_call(
        screening_call(run, key, effect_status="succeeded", attempts=1, result={"hits": []})
    )
    assert ToolCall.objects.filter(idempotency_key=key).count() == 1
    found = store.find_tool_call(key)
    assert found.effect_status == "succeeded" and found.result == {"hits": []}
    assert store.find_tool_call("missing") is None

    # A writer that lost the run mid-tool and retried must not overwrite that success.
    store.save_tool_call(
        screening_call(run, key, effect_status="failed", attempts=2, error_type="timeout")
    )
    kept = store.find_tool_call(key)
    assert (kept.effect_status, kept.attempts, kept.result) == ("succeeded", 1, {"hits": []})


@pytest.mark.parametrize("next_store", ["the same store", "a new store"])
def test_a_question_opens_a_clarification_item_and_moving_on_withdraws_it(run, next_store):
    # The same store knows what the run asked before; a new one (the next worker pass)
    # reads the open items.
    store = DjangoRunStore()
    state = AtlasState.from_json(run.state)
    question = PendingQuestion(
        question_id="q1", question="Which Northwind?", candidates=["A", "B"], step=1
    )
    waiting = _commit(
        run,
        state,
        "clarification_requested",
        status="waiting_for_input",
        termination_reason="waiting_for_input",
        pending_question=question,
    )
    store.commit_step(waiting)
    item = ReviewItem.objects.get(run=run)
    assert (item.kind, item.key, item.status) == ("clarification", "q1", "open")
    assert item.payload["candidates"] == ["A", "B"]

    resumed = _commit(
        run,
        waiting.state,
        "clarification_received",
        status="researching",
        termination_reason=None,
        pending_question=None,
    )
    (store if next_store == "the same store" else DjangoRunStore()).commit_step(resumed)
    item.refresh_from_db()
    assert item.status == "withdrawn"


def test_time_waiting_for_people_does_not_count_as_research_time(run):
    from datetime import timedelta

    from runs.step_writes import active_seconds

    state = AtlasState.from_json(run.state)
    started = NOW
    # 30 s of research, then a 2-hour pause that moved the deadline forward by 2 hours.
    state = state.model_copy(
        update={
            "started_at": started,
            "deadline_at": started + timedelta(seconds=state.budgets.deadline_seconds, hours=2),
            "updated_at": started + timedelta(hours=2, seconds=30),
        }
    )
    assert active_seconds(state) == pytest.approx(30.0)


def test_a_paused_run_counts_no_research_time_for_what_is_written_while_it_waits():
    from datetime import UTC, datetime, timedelta

    from atlas.runtime.state import AtlasState, Budgets, CaseBrief
    from runs.step_writes import active_seconds

    began = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
    state = AtlasState(
        run_id="1",
        case_id="1",
        tenant_id="1",
        brief=CaseBrief(subject="Acme"),
        budgets=Budgets(deadline_seconds=120),
        started_at=began,
        deadline_at=began + timedelta(seconds=120),
        paused_at=began + timedelta(seconds=30),
        updated_at=began + timedelta(minutes=10),  # a refused decision, written later
    )
    assert active_seconds(state) == 30.0
