"""The other directors the registry lists for a company the subject person directs are
screened against the sanctions lists and searched for adverse media by name: sitting on a
board beside a listed person, or beside one convicted of fraud, is exposure the packet
names."""

from __future__ import annotations

import pytest
from runtime_helpers import answer, events_of, playbook_skipping, run, tool_arguments

from atlas.runtime.codirectors import (
    codirector_media_step,
    codirectors,
    unscreened_codirectors,
    unsearched_codirectors,
)
from atlas.runtime.context import build_context
from atlas.runtime.policy import TenantPolicy
from atlas.runtime.progress import pending_requirements
from atlas.runtime.state import Signal
from atlas.runtime.tools.registry import default_registry


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


@pytest.mark.parametrize(
    ("skipped", "error", "gap"),
    [
        (
            "codirectors_to_screen",
            "Not every other director of the companies the subject directs has been screened "
            "against the sanctions lists (see codirectors_to_screen): that rules out a low "
            "risk rating.",
            "were not screened: Tom Becker.",
        ),
        (
            "codirectors_to_search",
            "Adverse media has not been searched on every other director of the companies the "
            "subject directs (see codirectors_to_search): that rules out a low risk rating.",
            "were not searched for adverse media: Tom Becker.",
        ),
    ],
)
def test_a_codirector_left_unresearched_is_a_gap_and_rules_out_low(
    make_runtime, make_state, store, skipped, error, gap
):
    state = run(
        make_runtime(playbook_skipping(skipped)),
        make_state("Sarah Linden", subject_type="person"),
    )
    (rejected,) = events_of(store, state, "final_rejected")
    assert error in rejected.data["errors"]
    assert state.proposed_packet.open_gaps == [
        f"The other directors of Acme Analytics Ltd (GB), a company the subject directs, {gap}"
    ]
    assert state.proposed_packet.risk_rating == "medium"


def test_a_person_on_a_board_beside_someone_convicted_gets_a_medium_risk_packet(
    make_runtime, make_state, store
):
    """Anita Rao has no registry record of her own; Harrow Bay Freight's lists her beside
    Colin Marsh, convicted of customs fraud. Told the nearest candidate is not her, the run
    takes up the company, then Marsh: screened, and searched for adverse media."""
    runtime = make_runtime()
    state = run(runtime, make_state("Anita Rao", subject_type="person", jurisdiction=None))
    state = answer(runtime, state, "no")
    assert (state.status, state.termination_reason) == ("awaiting_review", "finish_proposed")
    assert {"name": "Colin Marsh"} in tool_arguments(store, state, "screen_sanctions")
    assert {"query": "Colin Marsh"} in tool_arguments(store, state, "search_adverse_media")
    packet = state.proposed_packet
    assert packet.risk_rating == "medium"
    assert packet.adverse_media_summary == (
        "1 adverse article: Example Business News, 2025-03-18: Haulage director Colin Marsh "
        "convicted of customs fraud (on co-director Colin Marsh at Harrow Bay Freight Ltd (GB))."
    )
    (article,) = [e for e in state.evidence if Signal.ADVERSE in e.signals]
    assert article.about == "co-director Colin Marsh at Harrow Bay Freight Ltd (GB)"
    assert any(article.evidence_id in f.evidence_ids for f in packet.findings)
    assert unsearched_codirectors(state) == []


def test_a_clean_codirector_is_searched_and_the_packet_stays_low(make_runtime, make_state, store):
    """Lucy Fenwick, Arthur Pembroke's co-director at Crescent Minerals, is in no article."""
    state = run(make_runtime(), make_state("Arthur Pembroke", subject_type="person"))
    assert tool_arguments(store, state, "search_adverse_media")[-1] == {"query": "Lucy Fenwick"}
    assert "No adverse media found for co-director Lucy Fenwick at Crescent Minerals PLC (GB)." in [
        f.claim for f in state.proposed_packet.findings
    ]


def test_the_model_is_asked_to_search_each_codirector_until_it_has(make_runtime, make_state):
    state = run(
        make_runtime(playbook_skipping("codirectors_to_search")),
        make_state("Sarah Linden", subject_type="person"),
    )
    assert unsearched_codirectors(state) == ["Tom Becker"]
    assert codirector_media_step("Tom Becker") in pending_requirements(state)
    context = build_context(state, default_registry(), TenantPolicy())
    assert context.projection["codirectors_to_search"] == ["Tom Becker"]
    assert "search adverse media on each in codirectors_to_search" in " ".join(
        context.messages[0]["content"].split()
    )
