"""Applying a person's decision (the inputs humans.py defines) to a paused run."""

from __future__ import annotations

from datetime import timedelta

from pydantic import ValidationError

from atlas.runtime.adapters.answers import (
    candidate_picked_by,
    candidates_ruled_out_by,
    rules_out_the_one,
)
from atlas.runtime.case_documents import take_up_new_documents
from atlas.runtime.context import fence
from atlas.runtime.decisions import DISPOSE_OF_EVERY_HIT, HitDisposition, ReviewRound
from atlas.runtime.finish import packet_fingerprint
from atlas.runtime.humans import (
    ApprovalDecision,
    BudgetExtension,
    ClarificationAnswer,
    CloseCase,
    ConflictResolution,
    HumanInput,
    HumanInputRejected,
    PacketSignOff,
)
from atlas.runtime.packets import namesake_match_gaps, namesake_reasons, partial_packet
from atlas.runtime.progress import HISTORY_BREAK, progress_signature
from atlas.runtime.rating_floor import rules_against, why_not
from atlas.runtime.redaction import redact
from atlas.runtime.residences import moot_conflicts
from atlas.runtime.shares import ownership_by_listed_owners
from atlas.runtime.source_of_wealth import source_of_wealth_gap
from atlas.runtime.state import (
    CASE_CLOSED_USER_STATUS,
    EXTENDABLE_REASONS,
    AtlasState,
    AttachedDocument,
    Budgets,
    ConflictResolutionRecord,
    PendingQuestion,
)
from atlas.runtime.step_writer import StepBuffer, StepWriter
from atlas.runtime.wording import fact_about


def apply_human_input(
    writer: StepWriter,
    s: AtlasState,
    buf: StepBuffer,
    human_input: HumanInput,
    offered_documents: list[AttachedDocument] = (),  # type: ignore[assignment]
) -> AtlasState:
    """`offered_documents`: the case's documents that go to the run with an answer."""
    if isinstance(human_input, ClarificationAnswer):
        s = _apply_answer(writer, s, buf, human_input, list(offered_documents))
    elif isinstance(human_input, ApprovalDecision):
        s = _apply_approval(writer, s, buf, human_input)
    elif isinstance(human_input, ConflictResolution):
        s = _apply_conflict_resolution(writer, s, buf, human_input)
    elif isinstance(human_input, BudgetExtension):
        s = _apply_budget_extension(writer, s, buf, human_input)
    elif isinstance(human_input, PacketSignOff):
        s = _apply_signoff(writer, s, buf, human_input)
    elif isinstance(human_input, CloseCase):
        s = _apply_close(writer, s, buf, human_input)
    else:  # pragma: no cover - the union is closed
        raise HumanInputRejected(f"Unknown human input {type(human_input).__name__}.")
    return s


def resume_research(
    writer: StepWriter, s: AtlasState, buf: StepBuffer, decision: HumanInput
) -> None:
    paused_as = s.termination_reason
    writer.set_status(s, "researching", None)
    writer.emit(
        s,
        buf,
        "run_resumed",
        cause="human_input",
        paused_as=paused_as,
        actor=decision.actor,
        decision_id=decision.decision_id,
    )
    s.decision_history.append(HISTORY_BREAK)
    s.progress_history = [progress_signature(s)]


def _picked_entity_id(s: AtlasState, question: PendingQuestion, answer: str) -> str:
    if not question.candidates or s.selected_entity is not None:
        return ""
    listed = [candidate.model_dump() for candidate in s.entity_candidates]
    picked = candidate_picked_by(answer, listed, question.candidates)
    return picked["entity_id"] if picked else ""


