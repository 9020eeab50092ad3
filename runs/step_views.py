"""A run's trace events as the steps its pages show: one `StepView` per step, each with its
decision, tool call and notes in words; and the newest steps of a long run, a page at a time.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Any

from atlas.runtime.money import budget_dollars, restate_approval_amounts
from atlas.runtime.wording import fact_about
from reviews.decision_details import BUDGET_UNITS, decision_details
from runs.models import Run, TraceEvent

# Tool error and rejection codes (atlas.runtime.tools.base, tool_requests) in words.
ERROR_WORDS = {
    "timeout": "timed out",
    "rate_limited": "rate limited",
    "forbidden": "not authorized",
    "not_found": "not found",
    "document_unavailable": "document unavailable",
    "effect_unknown": "outcome unknown",
    "malformed_result": "malformed result",
    "tool_error": "error",
}
# Why a run was handed to a reviewer, where that is not a reason code.
ESCALATION_WORDS = {"unresolved_conflict": "the sources disagree on a fact"}
REJECTION_WORDS = {
    "unknown_tool": "there is no tool by that name",
    "invalid_arguments": "the arguments do not fit the tool",
}


def _reviewers_reason(data: dict) -> str:
    return f": “{data['reason']}”" if data.get("reason") else ""


def _error_words(data: dict) -> str:
    code = data.get("error_type") or "tool_error"
    return ERROR_WORDS.get(code, code.replace("_", " "))


BUDGET_LABELS = {
    "max_iterations": "iteration",
    "iterations": "iteration",
    "max_tokens": "token",
    "tokens": "token",
    "max_cost_usd": "cost",
    "cost": "cost",
    "deadline_seconds": "time",
    "deadline": "time",
}

# Event types that only say "a call is about to happen": folded into the step, not listed.
QUIET_EVENTS = {"model_requested", "tool_started"}


def decimal_or_zero(value: Any) -> Decimal:
    try:
        return Decimal(str(value)) if value not in (None, "") else Decimal("0")
    except (InvalidOperation, ValueError):
        return Decimal("0")


@dataclass
class Note:
    """One line inside a step: what happened, in words, with a tone (ok/bad/warn/human)."""

    type: str
    tone: str
    text: str
    detail: Any = None


@dataclass
class StepView:
    run_id: int
    number: int
    first_seq: int = 0
    last_seq: int = 0
    decision_kind: str = ""
    tool: str = ""
    arguments: dict | None = None
    rationale: str = ""
    question: str = ""
    outcome: str = ""
    found: list[str] = field(default_factory=list)
    tone: str = ""
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: Decimal = field(default_factory=lambda: Decimal("0"))
    duration_ms: int | None = None
    duration_unknown: bool = False  # its call was cut off with its worker, untimed
    tool_running: bool = False
    tool_ended: str = ""  # how its call ended, in a word: done, failed or interrupted
    attempts: int = 0
    started_at: Any = None
    notes: list[Note] = field(default_factory=list)

    @property
    def dom_id(self) -> str:
        return f"run-{self.run_id}-step-{self.number}"

    @property
    def tokens(self) -> int:
        return self.input_tokens + self.output_tokens

    @property
    def arguments_text(self) -> str:
        return ", ".join(
            f"{key}={json.dumps(value, ensure_ascii=False)}"
            for key, value in (self.arguments or {}).items()
        )

    @property
    def title_note(self) -> Note | None:
        return self.notes[0] if self._title_from_note else None

    @property
    def body_notes(self) -> list[Note]:
        """The notes under the title (the first one is the title when nothing else is)."""
        if self._title_from_note:
            return self.notes[1:]
        return self.notes

    @property
    def _title_from_note(self) -> bool:
        return not (self.decision_kind or self.tool) and bool(self.notes)

    @property
    def title(self) -> str:
        if self.decision_kind == "call_tool" or (self.tool and not self.decision_kind):
            return self.tool or "tool call"
        if self.decision_kind == "ask_human":
            return "Asked the analyst"
        if self.decision_kind == "finish":
            return "Proposed the packet"
        if self.notes:
            return self.notes[0].text
        return "Step"

    def _tone(self, tone: str) -> None:
        order = {"": 0, "ok": 1, "human": 2, "warn": 3, "bad": 4}
        if order.get(tone, 0) >= order.get(self.tone, 0):
            self.tone = tone


def takeover_wait(seconds: float) -> str:
    """A run taken over from a worker that stopped: how long the run waited for it."""
    return (
        f"after {float(seconds):,.1f} s waiting for the lease of a worker that stopped to run out"
    )


def _note_for(event: TraceEvent) -> Note | None:
    data = event.data or {}
    kind = event.type
    text: str
    tone = ""
    detail: Any = None
    if kind == "run_started":
        text, tone = "Run started", "ok"
    elif kind == "run_resumed":
        if data.get("cause") == "human_input":
            return None  # the decision's own event already says research goes on
        text, tone = "Run resumed from its last committed step", "warn"
        if (waited := data.get("waited_seconds")) is not None:
            text += f", {takeover_wait(waited)}"
    elif kind == "model_failed":
        text, tone = (
            f"The model's answer was unusable: {data.get('message') or data.get('error', '')}",
            "warn",
        )
        if wait := data.get("retry_after_seconds"):
            text += f"; its endpoint asked for {wait:g} s before the next call"
    elif kind == "tool_retryable_failure":
        text = f"Attempt {data.get('attempt', '?')} failed ({_error_words(data)}): {data.get('message', '')}; retrying"
        tone = "warn"
    elif kind == "tool_failed" and data.get("error_type") == "cancelled":
        text, tone = f"Interrupted: {data.get('message', '')}", "warn"
    elif kind == "tool_failed":
        text, tone = f"Failed ({_error_words(data)}): {data.get('message', '')}", "bad"
    elif kind == "tool_succeeded":
        return None
    elif kind == "policy_denied":
        text, tone = f"Denied by policy: {data.get('reason', '')}", "bad"
    elif kind == "tool_rejected":
        reason = data.get("reason", "")
        text, tone = f"Rejected: {REJECTION_WORDS.get(reason, reason)}", "warn"
        detail = data.get("errors") or None
    elif kind == "duplicate_action_blocked":
        text, tone = "Not executed: the same call was already made", "warn"
    elif kind == "result_truncated":
        text, tone = "Result was large; the model saw a shortened view", ""
    elif kind == "approval_requested":
        reasons = "; ".join(restate_approval_amounts(r) for r in data.get("reasons") or [])
        text = f"Needs a reviewer's approval{': ' + reasons if reasons else ''}"
        if data.get("estimated_cost_usd") not in (None, ""):
            text += (
                f" (estimated {budget_dollars(decimal_or_zero(data.get('estimated_cost_usd')))})"
            )
        tone = "human"
    elif kind == "approval_granted":
        text, tone = f"Approved by a reviewer{_reviewers_reason(data)}", "human"
    elif kind == "approval_denied":
        text, tone = f"Denied by a reviewer{_reviewers_reason(data)}", "human"
    elif kind == "clarification_requested":
        text, tone = "Paused for the analyst's answer", "human"
        detail = data.get("candidates") or None
    elif kind == "clarification_received":
        text, tone = f"Answer: {data.get('answer', '')}", "human"
        if data.get("picked_entity_id"):
            text += f" (read as registry entity {data['picked_entity_id']})"
        elif data.get("ruled_out_entity_ids"):
            text += " (read as none of the candidates listed being the subject)"
        elif data.get("turned_down"):
            text += " (read as a no: the candidate offered is not the subject)"
        elif data.get("unclear"):
            text += " (read as singling out no candidate and not saying none is the subject)"
    elif kind == "conflict_detected":
        fact = fact_about(str(data.get("fact") or "a fact"), data.get("person") or "")
        text, tone = f"Conflicting values for {fact}", "warn"
        detail = data.get("values") or None
    elif kind == "conflict_resolved":
        fact = fact_about(str(data.get("fact") or "a fact"), data.get("person") or "")
        if data.get("status") == "withdrawn":
            text = f"The conflict over the {fact} was withdrawn"
        elif data.get("status") == "unresolvable":
            text = f"A reviewer recorded the {fact} as unresolvable"
        else:
            text = f"A reviewer settled the {fact}: “{data.get('value', '')}” stands"
        if data.get("status") == "withdrawn" and data.get("note"):
            text += f": {data['note']}"
        elif data.get("note"):
            text += f"; their note: “{data['note']}”"
        tone = "human"
    elif kind == "no_progress_detected":
        text, tone = "No progress in recent iterations", "warn"
    elif kind == "cycle_detected":
        text, tone = "The agent is repeating the same actions", "warn"
    elif kind == "budget_exhausted":
        budget = BUDGET_LABELS.get(data.get("budget", ""), data.get("budget", "budget"))
        text = f"{budget.capitalize()} budget reached ({data.get('used', '')} of {data.get('limit', '')})"
        tone = "bad"
    elif kind == "final_rejected":
        text, tone = "The proposed packet failed validation", "warn"
        detail = data.get("errors") or None
    elif kind == "finish_proposed":
        text, tone = "Packet proposed; it awaits a reviewer's sign-off", "ok"
    elif kind == "packet_approved":
        decided = "Case closed as it stood" if data.get("closed") else "Packet signed off"
        text, tone = f"{decided} by a reviewer{_reviewers_reason(data)}", "human"
        if data.get("proposed_risk_rating"):
            text += (
                f"; they rated the risk {data.get('risk_rating')}"
                f" (the agent proposed {data['proposed_risk_rating']})"
            )
    elif kind == "packet_rejected":
        text, tone = f"Packet sent back by a reviewer{_reviewers_reason(data)}", "human"
    elif kind == "budget_extended":
        added = decision_details({key: data.get(key) for key in BUDGET_UNITS})
        text = "A reviewer extended the budgets"
        text += f": {added[0].removeprefix('Budget added: ')}" if added else ""
        tone = "human"
    elif kind == "document_added":
        text = f"Given “{data.get('name', '')}”, attached to the case since the run started"
        tone = "human"
    elif kind == "document_marked_sensitive":
        text = (
            f"“{data.get('name', '')}” was marked sensitive after the run started: "
            "extracting it needs a reviewer's approval"
        )
        tone = "human"
    elif kind == "human_input_rejected":
        text = f"A decision by {data.get('actor', 'someone')} no longer applied: {data.get('reason', '')}"
        tone = "warn"
    elif kind == "escalated":
        reason = data.get("reason", "")
        label = ESCALATION_WORDS.get(reason) or (
            Run.Reason(reason).label if reason in Run.Reason.values else reason.replace("_", " ")
        )
        text, tone = f"Handed to a reviewer: {label.lower()}", "warn"
    elif kind in {"run_completed", "run_failed", "run_cancelled"}:
        text = data.get("user_status") or kind.replace("_", " ").capitalize()
        tone = {"run_completed": "ok", "run_failed": "bad", "run_cancelled": "warn"}[kind]
    elif kind in QUIET_EVENTS or kind == "model_decision":
        return None
    else:
        text = kind.replace("_", " ").capitalize()
    return Note(type=kind, tone=tone, text=text, detail=detail)


# What ends a tool call on the page (a retryable failure is followed by a new start).
TOOL_CALL_ENDINGS = frozenset(
    {"tool_succeeded", "tool_failed", "tool_retryable_failure", "run_cancelled", "run_failed"}
)


def group_steps(run_id: int, events: Iterable[TraceEvent]) -> list[StepView]:
    """TraceEvents in seq order → one StepView per step, in order of first appearance."""
    steps: dict[int, StepView] = {}
    for event in events:
        step = steps.get(event.step)
        if step is None:
            step = steps[event.step] = StepView(
                run_id=run_id, number=event.step, first_seq=event.seq, started_at=event.timestamp
            )
        step.last_seq = max(step.last_seq, event.seq)
        data = event.data or {}
        if event.type == "model_decision":
            step.decision_kind = data.get("kind", "")
            step.tool = data.get("tool_name") or step.tool
            step.arguments = data.get("arguments") or step.arguments
            step.rationale = data.get("rationale_summary") or ""
            step.question = data.get("question") or ""
        if event.type in TraceEvent.MODEL_CALLS:
            usage = data.get("usage") or {}
            step.input_tokens += int(usage.get("input_tokens") or 0)
            step.output_tokens += int(usage.get("output_tokens") or 0)
            step.cost_usd += decimal_or_zero(usage.get("cost_usd"))
        if event.type == "tool_started":
            step.tool_running = True
            step.tool = data.get("tool") or step.tool
            step.arguments = data.get("arguments") or step.arguments
            step.attempts = max(step.attempts, int(data.get("attempt") or 1))
        elif event.type == "tool_succeeded":
            step.tool = data.get("tool") or step.tool
            step.outcome = data.get("summary") or "Succeeded"
            found = data.get("found")
            step.found = [str(line) for line in found] if isinstance(found, list) else []
            step.cost_usd += decimal_or_zero(data.get("cost_usd"))
            if data.get("duration_ms") is not None:
                step.duration_ms = (step.duration_ms or 0) + int(data["duration_ms"])
            step._tone("ok")
            step.tool_ended = "done"
        elif event.type == "tool_failed":
            step.tool_ended = "interrupted" if data.get("error_type") == "cancelled" else "failed"
            step.duration_unknown = step.duration_unknown or event.duration_ms is None
        elif event.type in {"policy_denied", "duplicate_action_blocked"}:
            step.tool = data.get("tool") or step.tool
            step.arguments = data.get("arguments") or step.arguments
        if event.type in TOOL_CALL_ENDINGS:
            step.tool_running = False
        if event.duration_ms is not None and event.type != "tool_succeeded":
            step.duration_ms = (step.duration_ms or 0) + event.duration_ms
        note = _note_for(event)
        if note is not None:
            step.notes.append(note)
            step._tone(note.tone)
    return list(steps.values())


# The case page shows a run's newest steps and loads earlier ones a page at a time: a run
# whose budgets were extended again and again has thousands. A step is a handful of events
# (four for a tool call), so reading at most EVENTS_PER_STEP per step shown bounds every
# query of the page.
STEPS_PER_PAGE = 100
EVENTS_PER_STEP = 20


@dataclass
class StepsPage:
    steps: list[StepView]
    earlier: int  # steps before these, not shown
    first_seq: int  # of the oldest step here: the earlier steps are the events before it
    last_seq: int  # of the newest event here (0 for none)


def steps_page(run_id: int, *, upto: int, count: int | None = None) -> StepsPage:
    """The newest `count` whole steps of the run among its events up to seq `upto`.

    A step's number never goes down from one event to the next, so the newest steps are
    the newest events; the events are read newest first, by the (run, seq) index, up to a
    bound, and cut at the oldest step seen whole.
    """
    count = count or STEPS_PER_PAGE
    bound = count * EVENTS_PER_STEP
    marks = list(
        TraceEvent.objects.filter(run_id=run_id, seq__lte=upto)
        .order_by("-seq")
        .values_list("seq", "step")[:bound]
    )
    if not marks:
        return StepsPage(steps=[], earlier=0, first_seq=0, last_seq=0)
    after = 0  # the events shown are those after this seq
    step_before = None  # the step of event `after`, the newest step not shown
    first_of_step: dict[int, int] = {}
    for seq, step in marks:
        if step not in first_of_step and len(first_of_step) == count:
            after, step_before = seq, step
            break
        first_of_step[step] = seq
    else:
        if len(marks) == bound:
            # The bound cut the oldest step read: leave it to the earlier steps. A single
            # step longer than the bound is shown in part, as the trace page does.
            *newer, oldest = first_of_step
            after = first_of_step[newer[-1]] - 1 if newer else marks[-1][0] - 1
            step_before = oldest
    events = list(
        TraceEvent.objects.filter(run_id=run_id, seq__gt=after, seq__lte=upto).order_by("seq")
    )
    earlier = 0
    if step_before is not None:
        # A run numbers its steps one after another from its first event's, so the earlier
        # steps are counted from two step numbers without reading their events.
        first_step = (
            TraceEvent.objects.filter(run_id=run_id, seq=1).values_list("step", flat=True).first()
        )
        earlier = step_before - (first_step or 0) + 1
    return StepsPage(
        steps=group_steps(run_id, events),
        earlier=earlier,
        first_seq=events[0].seq if events else 0,
        last_seq=marks[0][0],
    )
