"""Human decisions applied on resume: idempotent, evented, and back to researching."""

from __future__ import annotations

from decimal import Decimal

import pytest
from runtime_helpers import events_of, run, types

from atlas.runtime.adapters.playbook import Playbook
from atlas.runtime.decisions import Finish, HitDisposition
from atlas.runtime.finish import packet_fingerprint
from atlas.runtime.humans import (
    BudgetExtension,
    ClarificationAnswer,
    CloseCase,
    ConflictResolution,
    HumanInputRejected,
    PacketSignOff,
    parse_human_input,
)
from atlas.runtime.state import (
    CASE_CLOSED_USER_STATUS,
    MAX_DEADLINE_SECONDS,
    RESUBMITTED_USER_STATUS,
    SENT_BACK_USER_STATUS,
    AtlasState,
)
from atlas.runtime.world import sample_documents


def answered(runtime, state, text: str, *, decision_id: str, actor: str):
    """The run with the analyst's answer to its pending question applied."""
    answer = ClarificationAnswer(
        decision_id=decision_id,
        actor=actor,
        question_id=state.pending_question.question_id,
        text=text,
    )
    return runtime.apply_human_input(state, answer)


SENT_BACK = PacketSignOff(
    decision_id="d-1", actor="rita", approved=False, reason="Check the 2023 accounts."
)


def test_applying_the_same_decision_twice_does_nothing(make_runtime, make_state, store):
    runtime = make_runtime()
    state = run(runtime, make_state("Northwind Trading", jurisdiction=None))
    answer = ClarificationAnswer(
        decision_id="d-1", actor="ann", question_id=state.pending_question.question_id, text="GB"
    )
    once = runtime.apply_human_input(state, answer)
    twice = runtime.apply_human_input(once, answer)
    assert twice is once
    assert types(store, once).count("clarification_received") == 1
    assert once.applied_decision_ids == ["d-1"]


def test_an_answer_reaches_the_model_with_personal_data_redacted(make_runtime, make_state):
    runtime = make_runtime()
    state = run(runtime, make_state("Northwind Trading", jurisdiction=None))
    text = "The GB one; my passport number is K7654321 and email ana@example.com"
    answer = ClarificationAnswer(
        decision_id="d-1", actor="ann", question_id=state.pending_question.question_id, text=text
    )
    state = runtime.apply_human_input(state, answer)
    shown = state.observations[-1].model_view
    assert "The GB one" in shown
    assert "K7654321" not in shown and "ana@example.com" not in shown
    # The answer itself is read whole: it still picks the British candidate.
    assert runtime.run_until_pause(state).selected_entity.jurisdiction == "GB"


def test_an_answer_to_a_question_that_is_not_pending_is_refused(make_runtime, make_state):
    runtime = make_runtime()
    state = run(runtime, make_state("Northwind Trading", jurisdiction=None))
    with pytest.raises(HumanInputRejected):
        runtime.apply_human_input(
            state,
            ClarificationAnswer(decision_id="d-1", actor="ann", question_id="q-99", text="GB"),
        )


def test_waiting_for_a_human_does_not_eat_the_deadline(make_runtime, make_state, clock):
    runtime = make_runtime()
    state = run(runtime, make_state("Northwind Trading", jurisdiction=None, deadline_seconds=60))
    deadline_before = state.deadline_at
    clock.advance(3600)  # the analyst answers an hour later
    state = answered(runtime, state, "US", decision_id="d-1", actor="ann")
    assert (state.deadline_at - deadline_before).total_seconds() == 3600
    state = runtime.run_until_pause(state)
    assert state.termination_reason == "finish_proposed"


def test_resolving_the_conflict_lets_the_packet_go_without_it(make_runtime, make_state, store):
    runtime = make_runtime()
    state = run(runtime, make_state("Meridian Shipping Holdings"))
    (conflict,) = state.proposed_packet.unresolved_conflicts
    resolution = ConflictResolution(
        decision_id="d-1",
        actor="reviewer-rita",
        conflict_id=conflict.conflict_id,
        value="Helen Carter, Viktor Petrenko",
        note="Companies House filing of 2024-09-20 confirms the change.",
    )
    state = runtime.apply_human_input(state, resolution)
    assert state.status == "researching"
    assert (
        events_of(store, state, "conflict_resolved")[0].data["value"]
        == "Helen Carter, Viktor Petrenko"
    )
    state = runtime.run_until_pause(state)
    assert state.termination_reason == "finish_proposed"
    assert state.proposed_packet.unresolved_conflicts == []