def _rule_out_candidates(s: AtlasState, question: PendingQuestion, answer: str) -> list[str]:
    """When the answer says none of the registry candidates the question listed is the
    subject, the run drops them (the ids returned): unmatched, it is researched by name, as
    after a no to a single candidate."""
    if s.selected_entity is not None:
        return []
    listed = [candidate.model_dump() for candidate in s.entity_candidates]
    ruled_out = candidates_ruled_out_by(answer, listed, question.candidates)
    dropped = [c["entity_id"] for c in ruled_out]
    s.entity_candidates = [c for c in s.entity_candidates if c.entity_id not in dropped]
    if not s.entity_candidates:
        # Nothing is matched now: documents held for the match are read as they were.
        s.documents_read_before_match = []
    return dropped


def _apply_answer(
    writer: StepWriter,
    s: AtlasState,
    buf: StepBuffer,
    answer: ClarificationAnswer,
    offered_documents: list[AttachedDocument],
) -> AtlasState:
    question = s.pending_question
    if s.status != "waiting_for_input" or question is None:
        raise HumanInputRejected("The run is not waiting for an answer.")
    if question.question_id != answer.question_id:
        raise HumanInputRejected(f"Question {answer.question_id} is not the pending question.")
    s.pending_question = None
    # The first answer after a rejection is the analyst's reply to the reviewer.
    review = s.review_awaiting_reply()
    if review is not None:
        review.reply = answer.text
        review.replied_by = answer.actor
    # Read by the runtime, not the model: the one registry candidate the answer names,
    # which alone the model may then narrow to (reducer.picked_candidate).
    picked = _picked_entity_id(s, question, answer.text)
    ruled_out = [] if picked else _rule_out_candidates(s, question, answer.text)
    turned_down = not picked and rules_out_the_one(answer.text, question.candidates)
    s.answered_questions.append(
        {
            "question_id": question.question_id,
            "question": question.question,
            "answer": answer.text,
            "candidates": "; ".join(question.candidates),
            "picked_entity_id": picked,
            # An answer that neither picks a candidate nor says none is the subject ("not
            # sure", "hmm") turns nobody down: the question is put again.
            **(
                {"unclear": "yes"}
                if question.candidates and not picked and not ruled_out and not turned_down
                else {}
            ),
        }
    )
    writer.emit(
        s,
        buf,
        "clarification_received",
        question_id=question.question_id,
        answer=answer.text,
        actor=answer.actor,
        decision_id=answer.decision_id,
        # Said only when true, so the answers to the agent's own questions read as before.
        **({"reply_to_review": True} if review is not None else {}),
        **({"picked_entity_id": picked} if picked else {}),
        **({"ruled_out_entity_ids": ruled_out} if ruled_out else {}),
        **({"turned_down": True} if turned_down else {}),
        **({"unclear": True} if s.answered_questions[-1].get("unclear") else {}),
    )
    writer.observe(
        s,
        buf,
        source="human",
        name="clarification",
        ok=True,
        data={"question": question.question, "answer": answer.text},
        view=fence("human:analyst", redact(f"Q: {question.question}\nA: {answer.text}")),
    )
    added = take_up_new_documents(writer, s, buf, offered_documents)
    if review is not None:
        review.documents = [document.name for document in added]
    resume_research(writer, s, buf, answer)
    return s


def _apply_approval(
    writer: StepWriter, s: AtlasState, buf: StepBuffer, decision: ApprovalDecision
) -> AtlasState:
    pending = s.pending_approval
    if pending is None or pending.action_id != decision.action_id:
        raise HumanInputRejected(f"Action {decision.action_id} is not awaiting approval.")
    s.pending_approval = None
    data = {
        "action_id": pending.action_id,
        "tool": pending.tool_name,
        "arguments": pending.arguments,
        "actor": decision.actor,
        "reason": decision.reason,
        "decision_id": decision.decision_id,
    }
    if decision.approved:
        s.approved_signatures.append(pending.signature)
        seen = [r for r in decision.reasons_seen if r not in pending.reasons]
        s.approved_action = pending.model_copy(update={"reasons": [*pending.reasons, *seen]})
        writer.emit(s, buf, "approval_granted", **data)
    else:
        s.denied_signatures.append(pending.signature)
        s.denied_actions.append(
            {
                "tool": pending.tool_name,
                "arguments": pending.arguments,
                "reason": decision.reason or "denied by a reviewer",
                "denied_by": decision.actor,
                "reviewer_reason": decision.reason,
            }
        )
        writer.emit(s, buf, "approval_denied", **data)
        writer.observe(
            s,
            buf,
            source="human",
            name=pending.tool_name,
            ok=False,
            error_type="approval_denied",
            error_message=f"A reviewer denied this action: {decision.reason or 'no reason given'}. Do not propose it again.",
        )
    resume_research(writer, s, buf, decision)
    return s


