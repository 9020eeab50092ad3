"""A company's name matches several registry companies; the documents the analyst attached
to the case are read first, and a company number one of them gives that is exactly one
candidate's picks it, without a question. Documents read before any match are read again
once the subject is matched, so their facts are weighed against the right record."""

from __future__ import annotations

from runtime_helpers import answer, call, run, tool_arguments, types
from test_document_owners import attached

from atlas.runtime.adapters.playbook import draft_packet
from atlas.runtime.context import project_state
from atlas.runtime.document_picks import document_pick
from atlas.runtime.packets import with_open_issues
from atlas.runtime.state import AtlasState, Signal

# Three registry companies are named Northwind Trading: GB 04512398, SG 201534871K (directors
# Lim Wei Ming, Tan Hui Min) and US DE-7731002.
CERTIFICATE = (
    "CERTIFICATE OF INCORPORATION\nCompany: Northwind Trading Pte Ltd\n"
    "Company number: {number}\nDirectors: {directors}\n"
)
SG_DIRECTORS = "Lim Wei Ming, Tan Hui Min"
QUESTION_NUMBERS = "gives company number"


def northwind(make_runtime, make_state, documents, *texts: str):
    runtime = make_runtime()
    docs = [attached(documents, f"doc{n}.txt", text) for n, text in enumerate(texts, start=1)]
    return runtime, run(runtime, make_state("Northwind Trading", jurisdiction=None, documents=docs))


def document_item(state: AtlasState, name: str):
    return next(e for e in state.evidence if e.source_id == f"document:doc-{name}")


def test_a_documents_company_number_picks_the_candidate_without_a_question(
    make_runtime, make_state, documents, store
):
    text = CERTIFICATE.format(number="201534871K", directors=SG_DIRECTORS)
    _, state = northwind(make_runtime, make_state, documents, text)
    assert (state.status, state.termination_reason) == ("awaiting_review", "finish_proposed")
    assert "clarification_requested" not in types(store, state)
    entity = state.selected_entity
    assert entity.entity_id == "co-northwind-sg"
    assert entity.matched_by_document == "doc-doc1.txt"
    assert entity.matched_by == (
        "Told apart from 2 other registry candidates by company number 201534871K, which the "
        "uploaded document doc1.txt gives."
    )
    # Read first, then the candidate it names resolved by its name and country.
    assert tool_arguments(store, state, "resolve_entity") == [
        {"name": "Northwind Trading", "entity_type": "company"},
        {"name": "Northwind Trading Pte Ltd", "jurisdiction": "SG", "entity_type": "company"},
    ]
    claim = document_item(state, "doc1.txt").claim
    assert "The case was matched to Northwind Trading Pte Ltd (SG) by its company number." in claim
    assert state.conflicts == []
    assert state.documents_read_before_match == []  # held only until the match
    numbers = [f for f in state.facts if f.fact == "registration_number"]
    assert {(f.entity_id, f.source_id) for f in numbers} >= {
        ("co-northwind-sg", "document:doc-doc1.txt"),
        ("co-northwind-sg", "registry:co-northwind-sg"),
    }


def test_a_document_read_before_the_match_keeps_its_place_among_the_evidence(
    make_runtime, make_state, documents
):
    text = CERTIFICATE.format(number="201534871K", directors=SG_DIRECTORS)
    _, state = northwind(make_runtime, make_state, documents, text)
    steps = [e.step for e in state.evidence]
    assert steps == sorted(steps)
    assert document_item(state, "doc1.txt").step == 2


def test_the_picked_companys_record_is_weighed_against_the_document(
    make_runtime, make_state, documents
):
    text = CERTIFICATE.format(number="201534871K", directors="Lim Wei Ling, Daniel Tan")
    _, state = northwind(make_runtime, make_state, documents, text)
    assert state.selected_entity.entity_id == "co-northwind-sg"
    (conflict,) = state.conflicts
    assert conflict.fact == "directors"
    assert conflict.entity_id == "co-northwind-sg"
    assert [v.source_id for v in conflict.values] == [
        "registry:co-northwind-sg",
        "document:doc-doc1.txt",
    ]


def test_a_number_of_none_of_them_is_said_in_the_question_and_weighed_after_the_answer(
    make_runtime, make_state, documents
):
    text = CERTIFICATE.format(number="99887766", directors="Lim Wei Ling, Daniel Tan")
    runtime, state = northwind(make_runtime, make_state, documents, text)
    assert state.status == "waiting_for_input"
    question = state.pending_question.question
    assert (
        "The uploaded document “doc1.txt” gives company number 99887766, which is none of "
        "theirs." in question
    )
    assert len(state.documents_read_before_match) == 1

    state = answer(runtime, state, "The Singapore one")
    assert state.selected_entity.entity_id == "co-northwind-sg"
    assert state.selected_entity.matched_by == ""  # the analyst picked it
    assert state.documents_read_before_match == []
    # Read before the match, its facts now count against the record picked.
    assert {c.fact for c in state.conflicts} == {"directors", "registration_number"}
    assert all(c.entity_id == "co-northwind-sg" for c in state.conflicts)
    assert "matched to" not in document_item(state, "doc1.txt").claim


