"""A sanctions hit whose list entry lists its person a national of countries none of which
the case gives the person screened may be on a namesake: the reviewer is told so beside the
hit and in the packet's gaps, and the hit still counts until they mark it."""

from __future__ import annotations

import pytest
from runtime_helpers import run
from test_document_owners import attached

from atlas.runtime.nationality_disputes import hits_of_other_nationalities
from tests.mrz import passport_zone

CALDER_GAP = (
    "The sanctions hit on director Sergei Markov (Synthetic OFAC SDN) is on an entry listing a "
    "national of Russian Federation, RU, but the registry record of Calder Print Works Ltd (GB) "
    "gives director Sergei Markov only the nationality of United Kingdom, GB: it may be on a "
    "namesake, for a reviewer to confirm or mark a false positive."
)


def test_a_directors_hit_listing_another_nationality_than_the_registry_gives(
    make_runtime, make_state
):
    state = run(make_runtime(), make_state("Calder Print Works", jurisdiction="GB"))
    assert hits_of_other_nationalities(state) == [CALDER_GAP]
    assert CALDER_GAP in state.proposed_packet.open_gaps
    assert state.proposed_packet.risk_rating == "high"


def test_a_nationality_two_sources_give_is_named_once(make_runtime, make_state, documents):
    board = "Company: Calder Print Works Ltd\nDirectors: Sergei Markov (British), Emma Hale\n"
    doc = attached(documents, "board.txt", board)
    state = make_state("Calder Print Works", jurisdiction="GB", documents=[doc])
    assert hits_of_other_nationalities(run(make_runtime(), state)) == [
        CALDER_GAP.replace(
            "(GB) gives",
            "(GB) and the uploaded document “board.txt” give",
        )
    ]


def danilov(make_runtime, make_state, documents, text):
    doc = attached(documents, "passport.txt", text)
    state = make_state("Oleg Danilov", subject_type="person", jurisdiction="GB", documents=[doc])
    return run(make_runtime(), state)


@pytest.mark.parametrize(
    ("country", "disputed"),
    [("GBR", True), ("RUS", False)],
)
def test_the_subjects_passport_of_another_nationality_than_the_entrys(
    make_runtime, make_state, documents, country, disputed
):
    zone = passport_zone("Danilov", "Oleg", country, "533401927", "870314")
    state = danilov(make_runtime, make_state, documents, f"PASSPORT\n{zone}")
    gaps = hits_of_other_nationalities(state)
    assert bool(gaps) is disputed
    if disputed:
        assert gaps == [
            "The sanctions hit on the subject (Synthetic UK HMT Consolidated) is on an entry "
            "listing a national of Russian Federation, RU, but the uploaded document "
            "“passport.txt” gives the subject only the nationality of United Kingdom, GB: it "
            "may be on a namesake, for a reviewer to confirm or mark a false positive."
        ]


def test_a_form_giving_the_entrys_nationality_among_others_disputes_nothing(
    make_runtime, make_state, documents
):
    form = "CLIENT FORM\nFull name: Oleg Danilov\nNationality: British, Russian\n"
    assert hits_of_other_nationalities(danilov(make_runtime, make_state, documents, form)) == []


HARROW = "Company: Harrow Bay Freight Ltd\nDirectors: Colin Marsh, Anita Rao\n"


@pytest.mark.parametrize(("said", "disputed"), [("British", True), ("Russian", False)])
def test_an_owner_a_document_gives_another_nationality(
    make_runtime, make_state, documents, said, disputed
):
    doc = attached(documents, "kyc.txt", HARROW + f"UBO: Dmitri Volkov ({said})\n")
    state = make_state("Harrow Bay Freight Ltd", jurisdiction="GB", documents=[doc])
    gaps = hits_of_other_nationalities(run(make_runtime(), state))
    assert bool(gaps) is disputed
    if disputed:
        assert gaps[0].startswith(
            "The sanctions hits on beneficial owner Dmitri Volkov (Synthetic OFAC SDN, Synthetic "
            "UK HMT Consolidated) are on entries listing a national of Russian Federation, RU, "
            "but the uploaded document “kyc.txt” gives beneficial owner Dmitri Volkov only the "
            "nationality of United Kingdom, GB"
        )


def test_a_hit_on_the_listed_person_the_subject_was_matched_to_is_theirs(
    make_runtime, make_state, documents
):
    zone = passport_zone("Volkov", "Dmitri", "GBR", "533401927", "680314")
    doc = attached(documents, "passport.txt", f"PASSPORT\n{zone}")
    state = make_state("Dmitri Volkov", subject_type="person", jurisdiction=None, documents=[doc])
    state = run(make_runtime(), state)
    assert state.selected_entity.entity_id == "pe-dmitri-volkov"
    assert hits_of_other_nationalities(state) == []


def test_a_source_naming_a_person_twice_is_named_once(make_runtime, make_state):
    state = run(make_runtime(), make_state("Calder Print Works", jurisdiction="GB"))
    record = next(e for e in state.evidence if e.source_id == "registry:co-calder-print-works-gb")
    record.nationalities_of["SERGEI MARKOV"] = ["GB"]
    assert hits_of_other_nationalities(state) == [CALDER_GAP]


def test_a_codirectors_hit_is_weighed_by_the_nationality_their_companys_record_gives(
    make_runtime, make_state
):
    state = run(make_runtime(), make_state("Emma Hale", subject_type="person", jurisdiction="GB"))
    (gap,) = hits_of_other_nationalities(state)
    assert gap.startswith("The sanctions hit on co-director Sergei Markov at Calder Print Works")
    assert "gives co-director Sergei Markov at Calder Print Works Ltd (GB) only the " in gap
