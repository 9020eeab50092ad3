"""Screening compares names with the register of politically exposed persons too: a match
is a fact for the reviewer to weigh (no low rating), never a sanctions hit."""

from __future__ import annotations

import pytest
from runtime_helpers import events_of, run

from atlas.runtime.finish import validate_finish
from atlas.runtime.result_words import result_lines, result_summary
from atlas.runtime.state import Signal
from atlas.runtime.tools.builtin import screen_sanctions
from atlas.runtime.tools.schemas import ScreenSanctionsArgs

STATE_SECRETARY = "State Secretary, Ministry of Trade and Fisheries (synthetic)"


@pytest.mark.parametrize("name", ["Henrik Solberg", "SOLBERG, Henrik", "H. Solberg"])
def test_a_name_on_the_register_is_a_pep_match_and_not_a_hit(world_tool_context, name):
    result = screen_sanctions(ScreenSanctionsArgs(name=name), world_tool_context)
    assert result.hits == []
    (match,) = result.pep_matches
    assert (match.entity_id, match.role, match.matched_query) == (
        "pe-henrik-solberg",
        STATE_SECRETARY,
        name,
    )
    assert match.score >= 90
    assert "register of politically exposed persons" in result.explanation


@pytest.mark.parametrize(
    "args",
    [{"name": "Ingrid Berg"}, {"name": "Henrik Solheim"}, {"entity_id": "co-fjordline-seafood-no"}],
)
def test_other_names_match_nobody_on_the_register(world_tool_context, args):
    assert screen_sanctions(ScreenSanctionsArgs(**args), world_tool_context).pep_matches == []


def test_a_screen_says_in_its_step_words_whom_the_register_matched(world_tool_context):
    result = screen_sanctions(ScreenSanctionsArgs(name="Henrik Solberg"), world_tool_context)
    data = result.model_dump(mode="json")
    assert result_summary("screen_sanctions", data) == (
        "Sanctions screening found 0 hits across 3 lists, and 1 politically exposed person match."
    )
    assert result_lines("screen_sanctions", data) == [
        f"Henrik Solberg (NO, born 1966), politically exposed: {STATE_SECRETARY}, match score 100 "
        "(screened as 'Henrik Solberg')"
    ]


def test_a_company_directed_by_a_politically_exposed_person_is_not_low_risk(
    make_runtime, make_state, store
):
    """Fjordline Seafood is on no list and in no article; one of its directors is a state
    secretary."""
    state = run(make_runtime(), make_state("Fjordline Seafood", jurisdiction="NO"))
    assert (state.status, state.termination_reason) == ("awaiting_review", "finish_proposed")
    (pep,) = [e for e in state.evidence if e.evidence_class == "pep"]
    assert (pep.about, pep.signals, pep.source_id) == (
        "director Henrik Solberg",
        [Signal.PEP],
        "pep:pe-henrik-solberg",
    )
    assert not any(Signal.SANCTIONS_HIT in e.signals for e in state.evidence)
    packet = state.proposed_packet
    assert packet.risk_rating == "medium"
    assert packet.sanctions_result.endswith(
        "The register of politically exposed persons matches director Henrik Solberg."
    )
    assert any(
        f.claim.startswith("Politically exposed person match on director Henrik Solberg:")
        and f.evidence_ids == [pep.evidence_id]
        for f in packet.findings
    )
    low = packet.model_copy(update={"risk_rating": "low"})
    assert "A politically exposed person rules out a low risk rating." in (
        validate_finish(state, low)
    )
    assert not events_of(store, state, "final_rejected")
