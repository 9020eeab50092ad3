"""The live regions of a run, rendered one way for the case page and the htmx responses,
and the same way for websocket pushes.

Regions have stable ids: `run-<id>-steps` (one `<li>` per step), `run-<id>-status`
(badge, sentence, cancel / run again, and `data-last-seq`), `run-<id>-meters`,
`run-<id>-banner` (the question to answer, the approval or review being waited for) and
`case-<id>-decisions` (every person's decision on the case, with `data-newest-decision`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Any

from django.template.loader import render_to_string

from atlas.runtime.state import USER_STATUS, Budgets
from atlas.runtime.wording import fact_words
from reviews.decision_details import decision_details
from reviews.models import HumanDecision
from runs.models import Document, Run, TraceEvent

# For a run recorded without its budgets.
DEFAULT_BUDGETS = Budgets().model_dump(mode="json")

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


def _money(value: Any) -> Decimal:
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
    tool_running: bool = False
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
        reasons = "; ".join(data.get("reasons") or [])
        text = f"Needs a reviewer's approval{': ' + reasons if reasons else ''}"
        if data.get("estimated_cost_usd") not in (None, ""):
            text += f" (estimated ${_money(data.get('estimated_cost_usd')):.4f})"
        tone = "human"
    elif kind == "approval_granted":
        text, tone = "Approved by a reviewer", "human"
    elif kind == "approval_denied":
        text, tone = "Denied by a reviewer", "human"
    elif kind == "clarification_requested":
        text, tone = "Paused for the analyst's answer", "human"
        detail = data.get("candidates") or None
    elif kind == "clarification_received":
        text, tone = f"Answer: {data.get('answer', '')}", "human"
        if data.get("picked_entity_id"):
            text += f" (read as registry entity {data['picked_entity_id']})"
    elif kind == "conflict_detected":
        fact = fact_words(str(data.get("fact") or "a fact"))
        text, tone = f"Conflicting values for {fact}", "warn"
        detail = data.get("values") or None
    elif kind == "conflict_resolved":
        fact = fact_words(str(data.get("fact") or "a fact"))
        if data.get("status") == "unresolvable":
            text = f"A reviewer recorded the {fact} as unresolvable"
        else:
            text = f"A reviewer settled the {fact}: “{data.get('value', '')}” stands"
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
        reason = f": “{data['reason']}”" if data.get("reason") else ""
        text, tone = f"{decided} by a reviewer{reason}", "human"
    elif kind == "packet_rejected":
        reason = f": “{data['reason']}”" if data.get("reason") else ""
        text, tone = f"Packet sent back by a reviewer{reason}", "human"
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
            step.cost_usd += _money(usage.get("cost_usd"))
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
            step.cost_usd += _money(data.get("cost_usd"))
            if data.get("duration_ms") is not None:
                step.duration_ms = (step.duration_ms or 0) + int(data["duration_ms"])
            step._tone("ok")
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


# --- The steps a page shows of a long run --------------------------------------

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


# --- Meters, banner, status -------------------------------------------------


@dataclass
class Meter:
    label: str
    used: str
    limit: str
    percent: int

    @property
    def level(self) -> str:
        if self.percent >= 100:
            return "full"
        if self.percent >= 80:
            return "high"
        return ""


def _percent(used: Decimal, limit: Decimal) -> int:
    if limit <= 0:
        return 100 if used > 0 else 0
    return min(100, int(used * 100 / limit))


def meters_for(run: Run) -> list[Meter]:
    budgets = {**DEFAULT_BUDGETS, **(run.budgets or {})}
    max_iterations = Decimal(str(budgets["max_iterations"]))
    max_tokens = Decimal(str(budgets["max_tokens"]))
    max_cost = _money(budgets["max_cost_usd"])
    deadline = Decimal(str(budgets["deadline_seconds"]))
    elapsed = Decimal(str(round(run.elapsed_seconds or 0, 1)))
    return [
        Meter(
            "Iterations",
            str(run.iterations),
            str(budgets["max_iterations"]),
            _percent(Decimal(run.iterations), max_iterations),
        ),
        Meter(
            "Tokens",
            f"{run.tokens:,}",
            f"{int(max_tokens):,}",
            _percent(Decimal(run.tokens), max_tokens),
        ),
        Meter(
            "Cost",
            f"${run.cost_usd:.4f}",
            f"${max_cost:.2f}",
            _percent(run.cost_usd, max_cost),
        ),
        Meter("Time", f"{elapsed}s", f"{deadline.normalize():f}s", _percent(elapsed, deadline)),
    ]


def banner_for(run: Run, clarification_item_id: int | None = None) -> dict[str, Any]:
    """What the page should say the run is waiting for, if anything."""
    state = run.state or {}
    reason = run.termination_reason
    if run.status == Run.Status.WAITING_FOR_INPUT:
        question = state.get("pending_question") or {}
        return {
            "kind": "question" if clarification_item_id else "answered",
            "tone": "wait",
            "question": question.get("question", ""),
            "candidates": question.get("candidates") or [],
            "item_id": clarification_item_id,
        }
    if run.status == Run.Status.AWAITING_REVIEW:
        if reason == Run.Reason.AWAITING_APPROVAL:
            approval = state.get("pending_approval") or {}
            return {
                "kind": "approval",
                "tone": "review",
                "tool": approval.get("tool_name", ""),
                "arguments_text": ", ".join(
                    f"{key}={json.dumps(value, ensure_ascii=False)}"
                    for key, value in (approval.get("arguments") or {}).items()
                ),
                "reasons": approval.get("reasons") or [],
                "estimated_cost": _money(approval.get("estimated_cost_usd")),
            }
        if reason == Run.Reason.FINISH_PROPOSED:
            disputed = [
                fact_words(c.get("fact", "a fact"))
                for c in state.get("conflicts") or []
                if c.get("status") == "open"
            ]
            gaps = (state.get("proposed_packet") or {}).get("open_gaps") or []
            return {"kind": "signoff", "tone": "review", "disputed": disputed, "gaps": gaps}
        open_conflicts = [c for c in state.get("conflicts") or [] if c.get("status") != "resolved"]
        return {"kind": "escalation", "tone": "review", "open_conflicts": len(open_conflicts)}
    if run.is_active and run.cancel_requested_at:
        return {"kind": "cancelling", "tone": "wait"}
    if run.status == Run.Status.FAILED:
        return {"kind": "failed", "tone": "bad"}
    if run.status == Run.Status.COMPLETED:
        packet = state.get("proposed_packet") or {}
        return {
            "kind": "completed",
            "tone": "ok",
            "rating": packet.get("risk_rating", ""),
            "proposed_rating": packet.get("proposed_risk_rating") or "",
        }
    if run.status == Run.Status.CANCELLED:
        return {"kind": "cancelled", "tone": "muted"}
    return {"kind": "none"}


def status_signature(run: Run) -> tuple:
    """Everything the status and banner regions show, except the meters."""
    return (
        run.status,
        run.termination_reason,
        run.user_status,
        run.cancel_requested_at,
        has_packet(run),
    )


def has_packet(run: Run) -> bool:
    return bool((run.state or {}).get("proposed_packet"))


def live_context(
    run: Run,
    *,
    user=None,
    clarification_item_id: int | None = None,
    csrf_token: str | None = None,
    is_latest: bool = True,
    last_seq: int = 0,
) -> dict[str, Any]:
    from runs.access import has_role

    return {
        "run": run,
        "meters": meters_for(run),
        "banner": banner_for(run, clarification_item_id),
        "has_packet": has_packet(run),
        "is_latest": is_latest,
        "can_cancel": user is not None
        and not run.is_terminal
        and not run.waits_for_reviewer
        and has_role(user, "analyst", "admin"),
        "can_rerun": user is not None
        and run.is_terminal
        and is_latest
        and has_role(user, "analyst"),
        "can_answer": user is not None and has_role(user, "analyst"),
        # A run that waits for the analyst's answer may be cancelled to correct the subject.
        "can_correct_waiting": user is not None
        and run.status == Run.Status.WAITING_FOR_INPUT
        and is_latest
        and has_role(user, "analyst"),
        # The queues are the reviewers' pages: others are not sent where they cannot go.
        "can_review": user is not None and has_role(user, "reviewer"),
        "csrf_token": csrf_token,
        "last_seq": last_seq,
        "status_sentence": run.user_status
        or USER_STATUS.get(run.termination_reason or run.status, ""),
    }


def decisions_context(case_id: int) -> dict[str, Any]:
    """The case's human decisions, and the newest id among them (0 when there are none)."""
    decisions = list(
        HumanDecision.objects.filter(case_id=case_id)
        .select_related("actor")
        .order_by("created_at", "id")
    )
    for decision in decisions:
        decision.details = decision_details(decision.payload or {})
    return {
        "case_id": case_id,
        "decisions": decisions,
        "newest_decision": max((decision.pk for decision in decisions), default=0),
    }


