"""The loop-health metrics as runs/metrics.py computed them before the dashboard shared one
pass between its three views: one set of queries per grouping, each scanning the period's
trace events and tool calls. Kept, unchanged, as the reference the shared computation must
agree with number for number (tests/test_metrics_shared_pass.py).
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from django.db.models import Avg, Count, Exists, F, OuterRef, Q, QuerySet, Subquery, Sum
from django.db.models.functions import TruncDate

from runs.metrics import MetricRow
from runs.models import Run, ToolCall, TraceEvent

SUCCESS_REASONS = ("finish_proposed", "packet_approved")
NO_PROGRESS_REASONS = ("no_progress", "repeated_action")
STOPPED_STATUSES = ("completed", "failed", "cancelled")
COST_PLACES = Decimal("0.000001")

# A closed case ends packet_approved too, but its research did not finish.
SUCCEEDED = Q(termination_reason__in=SUCCESS_REASONS, closed_by_reviewer=False)
FINISHED = Q(status__in=STOPPED_STATUSES) | (
    Q(status="awaiting_review") & ~Q(termination_reason="awaiting_approval")
)

# A grouping: name -> expression over a Run, given the path from the counted model to Run.
Grouping = Callable[[str], dict[str, Any]]


def by_nothing(prefix: str) -> dict[str, Any]:
    return {}


def by_day(prefix: str) -> dict[str, Any]:
    return {"day": TruncDate(f"{prefix}created_at")}


def by_version(prefix: str) -> dict[str, Any]:
    return {
        "model": F(f"{prefix}model_name"),
        "prompt": F(f"{prefix}prompt_version"),
        "policy": F(f"{prefix}policy_version"),
    }


def _ratio(numerator: int | Decimal, denominator: int | Decimal) -> Decimal | None:
    if not denominator:
        return None
    return Decimal(numerator) / Decimal(denominator)


def _key(row: dict[str, Any], names: list[str]) -> tuple:
    return tuple(row[name] for name in names)


def _grouped(queryset: QuerySet, names: list[str], **aggregates) -> list[dict[str, Any]]:
    """GROUP BY `names` (one row for the whole set when there are none)."""
    if not names:
        return [queryset.aggregate(**aggregates)]
    return list(queryset.values(*names).annotate(**aggregates).order_by(*names))


def compute(runs: QuerySet[Run], grouping: Grouping = by_nothing) -> list[MetricRow]:
    """Every metric for each group of `runs`, in group order. Four aggregate queries."""
    run_keys = grouping("")
    names = list(run_keys)
    runs = runs.order_by()
    escalated = TraceEvent.objects.filter(run=OuterRef("pk"), type="escalated")
    distinct_tools = Subquery(
        ToolCall.objects.filter(run=OuterRef("pk"))
        .values("run")
        .annotate(n=Count("tool", distinct=True))
        .values("n")
    )
    run_rows = _grouped(
        runs.annotate(**run_keys),
        names,
        runs=Count("id"),
        finished=Count("id", filter=FINISHED),
        successes=Count("id", filter=SUCCEEDED),
        success_iterations=Sum("iterations", filter=SUCCEEDED),
        no_progress=Count("id", filter=FINISHED & Q(termination_reason__in=NO_PROGRESS_REASONS)),
        escalated=Count(
            "id",
            filter=FINISHED
            & (
                (Q(status="awaiting_review") & ~Q(termination_reason="finish_proposed"))
                | Q(Exists(escalated))
            ),
        ),
        # AVG ignores the NULL of runs without tool calls.
        tool_diversity=Avg(distinct_tools),
        tokens=Sum("tokens"),
        cost=Sum("cost_usd"),
    )
    rows: dict[tuple, MetricRow] = {}
    totals: dict[tuple, dict[str, Any]] = {}
    for row in run_rows:
        key = _key(row, names)
        rows[key] = MetricRow(key=key, runs=row["runs"], finished=row["finished"])
        totals[key] = row

    event_keys = grouping("run__")
    event_rows = _grouped(
        TraceEvent.objects.filter(run__in=runs.values("pk")).annotate(**event_keys),
        names,
        attempts=Count("id", filter=Q(type="model_decision", data__kind="call_tool")),
        duplicates=Count("id", filter=Q(type="duplicate_action_blocked")),
        rejected=Count("id", filter=Q(type="final_rejected")),
        proposed=Count("id", filter=Q(type="finish_proposed")),
        sent_back=Count("id", filter=Q(type="packet_rejected")),
        approved=Count("id", filter=Q(type="packet_approved")),
        rerated=Count("id", filter=Q(type="packet_approved", data__has_key="proposed_risk_rating")),
        # A reply to a reviewer who sent a packet back answers no research question.
        answered=Count(
            "id",
            filter=Q(type="clarification_received") & ~Q(data__has_key="reply_to_review"),
        ),
    )
    events = {_key(row, names): row for row in event_rows}

    call_keys = grouping("run__")
    calls = ToolCall.objects.filter(run__in=runs.values("pk")).annotate(**call_keys)
    succeeded = {
        _key(row, names): row["n"]
        for row in _grouped(calls.filter(effect_status="succeeded"), names, n=Count("id"))
    }
    reason_rows = (
        runs.filter(FINISHED)
        .annotate(**run_keys)
        .values(*names, "termination_reason", "closed_by_reviewer")
        .annotate(n=Count("id"))
        .order_by(*names, "termination_reason", "closed_by_reviewer")
    )
    for row in reason_rows:
        key = _key(row, names)
        if key in rows:
            outcome = row["termination_reason"] or "none"
            if row["closed_by_reviewer"]:
                outcome = Run.CLOSED_BY_REVIEWER
            rows[key].reasons[outcome] = row["n"]

    for key, row in rows.items():
        total = totals[key]
        ev = events.get(key, {})
        gaps = succeeded.get(key, 0) + ev.get("answered", 0)
        cost_per_gap = _ratio(total["cost"] or Decimal("0"), gaps)
        row.values = {
            "iterations_per_success": _ratio(total["success_iterations"] or 0, total["successes"]),
            "repeated_tool_call_rate": _ratio(ev.get("duplicates", 0), ev.get("attempts", 0)),
            "no_progress_rate": _ratio(total["no_progress"], total["finished"]),
            "tool_diversity": Decimal(str(total["tool_diversity"]))
            if total["tool_diversity"] is not None
            else None,
            "escalation_rate": _ratio(total["escalated"], total["finished"]),
            "tokens_per_gap": _ratio(total["tokens"] or 0, gaps),
            "cost_per_gap": cost_per_gap.quantize(COST_PLACES, ROUND_HALF_UP)
            if cost_per_gap is not None
            else None,
            "finish_rejection_rate": _ratio(
                ev.get("rejected", 0), ev.get("rejected", 0) + ev.get("proposed", 0)
            ),
            "send_back_rate": _ratio(ev.get("sent_back", 0), ev.get("proposed", 0)),
            "rerated_rate": _ratio(ev.get("rerated", 0), ev.get("approved", 0)),
        }
    return list(rows.values())


def overall(runs: QuerySet[Run]) -> MetricRow:
    rows = compute(runs)
    return rows[0] if rows else MetricRow(key=("all runs",))
