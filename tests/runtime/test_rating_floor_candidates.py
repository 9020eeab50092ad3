"""A resolution records the registry record of every candidate it found, but the rating
floor reads only what is about the entity the subject was matched to: a namesake's
politically exposed person flag does not rule out a low rating for the subject."""

from __future__ import annotations

import pytest

from atlas.runtime.rating_floor import rules_against, why_not
from atlas.runtime.state import AtlasState, Signal
from tests.namesake_states import FINN, MINISTER, SWEDE, applied, candidate


def resolved(make_state, *, swedish_pep: bool, finnish_pep: bool, finnish_score: float = 92):
    """Maria Lindqvist (SE), the subject, found with a namesake in Finland; screened and
    searched for adverse media already, with nothing found."""
    state = make_state("Maria Lindqvist", subject_type="person", jurisdiction="SE")
    result = {
        "query": "Maria Lindqvist",
        "candidates": [
            candidate(SWEDE, 100, pep=swedish_pep),
            candidate(FINN, finnish_score, pep=finnish_pep),
        ],
    }
    state = applied(state, "resolve_entity", {"name": "Maria Lindqvist"}, result)
    state.completed_steps += ["screen_sanctions", "search_adverse_media"]
    return state


def registry_record(state: AtlasState, entity_id: str):
    (item,) = [e for e in state.evidence if e.source_id == f"registry:{entity_id}"]
    return item


def test_a_namesake_flagged_politically_exposed_leaves_a_low_rating_allowed(make_state):
    state = resolved(make_state, swedish_pep=False, finnish_pep=True)

    assert state.selected_entity.entity_id == "pe-maria-lindqvist-se"
    namesake = registry_record(state, "pe-maria-lindqvist-fi")
    assert namesake.signals == [Signal.PEP]  # still evidence a reviewer can read
    assert namesake.candidate_id == "pe-maria-lindqvist-fi"
    assert rules_against(state, "low") == []


def test_the_matched_entity_flagged_politically_exposed_rules_out_a_low_rating(make_state):
    state = resolved(make_state, swedish_pep=True, finnish_pep=False)

    rules = rules_against(state, "low")
    assert [rule.in_words for rule in rules] == ["a politically exposed person"]
    own = state.evidence.index(registry_record(state, "pe-maria-lindqvist-se")) + 1
    assert why_not(state, "low", rules) == (
        "A low rating is ruled out by a politically exposed person: Maria Lindqvist is a "
        f"politically exposed person according to the registry record [{own}]."
    )


def test_when_both_are_flagged_the_grounds_cite_only_the_matched_entitys_record(make_state):
    state = resolved(make_state, swedish_pep=True, finnish_pep=True)

    own = state.evidence.index(registry_record(state, "pe-maria-lindqvist-se")) + 1
    assert why_not(state, "low", rules_against(state, "low")).endswith(
        f"according to the registry record [{own}]."
    )


def test_before_a_match_any_candidate_may_be_the_subject_so_its_flag_counts(make_state):
    state = resolved(make_state, swedish_pep=False, finnish_pep=True, finnish_score=98)

    assert state.selected_entity is None
    assert len(state.entity_candidates) == 2
    assert [rule.in_words for rule in rules_against(state, "low")] == [
        "a politically exposed person"
    ]


def test_a_screen_by_the_namesakes_id_does_not_count_for_the_subject(make_state):
    state = resolved(make_state, swedish_pep=False, finnish_pep=False)
    screen = {
        "entity_id": "pe-maria-lindqvist-fi",
        "screened_names": ["Maria Lindqvist"],
        "lists_checked": ["Synthetic UN Consolidated"],
        "threshold": 90,
        "hits": [],
        "pep_matches": [
            {
                "entity_id": "pep-maria-lindqvist-fi",
                "name": "Maria Lindqvist",
                "jurisdiction": "FI",
                "role": MINISTER,
                "score": 100,
                "matched_query": "Maria Lindqvist",
            }
        ],
    }
    state = applied(state, "screen_sanctions", {"entity_id": "pe-maria-lindqvist-fi"}, screen)

    (match,) = [e for e in state.evidence if e.evidence_class == "pep"]
    assert match.candidate_id == "pe-maria-lindqvist-fi"
    assert rules_against(state, "low") == []


@pytest.mark.parametrize("finnish_pep", [False, True])
def test_a_state_stored_before_candidates_were_recorded_still_loads(make_state, finnish_pep):
    stored = resolved(make_state, swedish_pep=False, finnish_pep=finnish_pep).to_json()
    for item in stored["evidence"]:
        del item["candidate_id"]

    state = AtlasState.from_json(stored)
    assert {item.candidate_id for item in state.evidence} == {""}
    assert bool(rules_against(state, "low")) == finnish_pep  # read as before