def test_an_unresolvable_conflict_stays_in_the_packet(make_runtime, make_state, store):
    runtime = make_runtime()
    state = run(runtime, make_state("Meridian Shipping Holdings"))
    assert len(events_of(store, state, "escalated")) == 1
    conflict_id = state.conflicts[0].conflict_id
    state = runtime.apply_human_input(
        state,
        ConflictResolution(
            decision_id="d-1",
            actor="rita",
            conflict_id=conflict_id,
            unresolvable=True,
            note="No filing yet.",
        ),
    )
    state = runtime.run_until_pause(state)
    (carried,) = state.proposed_packet.unresolved_conflicts
    assert carried.status == "unresolvable"
    # Ruled on: carried to the sign-off, not handed to a reviewer again as if open.
    assert state.termination_reason == "finish_proposed"
    assert len(events_of(store, state, "escalated")) == 1
    gaps = state.proposed_packet.open_gaps
    assert "Unresolved conflict on directors: a reviewer recorded it as unresolvable." in gaps
    assert not [gap for gap in gaps if "sources disagree" in gap]


def test_a_budget_extension_resumes_a_stopped_run(make_runtime, make_state, store):
    runtime = make_runtime()
    state = run(runtime, make_state(max_iterations=2))
    assert state.termination_reason == "max_iterations"
    state = runtime.apply_human_input(
        state,
        BudgetExtension(
            decision_id="d-1", actor="rita", extra_iterations=6, extra_cost_usd=Decimal("0.5")
        ),
    )
    assert state.budgets.max_iterations == 8
    assert state.budgets.max_cost_usd == Decimal("2.50")
    state = runtime.run_until_pause(state)
    assert state.termination_reason == "finish_proposed"
    assert "budget_extended" in types(store, state)


def test_an_extension_past_a_budget_ceiling_is_rejected_and_the_run_stays_loadable(
    make_runtime, make_state
):
    runtime = make_runtime()
    state = run(runtime, make_state(max_iterations=2, deadline_seconds=MAX_DEADLINE_SECONDS))
    with pytest.raises(HumanInputRejected, match="deadline_seconds past its ceiling"):
        runtime.apply_human_input(
            state, BudgetExtension(decision_id="d-1", actor="rita", extra_seconds=3600)
        )
    assert AtlasState.from_json(state.to_json()).budgets.deadline_seconds == MAX_DEADLINE_SECONDS


def test_a_rejected_packet_goes_back_to_research_with_the_reason(make_runtime, make_state, store):
    runtime = make_runtime()
    state = run(runtime, make_state())
    state = runtime.apply_human_input(state, SENT_BACK)
    assert state.status == "researching"
    assert state.observations[-1].source == "human"
    assert "Check the 2023 accounts." in state.observations[-1].error_message
    assert types(store, state)[-2:] == ["packet_rejected", "run_resumed"]


def test_a_packet_sent_back_goes_to_the_analyst_and_returns_with_their_reply(
    make_runtime, make_state, store
):
    runtime = make_runtime()
    state = run(runtime, make_state())
    rejected = state.proposed_packet
    state = runtime.apply_human_input(state, SENT_BACK)
    state = run(runtime, state)
    # The rule-based playbook cannot act on a written request: it asks the analyst.
    assert (state.status, state.termination_reason) == ("waiting_for_input", "waiting_for_input")
    assert state.user_status == SENT_BACK_USER_STATUS
    assert "“Check the 2023 accounts.”" in state.pending_question.question
    # A reply cannot change the subject: the question says where that is done.
    assert "use 'Correct the subject' on the case page" in state.pending_question.question

    state = answered(
        runtime,
        state,
        "The accounts are on file; nothing in them changes the rating.",
        decision_id="d-2",
        actor="alex",
    )
    state = run(runtime, state)
    assert (state.status, state.termination_reason) == ("awaiting_review", "finish_proposed")
    assert state.user_status == RESUBMITTED_USER_STATUS
    packet = state.proposed_packet
    assert packet_fingerprint(packet) == packet_fingerprint(rejected)
    assert [r.model_dump(exclude={"rejected_at"}) for r in packet.review_history] == [
        {
            "rejected_by": "rita",
            "reason": "Check the 2023 accounts.",
            "reply": "The accounts are on file; nothing in them changes the rating.",
            "replied_by": "alex",
            "documents": [],
        }
    ]
    after = types(store, state)[types(store, state).index("packet_rejected") :]
    assert after[-1] == "finish_proposed"
    assert "clarification_requested" in after and "clarification_received" in after
    assert "final_rejected" not in after


