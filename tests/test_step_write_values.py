"""A step's values reach the database exactly as the model fields would bind them, and
`jsonable` gives what a JSON round trip gives (both take shortcuts for the usual types)."""

from __future__ import annotations

import enum
import json
import warnings
from datetime import UTC, datetime, timedelta, timezone
from decimal import Decimal

import pytest
from django.db import connection, connections
from django.db.backends.postgresql.base import DatabaseWrapper as PostgreSQLWrapper
from django.utils.translation import gettext_lazy
from pydantic import BaseModel

from atlas.runtime.ports import ObservationRecord, StepCommit, ToolCallRecord, TraceEventRecord
from atlas.runtime.step_writer import _json_default, jsonable
from runs import step_writes
from runs.actions import do_start_run
from runs.models import Observation, Run, ToolCall, TraceEvent
from runs.run_state import load_state

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)

SAMPLES = {
    "CharField": ["text", "", None, Run.Status.RESEARCHING, gettext_lazy("lazy"), 5],
    "TextField": ["text", "", None, 5],
    "BooleanField": [True, False, None, 1, "t"],
    "FloatField": [1.5, 0.0, 2, "3.5", None],
    "DecimalField": [Decimal("0.020000"), Decimal("1E+2"), 3, "0.5", None, Decimal("NaN")],
    "DateTimeField": [
        NOW,
        NOW.astimezone(timezone(timedelta(hours=5))),
        datetime(2026, 1, 2, 3, 4, 5),  # naive: made aware in the default time zone
        "2026-01-02T03:04:05Z",
        None,
    ],
    "IntegerField": [0, 7, True, "12", 7.0, None],
    "JSONField": [{"a": [1, 2.5, None]}, [1, "x"], "text", 3, 1.5, False, None, {}],
}


def postgresql_wrapper() -> PostgreSQLWrapper:
    """PostgreSQL's connection wrapper, never connected: binding these values does not
    need a server, so the comparison runs on SQLite too."""
    settings = {**connections.settings["default"], "ENGINE": "django.db.backends.postgresql"}
    return PostgreSQLWrapper(settings, alias="values-only")


def bound(prepare, value, db):
    """What reaches the driver: the value and its exact type (a Jsonb by its contents
    and text), or the error raised."""
    try:
        with warnings.catch_warnings(record=True):
            warnings.simplefilter("always")
            result = prepare(value, db)
    except Exception as error:
        return ("raised", type(error))
    if hasattr(result, "obj"):  # psycopg's Jsonb
        return (type(result), result.obj, result.dumps(result.obj))
    return (type(result), result)


def step_columns():
    for model, columns in step_writes.STEP_TABLES:
        yield from ((model, name) for name in ("run_id", *columns))
    yield from ((Run, field.name) for field in Run._meta.concrete_fields)


def samples_for(field) -> list:
    kind = field.get_internal_type()
    if kind.endswith("IntegerField"):
        kind = "IntegerField"
    return SAMPLES.get(kind, [1, "x", None])


@pytest.mark.parametrize("vendor", ["postgresql", "sqlite"])
def test_every_step_column_binds_a_value_as_its_field_does(vendor):
    db = postgresql_wrapper() if vendor == "postgresql" else connection
    checked = 0
    for model, name in step_columns():
        field = model._meta.get_field(name)
        prepare = step_writes._column_preparer(vendor, field)
        for value in samples_for(field):
            assert bound(prepare, value, db) == bound(field.get_db_prep_save, value, db), (
                f"{model.__name__}.{name} = {value!r}"
            )
            checked += 1
    assert checked > 150


def test_the_run_state_is_bound_as_its_json_text():
    names = ("state", "status")
    prepare_state, prepare_status = step_writes._run_preparers("postgresql", names)
    assert prepare_state('{"a": 1}', postgresql_wrapper()) == '{"a": 1}'
    assert prepare_status("researching", postgresql_wrapper()) == "researching"


