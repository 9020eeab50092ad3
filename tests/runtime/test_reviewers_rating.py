"""A reviewer signs a packet off with a rating of their own: higher at will, lower only as
far as the evidence allows once the screening matches they marked false positives are set
aside."""

from __future__ import annotations

import pytest
from runtime_helpers import events_of, run, signed_off

from atlas.runtime.humans import ConflictResolution, HumanInputRejected
from atlas.runtime.rating_floor import rules_against


def proposed(make_runtime, make_state, subject: str, **fields):
    runtime = make_runtime()
    state = run(runtime, make_state(subject, **fields))
    assert state.termination_reason == "finish_proposed"
    return runtime, state


def test_matches_marked_false_positives_let_the_reviewer_lower_the_rating(
    make_runtime, make_state, store
):
    """Every sanctions hit on Volga Petrochem marked a false positive: the rating may come
    down to medium (its own article is still adverse media) but not to low."""
    runtime, state = proposed(
        make_runtime, make_state, "Volga Petrokhim Eksport", jurisdiction=None
    )
    assert state.proposed_packet.risk_rating == "high"
    # Marking matches cannot set the subject's own article aside, so the refusal says
    # nothing of marking.
    with pytest.raises(HumanInputRejected) as refused:
        signed_off(runtime, state, "low", "false_positive")
    assert str(refused.value) == (
        "A low rating is ruled out by adverse media: an article [3] is adverse media about "
        "Volga Petrochem Export JSC."
    )
    assert state.status == "awaiting_review"

    state = signed_off(runtime, state, "medium", "false_positive")
    assert (state.status, state.termination_reason) == ("completed", "packet_approved")
    packet = state.proposed_packet
    assert (packet.risk_rating, packet.proposed_risk_rating) == ("medium", "high")
    (approved,) = events_of(store, state, "packet_approved")
    assert (approved.data["risk_rating"], approved.data["proposed_risk_rating"]) == (
        "medium",
        "high",
    )


def test_a_confirmed_hit_keeps_the_rating_high(make_runtime, make_state):
    runtime, state = proposed(
        make_runtime, make_state, "Volga Petrokhim Eksport", jurisdiction=None
    )
    with pytest.raises(HumanInputRejected, match="A medium rating is ruled out by a sanctions hit"):
        signed_off(runtime, state, "medium", "confirmed_match")


def test_the_only_ground_marked_a_false_positive_lets_the_rating_go_low(make_runtime, make_state):
    """Harrow Bay's one adverse article was found by its director's name alone."""
    runtime, state = proposed(make_runtime, make_state, "Harrow Bay Freight", jurisdiction="GB")
    assert state.proposed_packet.risk_rating == "medium"
    state = signed_off(runtime, state, "low", "false_positive")
    packet = state.proposed_packet
    assert (packet.risk_rating, packet.proposed_risk_rating) == ("low", "medium")


def test_a_reviewer_may_raise_the_rating(make_runtime, make_state):
    runtime, state = proposed(make_runtime, make_state, "Acme Analytics", jurisdiction="GB")
    assert state.proposed_packet.risk_rating == "low"
    state = signed_off(runtime, state, "high")
    packet = state.proposed_packet
    assert (packet.risk_rating, packet.proposed_risk_rating) == ("high", "low")


def test_keeping_the_proposed_rating_records_no_other(make_runtime, make_state, store):
    runtime, state = proposed(make_runtime, make_state, "Acme Analytics", jurisdiction="GB")
    state = signed_off(runtime, state, "low")
    (approved,) = events_of(store, state, "packet_approved")
    assert approved.data["risk_rating"] == "low"
    assert "proposed_risk_rating" not in approved.data  # the metrics count re-ratings by it
    assert (state.proposed_packet.risk_rating, state.proposed_packet.proposed_risk_rating) == (
        "low",
        None,
    )


def test_a_fact_the_sources_still_dispute_rules_out_a_low_rating_until_settled(
    make_runtime, make_state
):
    runtime, state = proposed(make_runtime, make_state, "Meridian Shipping Holdings")
    (conflict,) = state.proposed_packet.unresolved_conflicts
    assert [rule.in_words for rule in rules_against(state, "low")] == [
        "sources that disagree on a fact nobody settled"
    ]
    state = runtime.apply_human_input(
        state,
        ConflictResolution(
            decision_id="d-1",
            actor="rita",
            conflict_id=conflict.conflict_id,
            value="Helen Carter, Viktor Petrenko",
            note="The filing of 2024-09-20 confirms the change.",
        ),
    )
    assert rules_against(state, "low") == []


def test_a_note_on_a_match_is_kept_with_its_disposition_and_a_note_on_nothing_refused(
    make_runtime, make_state
):
    runtime, state = proposed(
        make_runtime, make_state, "Volga Petrokhim Eksport", jurisdiction=None
    )
    first = state.screening_matches()[0].evidence_id
    with pytest.raises(HumanInputRejected, match="Not a screening match of this run: ev-x"):
        signed_off(runtime, state, None, notes={"ev-x": "On nothing."})
    done = signed_off(runtime, state, None, notes={first: "Registered in another country."})
    notes = {d.evidence_id: d.note for d in done.proposed_packet.hit_dispositions}
    assert notes[first] == "Registered in another country."
    assert sum(bool(note) for note in notes.values()) == 1
