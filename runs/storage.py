"""The runtime's storage port, persisted by Django: one transaction per step.

A step's state, trace events, observations and tool-call records are written together,
and only if the run's stored version is still the one the step started from.
"""

from __future__ import annotations

import threading

from django.db import connection, transaction
from django.db.models import JSONField
from django.db.models.expressions import RawSQL
from django.utils import timezone

from atlas.runtime.ports import (
    BaseRunStore,
    DocumentNotFound,
    StaleRunVersion,
    StepCommit,
    StoredDocument,
    ToolCallRecord,
)
from atlas.runtime.state import AtlasState
from reviews.sync import desired_items, sync_review_items
from runs.live import announce_run_update
from runs.models import Document, Observation, Run, ToolCall, TraceEvent

TOOL_CALL_FIELDS = [
    "effect_status",
    "attempts",
    "cost_usd",
    "result",
    "error_type",
    "started_at",
    "finished_at",
    "duration_ms",
    "arguments",
]


def state_column(state: AtlasState) -> RawSQL | dict:
    """The state as already-serialized JSON: pydantic writes it several times faster than
    json.dumps of the dumped dict, and it is written on every commit."""
    if connection.vendor == "postgresql":
        return RawSQL("%s::jsonb", [state.model_dump_json()], output_field=JSONField())
    if connection.vendor == "sqlite":
        return RawSQL("%s", [state.model_dump_json()], output_field=JSONField())
    return state.to_json()


def active_seconds(state: AtlasState) -> float:
    """Research time, without the time spent waiting for people (the runtime moves the
    deadline forward by every pause, so what is used of it is exactly the active time)."""
    end = state.updated_at or state.started_at
    if state.deadline_at is None:
        return max(0.0, (end - state.started_at).total_seconds())
    remaining = (state.deadline_at - end).total_seconds()
    return max(0.0, state.budgets.deadline_seconds - remaining)


def run_fields_from_state(state: AtlasState) -> dict:
    """The columns that mirror the state, so lists and queues never parse the JSON."""
    fields = {
        "state": state_column(state),
        "state_version": state.version,
        "status": state.status,
        "termination_reason": state.termination_reason or "",
        "user_status": state.user_status,
        "iterations": state.iteration,
        "tokens": state.tokens,
        "cost_usd": state.cost_usd,
        "last_seq": state.next_seq - 1,
        "model_name": state.versions.model,
        "prompt_version": state.versions.prompt,
        "schema_version": state.versions.schema_version,
        "policy_version": state.versions.policy,
        "toolset_version": state.versions.toolset,
        "budgets": state.budgets.model_dump(mode="json"),
        "updated_at": timezone.now(),
    }
    if state.started_at:
        fields["started_at"] = state.started_at
        fields["elapsed_seconds"] = active_seconds(state)
    if state.is_terminal:
        fields["finished_at"] = state.updated_at or timezone.now()
    return fields


def _tool_call_values(record: ToolCallRecord) -> dict:
    values = record.model_dump(mode="json", include=set(TOOL_CALL_FIELDS))
    values["cost_usd"] = record.cost_usd
    values["started_at"] = record.started_at
    values["finished_at"] = record.finished_at
    values["error_type"] = record.error_type or ""
    return values


