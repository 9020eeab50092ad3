"""The runtime's storage port, persisted by Django: one transaction per step.

A step's state, trace events, observations and tool-call records are written together,
and only if the run's stored version is still the one the step started from.
"""

from __future__ import annotations

import contextlib
import functools
import threading
from collections.abc import Callable

from django.db import connection, models, transaction
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


def _state_placeholder(vendor: str) -> str:
    return "%s::jsonb" if vendor == "postgresql" else "%s"


# The hot path writes with SQL built once per shape instead of through the ORM's compiler,
# which cost more CPU than the statements themselves; values are still prepared by the
# model fields (get_db_prep_save), exactly as the ORM would.
RAW_SQL_VENDORS = ("postgresql", "sqlite")
INSERT_BATCH_ROWS = 50  # well under SQLite's limit on bound parameters per statement


@functools.lru_cache(maxsize=64)
def _run_update_sql(vendor: str, names: tuple[str, ...]) -> str:
    quote = connection.ops.quote_name
    assignments = ", ".join(
        f"{quote(Run._meta.get_field(name).column)} = "
        + (_state_placeholder(vendor) if name == "state" else "%s")
        for name in names
    )
    return (
        f"UPDATE {quote(Run._meta.db_table)} SET {assignments} "
        f"WHERE {quote('id')} = %s AND {quote('state_version')} = %s"
    )


def _update_run_if_version(
    run_id: int, expected_version: int, state: AtlasState
) -> Callable[[], int]:
    """Send the version-checked UPDATE of the run's row; the returned function gives the
    number of rows it updated, once the database has answered (in a pipeline, only after
    the step's other statements were sent too)."""
    vendor = connection.vendor
    if vendor not in RAW_SQL_VENDORS:
        count = Run.objects.filter(pk=run_id, state_version=expected_version).update(
            **run_fields_from_state(state)
        )
        return lambda: count
    fields = run_fields_from_state(state, serialized_state=True)
    names = tuple(fields)
    params = [
        value if name == "state" else Run._meta.get_field(name).get_db_prep_save(value, connection)
        for name, value in fields.items()
    ]
    cursor = connection.cursor()
    cursor.execute(_run_update_sql(vendor, names), [*params, run_id, expected_version])

    def rows_updated() -> int:
        count = cursor.rowcount
        cursor.close()
        return count

    return rows_updated


def _stale(run_id: int, expected_version: int) -> StaleRunVersion:
    return StaleRunVersion(f"run {run_id} is no longer at version {expected_version}")


@contextlib.contextmanager
def _pipelined():
    """On PostgreSQL, send a step's statements without waiting for each answer (psycopg's
    pipeline mode): one network round trip instead of one per statement."""
    if connection.vendor != "postgresql":
        yield
        return
    with connection.connection.pipeline():
        yield


@functools.lru_cache(maxsize=64)
def _insert_sql(vendor: str, model: type[models.Model], names: tuple[str, ...], rows: int) -> str:
    quote = connection.ops.quote_name
    columns = ", ".join(quote(model._meta.get_field(name).column) for name in names)
    row = f"({', '.join(['%s'] * len(names))})"
    return f"INSERT INTO {quote(model._meta.db_table)} ({columns}) VALUES " + ", ".join(
        [row] * rows
    )


def _insert_rows(model: type[models.Model], names: tuple[str, ...], rows: list[tuple]) -> None:
    """One multi-row INSERT of plain values (no defaults, signals or returned ids needed)."""
    if not rows:
        return
    vendor = connection.vendor
    if vendor not in RAW_SQL_VENDORS:
        model.objects.bulk_create(model(**dict(zip(names, row, strict=True))) for row in rows)
        return
    fields = [model._meta.get_field(name) for name in names]
    with connection.cursor() as cursor:
        for start in range(0, len(rows), INSERT_BATCH_ROWS):
            batch = rows[start : start + INSERT_BATCH_ROWS]
            params = [
                field.get_db_prep_save(value, connection)
                for row in batch
                for field, value in zip(fields, row, strict=True)
            ]
            cursor.execute(_insert_sql(vendor, model, names, len(batch)), params)


TRACE_EVENT_COLUMNS = ("run_id", "seq", "step", "type", "data", "timestamp", "duration_ms")
OBSERVATION_COLUMNS = (
    "run_id",
    "step",
    "source",
    "name",
    "ok",
    "data",
    "model_view",
    "error_type",
    "error_message",
    "source_ids",
    "created_at",
)