def test_a_document_attached_during_the_wait_is_given_to_the_run_with_the_answer(
    make_runtime, make_state, store, documents
):
    runtime = make_runtime()
    state = run(runtime, make_state())
    state = run(runtime, runtime.apply_human_input(state, SENT_BACK))
    assert state.status == "waiting_for_input"
    note = next(d for d in sample_documents() if d.document_id == "doc-acme-onboarding")
    documents.attach(note)  # as the reviewer asked
    state = answered(
        runtime, state, "The onboarding note is attached.", decision_id="d-2", actor="alex"
    )
    assert [d.document_id for d in state.brief.documents] == ["doc-acme-onboarding"]
    assert state.packet_reviews[-1].documents == ["acme_onboarding_note.txt"]
    added = events_of(store, state, "document_added")
    assert [e.data["name"] for e in added] == ["acme_onboarding_note.txt"]
    state = run(runtime, state)
    assert (state.status, state.termination_reason) == ("awaiting_review", "finish_proposed")
    assert "extract:doc-acme-onboarding" in state.completed_steps
    assert any(e.document_id == "doc-acme-onboarding" for e in state.evidence)


@pytest.mark.parametrize(
    ("max_iterations", "note"),
    [
        (9, "the run has no iterations left"),
        (10, "one iteration left, enough to send the packet back but not to read a document"),
        (14, None),
    ],
)
def test_the_analyst_is_told_when_the_budget_left_cannot_read_a_document(
    make_runtime, make_state, max_iterations, note
):
    runtime = make_runtime()
    state = run(runtime, make_state(max_iterations=max_iterations))
    assert state.iteration == 8  # the packet was the eighth decision
    state = run(runtime, runtime.apply_human_input(state, SENT_BACK))
    question = state.pending_question.question
    if note is None:
        assert "Note:" not in question
    else:
        assert note in question


def test_a_packet_that_stops_early_after_a_send_back_keeps_the_exchange(make_runtime, make_state):
    runtime = make_runtime()
    state = run(runtime, make_state(max_iterations=9))
    state = run(runtime, runtime.apply_human_input(state, SENT_BACK))
    state = run(runtime, answered(runtime, state, "Checked.", decision_id="d-2", actor="alex"))
    assert (state.status, state.termination_reason) == ("awaiting_review", "max_iterations")
    rounds = [(r.reason, r.reply) for r in state.proposed_packet.review_history]
    assert rounds == [("Check the 2023 accounts.", "Checked.")]
    state = runtime.apply_human_input(
        state, CloseCase(decision_id="d-3", actor="rita", decision="Enough.")
    )
    assert [r.reply for r in state.proposed_packet.review_history] == ["Checked."]


def test_a_send_back_recorded_before_replies_were_still_refuses_the_same_packet(
    make_runtime, make_state, store
):
    runtime = make_runtime()
    state = runtime.apply_human_input(run(runtime, make_state()), SENT_BACK)
    state.packet_reviews = []  # as a run rejected before rounds were recorded was stored
    state = run(runtime, state)
    after = types(store, state)[types(store, state).index("packet_rejected") :]
    assert "final_rejected" in after and "finish_proposed" not in after


def test_only_the_documents_attached_when_the_answer_was_sent_go_with_it(
    make_runtime, make_state, store, documents
):
    runtime = make_runtime()
    state = run(runtime, runtime.apply_human_input(run(runtime, make_state()), SENT_BACK))
    note, form = (
        next(d for d in sample_documents() if d.document_id == name)
        for name in ("doc-acme-onboarding", "doc-meridian-kyc")
    )
    documents.attach(note)
    documents.attach(form)  # attached after the answer was sent
    answer = ClarificationAnswer(
        decision_id="d-2",
        actor="alex",
        question_id=state.pending_question.question_id,
        text="Attached.",
        document_ids=["doc-acme-onboarding"],
    )
    state = runtime.apply_human_input(state, answer)
    assert [d.document_id for d in state.brief.documents] == ["doc-acme-onboarding"]
    assert state.packet_reviews[-1].documents == ["acme_onboarding_note.txt"]
    step = [e.type for e in store.events[state.run_id] if e.step == state.step]
    assert step.index("document_added") < step.index("run_resumed")
    received = events_of(store, state, "clarification_received")[-1]
    assert received.data["reply_to_review"] is True


