"""Streamed exports: one run's trace as JSON, and many runs as JSON Lines.

Both read rows with `iterator(chunk_size=...)` and yield text as they go, so a 5,000-event
trace or 100,000 runs never sit in memory at once.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from django.core.serializers.json import DjangoJSONEncoder
from django.db.models import QuerySet

from runs.models import Run, TraceEvent
from runs.views.run_filters import ordered

CHUNK = 1_000


def _dumps(value: Any) -> str:
    return json.dumps(value, cls=DjangoJSONEncoder, ensure_ascii=False)


def run_fields(row: dict[str, Any]) -> dict[str, Any]:
    """The run record of DESIGN.md (`run_case --json`) plus who, what and which versions."""
    return {
        "run_id": row["id"],
        "status": row["status"],
        "termination_reason": row["termination_reason"] or None,
        "user_status": row["user_status"],
        "iterations": row["iterations"],
        "tokens": row["tokens"],
        "cost_usd": str(row["cost_usd"]),
        "packet": row["state__proposed_packet"],
        "conflicts": row["state__conflicts"] or [],
        "tenant": row["tenant__slug"],
        "case_id": row["case_id"],
        "subject": row["case__subject_name"],
        "subject_type": row["case__subject_type"],
        "elapsed_seconds": row["elapsed_seconds"],
        "created_at": row["created_at"],
        "started_at": row["started_at"],
        "finished_at": row["finished_at"],
        "versions": {
            "model": row["model_name"],
            "prompt": row["prompt_version"],
            "schema": row["schema_version"],
            "policy": row["policy_version"],
            "toolset": row["toolset_version"],
        },
        "budgets": row["budgets"],
        "events": row["last_seq"],
    }


RUN_VALUES = (
    "id",
    "status",
    "termination_reason",
    "user_status",
    "iterations",
    "tokens",
    "cost_usd",
    # JSON key transforms: the packet and conflicts without loading the whole state.
    "state__proposed_packet",
    "state__conflicts",
    "tenant__slug",
    "case_id",
    "case__subject_name",
    "case__subject_type",
    "elapsed_seconds",
    "created_at",
    "started_at",
    "finished_at",
    "model_name",
    "prompt_version",
    "schema_version",
    "policy_version",
    "toolset_version",
    "budgets",
    "last_seq",
)


def run_row(run: Run) -> dict[str, Any]:
    return Run.objects.filter(pk=run.pk).values(*RUN_VALUES).get()


def trace_json_chunks(run: Run) -> Iterator[str]:
    """`{...run record..., "trace": [every event in seq order]}`, written as it is read."""
    record = run_fields(run_row(run))
    head = _dumps(record)
    yield head[:-1] + ', "trace": ['
    events = (
        TraceEvent.objects.filter(run=run)
        .order_by("seq")
        .values_list("seq", "type", "step", "timestamp", "duration_ms", "data")
        .iterator(chunk_size=CHUNK)
    )
    first = True
    for seq, type_, step, timestamp, duration_ms, data in events:
        event = {
            "seq": seq,
            "type": type_,
            "step": step,
            "timestamp": timestamp,
            "duration_ms": duration_ms,
            "data": data,
        }
        yield ("" if first else ", ") + _dumps(event)
        first = False
    yield "]}\n"


def runs_jsonl_lines(runs: QuerySet[Run], filters) -> Iterator[str]:
    """One JSON object per line, one line per run, in the browser's sort order."""
    rows = ordered(runs, filters).values(*RUN_VALUES).iterator(chunk_size=CHUNK)
    for row in rows:
        yield _dumps(run_fields(row)) + "\n"