# --- Renderers ------------------------------------------------------------


def render_step(step: StepView, *, oob: bool = False) -> str:
    return render_to_string("runs/live/step.html", {"step": step, "oob": oob})


# What the run's one polite status line says when the run stops to wait, or ends: short,
# since a screen reader reads it whatever the person is doing (the banner has the details).
BANNER_ANNOUNCEMENTS = {
    "answered": "Answer recorded; the run resumes.",
    "approval": "Waiting for a reviewer to approve an action.",
    "signoff": "The packet waits for sign-off.",
    "escalation": "Handed to a reviewer.",
    "cancelling": "Cancelling.",
    "failed": "The run stopped.",
    "completed": "Complete.",
    "cancelled": "Cancelled.",
}


def announcement(context: dict[str, Any], steps: list[StepView] = ()) -> str:
    """The status line's words for an update: the newest step, then what the run waits for
    or how it ended when the update carries the status ("Step 3: resolve_entity done.
    Waiting for your answer.")."""
    parts = []
    if steps:
        step = steps[-1]
        parts.append(
            f"Step {step.number}: {step.title} {'running' if step.tool_running else 'done'}."
        )
    banner = context.get("banner") or {}
    kind = banner.get("kind")
    if kind == "question":
        parts.append(
            "Waiting for your answer."
            if context.get("can_answer")
            else "Waiting for an analyst's answer."
        )
    elif kind == "signoff" and banner.get("disputed"):
        parts.append(f"The sources disagree on {', '.join(banner['disputed'])}.")
    elif kind in BANNER_ANNOUNCEMENTS:
        parts.append(BANNER_ANNOUNCEMENTS[kind])
    return " ".join(parts)


