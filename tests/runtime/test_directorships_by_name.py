"""A person the registry has no record of is still linked to the companies whose records
list them as a director: each is screened and searched, and a listed one makes the packet
high risk. A company the registry ties to another person of the name, one the analyst
turned down, is that person's, not the subject's."""

from __future__ import annotations

from runtime_helpers import answer, events_of, run, tool_arguments

from atlas.runtime.tools.builtin import resolve_entity
from atlas.runtime.tools.schemas import ResolveEntityArgs


def test_a_person_lookup_lists_the_companies_naming_them_a_director(world_tool_context):
    result = resolve_entity(
        ResolveEntityArgs(name="Luis Herrera", entity_type="person"), world_tool_context
    )
    assert result.candidates == []
    (listing,) = result.named_as_director
    assert (listing.name, listing.jurisdiction, listing.listed_as, listing.score) == (
        "Golden Gate Shipping SA",
        "PA",
        "Luis Herrera",
        100.0,
    )
    assert "Luis Herrera" in listing.record.directors
    assert "named_as_director lists the companies" in result.explanation
    assert "of the same name, or of the name in another spelling (scoring 98" in result.explanation
    for someone_else in ("Luisa Herrera", "Luis Herrero", "Jose Luis Herrera", "L. Herrera"):
        similar = resolve_entity(
            ResolveEntityArgs(name=someone_else, entity_type="person"), world_tool_context
        )
        assert similar.named_as_director == [], someone_else
    spelled = resolve_entity(
        ResolveEntityArgs(name="HERRERA, Luis", entity_type="person"), world_tool_context
    )
    assert [listing.name for listing in spelled.named_as_director] == ["Golden Gate Shipping SA"]
    company_lookup = resolve_entity(
        ResolveEntityArgs(name="Luis Herrera", entity_type="company"), world_tool_context
    )
    assert company_lookup.named_as_director == []


def test_a_director_of_a_listed_company_with_no_record_of_their_own_is_high_risk(
    make_runtime, make_state, store
):
    state = run(make_runtime(), make_state("Luis Herrera", subject_type="person"))
    assert (state.status, state.termination_reason) == ("awaiting_review", "finish_proposed")
    assert state.selected_entity is None
    packet = state.proposed_packet
    assert packet.risk_rating == "high"
    assert tool_arguments(store, state, "screen_sanctions") == [
        {"name": "Luis Herrera"},
        {"entity_id": "co-golden-gate-shipping-pa"},
        {"name": "Dmitri Volkov"},
    ]
    linked = (
        "Golden Gate Shipping SA (PA), whose registry record lists a director named Luis Herrera"
    )
    assert packet.sanctions_result.startswith(f"3 sanctions hits: on {linked}")
    # Matched to no registry person, the subject was screened by name.
    assert "No hits for the subject's name." in packet.sanctions_result
    registry = next(f for f in packet.findings if f.claim.startswith("Registry record: Golden"))
    assert "directors: Dmitri Volkov, Luis Herrera" in registry.claim
    (cited,) = [e for e in state.evidence if e.evidence_id in registry.evidence_ids]
    assert cited.about == linked and cited.candidate_id == ""
    assert (
        "No registry person matches 'Luis Herrera': the subject was researched by name only, "
        "and who it is was not confirmed." in packet.open_gaps
    )
    # The steps say so as they happen.
    said = [e.data["summary"] for e in events_of(store, state, "tool_succeeded")]
    assert said[0] == (
        "Found 0 registry candidates for 'Luis Herrera'; 1 company record lists a director "
        "of that name: Golden Gate Shipping SA (PA)."
    )
    why = [e.data["rationale_summary"] for e in events_of(store, state, "model_decision")]
    assert f"Screen {linked}." in why


def test_the_companies_of_a_registry_person_the_analyst_turned_down_are_not_the_subjects(
    make_runtime, make_state, store
):
    runtime = make_runtime()
    state = run(runtime, make_state("Dmitri Volkov", subject_type="person", jurisdiction="GB"))
    state = answer(runtime, state, "no")
    assert state.selected_entity is None
    screened = tool_arguments(store, state, "screen_sanctions")
    assert screened == [{"name": "Dmitri Volkov"}]


def test_the_question_about_a_near_candidate_says_which_companies_the_name_leads_to(
    make_runtime, make_state, store
):
    runtime = make_runtime()
    state = run(runtime, make_state("Anita Rao", subject_type="person", jurisdiction=None))
    assert state.pending_question.question.endswith(
        "If it is not, say so: the research goes on without a registry match, taking up the "
        "company whose record lists a director named 'Anita Rao': Harrow Bay Freight Ltd "
        "(GB). If the subject's name is wrong, correct it with 'Correct the subject' on the "
        "case page."
    )
    state = answer(runtime, state, "no")
    assert {"entity_id": "co-harrow-bay-freight-gb"} in tool_arguments(
        store, state, "screen_sanctions"
    )
