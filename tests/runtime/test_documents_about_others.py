"""An uploaded document about another company or person than the case's subject: its facts
are not used, and before finishing the analyst who attached it is asked why it was
supplied; the packet gives their answer for the reviewer."""

from __future__ import annotations

import pytest
from runtime_helpers import answer, run, types
from test_document_owners import attached

from atlas.runtime.context import project_state
from atlas.runtime.state import AtlasState, Signal

HARROW = (
    "OWNERSHIP DECLARATION\nCompany: Harrow Bay Freight Ltd\nCompany number: 09934127\n"
    "Ultimate beneficial owner: Dmitri Volkov, 60%\n"
)
KESTREL = "CERTIFICATE\nCompany: Kestrel Foods Ltd\nDirectors: Jane Roe\n"
ACME = "Acme Analytics Ltd (GB, no. 08812345) [co-acme-analytics-gb]"


def acme_with(make_runtime, make_state, documents, *named_texts: tuple[str, str]):
    runtime = make_runtime()
    docs = [attached(documents, name, text) for name, text in named_texts]
    return runtime, run(runtime, make_state("Acme Analytics Ltd", documents=docs))


def test_the_analyst_is_asked_why_another_companys_document_was_supplied(
    make_runtime, make_state, documents, store
):
    runtime, state = acme_with(make_runtime, make_state, documents, ("kyc.txt", HARROW))
    assert (state.status, state.termination_reason) == ("waiting_for_input", "waiting_for_input")
    assert state.pending_question.question == (
        f"The uploaded document kyc.txt is about Harrow Bay Freight Ltd, not {ACME}, the "
        "company the case was matched to, so none of its facts were used. Say why it was "
        "supplied (a related company's, say, or the wrong file): your answer goes into the "
        "packet. If the client is Harrow Bay Freight Ltd, correct the subject with 'Correct "
        "the subject' on the case page instead (this run is cancelled and a new one "
        "researches it)."
    )
    # Its owner, a listed person, is not taken for Acme's.
    assert not [e for e in state.evidence if "Volkov" in e.about]

    state = answer(runtime, state, "Harrow Bay Freight is the client's carrier; sent by mistake")
    assert (state.status, state.termination_reason) == ("awaiting_review", "finish_proposed")
    assert types(store, state).count("clarification_requested") == 1
    assert (
        "Uploaded document kyc.txt is about another company, Harrow Bay Freight Ltd: its facts "
        "were not used. Asked why it was supplied, the analyst answered: “Harrow Bay Freight is "
        "the client's carrier; sent by mistake”."
    ) in state.proposed_packet.open_gaps
    assert state.proposed_packet.risk_rating == "medium"  # the reason is a reviewer's to weigh


def test_each_document_about_another_company_is_asked_about_in_turn(
    make_runtime, make_state, documents
):
    runtime, state = acme_with(
        make_runtime, make_state, documents, ("kyc.txt", HARROW), ("certificate.txt", KESTREL)
    )
    assert "kyc.txt is about Harrow Bay Freight Ltd" in state.pending_question.question
    state = answer(runtime, state, "The carrier's declaration.")
    assert "certificate.txt is about Kestrel Foods Ltd" in state.pending_question.question
    state = answer(runtime, state, "The wrong file.")
    gaps = state.proposed_packet.open_gaps
    assert any("kyc.txt" in gap and "“The carrier's declaration.”" in gap for gap in gaps)
    assert any("certificate.txt" in gap and "“The wrong file.”" in gap for gap in gaps)


def test_the_model_is_shown_the_documents_still_to_ask_about(make_runtime, make_state, documents):
    runtime, state = acme_with(make_runtime, make_state, documents, ("kyc.txt", HARROW))
    assert project_state(state)["documents_about_others"] == [
        {
            "source_label": "Uploaded document kyc.txt",
            "about": "Harrow Bay Freight Ltd",
            "kind": "company",
        }
    ]
    state = answer(runtime, state, "Sent by mistake.")
    assert project_state(state)["documents_about_others"] == []


