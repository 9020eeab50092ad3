"""Runs, events, observations and tool calls written directly, with known numbers.

For the admin pages and metrics tests: no runtime involved, so every count is known.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

from django.utils import timezone

from runs.models import Case, Observation, Run, ToolCall, TraceEvent

T0 = dt.datetime(2026, 3, 2, 9, 0, tzinfo=dt.UTC)


def make_run(case: Case, **fields) -> Run:
    defaults = {
        "tenant": case.tenant,
        "case": case,
        "status": Run.Status.COMPLETED,
        "termination_reason": Run.Reason.PACKET_APPROVED,
        "model_name": "playbook",
        "prompt_version": "atlas-prompt/1",
        "schema_version": "next-action/1",
        "policy_version": "atlas-policy/1",
        "toolset_version": "atlas-tools/1",
        "started_at": fields.get("created_at") or timezone.now(),
    }
    created_at = fields.pop("created_at", None)
    run = Run.objects.create(**{**defaults, **fields})
    if created_at is not None:
        Run.objects.filter(pk=run.pk).update(created_at=created_at)
        run.refresh_from_db()
    return run


def tool_step(step: int, tool: str = "resolve_entity", *, tokens: int = 100, cost: str = "0.0100"):
    """The events of one successful tool step: (type, data) pairs."""
    return [
        ("model_requested", {}),
        (
            "model_decision",
            {
                "kind": "call_tool",
                "tool_name": tool,
                "arguments": {"name": f"Subject {step}"},
                "rationale_summary": "next check",
                "usage": {"input_tokens": tokens - 20, "output_tokens": 20, "cost_usd": cost},
            },
        ),
        (
            "tool_started",
            {
                "tool": tool,
                "arguments": {"name": f"Subject {step}"},
                "idempotency_key": f"k{step}",
                "attempt": 1,
            },
        ),
        (
            "tool_succeeded",
            {
                "tool": tool,
                "idempotency_key": f"k{step}",
                "summary": f"{tool} ok",
                "duration_ms": 12,
                "cost_usd": "0",
                "source_ids": [f"src-{step}"],
            },
        ),
    ]


def add_events(
    run: Run, steps: list[list[tuple[str, dict]]], start: dt.datetime | None = None
) -> int:
    """Write `steps` (lists of (type, data)) as events one second apart; returns the last seq."""
    start = start or run.started_at or T0
    rows = []
    seq = run.last_seq
    for number, events in enumerate(steps, start=1):
        for type_, data in events:
            seq += 1
            rows.append(
                TraceEvent(
                    run=run,
                    seq=seq,
                    step=number,
                    type=type_,
                    data=data,
                    timestamp=start + dt.timedelta(seconds=seq),
                    duration_ms=12 if type_ == "tool_succeeded" else None,
                )
            )
    TraceEvent.objects.bulk_create(rows, batch_size=1000)
    Run.objects.filter(pk=run.pk).update(last_seq=seq)
    run.last_seq = seq
    return seq


def add_observation(
    run: Run, step: int, *, data, model_view: str, name: str = "resolve_entity"
) -> Observation:
    return Observation.objects.create(
        run=run,
        step=step,
        source="tool",
        name=name,
        ok=True,
        data=data,
        model_view=model_view,
        created_at=T0,
    )


def add_tool_call(
    run: Run, step: int, tool: str, effect: str = "succeeded", key: str | None = None
) -> ToolCall:
    return ToolCall.objects.create(
        run=run,
        idempotency_key=key or f"run{run.pk}-step{step}-{tool}",
        step=step,
        tool=tool,
        effect_status=effect,
        attempts=1,
        cost_usd=Decimal("0"),
    )


def closed_and_signed_off_runs(case) -> tuple[Run, Run]:
    """Two runs that ended packet_approved: one closed by a reviewer as it stood, one whose
    packet was signed off."""
    closed = make_run(
        case,
        status=Run.Status.COMPLETED,
        termination_reason=Run.Reason.PACKET_APPROVED,
        closed_by_reviewer=True,
    )
    signed = make_run(
        case, status=Run.Status.COMPLETED, termination_reason=Run.Reason.PACKET_APPROVED
    )
    return closed, signed
