"""A sanctions hit whose list entry gives its person a middle name (a patronymic) that no
name the case gives the person screened shares may be on a namesake: the reviewer is told
so beside the hit and in the packet's gaps, and the hit still counts until they mark it."""

from __future__ import annotations

import pytest
from runtime_helpers import answer, run
from test_document_owners import attached

from atlas.runtime.middle_name_disputes import hits_of_other_middle_names
from atlas.runtime.middle_names import differ, middle_names

# The Synthetic UK HMT entry hmt-8124 is "DANILOV, Oleg Petrovich".
DANILOV_GAP = (
    "The sanctions hit on the subject (Synthetic UK HMT Consolidated) is on an entry listing "
    "the middle name Petrovich, but {} gives the subject the middle name Ivanovich: it may be "
    "on a namesake, for a reviewer to confirm or mark a false positive."
)


@pytest.mark.parametrize(
    ("name", "middle"),
    [
        ("Oleg Ivanovich Danilov", ["ivanovich"]),
        ("DANILOV, Oleg Petrovich", ["petrovich"]),
        ("Mr Oleg Ivanovich Danilov", ["ivanovich"]),
        ("Oleg Danilov", []),
        ("DANILOV, Oleg", []),
    ],
)
def test_the_middle_names_a_name_gives(name, middle):
    assert middle_names(name) == middle


@pytest.mark.parametrize(
    ("one", "other", "two_people"),
    [
        (["petrovich"], ["ivanovich"], True),
        (["petrovich"], ["petrovitch"], False),  # one name, spelled two ways
        (["p."], ["petrovich"], False),  # an initial and its name
        (["i"], ["petrovich"], True),
        ([], ["petrovich"], False),  # a name without one says nothing
    ],
)
def test_middle_names_of_two_people(one, other, two_people):
    assert differ(one, other) is two_people


def danilov(make_runtime, make_state, documents, full_name: str):
    doc = attached(documents, "form.txt", f"CLIENT FORM\nFull name: {full_name}\n")
    state = make_state("Oleg Danilov", subject_type="person", jurisdiction="GB", documents=[doc])
    return run(make_runtime(), state)


def test_the_subjects_form_giving_another_middle_name_than_the_entrys(
    make_runtime, make_state, documents
):
    state = danilov(make_runtime, make_state, documents, "Oleg Ivanovich Danilov")
    gap = DANILOV_GAP.format("the uploaded document “form.txt”")
    assert hits_of_other_middle_names(state) == [gap]
    assert gap in state.proposed_packet.open_gaps
    assert state.proposed_packet.risk_rating == "high"


@pytest.mark.parametrize(
    "full_name", ["Oleg Petrovitch Danilov", "Oleg P. Danilov", "Oleg Danilov"]
)
def test_a_form_giving_the_entrys_middle_name_or_none_disputes_nothing(
    make_runtime, make_state, documents, full_name
):
    assert hits_of_other_middle_names(danilov(make_runtime, make_state, documents, full_name)) == []


def test_an_owner_screened_by_a_name_with_another_middle_name(make_runtime, make_state, documents):
    text = "Company: Harrow Bay Freight Ltd\nDirectors: Colin Marsh, Anita Rao\n"
    doc = attached(documents, "kyc.txt", text + "UBO: Dmitri Ivanovich Volkov\n")
    state = make_state("Harrow Bay Freight Ltd", jurisdiction="GB", documents=[doc])
    gaps = hits_of_other_middle_names(run(make_runtime(), state))
    assert gaps == [
        "The sanctions hit on beneficial owner Dmitri Ivanovich Volkov (Synthetic UK HMT "
        "Consolidated) is on an entry listing the middle name Sergeyevich, but the name "
        "screened gives beneficial owner Dmitri Ivanovich Volkov the middle name Ivanovich: it "
        "may be on a namesake, for a reviewer to confirm or mark a false positive."
    ]


def test_the_case_naming_the_subject_with_another_middle_name(make_runtime, make_state):
    runtime = make_runtime()
    state = make_state("Oleg Ivanovich Danilov", subject_type="person", jurisdiction="GB")
    # The registry's Oleg Danilov lacks a word of the name: the analyst confirms him.
    state = answer(runtime, run(runtime, state), "yes")
    assert state.selected_entity.entity_id == "pe-oleg-danilov-gb"
    assert hits_of_other_middle_names(state) == [DANILOV_GAP.format("the case")]


def test_any_name_sharing_the_entrys_middle_name_leaves_the_hit_undisputed(
    make_runtime, make_state, documents
):
    docs = [
        attached(documents, f"form{n}.txt", f"CLIENT FORM\nFull name: {name}\n")
        for n, name in enumerate(["Oleg Ivanovich Danilov", "Oleg Petrovich Danilov"])
    ]
    state = make_state("Oleg Danilov", subject_type="person", jurisdiction="GB", documents=docs)
    assert hits_of_other_middle_names(run(make_runtime(), state)) == []