@pytest.mark.django_db
def test_a_written_step_reads_back_as_the_orm_writes_it(case, analyst):
    run = do_start_run(case, analyst, wake=False)
    twin = do_start_run(case, analyst, wake=False)
    state = load_state(run).model_copy(
        update={"version": run.state_version + 1, "next_seq": 2, "updated_at": NOW}
    )
    event = TraceEventRecord(
        run_id=str(run.pk),
        seq=1,
        step=0,
        type="tool_started",
        timestamp=NOW,
        data={"tool": "search", "nested": {"n": [1, 2.5, None, True]}, "text": "é\u2028"},
        duration_ms=12,
    )
    observation = ObservationRecord(
        run_id=str(run.pk), step=0, source="tool", name="search", ok=True,
        data={"articles": [{"title": "x"}]}, model_view="seen", source_ids=["a", "b"],
    )  # fmt: skip
    call = ToolCallRecord(
        idempotency_key=f"{run.pk}:0:k", run_id=str(run.pk), step=0, tool="search",
        arguments={"query": "q"}, effect_status="succeeded", attempts=1,
        cost_usd=Decimal("0.02"), result={"found": 1}, started_at=NOW, finished_at=NOW,
        duration_ms=3,
    )  # fmt: skip
    commit = StepCommit(
        run_id=str(run.pk),
        expected_version=run.state_version,
        state=state,
        events=[event],
        observations=[observation],
        tool_calls=[call],
    )
    assert step_writes.write_step(commit)

    tables = zip(step_writes.STEP_TABLES, step_writes._step_rows(commit), strict=True)
    for (model, columns), rows in tables:
        for values in rows:
            fields = dict(zip(columns, values, strict=True))
            if model is ToolCall:  # the key is unique
                fields["idempotency_key"] += ":twin"
            model.objects.create(run=twin, **fields)
    for model in (TraceEvent, Observation, ToolCall):
        fields = [f.name for f in model._meta.fields if f.name not in ("id", "run")]
        written = list(model.objects.filter(run=run).values(*fields))
        by_orm = list(model.objects.filter(run=twin).values(*fields))
        for row in by_orm:
            if "idempotency_key" in row:
                row["idempotency_key"] = row["idempotency_key"].removesuffix(":twin")
        assert written == by_orm != [], model.__name__


class Colour(str, enum.Enum):  # noqa: UP042 (str() of it is "Colour.RED")
    RED = "red"


class Size(enum.IntEnum):
    BIG = 3


class Usage(BaseModel):
    tokens: int
    cost_usd: Decimal
    at: datetime


def round_trip(value):
    """jsonable as it was: JSON text and back."""
    return json.loads(json.dumps(value, default=_json_default))


def typed(value):
    """Types and values all the way down (True == 1 and 1.0 == 1 otherwise hide a change)."""
    if isinstance(value, dict):
        return {typed(k): typed(v) for k, v in value.items()}
    if isinstance(value, list):
        return [typed(item) for item in value]
    return (type(value), value)


@pytest.mark.parametrize(
    "value",
    [
        {"a": 1, "b": [1.5, -0.0, None, True, "x"], "c": {"d": ()}},
        ("t", 1),
        {"cost": Decimal("0.020000"), "at": NOW, "naive": datetime(2026, 1, 1)},
        {"usage": Usage(tokens=3, cost_usd=Decimal("1.5"), at=NOW)},
        {"colour": Colour.RED, "size": Size.BIG},
        {1: "int key", None: "none key", 2.5: "float key"},
        {True: "bool key"},
        {"tags": {"b", "a"}, "frozen": frozenset({3, 1})},
        {"other": ValueError("not JSON")},
        [float("inf"), 10**30],
    ],
)
def test_jsonable_gives_what_the_json_round_trip_gives(value):
    assert typed(jsonable(value)) == typed(round_trip(value))


def test_jsonable_copies_so_later_changes_do_not_reach_the_event():
    found = ["a"]
    data = jsonable({"found": found, "nested": {"found": found}})
    found.append("b")
    assert data == {"found": ["a"], "nested": {"found": ["a"]}}


def test_jsonable_refuses_a_circular_value_as_json_does():
    value: list = []
    value.append(value)
    with pytest.raises(ValueError, match="Circular reference"):
        jsonable(value)