class IgnoresReviews(Playbook):
    """A decision maker that proposes its packet again whatever the reviewer said."""

    def next_action(self, p, offered=None):
        return super().next_action({**p, "packet_reviews": []}, offered)


def test_the_same_packet_is_not_sent_back_before_the_analyst_replies(
    make_runtime, make_state, store
):
    runtime = make_runtime(model=IgnoresReviews())
    state = run(runtime, make_state())
    rejected = state.proposed_packet
    state = runtime.apply_human_input(state, SENT_BACK)
    state = run(runtime, state)
    # It cannot get the same packet past the runtime, so the run is handed to a reviewer
    # instead of back to sign-off.
    assert state.status == "awaiting_review"
    assert state.termination_reason in {"repeated_action", "no_progress"}
    after = types(store, state)[types(store, state).index("packet_rejected") :]
    assert "finish_proposed" not in after
    assert "final_rejected" in after
    refusal = [o for o in state.observations if o.error_type == "final_rejected"][-1]
    assert "A reviewer rejected this same packet" in refusal.error_message
    assert state.proposed_packet != rejected
    assert "A reviewer rejected the packet: Check the 2023 accounts." in (
        state.proposed_packet.open_gaps
    )


def test_closing_the_case_completes_it_with_the_partial_packet(make_runtime, make_state, store):
    runtime = make_runtime()
    state = run(runtime, make_state("Northwind Trading", jurisdiction=None))
    state = runtime.apply_human_input(
        state, CloseCase(decision_id="d-1", actor="rita", decision="Client withdrew the request.")
    )
    assert (state.status, state.termination_reason) == ("completed", "packet_approved")
    assert state.proposed_packet.closed_by_reviewer
    assert state.proposed_packet.closing_note == "Client withdrew the request."
    assert state.user_status == CASE_CLOSED_USER_STATUS
    assert types(store, state)[-2:] == ["packet_approved", "run_completed"]
    with pytest.raises(HumanInputRejected):
        runtime.apply_human_input(
            state, CloseCase(decision_id="d-2", actor="rita", decision="again")
        )


def test_cancel_of_a_paused_run(make_runtime, make_state, store):
    runtime = make_runtime()
    state = run(runtime, make_state("Northwind Trading", jurisdiction=None))
    state = runtime.cancel(state)
    assert (state.status, state.termination_reason) == ("cancelled", "cancelled")
    assert types(store, state)[-1] == "run_cancelled"


def test_human_inputs_parse_from_json():
    parsed = parse_human_input(
        {"kind": "budget_extension", "decision_id": "d", "actor": "a", "extra_cost_usd": "0.25"}
    )
    assert parsed.extra_cost_usd == Decimal("0.25")
    with pytest.raises(ValueError):
        parse_human_input(
            {"kind": "conflict_resolution", "decision_id": "d", "actor": "a", "conflict_id": "c"}
        )


@pytest.mark.parametrize(
    "end",
    [
        lambda runtime, state: runtime.apply_human_input(
            state, PacketSignOff(decision_id="d-1", actor="rita", approved=True, reason="ok")
        ),
        lambda runtime, state: runtime.apply_human_input(
            state, CloseCase(decision_id="d-1", actor="rita", decision="Client withdrew.")
        ),
        lambda runtime, state: runtime.cancel(state),
    ],
    ids=["signed-off", "closed", "cancelled"],
)
def test_a_run_ended_while_paused_does_not_count_the_wait_as_research(
    make_runtime, make_state, clock, end
):
    runtime = make_runtime()
    state = run(runtime, make_state(deadline_seconds=600))
    assert state.status == "awaiting_review"
    deadline_before = state.deadline_at
    clock.advance(3600)  # the reviewer decides an hour later
    state = end(runtime, state)
    assert state.is_terminal
    assert (state.deadline_at - deadline_before).total_seconds() == 3600
    assert state.paused_at is None


