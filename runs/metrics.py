"""Loop-health metrics, computed in the database with aggregates.

Every metric is over a set of runs (a tenant's, filtered by date); each can be grouped by
a key of the run (its day, its model/prompt/policy versions). A ratio with an empty
denominator is `None` ("no data"), never zero.

Definitions:

- **finished run**: the loop has stopped for good: status completed, failed or cancelled,
  or awaiting_review for any reason except awaiting_approval (a run waiting for an
  approval resumes on its own; one waiting for sign-off or after a stop does not).
- **iterations per successful case**: mean `Run.iterations` over runs whose packet passed
  validation (termination reason finish_proposed or packet_approved, but not a case a
  reviewer closed as it stood).
- **repeated tool-call rate**: `duplicate_action_blocked` events / tool-call attempts, where
  an attempt is a `model_decision` event whose `data.kind` is `call_tool` (not one that
  came after a cancel and was not acted on).
- **no-progress termination rate**: finished runs stopped with reason no_progress or
  repeated_action (both are "the loop went round without getting anywhere") / finished runs.
- **average tool diversity**: mean, over runs with at least one tool call, of the number of
  distinct tools the run called (ToolCall rows, whatever their effect).
- **human escalation rate**: finished runs that ended awaiting_review for a reason other than
  finish_proposed, or that have an `escalated` event / finished runs.
- **resolved evidence gap**: one succeeded tool call (a `ToolCall` row with effect
  succeeded; duplicates are blocked before they run, so each row is a distinct question the
  run asked of the world) or one answered clarification (`clarification_received`). This
  is an approximation: a succeeded call that found nothing new still counts as resolving
  the gap it was made for.
- **tokens / cost per resolved evidence gap**: sum of `Run.tokens` / sum of `Run.cost_usd`
  over the runs / resolved evidence gaps in those runs (the exact Decimal quotient: the
  dashboard rounds it once, to the places it shows).
- **finish-attempt rejection rate**: `final_rejected` events / (`final_rejected` +
  `finish_proposed` events).
- **packets re-rated by reviewers**: `packet_approved` events whose reviewer set another
  risk rating than the run's (the event's data has `proposed_risk_rating`) /
  `packet_approved` events (sign-offs and cases closed as they stood).
- **termination-reason breakdown**: finished runs counted by termination reason, with
  cases a reviewer closed as they stood counted apart from signed-off packets.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from django.db.models import CharField, Count, Exists, F, OuterRef, Q, QuerySet, Sum, Value
from django.db.models.functions import Concat, TruncDate

from runs.models import Run, ToolCall, TraceEvent

SUCCESS_REASONS = ("finish_proposed", "packet_approved")
NO_PROGRESS_REASONS = ("no_progress", "repeated_action")
STOPPED_STATUSES = ("completed", "failed", "cancelled")

# A closed case ends packet_approved too, but its research did not finish.
SUCCEEDED = Q(termination_reason__in=SUCCESS_REASONS, closed_by_reviewer=False)
FINISHED = Q(status__in=STOPPED_STATUSES) | (
    Q(status="awaiting_review") & ~Q(termination_reason="awaiting_approval")
)

METRICS: list[tuple[str, str, str]] = [
    # key, label, unit ("ratio" shows as a percentage, "tokens" as a whole number)
    ("iterations_per_success", "Iterations per successful case", "number"),
    ("repeated_tool_call_rate", "Repeated tool-call rate", "ratio"),
    ("no_progress_rate", "No-progress termination rate", "ratio"),
    ("tool_diversity", "Average tool diversity", "number"),
    ("escalation_rate", "Human escalation rate", "ratio"),
    ("tokens_per_gap", "Tokens per resolved evidence gap", "tokens"),
    ("cost_per_gap", "Cost per resolved evidence gap (USD)", "money"),
    ("finish_rejection_rate", "Finish-attempt rejection rate", "ratio"),
    ("send_back_rate", "Packets sent back by reviewers", "ratio"),
    ("rerated_rate", "Packets re-rated by reviewers", "ratio"),
]

# The Tally fields counted from trace events.
EVENT_COUNTS = (
    "attempts",
    "duplicates",
    "rejected",
    "proposed",
    "sent_back",
    "approved",
    "rerated",
    "answered",
)

# A grouping is the names of the run's keys its rows are grouped by.
Grouping = tuple[str, ...]
by_nothing: Grouping = ()
by_day: Grouping = ("day",)
by_version: Grouping = ("model", "prompt", "policy")
# Every key at once, versions first: rolled up by version, the groups come in the order
# the database sorted them (its collation, as a per-version query would have).
EVERY_KEY: Grouping = (*by_version, *by_day)

# The events the metrics count: the (run, type) index reads only these.
COUNTED_EVENTS = (
    "model_decision",
    "duplicate_action_blocked",
    "final_rejected",
    "finish_proposed",
    "packet_rejected",
    "packet_approved",
    "clarification_received",
)


def _key_expressions(prefix: str) -> dict[str, Any]:
    """Each key as an expression over a Run, given the path from the counted model to Run."""
    return {
        "model": F(f"{prefix}model_name"),
        "prompt": F(f"{prefix}prompt_version"),
        "policy": F(f"{prefix}policy_version"),
        "day": TruncDate(f"{prefix}created_at"),
    }


@dataclass
class MetricRow:
    key: tuple
    runs: int = 0
    finished: int = 0
    values: dict[str, Any] = field(default_factory=dict)
    reasons: dict[str, int] = field(default_factory=dict)

    @property
    def label(self) -> str:
        return " · ".join(str(part) if part not in ("", None) else "—" for part in self.key)


@dataclass
class Tally:
    """The counts every metric is a ratio of, over a set of runs. Each run is counted in
    exactly one group, so the tallies of groups add up to the tally of their union."""

    runs: int = 0
    finished: int = 0
    successes: int = 0
    success_iterations: int = 0
    no_progress: int = 0
    escalated: int = 0
    tokens: int = 0
    cost: Decimal = Decimal("0")
    attempts: int = 0
    duplicates: int = 0
    rejected: int = 0
    proposed: int = 0
    sent_back: int = 0
    approved: int = 0
    rerated: int = 0
    answered: int = 0
    succeeded_calls: int = 0
    # Sum over the runs of the distinct tools each called, and the runs that called one.
    run_tools: int = 0
    runs_with_calls: int = 0
    # Finished runs by (termination reason, closed by a reviewer).
    outcomes: Counter[tuple[str, bool]] = field(default_factory=Counter)

    def add(self, other: Tally) -> None:
        for name in self.__dataclass_fields__:
            setattr(self, name, getattr(self, name) + getattr(other, name))

    def row(self, key: tuple) -> MetricRow:
        gaps = self.succeeded_calls + self.answered
        values = {
            "iterations_per_success": _ratio(self.success_iterations, self.successes),
            "repeated_tool_call_rate": _ratio(self.duplicates, self.attempts),
            "no_progress_rate": _ratio(self.no_progress, self.finished),
            "tool_diversity": _ratio(self.run_tools, self.runs_with_calls),
            "escalation_rate": _ratio(self.escalated, self.finished),
            "tokens_per_gap": _ratio(self.tokens, gaps),
            "cost_per_gap": _ratio(self.cost, gaps),
            "finish_rejection_rate": _ratio(self.rejected, self.rejected + self.proposed),
            "send_back_rate": _ratio(self.sent_back, self.proposed),
            "rerated_rate": _ratio(self.rerated, self.approved),
        }
        # In the order the database sorts (reason, closed), as one query per view listed them.
        reasons: dict[str, int] = {}
        for (reason, closed), n in sorted(self.outcomes.items()):
            outcome = Run.CLOSED_BY_REVIEWER if closed else reason or "none"
            reasons[outcome] = reasons.get(outcome, 0) + n
        return MetricRow(
            key=key, runs=self.runs, finished=self.finished, values=values, reasons=reasons
        )


@dataclass
class Breakdown:
    """What the dashboard shows: the whole period, each day and each version."""

    total: MetricRow
    per_day: list[MetricRow]
    per_version: list[MetricRow]


def _ratio(numerator: int | Decimal, denominator: int | Decimal) -> Decimal | None:
    if not denominator:
        return None
    return Decimal(numerator) / Decimal(denominator)


def _key(row: dict[str, Any], names: Grouping) -> tuple:
    return tuple(row[name] for name in names)


def _grouped(queryset: QuerySet, names: Grouping, **aggregates) -> list[dict[str, Any]]:
    """GROUP BY `names` (one row for the whole set when there are none)."""
    if not names:
        return [queryset.aggregate(**aggregates)]
    return list(queryset.values(*names).annotate(**aggregates).order_by(*names))


def tallies(runs: QuerySet[Run], names: Grouping) -> dict[tuple, Tally]:
    """The tally of each group of `runs`, in the database's order of the groups. Four
    aggregate queries: runs, counted events, tool calls, termination reasons."""
    run_keys = {name: _key_expressions("")[name] for name in names}
    related_keys = {name: _key_expressions("run__")[name] for name in names}
    runs = runs.order_by()
    escalated = TraceEvent.objects.filter(run=OuterRef("pk"), type="escalated")
    groups: dict[tuple, Tally] = {}
    for row in _grouped(
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
        tokens=Sum("tokens"),
        cost=Sum("cost_usd"),
    ):
        groups[_key(row, names)] = Tally(
            runs=row["runs"],
            finished=row["finished"],
            successes=row["successes"],
            success_iterations=row["success_iterations"] or 0,
            no_progress=row["no_progress"],
            escalated=row["escalated"],
            tokens=row["tokens"] or 0,
            cost=row["cost"] or Decimal("0"),
        )

    in_runs = Q(run__in=runs.values("pk"))
    for row in _grouped(
        TraceEvent.objects.filter(in_runs, type__in=COUNTED_EVENTS).annotate(**related_keys),
        names,
        attempts=Count(
            "id",
            filter=Q(type="model_decision", data__kind="call_tool")
            & ~Q(data__has_key="not_acted_on"),
        ),
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
    ):
        if (tally := groups.get(_key(row, names))) is not None:
            for name in EVENT_COUNTS:
                setattr(tally, name, row[name])

    run_tool = Concat("run_id", Value(":"), "tool", output_field=CharField())
    for row in _grouped(
        ToolCall.objects.filter(in_runs).annotate(**related_keys),
        names,
        succeeded=Count("id", filter=Q(effect_status="succeeded")),
        run_tools=Count(run_tool, distinct=True),
        runs_with_calls=Count("run", distinct=True),
    ):
        if (tally := groups.get(_key(row, names))) is not None:
            tally.succeeded_calls = row["succeeded"]
            tally.run_tools = row["run_tools"]
            tally.runs_with_calls = row["runs_with_calls"]

    reason_rows = (
        runs.filter(FINISHED)
        .annotate(**run_keys)
        .values(*names, "termination_reason", "closed_by_reviewer")
        .annotate(n=Count("id"))
        .order_by(*names, "termination_reason", "closed_by_reviewer")
    )
    for row in reason_rows:
        if (tally := groups.get(_key(row, names))) is not None:
            tally.outcomes[row["termination_reason"], row["closed_by_reviewer"]] = row["n"]
    return groups


def _rolled_up(groups: dict[tuple, Tally], names: Grouping, into: Grouping) -> dict[tuple, Tally]:
    """Tallies grouped by `names` added up into groups by `into` (a subset of the names),
    in order of first appearance."""
    positions = [names.index(name) for name in into]
    rolled: dict[tuple, Tally] = {}
    for key, tally in groups.items():
        rolled.setdefault(tuple(key[i] for i in positions), Tally()).add(tally)
    return rolled


def compute(runs: QuerySet[Run], grouping: Grouping = by_nothing) -> list[MetricRow]:
    """Every metric for each group of `runs`, in group order. Four aggregate queries."""
    return [tally.row(key) for key, tally in tallies(runs, grouping).items()]


def breakdown(runs: QuerySet[Run]) -> Breakdown:
    """Every metric over `runs`, per day and per version, from one set of four queries
    grouped by every key at once (each run falls in one group, so the groups add up)."""
    groups = tallies(runs, EVERY_KEY)
    total = _rolled_up(groups, EVERY_KEY, by_nothing).get((), Tally())
    days = _rolled_up(groups, EVERY_KEY, by_day)
    versions = _rolled_up(groups, EVERY_KEY, by_version)
    return Breakdown(
        total=total.row(()),
        per_day=[days[key].row(key) for key in sorted(days)],
        per_version=[tally.row(key) for key, tally in versions.items()],
    )


def overall(runs: QuerySet[Run]) -> MetricRow:
    rows = compute(runs)
    return rows[0] if rows else MetricRow(key=("all runs",))