class DjangoRunStore(BaseRunStore):
    """One instance per runtime; it remembers what it has itself made durable, so a
    commit skips writes that would change nothing (the hot path is a researching step)."""

    def __init__(self) -> None:
        # Review items wanted by the last committed state of each run.
        self._synced_items: dict[int, dict] = {}
        # Tool-call records saved the moment their tool returned (save_tool_call); the
        # step's commit carries the same record again.
        self._saved_calls: dict[str, ToolCallRecord] = {}

    def commit_step(self, commit: StepCommit) -> None:
        run_id = int(commit.run_id)
        state = commit.state
        wanted = desired_items(state)
        calls = [
            record
            for record in commit.tool_calls
            if self._saved_calls.get(record.idempotency_key) != record
        ]
        with transaction.atomic():
            updated = Run.objects.filter(pk=run_id, state_version=commit.expected_version).update(
                **run_fields_from_state(state)
            )
            if updated != 1:
                raise StaleRunVersion(
                    f"run {run_id} is no longer at version {commit.expected_version}"
                )
            TraceEvent.objects.bulk_create(
                TraceEvent(
                    run_id=run_id,
                    seq=event.seq,
                    step=event.step,
                    type=event.type,
                    data=event.data,
                    timestamp=event.timestamp,
                    duration_ms=event.duration_ms,
                )
                for event in commit.events
            )
            Observation.objects.bulk_create(
                Observation(
                    run_id=run_id,
                    step=obs.step,
                    source=obs.source,
                    name=obs.name,
                    ok=obs.ok,
                    data=obs.model_dump(mode="json", include={"data"})["data"],
                    model_view=obs.model_view,
                    error_type=obs.error_type or "",
                    error_message=obs.error_message or "",
                    source_ids=obs.source_ids,
                    created_at=state.updated_at or timezone.now(),
                )
                for obs in commit.observations
            )
            if calls:
                self._upsert_tool_calls(run_id, calls)
            # Only this run's own commits open or withdraw its items, so when the state
            # asks for the same items as the last commit did, they are already in place.
            if self._synced_items.get(run_id) != wanted:
                sync_review_items(run_id, state, wanted)
            if commit.events:
                announce_run_update(run_id, commit.events[-1].seq)
        self._synced_items[run_id] = wanted
        for record in commit.tool_calls:
            self._saved_calls.pop(record.idempotency_key, None)

    def save_tool_call(self, record: ToolCallRecord) -> None:
        # One upsert statement is its own transaction: no BEGIN/COMMIT round trips.
        with connection.cursor() as cursor:
            cursor.execute(_upsert_sql(), _upsert_params(int(record.run_id), record))
        self._saved_calls[record.idempotency_key] = record

    def find_tool_call(self, idempotency_key: str) -> ToolCallRecord | None:
        row = ToolCall.objects.filter(idempotency_key=idempotency_key).first()
        if row is None:
            return None
        return ToolCallRecord(
            idempotency_key=row.idempotency_key,
            run_id=str(row.run_id),
            step=row.step,
            tool=row.tool,
            arguments=row.arguments,
            effect_status=row.effect_status,
            attempts=row.attempts,
            cost_usd=row.cost_usd,
            result=row.result,
            error_type=row.error_type or None,
            started_at=row.started_at,
            finished_at=row.finished_at,
            duration_ms=row.duration_ms,
        )

    def _upsert_tool_calls(self, run_id: int, records: list[ToolCallRecord]) -> None:
        """Insert or update by idempotency key, one statement (the run, step and tool of
        an existing row never change)."""
        ToolCall.objects.bulk_create(
            [
                ToolCall(
                    run_id=run_id,
                    idempotency_key=record.idempotency_key,
                    step=record.step,
                    tool=record.tool,
                    **_tool_call_values(record),
                )
                for record in records
            ],
            update_conflicts=True,
            unique_fields=["idempotency_key"],
            update_fields=TOOL_CALL_FIELDS,
        )


UPSERT_COLUMNS = ["run_id", "idempotency_key", "step", "tool", *TOOL_CALL_FIELDS]


def _upsert_sql() -> str:
    """INSERT ... ON CONFLICT (idempotency_key) DO UPDATE: the same on SQLite and PostgreSQL."""
    quote = connection.ops.quote_name
    columns = [ToolCall._meta.get_field(name).column for name in UPSERT_COLUMNS]
    updates = [ToolCall._meta.get_field(name).column for name in TOOL_CALL_FIELDS]
    return (
        f"INSERT INTO {quote(ToolCall._meta.db_table)} ({', '.join(map(quote, columns))}) "
        f"VALUES ({', '.join(['%s'] * len(columns))}) "
        f"ON CONFLICT ({quote('idempotency_key')}) DO UPDATE SET "
        + ", ".join(f"{quote(column)} = EXCLUDED.{quote(column)}" for column in updates)
    )


def _upsert_params(run_id: int, record: ToolCallRecord) -> list:
    values = {
        "run_id": run_id,
        "idempotency_key": record.idempotency_key,
        "step": record.step,
        "tool": record.tool,
        **_tool_call_values(record),
    }
    return [
        ToolCall._meta.get_field(name).get_db_prep_save(values[name], connection)
        for name in UPSERT_COLUMNS
    ]


class DjangoDocumentSource:
    """Reads a case's uploaded files; only documents of that case are reachable."""

    def __init__(self, case_id: int) -> None:
        self.case_id = case_id
        self._owner = threading.get_ident()

    def get(self, document_id: str) -> StoredDocument:
        try:
            return self._read(document_id)
        finally:
            # Tools run on the gateway's reused helper threads: do not leave a database
            # connection open on one (it would outlive the run and block dropping a test
            # database).
            if threading.get_ident() != self._owner and not connection.in_atomic_block:
                connection.close()

    def _read(self, document_id: str) -> StoredDocument:
        try:
            document = Document.objects.get(pk=int(document_id), case_id=self.case_id)
        except (Document.DoesNotExist, ValueError):
            raise DocumentNotFound(document_id) from None
        with document.file.open("rb") as handle:
            content = handle.read()
        return StoredDocument(
            document_id=str(document.pk),
            name=document.original_name,
            content_type=document.content_type,
            content=content,
        )
