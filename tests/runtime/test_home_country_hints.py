"""A person's name matches several registry persons: the question listing them says which
is on record in the country the subject's own form says they live in, as it says which
was born in the year the form gives. Only a hint: the analyst picks."""

from __future__ import annotations

import pytest
from runtime_helpers import answer, run
from test_document_owners import attached

from atlas.runtime.adapters.playbook import _living_where_documents_say
from atlas.runtime.context import project_state

# Two registry persons named John Smith: GB, born 1965, and US, born 1990.
FORM = "CLIENT FORM\nName: John Smith\nResidential address: {}\n"


def smith(make_runtime, make_state, documents, *addresses: str):
    runtime = make_runtime()
    docs = [
        attached(documents, f"form{n}.txt", FORM.format(address))
        for n, address in enumerate(addresses, start=1)
    ]
    state = make_state("John Smith", subject_type="person", jurisdiction=None, documents=docs)
    return runtime, run(runtime, state)


def test_the_question_says_which_candidate_is_on_record_where_the_form_says_they_live(
    make_runtime, make_state, documents
):
    runtime, state = smith(make_runtime, make_state, documents, "12 High Street, London, UK")
    assert state.status == "waiting_for_input"
    question = state.pending_question.question
    assert (
        "Candidates: 1. John Smith (GB, born 1965) [pe-john-smith-gb]; 2. John Smith (US, born "
        "1990) [pe-john-smith-us]. The uploaded document “form1.txt” gives the subject's "
        "country of residence as United Kingdom, GB: only candidate 1 is on record there. If "
        "none of them is"
    ) in question
    assert "High Street" not in question
    assert project_state(state)["home_countries_in_documents"] == {"GB": ["form1.txt"]}
    # A hint, not a pick: the analyst may choose the other.
    state = answer(runtime, state, "2")
    assert state.selected_entity.entity_id == "pe-john-smith-us"


def test_forms_that_disagree_on_the_country_give_no_hint(make_runtime, make_state, documents):
    _, state = smith(
        make_runtime, make_state, documents, "12 High Street, London, UK", "5 Main St, Boston, USA"
    )
    question = state.pending_question.question
    assert "country of residence" not in question
    assert "Candidates: 1." in question


@pytest.mark.parametrize(
    ("said", "hint"),
    [
        ({}, ""),
        (
            {"FR": ["a.txt"]},
            " The uploaded document “a.txt” gives the subject's country of residence as "
            "France, FR: none of them is on record there.",
        ),
        (
            {"US": ["a.txt", "b.txt"]},
            " The uploaded documents give the subject's country of residence as United States, "
            "US: candidates 1 and 3 are on record there.",
        ),
    ],
)
def test_which_candidates_are_on_record_where_the_documents_say(said, hint):
    candidates = [{"jurisdiction": "US"}, {"jurisdiction": "GB"}, {"jurisdiction": "US"}]
    assert _living_where_documents_say({"home_countries_in_documents": said}, candidates) == hint


def test_a_company_subject_has_no_home_country(make_runtime, make_state, documents):
    doc = attached(documents, "kyc.txt", "Company: Acme Analytics Ltd\nDirectors: Jane Roe\n")
    state = run(make_runtime(), make_state("Acme Analytics Ltd", documents=[doc]))
    assert project_state(state)["home_countries_in_documents"] == {}


def test_a_forms_name_is_shown_redacted(make_runtime, make_state, documents):
    doc = attached(documents, "passport K7654321.txt", FORM.format("12 High Street, London, UK"))
    state = make_state("John Smith", subject_type="person", jurisdiction=None, documents=[doc])
    question = run(make_runtime(), state).pending_question.question
    assert "country of residence as United Kingdom, GB" in question
    assert "K7654321" not in question