def test_held_documents_are_dropped_once_the_analyst_says_none_of_them_is_the_subject(
    make_runtime, make_state, documents
):
    text = CERTIFICATE.format(number="99887766", directors=SG_DIRECTORS)
    runtime, state = northwind(make_runtime, make_state, documents, text)
    state = answer(runtime, state, "None of them")
    assert state.selected_entity is None
    assert state.status == "awaiting_review"
    assert state.documents_read_before_match == []


def test_documents_naming_different_candidates_pick_none(make_runtime, make_state, documents):
    sg = CERTIFICATE.format(number="201534871K", directors=SG_DIRECTORS)
    us = "Company: Northwind Trading LLC\nCompany number: DE-7731002\n"
    _, state = northwind(make_runtime, make_state, documents, sg, us)
    assert state.status == "waiting_for_input"
    question = state.pending_question.question
    # Candidates 1. GB, 2. SG, 3. US, as the registry ranks them.
    assert "“doc1.txt” gives company number 201534871K, that of candidate 2." in question
    assert "“doc2.txt” gives company number DE-7731002, that of candidate 3." in question
    assert document_pick(state) is None


def test_a_candidates_number_under_another_companys_name_picks_none(
    make_runtime, make_state, documents
):
    other = "Company: Harrow Bay Freight Ltd\nCompany number: 201534871K\n"
    runtime, state = northwind(make_runtime, make_state, documents, other)
    assert state.status == "waiting_for_input"
    assert project_state(state)["candidate_named_by_documents"] is None

    state = answer(runtime, state, "the second")
    assert state.selected_entity.entity_id == "co-northwind-sg"
    item = document_item(state, "doc1.txt")
    assert Signal.ANOTHER_COMPANY in item.signals
    assert "It is about Harrow Bay Freight Ltd, not Northwind Trading Pte Ltd" in item.claim
    assert not [f for f in state.facts if f.source_id == "document:doc-doc1.txt"]


def test_the_analysts_answer_stands_over_a_documents_number(make_runtime, make_state, documents):
    text = CERTIFICATE.format(number="99887766", directors=SG_DIRECTORS)
    _, state = northwind(make_runtime, make_state, documents, text)
    (read,) = state.documents_read_before_match
    read.result["fields"]["registration_numbers"] = ["201534871K"]
    assert document_pick(state).candidate.entity_id == "co-northwind-sg"
    # Once the analyst answered a question listing the candidates, whatever they said.
    state.answered_questions.append(
        {"question_id": "q", "question": "Which?", "answer": "none", "candidates": "a; b"}
    )
    assert document_pick(state) is None


def test_the_model_is_shown_the_numbers_and_the_candidate_they_name(
    make_runtime, make_state, documents
):
    text = CERTIFICATE.format(number="201534871K", directors=SG_DIRECTORS)
    runtime = make_runtime(
        turns=[
            {
                "kind": "call_tool",
                "tool_name": "resolve_entity",
                "arguments": {"name": "Northwind Trading"},
            },
            {
                "kind": "call_tool",
                "tool_name": "extract_uploaded_document",
                "arguments": {"document_id": "doc-doc1.txt"},
            },
            {"kind": "ask_human", "question": "Which Northwind?", "blocking": True},
        ]
    )
    doc = attached(documents, "doc1.txt", text)
    state = run(runtime, make_state("Northwind Trading", jurisdiction=None, documents=[doc]))
    projection = project_state(state)
    assert projection["company_numbers_in_documents"] == {"201534871K": ["doc1.txt"]}
    assert projection["candidate_named_by_documents"] == {
        "entity_id": "co-northwind-sg",
        "document_id": "doc-doc1.txt",
        "registration_number": "201534871K",
    }
    # The held read survives the state's JSON round trip (a crash between steps).
    again = AtlasState.model_validate_json(state.model_dump_json())
    assert again.documents_read_before_match == state.documents_read_before_match


def test_a_person_subjects_documents_are_not_held_for_a_match(make_runtime, make_state, documents):
    doc = attached(documents, "form.txt", "Full name: John Smith\nDate of birth: 1 May 1972\n")
    runtime = make_runtime()
    state = run(
        runtime, make_state("John Smith", subject_type="person", jurisdiction=None, documents=[doc])
    )
    assert "extract_uploaded_document" in [o.name for o in state.observations]
    assert state.documents_read_before_match == []


