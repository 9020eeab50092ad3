"""How research stops: cancelled, failed, or handed to a reviewer with a partial packet when
a budget or a loop guard says so."""

from __future__ import annotations

from typing import Any

from atlas.runtime.budgets import BudgetStop
from atlas.runtime.cancellation import cancel_request_data
from atlas.runtime.money import budget_dollars
from atlas.runtime.packets import partial_packet
from atlas.runtime.progress import detect_cycle, progress_signature, unchanged_for
from atlas.runtime.state import AtlasState
from atlas.runtime.step_writer import StepBuffer, StepWriter


def cancelled(writer: StepWriter, s: AtlasState, buf: StepBuffer) -> AtlasState:
    s.pending_question = None
    s.pending_approval = None
    s.approved_action = None
    writer.set_status(s, "cancelled", "cancelled")
    writer.terminal_event(s, buf, "run_cancelled", **cancel_request_data(writer.store, s.run_id))
    return s


def fail(
    writer: StepWriter,
    s: AtlasState,
    buf: StepBuffer,
    reason: str,
    sentence: str | None = None,
    **extra: Any,
) -> AtlasState:
    writer.set_status(s, "failed", reason, sentence)
    writer.terminal_event(s, buf, "run_failed", **extra)
    return s


def pause_for_review(
    writer: StepWriter,
    s: AtlasState,
    buf: StepBuffer,
    stop_reason: str,
    cause_event: str | None,
    sentence: str | None = None,
    **data: Any,
) -> AtlasState:
    if cause_event:
        writer.emit(s, buf, cause_event, **data)
    s.proposed_packet = partial_packet(s, stop_reason, overspent=bool(data.get("overspent")))
    writer.set_status(s, "awaiting_review", stop_reason, sentence)
    writer.emit(
        s,
        buf,
        "escalated",
        reason=stop_reason,
        user_status=s.user_status,
        conflicts=[c.conflict_id for c in s.conflicts if c.status != "resolved"],
        open_gaps=s.proposed_packet.open_gaps,
    )
    return s


OVERSPENT_USER_STATUS = (
    "The research went over its {budget} budget ({used} of {limit}) because a model call "
    "reported more usage than was reserved for it; a reviewer should look at the partial packet."
)


def budget_stop(writer: StepWriter, s: AtlasState, buf: StepBuffer, stop: BudgetStop) -> AtlasState:
    sentence = None
    if stop.overspent:
        tokens = stop.reason == "token_budget"
        sentence = OVERSPENT_USER_STATUS.format(
            budget="token" if tokens else "cost",
            used=f"{stop.spent:,}" if tokens else budget_dollars(stop.spent),
            limit=f"{int(stop.limit):,} tokens" if tokens else budget_dollars(stop.limit),
        )
    return pause_for_review(
        writer,
        s,
        buf,
        stop.reason,
        "budget_exhausted",
        sentence,
        **({"overspent": True} if stop.overspent else {}),
        budget=stop.budget,
        reason=stop.reason,
        used=stop.used,
        limit=stop.limit,
        # The same in numbers, for the reviewer's advice on how much to add.
        spent=str(stop.spent),
        upcoming=str(stop.upcoming),
    )


def check_loop_guards(writer: StepWriter, s: AtlasState, buf: StepBuffer) -> AtlasState:
    if s.status != "researching":
        return s
    if s.policy_denials >= s.budgets.max_policy_denials:
        return pause_for_review(writer, s, buf, "policy_denied", None)
    period = detect_cycle(s.decision_history)
    if period:
        return pause_for_review(
            writer,
            s,
            buf,
            "repeated_action",
            "cycle_detected",
            period=period,
            actions=s.decision_history[-3 * period :],
        )
    s.progress_history.append(progress_signature(s))
    stalled = unchanged_for(s.progress_history)
    if stalled >= s.budgets.max_no_progress:
        return pause_for_review(
            writer,
            s,
            buf,
            "no_progress",
            "no_progress_detected",
            iterations=stalled,
            signature=s.progress_history[-1],
        )
    return s
