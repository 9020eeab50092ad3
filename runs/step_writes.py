"""How one step's commit reaches the database: the run's row, only if it is still at the
version the step started from, with the step's trace events, observations and tool-call
upserts.

On PostgreSQL it is a single statement (the version-checked UPDATE in a WITH clause, the
inserts reading the run's id from it): one round trip, atomic on its own, and nothing is
inserted when another writer moved the run on. On SQLite, and for a step too large for one
statement's parameters, it is an UPDATE and then the inserts in one transaction. (Atlas
runs on PostgreSQL or SQLite; the SQL here is written for those two.)

SQL is built once per shape instead of through the ORM's compiler, which cost more CPU
than the statements themselves; values are bound exactly as the model fields'
get_db_prep_save binds them, on PostgreSQL without its chain of calls for a value of the
type its column expects (see "values as the model fields prepare them"). The fields are
handed the connection itself, not `django.db.connection`: every attribute read through
that proxy is a thread-local look-up.
"""

from __future__ import annotations

import functools
import re
from datetime import datetime
from decimal import Decimal
from typing import NamedTuple

from django.db import DEFAULT_DB_ALIAS, connection, connections, models, transaction
from django.db.backends.base.base import BaseDatabaseWrapper
from django.utils import timezone

from atlas.runtime.money import as_stored
from atlas.runtime.ports import StepCommit, ToolCallRecord
from atlas.runtime.state import AtlasState
from runs.models import Observation, Run, ToolCall, TraceEvent
from runs.run_state import loop_memory_json, state_json
from runs.search_text import registration_key

INSERT_BATCH_ROWS = 50  # well under SQLite's limit on bound parameters per statement
MAX_STATEMENT_PARAMETERS = 30_000  # PostgreSQL's protocol allows 65,535