def calder(make_runtime, make_state, documents, number: str):
    # "Calder" matches one registry company only in part: Calder Print Works Ltd, 11472093.
    doc = attached(
        documents, "doc1.txt", f"Company: Calder Print Works Ltd\nCompany number: {number}\n"
    )
    runtime = make_runtime()
    return runtime, run(runtime, make_state("Calder", jurisdiction="GB", documents=[doc]))


def test_a_documents_number_confirms_a_companys_one_candidate(
    make_runtime, make_state, documents, store
):
    _, state = calder(make_runtime, make_state, documents, "11472093")
    assert (state.status, state.termination_reason) == ("awaiting_review", "finish_proposed")
    assert "clarification_requested" not in types(store, state)
    assert state.selected_entity.entity_id == "co-calder-print-works-gb"
    assert state.selected_entity.matched_by == (
        "Confirmed as the subject by company number 11472093, which the uploaded document "
        "doc1.txt gives."
    )


def test_a_number_not_the_one_candidates_is_said_in_the_question(
    make_runtime, make_state, documents
):
    _, state = calder(make_runtime, make_state, documents, "99999999")
    assert state.status == "waiting_for_input"
    assert state.pending_question.question.endswith(
        "The uploaded document “doc1.txt” gives company number 99999999, which is not its."
    )


def scripted_northwind(make_runtime, make_state, documents, *turns, jurisdiction=None):
    text = CERTIFICATE.format(number="201534871K", directors=SG_DIRECTORS)
    doc = attached(documents, "doc1.txt", text)
    opening = [
        call("resolve_entity", name="Northwind Trading"),
        call("extract_uploaded_document", document_id="doc-doc1.txt"),
    ]
    runtime = make_runtime(turns=[*opening, *turns])
    state = make_state("Northwind Trading", jurisdiction=jurisdiction, documents=[doc])
    return run(runtime, state)


def test_evidence_found_between_the_read_and_the_match_stays_after_the_document(
    make_runtime, make_state, documents
):
    state = scripted_northwind(
        make_runtime,
        make_state,
        documents,
        call("screen_sanctions", name="Northwind Trading"),
        call("resolve_entity", name="Northwind Trading Pte Ltd", jurisdiction="SG"),
    )
    assert state.selected_entity.matched_by_document == "doc-doc1.txt"
    document = document_item(state, "doc1.txt")
    screening = next(e for e in state.evidence if e.evidence_class == "sanctions")
    assert state.evidence.index(document) < state.evidence.index(screening)
    assert "by its company number" in document.claim


def test_a_match_the_model_made_to_another_candidate_is_not_credited_to_the_document(
    make_runtime, make_state, documents
):
    # The case says GB: the model matches the GB company, though the certificate is the
    # Singapore one's.
    state = scripted_northwind(
        make_runtime,
        make_state,
        documents,
        call("resolve_entity", name="Northwind Trading Ltd", jurisdiction="GB"),
        jurisdiction="GB",
    )
    assert state.selected_entity.entity_id == "co-northwind-gb"
    assert (state.selected_entity.matched_by_document, state.selected_entity.matched_by) == ("", "")
    document = document_item(state, "doc1.txt")
    assert Signal.ANOTHER_COMPANY in document.signals
    assert "by its company number" not in document.claim


NAMESAKE_COMPANY = (
    "Uploaded document doc1.txt is about Northwind Trading Pte Ltd, company number "
    "201534871K: a company of the subject's name, but not Northwind Trading Ltd (GB), the one "
    "the case was matched to. "
)


def matched_in_gb(make_runtime, make_state, documents):
    # The case says GB, where one Northwind Trading is registered; the client's certificate
    # is the Singapore company's.
    text = CERTIFICATE.format(number="201534871K", directors=SG_DIRECTORS)
    runtime = make_runtime()
    doc = attached(documents, "doc1.txt", text)
    return runtime, run(
        runtime, make_state("Northwind Trading", jurisdiction="GB", documents=[doc])
    )


