"""A subject only a sanctions list knows, as an alias of a listed company: the list links its
entry to a registry entity, which the analyst is asked to confirm as the subject."""

from __future__ import annotations

from datetime import UTC, datetime

from runtime_helpers import answer, run

from atlas.runtime import reducer
from atlas.runtime.decisions import CallTool
from atlas.runtime.tools.builtin import screen_sanctions
from atlas.runtime.tools.schemas import ScreenSanctionsArgs

LINKED = "Golden Gate Shipping SA (PA, no. PA-155667788) [co-golden-gate-shipping-pa]"


def test_a_hit_names_the_registry_entity_its_list_entry_is_linked_to(world_tool_context):
    result = screen_sanctions(ScreenSanctionsArgs(name="Golden Gate Maritime"), world_tool_context)
    (hit,) = result.hits
    assert hit.linked_entity.model_dump() == {
        "entity_id": "co-golden-gate-shipping-pa",
        "name": "Golden Gate Shipping SA",
        "entity_type": "company",
        "jurisdiction": "PA",
        "registration_number": "PA-155667788",
        "born_year": None,
        "directs": [],
    }


def test_an_entry_linked_to_no_registry_entity_names_none(world_tool_context):
    result = screen_sanctions(
        ScreenSanctionsArgs(name="Northern Star Trading FZE"), world_tool_context
    )
    (hit,) = result.hits
    assert hit.linked_entity is None


def test_the_analyst_is_asked_whether_the_linked_entity_is_the_subject(make_runtime, make_state):
    state = run(make_runtime(), make_state("Golden Gate Maritime", jurisdiction=None))

    assert (state.status, state.selected_entity) == ("waiting_for_input", None)
    question = state.pending_question
    assert question.blocking
    assert question.candidates == [LINKED]
    assert question.question.startswith(
        "No registry entity matches 'Golden Gate Maritime', but the sanctions list Synthetic "
        "UN Consolidated gives 'Golden Gate Maritime' as an alias of its entry un-3301, which "
        f"it links to the registry's {LINKED}. Is that company the subject?"
    )


def test_a_yes_researches_the_linked_entity_and_its_directors(make_runtime, make_state):
    runtime = make_runtime()
    state = answer(
        runtime, run(runtime, make_state("Golden Gate Maritime", jurisdiction=None)), "yes"
    )

    assert state.termination_reason == "finish_proposed"
    assert state.selected_entity.entity_id == "co-golden-gate-shipping-pa"
    packet = state.proposed_packet
    assert packet.selected_entity == "Golden Gate Shipping SA [co-golden-gate-shipping-pa]"
    assert packet.risk_rating == "high"
    assert not packet.open_gaps
    # Screened and searched again by the entity, and each of its directors by name: the
    # same list entry, hit by the alias and by the entity, counts once.
    calls = [(a["tool"], a["arguments"]) for a in state.executed_actions]
    assert ("screen_sanctions", {"entity_id": "co-golden-gate-shipping-pa"}) in calls
    assert (
        "search_adverse_media",
        {"query": "Golden Gate Shipping SA", "entity_id": "co-golden-gate-shipping-pa"},
    ) in calls
    assert packet.sanctions_result.startswith(
        "3 sanctions hits: on the subject (Synthetic UN Consolidated); on director Dmitri "
        "Volkov (Synthetic OFAC SDN, Synthetic UK HMT Consolidated). No hits for director "
        "Luis Herrera."
    )


def test_a_no_keeps_the_subject_unmatched_and_says_which_entity_was_turned_down(
    make_runtime, make_state
):
    runtime = make_runtime()
    state = answer(
        runtime, run(runtime, make_state("Golden Gate Maritime", jurisdiction=None)), "no"
    )

    assert (state.termination_reason, state.selected_entity) == ("finish_proposed", None)
    packet = state.proposed_packet
    assert packet.risk_rating == "high"
    assert packet.open_gaps == [
        "The analyst said the registry entity a sanctions list links its alias 'Golden Gate "
        f"Maritime' to, {LINKED}, is not the subject: the subject was researched by name only."
    ]
    assert not any(e.about for e in state.evidence)  # no director was screened
    assert len(state.answered_questions) == 1  # asked once


def test_the_link_is_offered_in_the_case_s_country_too(make_runtime, make_state):
    runtime = make_runtime()
    state = run(runtime, make_state("Golden Gate Maritime", jurisdiction="PA"))
    assert state.pending_question.candidates == [LINKED]

    state = answer(runtime, state, "yes, that is the one")
    assert state.selected_entity.entity_id == "co-golden-gate-shipping-pa"
    assert "on director Dmitri Volkov" in state.proposed_packet.sanctions_result


def test_a_subject_the_registry_matches_is_not_offered_a_link(make_runtime, make_state):
    state = run(make_runtime(), make_state("Golden Gate Shipping SA", jurisdiction=None))
    assert state.selected_entity.entity_id == "co-golden-gate-shipping-pa"
    assert state.answered_questions == [] and state.pending_question is None


def _screened_by_name(state, world_tool_context, name: str):
    result = screen_sanctions(ScreenSanctionsArgs(name=name), world_tool_context)
    decision = CallTool(
        tool_name="screen_sanctions", arguments={"name": name}, rationale_summary="screen"
    )
    return reducer.apply(
        state, decision, result.model_dump(mode="json"), step=1, now=datetime.now(UTC)
    )


def test_the_linked_entity_is_offered_only_before_any_answer(make_state, world_tool_context):
    state = make_state("Golden Gate Maritime", jurisdiction=None)
    offered = _screened_by_name(state, world_tool_context, "Golden Gate Maritime")
    (candidate,) = offered.entity_candidates
    assert (candidate.entity_id, candidate.matched_on, candidate.linked_by) == (
        "co-golden-gate-shipping-pa",
        "Golden Gate Maritime",
        "sanctions:un-3301",
    )

    state.answered_questions = [{"question": "Is it a company?", "answer": "It is."}]
    assert (
        _screened_by_name(state, world_tool_context, "Golden Gate Maritime").entity_candidates == []
    )


def test_an_entity_of_the_other_type_is_not_offered(make_state, world_tool_context):
    state = make_state("Golden Gate Maritime", subject_type="person", jurisdiction=None)
    assert (
        _screened_by_name(state, world_tool_context, "Golden Gate Maritime").entity_candidates == []
    )


def test_the_question_and_the_gap_quote_the_lists_alias_not_the_name_typed(
    make_runtime, make_state
):
    """'Golden Gate Maritime Ltd' meets the listed alias 'Golden Gate Maritime' at 100 once
    its legal form is set aside: what the list gives is the alias, not the name typed."""
    runtime = make_runtime()
    state = run(runtime, make_state("Golden Gate Maritime Ltd", jurisdiction=None))
    question = state.pending_question.question
    assert "gives 'Golden Gate Maritime' as an alias of its entry un-3301" in question
    assert "gives 'Golden Gate Maritime Ltd'" not in question

    state = answer(runtime, state, "no")
    (gap,) = state.proposed_packet.open_gaps
    assert gap.startswith(
        "The analyst said the registry entity a sanctions list links its alias 'Golden Gate "
        f"Maritime' to, {LINKED}, is not the subject"
    )
