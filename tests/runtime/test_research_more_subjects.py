"""The playbook on subjects as an analyst types them: a company number instead of a name,
a name only a sanctions list's alias matches."""

from __future__ import annotations

import pytest
from runtime_helpers import answer, run


@pytest.mark.parametrize(
    "number",
    [
        "08812345",
        "0881 2345",
        "8812345",
        "No. 08812345",
        "Company number 08812345",
        "CRN: 0881 2345",
    ],
)
def test_a_company_given_by_its_registration_number_is_matched_to_it(
    make_runtime, make_state, number
):
    state = run(make_runtime(), make_state(number, jurisdiction="GB"))
    assert state.termination_reason == "finish_proposed"
    packet = state.proposed_packet
    assert packet.selected_entity == "Acme Analytics Ltd [co-acme-analytics-gb]"
    assert packet.risk_rating == "low"
    assert not packet.open_gaps
    assert "director Sarah Linden" in packet.sanctions_result


def test_a_number_that_is_no_company_s_matches_nothing(make_runtime, make_state):
    state = run(make_runtime(), make_state("08812346", jurisdiction="GB"))
    assert state.selected_entity is None
    assert state.entity_candidates == []


def test_a_hit_scored_on_a_listed_alias_says_which_alias(make_runtime, make_state):
    runtime = make_runtime()
    state = run(runtime, make_state("Golden Gate Maritime", jurisdiction="PA"))
    # The analyst is asked about the registry entity the list links the alias to first.
    state = answer(runtime, state, "no")
    (hit,) = [e for e in state.evidence if e.source_id == "sanctions:un-3301"]
    assert hit.claim.startswith(
        "Sanctions hit: 'Golden Gate Maritime' matches Golden Gate Shipping SA on "
        "Synthetic UN Consolidated (score 100 on the listed alias 'Golden Gate Maritime', "
    )
    assert state.proposed_packet.risk_rating == "high"


def test_a_director_s_hit_on_a_spelling_of_a_listed_alias_names_that_alias(
    make_runtime, make_state
):
    state = run(make_runtime(), make_state("Amber Coast Freight", jurisdiction="LT"))
    by_source = {e.source_id: e.claim for e in state.evidence}
    assert (
        "matches VOLKOV, Dmitri Sergeyevich on Synthetic UK HMT Consolidated (score 98 on "
        "the listed alias 'Dmitrij Volkov'," in by_source["sanctions:hmt-7781"]
    )
    # The listed name itself scores the hit: nothing more to say.
    assert "(score 98, programs" in by_source["sanctions:sdn-10452"]


def _registry_claim(state) -> str:
    (claim,) = [e.claim for e in state.evidence if e.source_id == "registry:" + _selected(state)]
    return claim


def _selected(state) -> str:
    return state.selected_entity.entity_id


@pytest.mark.parametrize(
    ("subject", "jurisdiction", "subject_type", "says"),
    [
        (
            "Дмитрий Волков",
            None,
            "person",
            " The name searched, 'Дмитрий Волков', matches an alias the registry gives it, "
            "Дмитрий Волков (score 100).",
        ),
        (
            "Nordlys Fisheries",
            "NO",
            "company",
            " The name searched, 'Nordlys Fisheries', matches an alias the registry gives it, "
            "Nordlys Fisheries (score 100).",
        ),
        (
            "Cresent Minerals",
            "GB",
            "company",
            " The name searched, 'Cresent Minerals', matches its registered name at score 97 "
            "of 100.",
        ),
        (
            "0881 2345",
            "GB",
            "company",
            " Found by its registration number, searched as '0881 2345'.",
        ),
    ],
)
def test_the_subject_s_registry_finding_says_what_the_name_searched_matched(
    make_runtime, make_state, subject, jurisdiction, subject_type, says
):
    state = run(
        make_runtime(), make_state(subject, jurisdiction=jurisdiction, subject_type=subject_type)
    )
    claim = _registry_claim(state)
    assert claim.endswith(says)
    assert claim in [f.claim for f in state.proposed_packet.findings]


def test_a_subject_searched_under_its_registered_name_needs_no_word_on_the_match(
    make_runtime, make_state
):
    state = run(
        make_runtime(), make_state("Dr. Dmitri Volkov", jurisdiction="RU", subject_type="person")
    )
    assert _registry_claim(state).endswith("Amber Coast Freight UAB (LT).")