def active_seconds(state: AtlasState) -> float:
    """Research time, without the time spent waiting for people (the runtime moves the
    deadline forward by every pause, so what is used of it is exactly the active time)."""
    end = state.updated_at or state.started_at
    if state.deadline_at is None:
        return max(0.0, (end - state.started_at).total_seconds())
    remaining = (state.deadline_at - end).total_seconds()
    return max(0.0, state.budgets.deadline_seconds - remaining)


def run_fields_from_state(state: AtlasState, *, serialized_state: bool = False) -> dict:
    """The columns that mirror the state, so lists and queues never parse the JSON.

    With `serialized_state`, "state" is the state's JSON text rather than a column value."""
    fields = {
        "state": state.model_dump_json() if serialized_state else state_column(state),
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
    """One instance per runtime; it remembers the review items its last commit of each run
    asked for, so a commit skips the sync when nothing changed (the hot path is a
    researching step)."""

    def __init__(self) -> None:
        self._synced_items: dict[int, dict] = {}

    def commit_step(self, commit: StepCommit) -> None:
        run_id = int(commit.run_id)
        state = commit.state
        wanted = desired_items(state)
        with transaction.atomic():
            rows_updated = None
            try:
                with _pipelined():
                    rows_updated = _update_run_if_version(run_id, commit.expected_version, state)
                    self._write_step_rows(run_id, commit)
            except Exception as error:
                # Another writer's rows (the same event numbers) make the inserts fail too.
                if rows_updated is not None and rows_updated() == 0:
                    raise _stale(run_id, commit.expected_version) from error
                raise
            if rows_updated() != 1:
                raise _stale(run_id, commit.expected_version)
            # Only this run's own commits open or withdraw its items, so when the state
            # asks for the same items as the last commit did, they are already in place.
            if self._synced_items.get(run_id) != wanted:
                sync_review_items(run_id, state, wanted)
            if commit.events:
                announce_run_update(run_id, commit.events[-1].seq)
        self._synced_items[run_id] = wanted

    def _write_step_rows(self, run_id: int, commit: StepCommit) -> None:
        state = commit.state
        _insert_rows(
            TraceEvent,
            TRACE_EVENT_COLUMNS,
            [
                (
                    run_id,
                    event.seq,
                    event.step,
                    event.type,
                    event.data,
                    event.timestamp,
                    event.duration_ms,
                )
                for event in commit.events
            ],
        )
        created_at = state.updated_at or timezone.now()
        _insert_rows(
            Observation,
            OBSERVATION_COLUMNS,
            [
                (
                    run_id,
                    obs.step,
                    obs.source,
                    obs.name,
                    obs.ok,
                    obs.model_dump(mode="json", include={"data"})["data"],
                    obs.model_view,
                    obs.error_type or "",
                    obs.error_message or "",
                    obs.source_ids,
                    created_at,
                )
                for obs in commit.observations
            ],
        )
        if commit.tool_calls:
            self._upsert_tool_calls(run_id, commit.tool_calls)

    def save_tool_call(self, record: ToolCallRecord) -> None:
        # One upsert statement is its own transaction: no BEGIN/COMMIT round trips.
        with connection.cursor() as cursor:
            cursor.execute(_upsert_sql(), _upsert_params(int(record.run_id), record))

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
        params = [value for record in records for value in _upsert_params(run_id, record)]
        with connection.cursor() as cursor:
            cursor.execute(_upsert_sql(len(records)), params)


UPSERT_COLUMNS = ["run_id", "idempotency_key", "step", "tool", *TOOL_CALL_FIELDS]


def _upsert_sql(rows: int = 1) -> str:
    """INSERT ... ON CONFLICT (idempotency_key) DO UPDATE: the same on SQLite and PostgreSQL."""
    return _upsert_sql_for(connection.vendor, rows)


@functools.lru_cache(maxsize=16)
def _upsert_sql_for(vendor: str, rows: int) -> str:
    quote = connection.ops.quote_name
    columns = [ToolCall._meta.get_field(name).column for name in UPSERT_COLUMNS]
    updates = [ToolCall._meta.get_field(name).column for name in TOOL_CALL_FIELDS]
    return (
        f"INSERT INTO {quote(ToolCall._meta.db_table)} ({', '.join(map(quote, columns))}) "
        "VALUES " + ", ".join([f"({', '.join(['%s'] * len(columns))})"] * rows) + " "
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
