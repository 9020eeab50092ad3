"""Streamed exports: one run's trace as JSON, and many runs as JSON Lines.

Both read rows with `iterator(chunk_size=...)` and yield the text of one chunk of rows at a
time, so a 5,000-event trace or 100,000 runs never sit in memory at once. Under ASGI
(daphne) the response gets an asynchronous iterator that reads each chunk in the request's
database thread: given a synchronous one, Django would read the whole export into memory
before sending a byte. (Daphne does not wait for a slow client to read, so what such a
client has not read yet still collects in daphne's write buffer.)
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterable, Iterator
from itertools import islice
from typing import Any

from asgiref.sync import sync_to_async
from django.core.handlers.asgi import ASGIRequest
from django.core.serializers.json import DjangoJSONEncoder
from django.db.models import QuerySet
from django.http import HttpRequest, StreamingHttpResponse
from django.utils.http import content_disposition_header

from reviews.models import HumanDecision
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
        # packet_approved is both a sign-off and a case a reviewer closed as it stood.
        "closed_by_reviewer": row["closed_by_reviewer"],
        "user_status": row["user_status"],
        "iterations": row["iterations"],
        "tokens": row["tokens"],
        "cost_usd": str(row["cost_usd"]),
        "packet": row["state__proposed_packet"],
        "conflicts": row["state__conflicts"] or [],
        "tenant": row["tenant__slug"],
        "case_id": row["case_id"],
        "subject": row["subject_name"],
        "subject_type": row["subject_type"],
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
    "closed_by_reviewer",
    "user_status",
    "iterations",
    "tokens",
    "cost_usd",
    # JSON key transforms: the packet and conflicts without loading the whole state.
    "state__proposed_packet",
    "state__conflicts",
    "tenant__slug",
    "case_id",
    "subject_name",
    "subject_type",
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


def decision_record(decision: HumanDecision) -> dict[str, Any]:
    """A person's decision on a run as the exports give it: who, what, why and when."""
    return {
        "id": decision.pk,
        "kind": decision.kind,
        "actor": decision.actor.get_username(),
        "reason": decision.reason,
        "payload": decision.payload,
        "state_version": decision.state_version,
        "created_at": decision.created_at,
    }


def decisions_by_run(run_ids: Iterable[int]) -> dict[int, list[dict[str, Any]]]:
    """The decisions on each of the runs, oldest first, in one query."""
    by_run: dict[int, list[dict[str, Any]]] = {}
    decisions = (
        HumanDecision.objects.filter(run_id__in=list(run_ids))
        .select_related("actor")
        .order_by("run_id", "id")
    )
    for decision in decisions:
        by_run.setdefault(decision.run_id, []).append(decision_record(decision))
    return by_run


def run_row(run: Run) -> dict[str, Any]:
    return Run.objects.filter(pk=run.pk).values(*RUN_VALUES).get()


def in_chunks(rows: Iterable[Any]) -> Iterator[list[Any]]:
    """Lists of up to CHUNK rows, read from `rows` one list at a time."""
    rows = iter(rows)
    while chunk := list(islice(rows, CHUNK)):
        yield chunk


def trace_json_chunks(run: Run) -> Iterator[str]:
    """`{...run record..., "trace": [every event in seq order]}`, written as it is read."""
    record = run_fields(run_row(run))
    record["decisions"] = decisions_by_run([run.pk]).get(run.pk, [])
    head = _dumps(record)
    yield head[:-1] + ', "trace": ['
    events = (
        TraceEvent.objects.filter(run=run)
        .order_by("seq")
        .values_list("seq", "type", "step", "timestamp", "duration_ms", "data")
        .iterator(chunk_size=CHUNK)
    )
    separator = ""
    for chunk in in_chunks(events):
        yield separator + ", ".join(
            _dumps(
                {
                    "seq": seq,
                    "type": type_,
                    "step": step,
                    "timestamp": timestamp,
                    "duration_ms": duration_ms,
                    "data": data,
                }
            )
            for seq, type_, step, timestamp, duration_ms, data in chunk
        )
        separator = ", "
    yield "]}\n"


def runs_jsonl_lines(runs: QuerySet[Run], filters) -> Iterator[str]:
    """One JSON object per line, one line per run, in the browser's sort order, with the
    decisions people took on it."""
    rows = ordered(runs, filters).values(*RUN_VALUES).iterator(chunk_size=CHUNK)
    for chunk in in_chunks(rows):
        decisions = decisions_by_run(row["id"] for row in chunk)
        yield "".join(
            _dumps({**run_fields(row), "decisions": decisions.get(row["id"], [])}) + "\n"
            for row in chunk
        )


async def in_database_thread(texts: Iterator[str]) -> AsyncIterator[str]:
    """`texts` for an ASGI server, each `next()` (a chunk of rows read and encoded) run off
    the event loop in the request's database thread, where the view's connection lives."""
    next_text = sync_to_async(next, thread_sensitive=True)
    try:
        while (text := await next_text(texts, None)) is not None:
            yield text
    finally:
        # A client that hangs up cancels us mid-export: close the rows' cursor now, in the
        # same thread, after any read still running there.
        await sync_to_async(texts.close, thread_sensitive=True)()


def streaming_response(
    request: HttpRequest, texts: Iterator[str], *, content_type: str, filename: str
) -> StreamingHttpResponse:
    """A download of `texts`, asynchronous under ASGI, synchronous under WSGI and the test
    client (which would otherwise have to gather an async body into memory)."""
    content = in_database_thread(texts) if isinstance(request, ASGIRequest) else texts
    response = StreamingHttpResponse(content, content_type=content_type)
    response["Content-Disposition"] = content_disposition_header(True, filename)
    return response