def _apply_conflict_resolution(
    writer: StepWriter, s: AtlasState, buf: StepBuffer, resolution: ConflictResolution
) -> AtlasState:
    conflict = next((c for c in s.conflicts if c.conflict_id == resolution.conflict_id), None)
    if conflict is None:
        raise HumanInputRejected(f"Unknown conflict {resolution.conflict_id}.")
    if conflict.status != "open":
        raise HumanInputRejected(f"Conflict {resolution.conflict_id} is already {conflict.status}.")
    if resolution.value is not None and resolution.value not in {v.value for v in conflict.values}:
        raise HumanInputRejected("The chosen value is not one of the conflicting values.")
    conflict.status = "unresolvable" if resolution.unresolvable else "resolved"
    conflict.resolution = ConflictResolutionRecord(
        value=resolution.value,
        note=resolution.note,
        actor=resolution.actor,
        decision_id=resolution.decision_id,
    )
    writer.emit(
        s,
        buf,
        "conflict_resolved",
        conflict_id=conflict.conflict_id,
        fact=conflict.fact,
        **({"person": conflict.person} if conflict.person else {}),
        status=conflict.status,
        value=resolution.value,
        note=resolution.note,
        actor=resolution.actor,
    )
    writer.observe(
        s,
        buf,
        source="human",
        name="conflict_resolution",
        ok=True,
        data={
            "conflict_id": conflict.conflict_id,
            "status": conflict.status,
            "value": resolution.value,
            "note": resolution.note,
        },
        view=fence(
            "human:reviewer",
            redact(
                f"Conflict on {fact_about(conflict.fact, conflict.person)}: {conflict.status}"
                + (f", correct value: {resolution.value}" if resolution.value else "")
                + (f". Note: {resolution.note}" if resolution.note else "")
            ),
        ),
    )
    _withdraw_moot_conflicts(writer, s, buf, resolution)
    if s.status == "awaiting_review" and s.termination_reason != "awaiting_approval":
        s.proposed_packet = None
        resume_research(writer, s, buf, resolution)
    return s


def _withdraw_moot_conflicts(
    writer: StepWriter, s: AtlasState, buf: StepBuffer, resolution: ConflictResolution
) -> None:
    """A conflict over where someone lives goes once the reviewer's settlement of the
    directors leaves them none (the trace keeps both events)."""
    for conflict in moot_conflicts(s):
        s.conflicts.remove(conflict)
        writer.emit(
            s,
            buf,
            "conflict_resolved",
            conflict_id=conflict.conflict_id,
            fact=conflict.fact,
            person=conflict.person,
            status="withdrawn",
            value=None,
            note="No longer a director or owner of the company, as the reviewer settled it.",
            actor=resolution.actor,
        )


