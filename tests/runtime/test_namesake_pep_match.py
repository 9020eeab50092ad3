"""The subject, Maria Lindqvist (SE), has a namesake in Finland on the register of
politically exposed persons. The register's match on the namesake is tagged with the
namesake's candidate id, and nothing the product writes presents it as the subject's: not
the rating's grounds, not the packet, and the analyst choosing between the two is told
which one is on the register."""

from __future__ import annotations

import pytest

from atlas.runtime.adapters.playbook import Playbook, draft_packet
from atlas.runtime.context import project_state
from atlas.runtime.decisions import AskHuman
from atlas.runtime.rating_floor import about_the_subject
from runs.rating_grounds import grounds_of
from tests.namesake_states import (
    FINN,
    MINISTER,
    SWEDE,
    register_matches,
    researched,
    resolved,
    screened,
)

NAMESAKE = "Maria Lindqvist (FI, born 1958)"
NOT_THE_SUBJECT = "another registry candidate of the same name, not the subject"


@pytest.mark.parametrize(
    "screen", [{"name": "Maria Lindqvist"}, {"entity_id": SWEDE}, {"entity_id": FINN}]
)
def test_a_register_match_on_the_namesake_is_tagged_with_the_namesake(screen):
    state = screened(resolved(), screen, FINN)

    (match,) = register_matches(state)
    assert match.candidate_id == FINN
    assert match not in about_the_subject(state)


def test_a_register_match_on_the_subject_is_tagged_with_the_subject():
    state = screened(resolved(swedish_pep=True), {"name": "Maria Lindqvist"}, SWEDE)

    (match,) = register_matches(state)
    assert match.candidate_id == SWEDE


def test_a_match_on_someone_who_is_no_candidate_keeps_the_screens_candidate():
    state = screened(resolved(), {"entity_id": SWEDE}, "pe-someone-else")

    (match,) = register_matches(state)
    assert match.candidate_id == SWEDE


def test_the_rating_grounds_leave_out_the_namesakes_record_and_match():
    assert grounds_of(researched()) == []


def test_the_rating_grounds_count_the_subjects_own_record_and_match():
    grounds = grounds_of(researched(swedish_pep=True))

    assert grounds == ["a politically exposed person (2 sources)"]


def test_the_packet_names_the_namesakes_match_as_not_the_subjects():
    state = researched()

    packet = draft_packet(project_state(state), "Maria Lindqvist", [])

    assert "matches the subject" not in packet.sanctions_result
    assert packet.sanctions_result.endswith(
        f"The register of politically exposed persons matches {NAMESAKE}, {NOT_THE_SUBJECT}."
    )
    (match,) = register_matches(state)
    (finding,) = [f for f in packet.findings if f.evidence_ids == [match.evidence_id]]
    assert finding.claim.endswith(f"(about {NAMESAKE}, {NOT_THE_SUBJECT})")
    assert packet.risk_rating == "low"


def test_the_packet_says_the_register_matches_the_subject_and_names_the_namesake_apart():
    packet = draft_packet(project_state(researched(swedish_pep=True)), "Maria Lindqvist", [])

    assert packet.sanctions_result.endswith(
        "The register of politically exposed persons matches the subject. It also matches "
        f"{NAMESAKE}, {NOT_THE_SUBJECT}."
    )
    assert packet.risk_rating == "medium"


def test_the_packet_reads_candidate_ids_when_the_projection_holds_them():
    state = researched()
    projection = project_state(state)
    by_id = {item.evidence_id: item.candidate_id for item in state.evidence}
    for item in projection["evidence"]:
        item["candidate_id"] = by_id[item["evidence_id"]]

    packet = draft_packet(projection, "Maria Lindqvist", [])

    assert f"matches {NAMESAKE}, {NOT_THE_SUBJECT}." in packet.sanctions_result


def test_the_analyst_is_told_which_candidate_is_on_the_register():
    state = resolved(finnish_score=98)
    assert state.selected_entity is None

    question = Playbook().next_action(project_state(state))

    assert isinstance(question, AskHuman)
    swede, finn = question.candidates
    assert finn == (
        f"Maria Lindqvist (FI, born 1958, {MINISTER}, on the register of politically exposed "
        f"persons) [{FINN}]"
    )
    assert "register" not in swede
    assert finn in question.question