def sanctioned_packet(make_runtime, make_state):
    runtime = make_runtime()
    state = run(runtime, make_state("Volga Petrokhim Eksport", jurisdiction=None))
    assert state.termination_reason == "finish_proposed" and state.sanctions_hits()
    return runtime, state


def test_a_packet_with_a_sanctions_hit_is_signed_off_only_with_each_hit_disposed(
    make_runtime, make_state
):
    runtime, state = sanctioned_packet(make_runtime, make_state)
    with pytest.raises(HumanInputRejected, match="confirmed match or a false positive"):
        runtime.apply_human_input(
            state, PacketSignOff(decision_id="d-1", actor="rita", approved=True, reason="ok")
        )
    with pytest.raises(HumanInputRejected, match="Not a screening match of this run"):
        runtime.apply_human_input(
            state,
            PacketSignOff(
                decision_id="d-1",
                actor="rita",
                approved=True,
                hit_dispositions={"ev-made-up": "false_positive"},
            ),
        )
    assert state.status == "awaiting_review"


def test_the_signed_off_packet_records_each_hits_disposition(make_runtime, make_state, store):
    runtime, state = sanctioned_packet(make_runtime, make_state)
    hits = state.screening_matches()
    state = runtime.apply_human_input(
        state,
        PacketSignOff(
            decision_id="d-1",
            actor="rita",
            approved=True,
            reason="Same company, same address as the SDN entry.",
            hit_dispositions={hit.evidence_id: "confirmed_match" for hit in hits},
        ),
    )
    assert (state.status, state.termination_reason) == ("completed", "packet_approved")
    recorded = state.proposed_packet.hit_dispositions
    assert [(d.evidence_id, d.disposition, d.decided_by) for d in recorded] == [
        (hit.evidence_id, "confirmed_match", "rita") for hit in hits
    ]
    assert recorded[0].hit == hits[0].claim
    approved = [e for e in store.events[state.run_id] if e.type == "packet_approved"][0]
    assert approved.data["hit_dispositions"][0]["disposition"] == "confirmed_match"


def test_closing_a_case_with_a_sanctions_hit_needs_each_hits_disposition(
    make_runtime, make_state, store
):
    runtime, state = sanctioned_packet(make_runtime, make_state)
    hits = state.screening_matches()
    with pytest.raises(HumanInputRejected, match="confirmed match or a false positive"):
        runtime.apply_human_input(
            state, CloseCase(decision_id="d-1", actor="rita", decision="Exit the client.")
        )
    assert state.status == "awaiting_review"
    state = runtime.apply_human_input(
        state,
        CloseCase(
            decision_id="d-1",
            actor="rita",
            decision="Exit the client.",
            hit_dispositions={hit.evidence_id: "confirmed_match" for hit in hits},
        ),
    )
    assert (state.status, state.termination_reason) == ("completed", "packet_approved")
    assert state.proposed_packet.closed_by_reviewer
    recorded = state.proposed_packet.hit_dispositions
    assert [(d.evidence_id, d.disposition, d.decided_by) for d in recorded] == [
        (hit.evidence_id, "confirmed_match", "rita") for hit in hits
    ]
    approved = [e for e in store.events[state.run_id] if e.type == "packet_approved"][0]
    assert approved.data["closed"] is True
    assert approved.data["hit_dispositions"][0]["disposition"] == "confirmed_match"


class ForgingPlaybook(Playbook):
    """The playbook, except that its finish claims the hits were already cleared."""

    def decide(self, context):
        reply = super().decide(context)
        if isinstance(reply.action, Finish):
            forged = HitDisposition(
                evidence_id="x", hit="x", disposition="false_positive", decided_by="model"
            )
            packet = reply.action.packet.model_copy(update={"hit_dispositions": [forged]})
            reply.action = reply.action.model_copy(update={"packet": packet})
        return reply


def test_a_proposed_finish_cannot_write_dispositions_itself(make_runtime, make_state):
    runtime = make_runtime(ForgingPlaybook())
    state = run(runtime, make_state("Volga Petrokhim Eksport", jurisdiction=None))
    assert state.termination_reason == "finish_proposed"
    assert state.proposed_packet.hit_dispositions == []