def _apply_budget_extension(
    writer: StepWriter, s: AtlasState, buf: StepBuffer, extension: BudgetExtension
) -> AtlasState:
    if s.status != "awaiting_review" or s.termination_reason not in EXTENDABLE_REASONS:
        raise HumanInputRejected("Only a run stopped by a budget or a loop guard can be extended.")
    budgets = s.budgets
    try:
        s.budgets = Budgets.model_validate(
            {
                **budgets.model_dump(),
                "max_iterations": budgets.max_iterations + extension.extra_iterations,
                "max_tokens": budgets.max_tokens + extension.extra_tokens,
                "max_cost_usd": budgets.max_cost_usd + extension.extra_cost_usd,
                "deadline_seconds": budgets.deadline_seconds + extension.extra_seconds,
            }
        )
    except ValidationError as error:
        problem = error.errors()[0]
        raise HumanInputRejected(
            f"The extension would take {problem['loc'][0]} past its ceiling: {problem['msg']}."
        ) from None
    if s.deadline_at is not None:
        s.deadline_at = s.deadline_at + timedelta(seconds=extension.extra_seconds)
    s.policy_denials = 0
    s.answers_before_extension = len(s.answered_questions)
    s.proposed_packet = None
    writer.emit(
        s,
        buf,
        "budget_extended",
        actor=extension.actor,
        extra_iterations=extension.extra_iterations,
        extra_tokens=extension.extra_tokens,
        extra_cost_usd=extension.extra_cost_usd,
        extra_seconds=extension.extra_seconds,
        budgets=s.budgets.model_dump(mode="json"),
    )
    resume_research(writer, s, buf, extension)
    return s


def _apply_signoff(
    writer: StepWriter, s: AtlasState, buf: StepBuffer, signoff: PacketSignOff
) -> AtlasState:
    if (
        s.status != "awaiting_review"
        or s.termination_reason != "finish_proposed"
        or s.proposed_packet is None
    ):
        raise HumanInputRejected("There is no proposed packet to sign off.")
    if signoff.packet_step is not None and signoff.packet_step != s.step:
        raise HumanInputRejected("The packet this sign-off was for has been replaced.")
    if s.opened_by is not None and signoff.actor == s.opened_by:
        raise HumanInputRejected("The analyst who opened the case cannot sign off its packet.")
    if signoff.approved:
        return _complete(writer, s, buf, signoff, reason=signoff.reason, closed=False)
    writer.emit(s, buf, "packet_rejected", actor=signoff.actor, reason=signoff.reason)
    s.rejected_packets.append(packet_fingerprint(s.proposed_packet))
    s.packet_reviews.append(
        ReviewRound(
            rejected_by=signoff.actor,
            reason=signoff.reason,
            rejected_at=writer.clock.now(),
        )
    )
    writer.observe(
        s,
        buf,
        source="human",
        name="packet_review",
        ok=False,
        error_type="packet_rejected",
        error_message=f"A reviewer rejected the packet: {signoff.reason or 'no reason given'}",
    )
    s.proposed_packet = None
    resume_research(writer, s, buf, signoff)
    return s


def _hit_dispositions(s: AtlasState, decided: PacketSignOff | CloseCase) -> list[HitDisposition]:
    """Every screening match of the run with the reviewer's disposition, or refused."""
    hits = s.screening_matches()
    unknown = set(decided.hit_dispositions) | set(decided.hit_notes)
    unknown -= {hit.evidence_id for hit in hits}
    if unknown:
        raise HumanInputRejected(
            f"Not a screening match of this run: {', '.join(sorted(unknown))}."
        )
    missing = [hit.claim for hit in hits if hit.evidence_id not in decided.hit_dispositions]
    if missing:
        raise HumanInputRejected(f"{DISPOSE_OF_EVERY_HIT}: " + "; ".join(missing))
    reasons = namesake_reasons(s)
    return [
        HitDisposition(
            evidence_id=hit.evidence_id,
            hit=hit.claim,
            disposition=decided.hit_dispositions[hit.evidence_id],
            decided_by=decided.actor,
            note=decided.hit_notes.get(hit.evidence_id, ""),
            namesake_reasons=reasons.get(hit.evidence_id, []),
        )
        for hit in hits
    ]


def _apply_close(
    writer: StepWriter, s: AtlasState, buf: StepBuffer, close: CloseCase
) -> AtlasState:
    packet = s.proposed_packet or partial_packet(s, s.termination_reason or "no_progress")
    s.proposed_packet = packet.model_copy(
        update={"closed_by_reviewer": True, "closing_note": close.decision}
    )
    s.pending_question = None
    s.pending_approval = None
    s.approved_action = None
    return _complete(writer, s, buf, close, reason=close.decision, closed=True)


