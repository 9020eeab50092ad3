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
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from django.template.loader import render_to_string

from atlas.runtime.directorships import companies_directed, stored_conflict_about
from atlas.runtime.money import budget_dollars, dollars
from atlas.runtime.state import USER_STATUS, Budgets
from atlas.runtime.wording import fact_about, listed
from reviews.decision_details import decision_details
from reviews.models import HumanDecision
from runs.models import Document, Run, TraceEvent
from runs.step_views import StepView, decimal_or_zero, group_steps

# For a run recorded without its budgets.
DEFAULT_BUDGETS = Budgets().model_dump(mode="json")

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
    max_cost = decimal_or_zero(budgets["max_cost_usd"])
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
            dollars(run.cost_usd),
            budget_dollars(max_cost),
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
                "estimated_cost": decimal_or_zero(approval.get("estimated_cost_usd")),
            }
        if reason == Run.Reason.FINISH_PROPOSED:
            about = companies_directed(state.get("selected_entity"), state.get("directorships"))
            disputed = [
                fact_about(c.get("fact", "a fact"), stored_conflict_about(c, about))
                for c in state.get("conflicts") or []
                if c.get("status") == "open"
            ]
            gaps = (state.get("proposed_packet") or {}).get("open_gaps") or []
            return {
                "kind": "signoff",
                "tone": "review",
                "disputed": listed(disputed, "and"),
                "gaps": gaps,
            }
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
    Waiting for your answer."); a call that failed or was interrupted says so, and a step
    whose tool never ran (denied, or awaiting approval) or that called no tool is named
    without a word for it."""
    parts = []
    if steps:
        step = steps[-1]
        state = "running" if step.tool_running else step.tool_ended
        parts.append(f"Step {step.number}: {step.title}{' ' + state if state else ''}.")
    banner = context.get("banner") or {}
    kind = banner.get("kind")
    if kind == "question":
        parts.append(
            "Waiting for your answer."
            if context.get("can_answer")
            else "Waiting for an analyst's answer."
        )
    elif kind == "signoff" and banner.get("disputed"):
        parts.append(f"The sources disagree on {banner['disputed']}.")
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