EVENT_COLUMNS = ("seq", "step", "type", "data", "timestamp", "duration_ms")
OBSERVATION_COLUMNS = (
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
TOOL_CALL_FIELDS = (
    "effect_status",
    "attempts",
    "cost_usd",
    "result",
    "error_type",
    "started_at",
    "finished_at",
    "duration_ms",
    "arguments",
)
TOOL_CALL_COLUMNS = ("idempotency_key", "step", "tool", *TOOL_CALL_FIELDS)


class StepRows(NamedTuple):
    """A step's rows per table, each row a tuple in the order of that table's columns."""

    events: list
    observations: list
    tool_calls: list


# The table and columns of each member of StepRows.
STEP_TABLES = StepRows(
    events=(TraceEvent, EVENT_COLUMNS),
    observations=(Observation, OBSERVATION_COLUMNS),
    tool_calls=(ToolCall, TOOL_CALL_COLUMNS),
)


def active_seconds(state: AtlasState) -> float:
    """Research time, without the time spent waiting for people (the runtime moves the
    deadline forward by every pause once it ends, so what is used of it is exactly the
    active time). A paused run's research stopped when the pause began, whatever was
    written since (a decision it refused, say)."""
    end = state.paused_at or state.updated_at or state.started_at
    if state.deadline_at is None:
        return max(0.0, (end - state.started_at).total_seconds())
    remaining = (state.deadline_at - end).total_seconds()
    return max(0.0, state.budgets.deadline_seconds - remaining)


def matched_entity_label(state: AtlasState) -> str:
    """ "Northwind Trading Pte Ltd (SG)", or "" while no entity is matched."""
    entity = state.selected_entity
    return f"{entity.name} ({entity.jurisdiction})"[:300] if entity else ""


def matched_registration(state: AtlasState) -> str:
    """The matched entity's registration number as searches compare it ("07712233")."""
    entity = state.selected_entity
    return registration_key(entity.registration_number or "")[:64] if entity else ""


def run_fields_from_state(state: AtlasState, state_text: str | None = None) -> dict:
    """The run's columns: the state as JSON text (`state_text`, when the caller made it
    already), and the columns that mirror it so lists and queues never parse the JSON."""
    fields = {
        "state": state_json(state) if state_text is None else state_text,
        "loop_memory": loop_memory_json(state),
        "state_version": state.version,
        "status": state.status,
        "termination_reason": state.termination_reason or "",
        "closed_by_reviewer": bool(
            state.proposed_packet and state.proposed_packet.closed_by_reviewer
        ),
        "user_status": state.user_status,
        "matched_entity": matched_entity_label(state),
        "matched_registration": matched_registration(state),
        "risk_rating": state.proposed_packet.risk_rating if state.proposed_packet else "",
        "iterations": state.iteration,
        "tokens": state.tokens,
        "cost_usd": as_stored(state.cost_usd),
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


def write_step(
    commit: StepCommit, state_text: str | None = None, *, state_unchanged: bool = False
) -> bool:
    """Write the step; False, with nothing written, if the run is no longer at
    `commit.expected_version`. `state_text` is the state as `state_json` gives it, when the
    caller made it already; `state_unchanged` leaves the `state` column as it is, for a
    caller that knows the row holds that very text at `commit.expected_version`."""
    db = connections[DEFAULT_DB_ALIAS]
    run_id = int(commit.run_id)
    rows = _step_rows(commit)
    run_update = _run_update(db, commit, run_id, state_text, state_unchanged)
    if db.vendor == "postgresql" and _parameter_count(rows) <= MAX_STATEMENT_PARAMETERS:
        return _write_in_one_statement(db, run_update, rows)
    return _write_in_statements(db, run_update, run_id, rows)


def upsert_tool_calls(run_id: int, records: list[ToolCallRecord]) -> None:
    """Insert or update by idempotency key, one statement (the run, step and tool of an
    existing row never change)."""
    _upsert_rows(connections[DEFAULT_DB_ALIAS], run_id, _tool_call_rows(records))


def _upsert_rows(db: BaseDatabaseWrapper, run_id: int, rows: list[tuple]) -> None:
    rows = [(run_id, *row) for row in rows]
    with db.cursor() as cursor:
        cursor.execute(
            _upsert_sql(db.vendor, len(rows)),
            _prepared(db, ToolCall, ("run_id", *TOOL_CALL_COLUMNS), rows),
        )


# --- the rows of a step ---------------------------------------------------------------


def _step_rows(commit: StepCommit) -> StepRows:
    created_at = commit.state.updated_at or timezone.now()
    events = [
        (event.seq, event.step, event.type, event.data, event.timestamp, event.duration_ms)
        for event in commit.events
    ]
    observations = [
        (
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
    ]
    return StepRows(events, observations, _tool_call_rows(commit.tool_calls))


def _tool_call_rows(records: list[ToolCallRecord]) -> list[tuple]:
    rows = []
    for record in records:
        values = record.model_dump(mode="json", include={"effect_status", "result", "arguments"})
        rows.append(
            (
                record.idempotency_key,
                record.step,
                record.tool,
                values["effect_status"],
                record.attempts,
                as_stored(record.cost_usd),
                values["result"],
                record.error_type or "",
                record.started_at,
                record.finished_at,
                record.duration_ms,
                values["arguments"],
            )
        )
    return rows


def _parameter_count(rows: StepRows) -> int:
    return sum(
        len(columns) * len(values) for (_, columns), values in zip(STEP_TABLES, rows, strict=True)
    )


def _prepared(
    db: BaseDatabaseWrapper, model: type[models.Model], names: tuple[str, ...], rows: list[tuple]
) -> list:
    preparers = _preparers(db.vendor, model, names)
    return [
        prepare(value, db) for row in rows for prepare, value in zip(preparers, row, strict=True)
    ]


def _run_update(
    db: BaseDatabaseWrapper,
    commit: StepCommit,
    run_id: int,
    state_text: str | None,
    state_unchanged: bool,
) -> tuple[str, list]:
    values = run_fields_from_state(commit.state, state_text)
    if state_unchanged:
        del values["state"]
    names = tuple(values)
    params = [
        prepare(value, db)
        for prepare, value in zip(_run_preparers(db.vendor, names), values.values(), strict=True)
    ]
    return _run_update_sql(db.vendor, names), [*params, run_id, commit.expected_version]


@functools.lru_cache(maxsize=64)
def _fields(model: type[models.Model], names: tuple[str, ...]) -> tuple[models.Field, ...]:
    return tuple(model._meta.get_field(name) for name in names)


@functools.lru_cache(maxsize=64)
def _preparers(vendor: str, model: type[models.Model], names: tuple[str, ...]) -> tuple:
    """Per column, a function (value, connection) -> the value to bind."""
    return tuple(_column_preparer(vendor, field) for field in _fields(model, names))


@functools.lru_cache(maxsize=64)
def _run_preparers(vendor: str, names: tuple[str, ...]) -> tuple:
    # The state arrives as its JSON text, bound as it is (cast to jsonb in the SQL).
    return tuple(
        _as_it_is if name == "state" else prepare
        for name, prepare in zip(names, _preparers(vendor, Run, names), strict=True)
    )


# --- values as the model fields prepare them --------------------------------------------
#
# On PostgreSQL a value of the type a column expects is bound exactly as the field's
# get_db_prep_save would bind it, without its chain of calls (a step binds some eighty
# values); any other value, any other field type and every value on SQLite go through
# the field itself.

PLAIN_JSON_TYPES = (dict, list, str, int, float, bool)
INTEGER_FIELDS = (
    models.SmallIntegerField,
    models.IntegerField,
    models.BigIntegerField,
    models.PositiveSmallIntegerField,
    models.PositiveIntegerField,
    models.PositiveBigIntegerField,
)


def _as_it_is(value, db):
    return value


def _column_preparer(vendor: str, field: models.Field):
    by_field = field.get_db_prep_save
    if vendor != "postgresql":
        return by_field
    kind = type(field)
    if kind in (models.CharField, models.TextField):
        return _passing(str, by_field)
    if kind is models.BooleanField:
        return _passing(bool, by_field)
    if kind is models.FloatField:
        return _passing(float, by_field)
    if kind is models.DateTimeField:
        return _aware_datetime(by_field)
    if kind is models.DecimalField:
        return _finite_decimal(by_field)
    if kind in INTEGER_FIELDS:
        return _integer(field, by_field)
    if kind is models.JSONField:
        return _json(field.encoder, by_field)
    return by_field


def _passing(plain_type: type, by_field):
    def prepare(value, db):
        return value if type(value) is plain_type else by_field(value, db)

    return prepare


def _aware_datetime(by_field):
    def prepare(value, db):
        if type(value) is datetime and value.utcoffset() is not None:
            return value
        return by_field(value, db)

    return prepare


def _finite_decimal(by_field):
    def prepare(value, db):
        if type(value) is Decimal and value.is_finite():
            return value
        return by_field(value, db)

    return prepare


def _integer(field: models.Field, by_field):
    """psycopg's Int2, Int4 or Int8, as Django binds an integer field's value (psycopg 2
    is left to the field)."""
    from django.db.backends.postgresql.operations import DatabaseOperations

    sizes = getattr(DatabaseOperations, "integerfield_type_map", None)
    if sizes is None:
        return by_field
    sized = sizes[field.get_internal_type()]

    def prepare(value, db):
        return sized(value) if type(value) is int else by_field(value, db)

    return prepare


def _json(encoder, by_field):
    from django.db.backends.postgresql.operations import get_json_dumps
    from psycopg.types.json import Jsonb

    dumps = get_json_dumps(encoder)

    def prepare(value, db):
        if value is None:
            return None
        if type(value) in PLAIN_JSON_TYPES:
            return Jsonb(value, dumps=dumps)
        return by_field(value, db)

    return prepare


# --- PostgreSQL: one statement ----------------------------------------------------------


def _write_in_one_statement(
    db: BaseDatabaseWrapper, run_update: tuple[str, list], rows: StepRows
) -> bool:
    update_sql, params = run_update
    for (model, columns), values in zip(STEP_TABLES, rows, strict=True):
        params += _prepared(db, model, columns, values)
    sql = _one_statement_sql(update_sql, tuple(len(values) for values in rows))
    if db.queries_logged:  # Django logs a query by filling in its %s placeholders
        cursor = db.cursor()
    else:
        cursor, sql = _numbered_placeholder_cursor(db), _numbered(sql)
    with cursor:
        cursor.execute(sql, params)
        (updated,) = cursor.fetchone()
    return updated == 1


def _numbered_placeholder_cursor(db: BaseDatabaseWrapper):
    """A cursor taking PostgreSQL's own $1, $2 placeholders, wrapped like Django's
    (execute wrappers, error translation). psycopg parses the %s of a statement over its
    cache's limits (4,096 characters, 50 parameters) again on every execution, a third of
    a millisecond for a step's write; this statement is numbered once per shape."""
    from psycopg import RawCursor

    db.close_if_health_check_failed()
    db.ensure_connection()
    db.validate_thread_sharing()
    with db.wrap_database_errors:
        cursor = RawCursor(db.connection)
    return db.make_cursor(cursor)


@functools.lru_cache(maxsize=256)
def _one_statement_sql(update_sql: str, row_counts: tuple[int, ...]) -> str:
    quote = connection.ops.quote_name
    parts = [f"WITH updated AS ({update_sql} RETURNING {quote('id')})"]
    for index, ((model, columns), count) in enumerate(zip(STEP_TABLES, row_counts, strict=True)):
        if not count:
            continue
        # Parameters in a VALUES list inside a SELECT get no type from the target table.
        row = "(" + ", ".join(f"%s::{_cast_type(model, name)}" for name in columns) + ")"
        insert = (
            f"INSERT INTO {quote(model._meta.db_table)} "
            f"({_column_list(model, ('run_id', *columns))}) "
            f"SELECT updated.{quote('id')}, step_rows.* FROM updated, "
            f"(VALUES {', '.join([row] * count)}) AS step_rows"
        )
        if model is ToolCall:
            insert += _on_conflict_update()
        parts.append(f", rows_{index} AS ({insert})")
    return "".join(parts) + " SELECT count(*) FROM updated"


@functools.lru_cache(maxsize=256)
def _numbered(sql: str) -> str:
    """%s placeholders as $1, $2, ... in order."""
    pieces = sql.split("%s")
    assert "%" not in "".join(pieces), "a literal % would need escaping"
    return "".join(
        f"{piece}${number}" if number < len(pieces) else piece
        for number, piece in enumerate(pieces, start=1)
    )


def _cast_type(model: type[models.Model], name: str) -> str:
    # Without a length or precision: an explicit cast to varchar(40) would silently cut a
    # longer value, where the insert's own conversion refuses it.
    return re.sub(r"\(.*\)$", "", model._meta.get_field(name).cast_db_type(connection))


# --- SQLite, or a step too large for one statement: one transaction --------------------


def _write_in_statements(
    db: BaseDatabaseWrapper, run_update: tuple[str, list], run_id: int, rows: StepRows
) -> bool:
    with transaction.atomic(using=db.alias, savepoint=False):
        with db.cursor() as cursor:
            cursor.execute(*run_update)
            if cursor.rowcount != 1:
                return False
        _insert_rows(db, *STEP_TABLES.events, run_id, rows.events)
        _insert_rows(db, *STEP_TABLES.observations, run_id, rows.observations)
        if rows.tool_calls:
            _upsert_rows(db, run_id, rows.tool_calls)
    return True


def _insert_rows(
    db: BaseDatabaseWrapper,
    model: type[models.Model],
    columns: tuple[str, ...],
    run_id: int,
    rows: list[tuple],
) -> None:
    names = ("run_id", *columns)
    with db.cursor() as cursor:
        for start in range(0, len(rows), INSERT_BATCH_ROWS):
            batch = [(run_id, *row) for row in rows[start : start + INSERT_BATCH_ROWS]]
            sql = _insert_sql(db.vendor, model, names, len(batch))
            cursor.execute(sql, _prepared(db, model, names, batch))


# --- SQL shapes ----------------------------------------------------------------------


def _column_list(model: type[models.Model], names: tuple[str, ...]) -> str:
    quote = connection.ops.quote_name
    return ", ".join(quote(model._meta.get_field(name).column) for name in names)


def _on_conflict_update() -> str:
    """Update the call's row, unless it already succeeded: a writer that lost the run (its
    lease ran out mid-tool) must not overwrite the new owner's success with its retry."""
    quote = connection.ops.quote_name
    updates = [ToolCall._meta.get_field(name).column for name in TOOL_CALL_FIELDS]
    status = f"{quote(ToolCall._meta.db_table)}.{quote('effect_status')}"
    return (
        f" ON CONFLICT ({quote('idempotency_key')}) DO UPDATE SET "
        + ", ".join(f"{quote(column)} = EXCLUDED.{quote(column)}" for column in updates)
        + f" WHERE {status} <> '{ToolCall.Effect.SUCCEEDED}'"
    )


@functools.lru_cache(maxsize=64)
def _run_update_sql(vendor: str, names: tuple[str, ...]) -> str:
    quote = connection.ops.quote_name
    state_placeholder = "%s::jsonb" if vendor == "postgresql" else "%s"
    assignments = ", ".join(
        f"{quote(Run._meta.get_field(name).column)} = "
        + (state_placeholder if name == "state" else "%s")
        for name in names
    )
    return (
        f"UPDATE {quote(Run._meta.db_table)} SET {assignments} "
        f"WHERE {quote('id')} = %s AND {quote('state_version')} = %s"
    )


@functools.lru_cache(maxsize=64)
def _insert_sql(vendor: str, model: type[models.Model], names: tuple[str, ...], rows: int) -> str:
    row = f"({', '.join(['%s'] * len(names))})"
    return (
        f"INSERT INTO {connection.ops.quote_name(model._meta.db_table)} "
        f"({_column_list(model, names)}) VALUES " + ", ".join([row] * rows)
    )


@functools.lru_cache(maxsize=16)
def _upsert_sql(vendor: str, rows: int) -> str:
    """INSERT ... ON CONFLICT (idempotency_key) DO UPDATE: the same on SQLite and PostgreSQL."""
    return _insert_sql(vendor, ToolCall, ("run_id", *TOOL_CALL_COLUMNS), rows) + (
        _on_conflict_update()
    )