def render_regions(context: dict[str, Any], *, oob: bool = False) -> str:
    """Status, meters and banner; with `oob` each replaces its element on the page, and the
    status line says what changed."""
    context = {**context, "oob": oob, "announcement": announcement(context)}
    regions = ("status", "meters", "banner", "announce") if oob else ("status", "meters", "banner")
    return "".join(render_to_string(f"runs/live/{name}.html", context) for name in regions)


def render_decisions(decisions: dict[str, Any], *, oob: bool = False) -> str:
    """The decisions panel from `decisions_context`."""
    return render_to_string("runs/live/decisions.html", {**decisions, "oob": oob})


def render_push(
    context: dict[str, Any],
    new_events: list[TraceEvent],
    rendered_steps: set[int],
    step_events,
    *,
    include_status: bool = True,
    decisions: dict[str, Any] | None = None,
    matched: dict[str, Any] | None = None,
    notes: list[DocumentNote] | None = None,
) -> str:
    """One websocket frame: steps already on the page are replaced whole, new ones appended,
    then the meters, the cursor with the newest seq sent, the status and banner unless
    `include_status` is False (the caller knows they have not changed since its last push),
    and the decisions panel when `decisions` (a `decisions_context`) is given, and the
    subject's matched entity when `matched` is given (see `resolves_the_subject`), and the
    documents' notes when `notes` is given (see `changes_document_notes`).

    `step_events(step_numbers)` returns every event of those steps up to the newest one sent.
    """
    run: Run = context["run"]
    touched = sorted({event.step for event in new_events})
    replaced = [n for n in touched if n in rendered_steps]
    full_events = step_events(replaced) if replaced else []
    replaced_views = {s.number: s for s in group_steps(run.pk, full_events)}
    new_views = group_steps(run.pk, [e for e in new_events if e.step not in rendered_steps])
    replaced_list = [replaced_views[n] for n in replaced if n in replaced_views]
    changed = sorted([*replaced_list, *new_views], key=lambda step: step.number)
    status = context if include_status else {}
    return render_to_string(
        "runs/live/push.html",
        {
            **context,
            "announcement": announcement(status, changed),
            "replaced": replaced_list,
            "appended": new_views,
            "include_status": include_status,
            "decisions_panel": decisions,
            "matched": matched,
            "document_notes": notes or [],
        },
    )


@dataclass(frozen=True)
class DocumentNote:
    """Whether one of the case's documents is missing from the run shown (attached after
    it started and not given to it since)."""

    pk: int
    not_in_shown_run: bool


def document_notes(run: Run) -> list[DocumentNote]:
    """The note of each of the case's documents against `run`'s brief, read afresh."""
    given = Run.objects.documents_given_to([run.pk]).get(run.pk, set())
    return [
        DocumentNote(pk, str(pk) not in given)
        for pk in Document.objects.filter(case_id=run.case_id).values_list("pk", flat=True)
    ]


def changes_document_notes(events: Iterable[TraceEvent], status_changed: bool) -> bool:
    """Whether a push must bring the documents' notes: the run was given a document, or its
    status changed (a note says when the run would read a document: with an answer, after
    a send-back, or never once it stopped)."""
    return status_changed or any(event.type == "document_added" for event in events)


def resolves_the_subject(events: Iterable[TraceEvent]) -> bool:
    """Whether these events may have matched the subject to a registry entity (the reducer
    selects one only from a resolve_entity result)."""
    return any(
        event.type == "tool_succeeded" and (event.data or {}).get("tool") == "resolve_entity"
        for event in events
    )