def test_a_document_named_with_personal_data_is_asked_about_once(
    make_runtime, make_state, documents, store
):
    # The model sees the document's name redacted, and so does the question; the answer
    # still settles it, so it is not asked again.
    name = "passport K7654321.txt"
    runtime, state = acme_with(make_runtime, make_state, documents, (name, HARROW))
    question = state.pending_question.question
    assert "K7654321" not in question and "[REDACTED" in question
    state = answer(runtime, state, "Sent by mistake.")
    assert (state.status, state.termination_reason) == ("awaiting_review", "finish_proposed")
    assert types(store, state).count("clarification_requested") == 1


def test_a_document_on_a_namesake_company_has_its_own_question(make_runtime, make_state, documents):
    text = "Company: Northwind Trading Pte Ltd\nCompany number: 201534871K\n"
    doc = attached(documents, "doc1.txt", text)
    state = run(make_runtime(), make_state("Northwind Trading", jurisdiction="GB", documents=[doc]))
    assert "another company of the subject's name" in state.pending_question.question
    assert project_state(state)["documents_about_others"] == []


def test_a_persons_form_about_someone_else_names_the_subject_when_unmatched(
    make_runtime, make_state, documents
):
    doc = attached(documents, "form.txt", "CLIENT DECLARATION\nName: Jane Doe\n")
    state = run(
        make_runtime(),
        make_state("Quentin Oddly", subject_type="person", jurisdiction=None, documents=[doc]),
    )
    assert state.selected_entity is None
    assert state.pending_question.question.startswith(
        "The uploaded document form.txt is about Jane Doe, not Quentin Oddly, the case's "
        "subject, so none of its facts were used."
    )


def test_whom_a_document_is_about_survives_the_states_json(make_runtime, make_state, documents):
    _, state = acme_with(make_runtime, make_state, documents, ("kyc.txt", HARROW))
    again = AtlasState.from_json(state.model_dump(mode="json"))
    (item,) = [e for e in again.evidence if e.document_id == "doc-kyc.txt"]
    assert item.about_other_subject == "Harrow Bay Freight Ltd"
    assert (
        project_state(again)["documents_about_others"]
        == project_state(state)["documents_about_others"]
    )


def test_two_documents_about_the_same_company_are_each_asked_about(
    make_runtime, make_state, documents, store
):
    runtime, state = acme_with(
        make_runtime,
        make_state,
        documents,
        ("kyc.txt", HARROW),
        ("update.txt", HARROW + "Updated: 2025\n"),
    )
    state = answer(runtime, state, "The carrier's declaration.")
    assert "update.txt is about Harrow Bay Freight Ltd" in state.pending_question.question
    state = answer(runtime, state, "A later copy of it.")
    assert types(store, state).count("clarification_requested") == 2
    assert any(
        "update.txt" in g and "“A later copy of it.”" in g for g in state.proposed_packet.open_gaps
    )


def test_an_earlier_question_naming_the_document_is_not_taken_for_this_one(
    make_runtime, make_state, documents, store
):
    # Read before the registry match, its number is named in the question of candidates;
    # once the analyst picks one, it is found to be about Harrow Bay Freight, and asked about.
    runtime = make_runtime()
    doc = attached(documents, "kyc.txt", HARROW)
    state = run(runtime, make_state("Northwind Trading", jurisdiction=None, documents=[doc]))
    assert "kyc.txt" in state.pending_question.question
    state = answer(runtime, state, "1")
    assert state.selected_entity.entity_id == "co-northwind-gb"
    assert "kyc.txt is about Harrow Bay Freight Ltd" in state.pending_question.question


def test_a_company_named_with_personal_data_is_asked_about_once(
    make_runtime, make_state, documents, store
):
    text = HARROW.replace("Harrow Bay Freight Ltd", "Harrow Bay Freight Ltd (passport K7654321)")
    runtime, state = acme_with(make_runtime, make_state, documents, ("kyc.txt", text))
    assert "K7654321" not in state.pending_question.question
    state = answer(runtime, state, "Sent by mistake.")
    assert (state.status, state.termination_reason) == ("awaiting_review", "finish_proposed")
    assert types(store, state).count("clarification_requested") == 1


