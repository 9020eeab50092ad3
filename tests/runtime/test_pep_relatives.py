"""The register of politically exposed persons lists their close family members and close
associates too: a match with one is a politically exposed person match that says how they
are related, and calls for the same enhanced due diligence."""

from __future__ import annotations

from runtime_helpers import run
from test_document_owners import attached

from atlas.runtime.result_words import result_lines
from atlas.runtime.state import Signal
from atlas.runtime.tools.builtin import screen_sanctions
from atlas.runtime.tools.schemas import ScreenSanctionsArgs

SPOUSE = "spouse of Amara Okafor, Minister of Petroleum Resources (synthetic)"


def test_the_register_says_a_relative_is_one(world_tool_context):
    relative = screen_sanctions(ScreenSanctionsArgs(name="Ngozi Okafor"), world_tool_context)
    (match,) = relative.pep_matches
    assert (match.entity_id, match.relation, match.role) == (
        "pe-ngozi-okafor",
        "close family member",
        SPOUSE,
    )
    minister = screen_sanctions(ScreenSanctionsArgs(name="Amara Okafor"), world_tool_context)
    assert [m.relation for m in minister.pep_matches] == [None]


def test_a_relative_is_a_politically_exposed_person_match_saying_whose(make_runtime, make_state):
    state = run(
        make_runtime(), make_state("Ngozi Okafor", subject_type="person", jurisdiction=None)
    )
    (record,) = [e for e in state.evidence if e.evidence_class == "registry"]
    assert record.claim == (
        "Registry record: Ngozi Okafor (NG), born 1968; close family member of a politically "
        f"exposed person: {SPOUSE}."
    )
    (match,) = [e for e in state.evidence if e.evidence_class == "pep"]
    assert match.claim == (
        "Politically exposed person match: 'Ngozi Okafor' matches Ngozi Okafor (NG), a close "
        f"family member of a politically exposed person: {SPOUSE} (score 100)."
    )
    assert Signal.PEP in match.signals and match.pep_relation == "close family member"
    packet = state.proposed_packet
    assert packet.risk_rating == "medium"
    assert packet.open_gaps == [
        "Ngozi Okafor (as a close family member of one) is a politically exposed person: "
        "enhanced due diligence needs the source of wealth and the source of funds, and no "
        "document read in this run declares either."
    ]


def test_her_declarations_close_the_gap(make_runtime, make_state, documents):
    doc = attached(
        documents,
        "declaration.txt",
        "Source of wealth: Salary as an architect.\nSource of funds: Savings from that salary.\n",
    )
    state = run(
        make_runtime(),
        make_state("Ngozi Okafor", subject_type="person", jurisdiction=None, documents=[doc]),
    )
    assert not [gap for gap in state.proposed_packet.open_gaps if "source of" in gap]


def test_the_step_words_say_whose_relative_the_register_matched(world_tool_context):
    result = screen_sanctions(ScreenSanctionsArgs(name="Ngozi Okafor"), world_tool_context)
    assert result_lines("screen_sanctions", result.model_dump(mode="json")) == [
        "Ngozi Okafor (NG, born 1968), close family member of a politically exposed person: "
        f"{SPOUSE}, match score 100 (screened as 'Ngozi Okafor')"
    ]


def test_a_director_on_the_register_as_a_relative_is_named_so_in_the_gap(make_state):
    from datetime import UTC, datetime

    from atlas.runtime.source_of_wealth import source_of_wealth_gap
    from atlas.runtime.state import EvidenceItem

    state = make_state()
    state.evidence.append(
        EvidenceItem(
            evidence_id="ev-1",
            evidence_class="pep",
            source_id="pep:pe-ngozi-okafor",
            tool="screen_sanctions",
            retrieved_at=datetime(2026, 1, 1, tzinfo=UTC),
            fingerprint="f1",
            claim="Politically exposed person match on director Ngozi Okafor: ...",
            step=4,
            signals=[Signal.PEP],
            about="director Ngozi Okafor",
            pep_relation="close family member",
        )
    )
    assert source_of_wealth_gap(state).startswith(
        "Ngozi Okafor (a director of Acme Analytics, and a close family member of one) is a "
        "politically exposed person: enhanced due diligence needs"
    )


def test_a_close_associate_is_one_too(make_runtime, make_state):
    state = run(
        make_runtime(), make_state("Tunde Bakare", subject_type="person", jurisdiction=None)
    )
    (match,) = [e for e in state.evidence if e.evidence_class == "pep"]
    assert match.claim == (
        "Politically exposed person match: 'Tunde Bakare' matches Tunde Bakare (NG), a close "
        "associate of a politically exposed person: business partner of Amara Okafor, "
        "Minister of Petroleum Resources (synthetic) (score 100)."
    )
    assert state.proposed_packet.open_gaps[0].startswith(
        "Tunde Bakare (as a close associate of one) is a politically exposed person"
    )