def _complete(
    writer: StepWriter,
    s: AtlasState,
    buf: StepBuffer,
    decided: PacketSignOff | CloseCase,
    *,
    reason: str,
    closed: bool,
) -> AtlasState:
    """A reviewer's approval ends the run: its packet, with the reviewer's disposition of
    each screening match, is the case's record."""
    dispositions = _hit_dispositions(s, decided)
    s.proposed_packet = s.proposed_packet.model_copy(
        update={
            "hit_dispositions": dispositions,
            "sanctions_result": _ownership_as_marked(s, dispositions),
            "open_gaps": _diligence_as_marked(s, dispositions),
            **_reviewers_rating(s, decided, dispositions),
        }
    )
    writer.set_status(
        s, "completed", "packet_approved", CASE_CLOSED_USER_STATUS if closed else None
    )
    writer.emit(
        s,
        buf,
        "packet_approved",
        actor=decided.actor,
        reason=reason,
        closed=closed,
        hit_dispositions=dispositions,
        risk_rating=s.proposed_packet.risk_rating,
        # Only when the reviewer set another rating: the metrics count these by the key.
        **(
            {"proposed_risk_rating": s.proposed_packet.proposed_risk_rating}
            if s.proposed_packet.proposed_risk_rating
            else {}
        ),
    )
    writer.terminal_event(s, buf, "run_completed")
    return s


def _ownership_as_marked(s: AtlasState, dispositions: list[HitDisposition]) -> str:
    """The sanctions result, its sentence on how much of the company owners with hits
    hold (shares.ownership_by_listed_owners) said again without the hits the reviewer
    marked false positives."""
    result = s.proposed_packet.sanctions_result
    set_aside = {d.evidence_id for d in dispositions if d.disposition == "false_positive"}
    said, _ = ownership_by_listed_owners(s)
    if not set_aside or not said or said not in result:
        return result
    marked, _ = ownership_by_listed_owners(s, set_aside)
    if not marked:
        marked = "The reviewer marked the sanctions hits on the company's owners false positives."
    return result.replace(said, marked)


def _diligence_as_marked(s: AtlasState, dispositions: list[HitDisposition]) -> list[str]:
    """The packet's gaps: without those asking a reviewer to rule on a match that may be
    on a namesake (packets.namesake_match_gaps), as they marked every match, their mark
    recorded beside it; its gap on a politically exposed person's source of wealth
    (source_of_wealth.source_of_wealth_gap) said again without the matches the reviewer
    marked false positives, or dropped when none is left."""
    ruled_on = namesake_match_gaps(s)
    gaps = [gap for gap in s.proposed_packet.open_gaps if gap not in ruled_on]
    set_aside = {d.evidence_id for d in dispositions if d.disposition == "false_positive"}
    said = source_of_wealth_gap(s)
    if not set_aside or said not in gaps:
        return gaps
    marked = source_of_wealth_gap(s, set_aside)
    return [marked if gap == said else gap for gap in gaps if marked or gap != said]


def _reviewers_rating(
    s: AtlasState, decided: PacketSignOff | CloseCase, dispositions: list[HitDisposition]
) -> dict:
    """The packet's fields when the reviewer sets a rating of their own, or refused when
    the evidence rules that rating out (the matches marked false positives set aside)."""
    proposed = s.proposed_packet.risk_rating
    rating = decided.risk_rating
    if rating is None or rating == proposed:
        return {}
    set_aside = {d.evidence_id for d in dispositions if d.disposition == "false_positive"}
    if rules := rules_against(s, rating, set_aside):
        raise HumanInputRejected(why_not(s, rating, rules))
    return {"risk_rating": rating, "proposed_risk_rating": proposed}
