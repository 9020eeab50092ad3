from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, connection, transaction
from django.utils import timezone

from reviews.models import HumanDecision, ReviewItem
from runs.models import Run, ToolCall, TraceEvent


@pytest.fixture
def run(case, tenant):
    return Run.objects.create(case=case, tenant=tenant)


def test_it_rejects_a_duplicate_sequence_number_in_one_run(run):
    TraceEvent.objects.create(run=run, seq=1, step=0, type="run_started", timestamp=timezone.now())
    with pytest.raises(IntegrityError), transaction.atomic():
        TraceEvent.objects.create(
            run=run, seq=1, step=0, type="model_requested", timestamp=timezone.now()
        )


def test_the_same_sequence_number_is_fine_in_another_run(run, case, tenant):
    other = Run.objects.create(case=case, tenant=tenant)
    TraceEvent.objects.create(run=run, seq=1, step=0, type="run_started", timestamp=timezone.now())
    TraceEvent.objects.create(
        run=other, seq=1, step=0, type="run_started", timestamp=timezone.now()
    )
    assert TraceEvent.objects.filter(seq=1).count() == 2


def test_it_rejects_a_reused_idempotency_key(run):
    ToolCall.objects.create(
        run=run, idempotency_key="run1:step2:abc", step=2, tool="screen_sanctions"
    )
    with pytest.raises(IntegrityError), transaction.atomic():
        ToolCall.objects.create(
            run=run, idempotency_key="run1:step2:abc", step=3, tool="screen_sanctions"
        )


def test_a_human_decision_cannot_be_edited_or_deleted(run, reviewer, tenant, case):
    decision = HumanDecision.objects.create(
        tenant=tenant,
        case=case,
        run=run,
        actor=reviewer,
        kind="approve",
        reason="ok",
        state_version=3,
    )
    decision.reason = "changed my mind"
    with pytest.raises(ValidationError):
        decision.save()
    with pytest.raises(ValidationError):
        decision.delete()
    assert HumanDecision.objects.get().reason == "ok"


@pytest.mark.skipif(
    connection.vendor != "postgresql", reason="the database-level guard is PostgreSQL's trigger"
)
def test_the_database_refuses_to_change_or_delete_a_human_decision(run, reviewer, tenant, case):
    decision = HumanDecision.objects.create(
        tenant=tenant, case=case, run=run, actor=reviewer, kind="approve", state_version=3
    )
    with pytest.raises(IntegrityError, match="append-only"), transaction.atomic():
        HumanDecision.objects.filter(pk=decision.pk).update(reason="rewritten")
    with pytest.raises(IntegrityError, match="append-only"), transaction.atomic():
        HumanDecision.objects.filter(pk=decision.pk).delete()
    assert HumanDecision.objects.get().reason == ""


def test_a_review_item_takes_exactly_one_decision(run, reviewer, second_reviewer, tenant, case):
    item = ReviewItem.objects.create(
        tenant=tenant,
        case=case,
        run=run,
        kind=ReviewItem.Kind.APPROVAL,
        key="approval:a-1",
        summary="resolve_entity",
        requested_at=timezone.now(),
    )

    def decide(actor, **extra):
        return HumanDecision.objects.create(
            tenant=tenant,
            case=case,
            run=run,
            actor=actor,
            kind="approve",
            reason="ok",
            state_version=3,
            **extra,
        )

    decide(reviewer, review_item=item)
    with pytest.raises(IntegrityError), transaction.atomic():
        decide(second_reviewer, review_item=item)
    # Decisions not tied to an item (a cancel) may repeat.
    decide(reviewer)
    decide(second_reviewer)
    assert HumanDecision.objects.filter(review_item=item).count() == 1


def test_every_model_has_a_readable_name(run):
    assert "Acme Widgets Ltd" in str(run)
    assert "queued" in str(run)


@pytest.mark.parametrize(
    "table", ["runs_run", "runs_traceevent", "runs_observation", "runs_toolcall"]
)
def test_tables_written_every_step_carry_no_index_another_index_already_covers(db, table):
    with connection.cursor() as cursor:
        constraints = connection.introspection.get_constraints(cursor, table)
    indexes = {
        name: tuple(spec["columns"])
        for name, spec in constraints.items()
        if spec["index"] and not spec["primary_key"] and spec["columns"]
    }
    redundant = [
        (name, other)
        for name, columns in indexes.items()
        for other, other_columns in indexes.items()
        if other != name
        and other_columns[: len(columns)] == columns
        # A unique index is not redundant: it is the constraint itself.
        and not constraints[name]["unique"]
    ]
    assert redundant == []


@pytest.mark.skipif(connection.vendor != "postgresql", reason="column compression is PostgreSQL's")
def test_large_json_columns_are_compressed_with_lz4_where_the_server_has_it(db):
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT 'lz4' = ANY(enumvals) FROM pg_settings WHERE name = 'default_toast_compression'"
        )
        if not cursor.fetchone()[0]:
            pytest.skip("this PostgreSQL was built without lz4")
        cursor.execute(
            "SELECT attrelid::regclass::text, attname, attcompression FROM pg_attribute "
            "WHERE (attrelid = 'runs_run'::regclass AND attname = 'state') "
            "OR (attrelid = 'runs_toolcall'::regclass AND attname = 'result') "
            "OR (attrelid = 'runs_observation'::regclass AND attname = 'data') "
            "ORDER BY 1"
        )
        assert cursor.fetchall() == [
            ("runs_observation", "data", "l"),
            ("runs_run", "state", "l"),
            ("runs_toolcall", "result", "l"),
        ]
