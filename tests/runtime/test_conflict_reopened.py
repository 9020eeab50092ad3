"""A conflict a reviewer settled is theirs again when a source read since disputes what
they chose: it reopens, is escalated again, and the packet does not go out as if the
dispute were over. A source read again, or one agreeing with their choice, changes nothing.

Meridian Shipping Holdings: the registry names Helen Carter and James Whitfield, two
articles name Helen Carter and Viktor Petrenko; its KYC form (attached after a send-back)
sides with the registry."""

from __future__ import annotations

from runtime_helpers import events_of, run, settled

from atlas.runtime.humans import ClarificationAnswer, PacketSignOff
from atlas.runtime.world import sample_documents

SUBJECT = "Meridian Shipping Holdings"
THE_ARTICLES = "Helen Carter, Viktor Petrenko"
THE_REGISTRY = "Helen Carter, James Whitfield"


def settled_then_given_the_kyc_form(runtime, state, documents, chosen: str):
    """The run with its conflict settled to `chosen`, its packet sent back for the KYC
    form, and the form given to it with the analyst's reply: run until it pauses."""
    (conflict,) = state.proposed_packet.unresolved_conflicts
    state = settled(runtime, state, conflict.conflict_id, chosen, "d-1")
    assert (state.termination_reason, state.proposed_packet.unresolved_conflicts) == (
        "finish_proposed",
        [],
    )
    state = run(
        runtime,
        runtime.apply_human_input(
            state,
            PacketSignOff(
                decision_id="d-2", actor="reviewer-rita", approved=False, reason="Add the KYC form."
            ),
        ),
    )
    documents.attach(next(d for d in sample_documents() if d.document_id == "doc-meridian-kyc"))
    reply = ClarificationAnswer(
        decision_id="d-3",
        actor="analyst-ann",
        question_id=state.pending_question.question_id,
        text="The KYC form is attached.",
    )
    return run(runtime, runtime.apply_human_input(state, reply))


def test_a_source_read_since_that_disputes_the_reviewers_choice_reopens_the_conflict(
    make_runtime, make_state, store, documents
):
    runtime = make_runtime()
    state = run(runtime, make_state(SUBJECT))
    state = settled_then_given_the_kyc_form(runtime, state, documents, THE_ARTICLES)

    (conflict,) = state.conflicts
    assert conflict.status == "open" and conflict.resolution is None
    assert [r.value for r in conflict.earlier_resolutions] == [THE_ARTICLES]
    assert "document:doc-meridian-kyc" in {v.source_id for v in conflict.values}
    # Escalated again, with the dispute in the packet, not sent to sign-off as settled.
    assert (state.status, state.termination_reason) == ("awaiting_review", "finish_proposed")
    assert [c.conflict_id for c in state.proposed_packet.unresolved_conflicts] == [
        conflict.conflict_id
    ]
    detected = events_of(store, state, "conflict_detected")
    assert len(detected) == 2
    assert "reopened_after" not in detected[0].data
    assert detected[1].data["reopened_after"]["value"] == THE_ARTICLES
    assert detected[1].data["reopened_after"]["actor"] == "reviewer-rita"
    assert len(events_of(store, state, "escalated")) == 2

    # The reviewer settles it again, having now seen the form.
    state = settled(runtime, state, conflict.conflict_id, THE_REGISTRY, "d-4")
    assert state.proposed_packet.unresolved_conflicts == []
    (conflict,) = state.conflicts
    assert (conflict.status, conflict.resolution.value) == ("resolved", THE_REGISTRY)


def test_a_source_read_since_that_agrees_with_the_reviewers_choice_leaves_it_settled(
    make_runtime, make_state, store, documents
):
    runtime = make_runtime()
    state = run(runtime, make_state(SUBJECT))
    state = settled_then_given_the_kyc_form(runtime, state, documents, THE_REGISTRY)

    (conflict,) = state.conflicts
    assert (conflict.status, conflict.resolution.value) == ("resolved", THE_REGISTRY)
    assert conflict.earlier_resolutions == []
    assert "document:doc-meridian-kyc" in {v.source_id for v in conflict.values}
    assert len(events_of(store, state, "conflict_detected")) == 1
    assert state.proposed_packet.unresolved_conflicts == []