def person_with(make_runtime, make_state, documents, subject: str, text: str, jurisdiction=None):
    """A person's case with one document attached, run until it pauses."""
    runtime = make_runtime()
    doc = attached(documents, "kyc.txt", text)
    state = make_state(subject, subject_type="person", jurisdiction=jurisdiction, documents=[doc])
    return runtime, run(runtime, state)


def linden_with(make_runtime, make_state, documents, text: str):
    return person_with(make_runtime, make_state, documents, "Sarah Linden", text, "GB")


def test_a_persons_document_about_a_company_not_theirs_is_asked_about(
    make_runtime, make_state, documents
):
    runtime, state = linden_with(make_runtime, make_state, documents, HARROW)
    assert state.pending_question.question.startswith(
        "The uploaded document kyc.txt is about Harrow Bay Freight Ltd, a company that does "
        "not name Sarah Linden (GB) [pe-sarah-linden] and that they are not on record as "
        "directing, so none of its facts were used. Say why it was supplied (a company they "
        "have a stake in, say, or the wrong file)"
    )
    state = answer(runtime, state, "Sent by mistake.")
    packet = state.proposed_packet
    assert packet.risk_rating == "medium"
    assert any("is about another company, Harrow Bay Freight Ltd" in g for g in packet.open_gaps)


@pytest.mark.parametrize(
    "text",
    [
        # A company the registry lists her as directing.
        "CERTIFICATE\nCompany: Acme Analytics Ltd\nCompany number: 08812345\n",
        # Another company, but one that names her: a link the registry lacks, not a wrong file.
        "CERTIFICATE\nCompany: Harrow Bay Freight Ltd\nDirectors: Colin Marsh, Sarah Linden\n",
        "DECLARATION\nName: Sarah Linden\nCompany: Harrow Bay Freight Ltd\n",
    ],
)
def test_a_persons_document_about_a_company_of_theirs_is_not(
    make_runtime, make_state, documents, text
):
    _, state = linden_with(make_runtime, make_state, documents, text)
    assert (state.status, state.termination_reason) == ("awaiting_review", "finish_proposed")
    assert project_state(state)["documents_about_others"] == []


def test_a_companys_own_document_is_not_asked_about(make_runtime, make_state, documents):
    text = "CERTIFICATE\nCompany: Acme Analytics Ltd\nDirectors: Sarah Linden, Tom Becker\n"
    _, state = acme_with(make_runtime, make_state, documents, ("kyc.txt", text))
    assert (state.status, state.termination_reason) == ("awaiting_review", "finish_proposed")
    assert project_state(state)["documents_about_others"] == []


def smith_with(make_runtime, make_state, documents, text: str):
    return person_with(make_runtime, make_state, documents, "John Smith", text)


def test_a_persons_company_paperwork_read_before_the_match_is_weighed_once_matched(
    make_runtime, make_state, documents
):
    # Two registry persons are named John Smith: the form is read before the analyst is
    # asked which one, and found to be another company's once they pick.
    runtime, state = smith_with(make_runtime, make_state, documents, HARROW)
    question = state.pending_question.question
    assert "Which one is the subject?" in question
    assert "company number" not in question  # a registry person has none to tell apart
    state = answer(runtime, state, "1")
    assert state.selected_entity.entity_id == "pe-john-smith-gb"
    assert state.documents_read_before_match == []
    assert state.pending_question.question.startswith(
        "The uploaded document kyc.txt is about Harrow Bay Freight Ltd, a company that does "
        "not name John Smith (GB) [pe-john-smith-gb]"
    )


def test_a_persons_company_paperwork_naming_them_is_theirs_once_matched(
    make_runtime, make_state, documents
):
    text = "CERTIFICATE\nCompany: Harrow Bay Freight Ltd\nDirectors: Colin Marsh, John Smith\n"
    runtime, state = smith_with(make_runtime, make_state, documents, text)
    state = answer(runtime, state, "1")
    assert (state.status, state.termination_reason) == ("awaiting_review", "finish_proposed")
    assert project_state(state)["documents_about_others"] == []
    (item,) = [e for e in state.evidence if e.document_id == "doc-kyc.txt"]
    assert Signal.ANOTHER_COMPANY not in item.signals
