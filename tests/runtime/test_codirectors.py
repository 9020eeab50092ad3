"""The other directors the registry lists for a company the subject person directs are
screened against the sanctions lists by name: sitting on a board beside a listed person
is exposure the packet names."""

from __future__ import annotations

from runtime_helpers import events_of, playbook_skipping, run, tool_arguments

from atlas.runtime.codirectors import codirectors, unscreened_codirectors


def test_a_person_on_a_board_beside_a_listed_director_gets_a_high_risk_packet(
    make_runtime, make_state, store
):
    """Amber Coast Freight is on no list; its record lists Dmitry Volkov, who is, beside
    Ieva Petraitytė."""
    state = run(
        make_runtime(), make_state("Ieva Petraityte", subject_type="person", jurisdiction=None)
    )
    assert (state.status, state.termination_reason) == ("awaiting_review", "finish_proposed")
    # The subject, as the record spells her, is not one of the others.
    assert codirectors(state) == ["Dmitry Volkov"]
    assert {"name": "Dmitry Volkov"} in tool_arguments(store, state, "screen_sanctions")
    assert not any(
        "Petrait" in arguments.get("name", "") and arguments != {"name": "Ieva Petraityte"}
        for arguments in tool_arguments(store, state, "screen_sanctions")
    )
    packet = state.proposed_packet
    assert packet.risk_rating == "high"
    assert packet.sanctions_result.startswith(
        "2 sanctions hits: on co-director Dmitry Volkov at Amber Coast Freight UAB (LT) ("
    )
    assert any(
        f.claim.startswith("Sanctions hit on co-director Dmitry Volkov at Amber Coast Freight")
        for f in packet.findings
    )
    assert not any("other directors" in gap for gap in packet.open_gaps)


def test_a_clean_codirector_is_said_to_have_no_hits(make_runtime, make_state):
    """Arthur Pembroke directs Crescent Minerals with Lucy Fenwick."""
    state = run(make_runtime(), make_state("Arthur Pembroke", subject_type="person"))
    packet = state.proposed_packet
    assert (
        "No hits either for co-director Lucy Fenwick at Crescent Minerals PLC (GB), screened by name."
        in (packet.sanctions_result)
    )
    assert unscreened_codirectors(state) == []
    assert not packet.open_gaps


def test_a_codirector_left_unscreened_is_a_gap_and_rules_out_low(make_runtime, make_state, store):
    state = run(
        make_runtime(playbook_skipping("codirectors_to_screen")),
        make_state("Sarah Linden", subject_type="person"),
    )
    (rejected,) = events_of(store, state, "final_rejected")
    assert (
        "Not every other director of the companies the subject directs has been screened "
        "against the sanctions lists (see codirectors_to_screen): that rules out a low risk "
        "rating."
    ) in rejected.data["errors"]
    assert (
        "The other directors of Acme Analytics Ltd (GB), a company the subject directs, "
        "were not screened: Tom Becker."
    ) in state.proposed_packet.open_gaps
    assert state.proposed_packet.risk_rating == "medium"