def test_a_document_on_another_company_of_the_subjects_name_is_asked_about_before_finishing(
    make_runtime, make_state, documents, store
):
    runtime, state = matched_in_gb(make_runtime, make_state, documents)
    assert state.selected_entity.entity_id == "co-northwind-gb"
    assert state.status == "waiting_for_input"
    assert state.pending_question.question == (
        "The case was matched to Northwind Trading Ltd (GB, no. 04512398) [co-northwind-gb], "
        "but the uploaded document doc1.txt is about Northwind Trading Pte Ltd, company number "
        "201534871K: another company of the subject's name. If the client is that company, "
        "correct the subject's name or country with 'Correct the subject' on the case page "
        "(this run is cancelled and a new one researches it). If not, say why the document "
        "was supplied: your answer goes into the packet."
    )
    # Until the analyst answers, the packet's gap asks the reviewer to have it settled.
    gaps = with_open_issues(state, draft_packet(project_state(state), "x", []))
    assert (
        NAMESAKE_COMPANY
        + (
            "If the client is that company, the case names the wrong one: send the packet back "
            "for the analyst to correct the subject's name or country; if not, ask why the "
            "document was supplied."
        )
        in gaps.open_gaps
    )

    state = answer(runtime, state, "Our client's parent company's certificate, sent by mistake.")
    assert (state.status, state.termination_reason) == ("awaiting_review", "finish_proposed")
    assert types(store, state).count("clarification_requested") == 1  # asked once
    assert (
        NAMESAKE_COMPANY
        + (
            "Asked whether the client is that company, the analyst answered: “Our client's parent "
            "company's certificate, sent by mistake.”"
        )
        in state.proposed_packet.open_gaps
    )


def test_the_matched_companys_own_number_is_not_given_as_the_other_companys(
    make_runtime, make_state, documents
):
    text = "Company: Northwind Trading Pte Ltd\nCompany number: 04512398\n"
    doc = attached(documents, "doc1.txt", text)
    state = run(make_runtime(), make_state("Northwind Trading", jurisdiction="GB", documents=[doc]))
    assert state.selected_entity.entity_id == "co-northwind-gb"
    assert document_item(state, "doc1.txt").namesake_company == "Northwind Trading Pte Ltd"


def test_a_certificate_attached_with_an_answer_that_picks_none_still_picks_the_candidate(
    make_runtime, make_state, documents, store
):
    # No document at first: the analyst is asked, attaches the certificate and answers
    # without naming a candidate.
    runtime, state = northwind(make_runtime, make_state, documents)
    assert state.status == "waiting_for_input"
    text = CERTIFICATE.format(number="201534871K", directors=SG_DIRECTORS)
    stored = attached(documents, "cert.txt", text)
    documents.attach(documents.get(stored.document_id))  # on the case page, while it waits
    state = answer(runtime, state, "The client's certificate is attached.")
    assert state.answered_questions[-1].get("unclear") == "yes"
    assert (state.status, state.termination_reason) == ("awaiting_review", "finish_proposed")
    assert state.selected_entity.entity_id == "co-northwind-sg"
    assert state.selected_entity.matched_by_document == "doc-cert.txt"
    assert types(store, state).count("clarification_requested") == 1


def test_what_another_companys_document_declares_is_dropped_once_the_match_shows_it(
    make_runtime, make_state, documents
):
    text = (
        "Company: Harrow Bay Freight Ltd\nCompany number: 09934127\n"
        "Source of funds: Sale of shares in Blue Harbor Logistics Inc.\n"
    )
    runtime, state = northwind(make_runtime, make_state, documents, text)
    assert state.status == "waiting_for_input"
    assert any(e.declares for e in state.evidence)  # read as the unmatched subject's

    state = answer(runtime, state, "the second")
    assert state.selected_entity.entity_id == "co-northwind-sg"
    from_it = [e for e in state.evidence if e.source_id == "document:doc-doc1.txt"]
    assert [Signal.ANOTHER_COMPANY in e.signals for e in from_it] == [True]
    assert not [e for e in state.evidence if e.declares]


GROUP_CHART = "GROUP STRUCTURE\n" + "".join(
    f"Company number: {n}\n" for n in ("11111111", "22222222", "33333333", "44444444", "DE-7731002")
)


def test_a_document_listing_several_numbers_and_no_company_picks_none(
    make_runtime, make_state, documents
):
    _, state = northwind(make_runtime, make_state, documents, GROUP_CHART)
    assert state.status == "waiting_for_input"
    question = state.pending_question.question
    assert "“doc1.txt” gives company number DE-7731002, that of candidate 3." in question
    assert (
        " The uploaded documents also give company numbers 11111111, 22222222, 33333333 and 1 "
        "more, none of theirs." in question
    )


def test_a_document_naming_the_company_picks_it_among_several_numbers(
    make_runtime, make_state, documents
):
    text = "Company: Northwind Trading LLC\n" + GROUP_CHART
    _, state = northwind(make_runtime, make_state, documents, text)
    assert state.selected_entity.entity_id == "co-northwind-us"


def test_numbers_of_none_of_them_alone_are_said_together(make_runtime, make_state, documents):
    chart = "GROUP STRUCTURE\nCompany number: 11111111\nCompany number: 22222222\n"
    _, state = northwind(make_runtime, make_state, documents, chart)
    assert (
        "[co-northwind-us]. The uploaded documents give company numbers 11111111 and 22222222, "
        "none of theirs." in state.pending_question.question
    )
