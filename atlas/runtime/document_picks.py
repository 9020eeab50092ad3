"""A company subject's same-name registry candidates told apart by an attached document.

The analyst attached the document to this case, so a company number it gives that is
exactly one candidate's, under a company name (if it gives one) that is that candidate's,
picks that candidate as the analyst's answer would: the case is not held for a question
the analyst's own paperwork answers. Documents pointing at different candidates pick
none, and once the analyst has answered about the candidates their answer stands.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from atlas.runtime.documents_about_others import answer_naming
from atlas.runtime.state import AtlasState, EntityCandidate, EvidenceItem
from atlas.runtime.tools.builtin import STRONG_MATCH
from atlas.runtime.world import name_score
from atlas.runtime.world.normalize import normalize_registration_number

COMPANY_NUMBER = ", company number "  # in EvidenceItem.namesake_company, after the name


class DocumentPick(NamedTuple):
    candidate: EntityCandidate
    document_id: str
    number: str  # as the document writes it


def document_pick(state: AtlasState) -> DocumentPick | None:
    """The one candidate the documents read before the match name by company number."""
    if not state.documents_read_before_match or analyst_answered_about_candidates(state):
        return None
    picks: dict[str, DocumentPick] = {}
    for read in state.documents_read_before_match:
        for pick in _candidates_numbered(state.entity_candidates, read.result):
            picks.setdefault(pick.candidate.entity_id, pick)
    return next(iter(picks.values())) if len(picks) == 1 else None


def picked_by_document(state: AtlasState) -> EntityCandidate | None:
    """The candidate a document picks: while the subject is unmatched, as above; once
    matched, the matched entity if a document's number is what matched it."""
    entity = state.selected_entity
    if entity is not None:
        return entity if entity.matched_by_document else None
    pick = document_pick(state)
    return pick.candidate if pick else None


def matched_by_words(pick: DocumentPick, candidates: int, document_name: str) -> str:
    """How the matched entity was told apart from its namesakes (or, the one candidate,
    confirmed), for the case's pages."""
    if candidates == 1:
        return (
            f"Confirmed as the subject by company number {pick.number}, which the uploaded "
            f"document {document_name} gives."
        )
    return (
        f"Told apart from {candidates - 1} other registry candidate"
        f"{'' if candidates == 2 else 's'} by company number {pick.number}, which the "
        f"uploaded document {document_name} gives."
    )


def analyst_answered_about_candidates(state: AtlasState) -> bool:
    """Whether the analyst answered a question listing registry candidates by picking one
    or ruling them out (human_inputs records the question's candidates with the answer,
    and marks an answer that did neither unclear: "the certificate is attached" leaves the
    documents to tell)."""
    return any(
        answered.get("candidates") and not answered.get("unclear")
        for answered in state.answered_questions
    )


def numbers_in_documents(state: AtlasState) -> dict[str, list[str]]:
    """Company numbers the documents read before the match give, as written, each with
    the names of the documents giving it: a company subject's (a registry person has no
    number to tell apart)."""
    if not state.documents_read_before_match or state.brief.subject_type != "company":
        return {}
    names = state.brief.document_names()
    numbers: dict[str, list[str]] = {}
    for read in state.documents_read_before_match:
        document_id = read.result.get("document_id", "")
        document = names.get(document_id) or f"document {document_id}"
        for number in read.result.get("fields", {}).get("registration_numbers") or []:
            given = numbers.setdefault(number, [])
            if document not in given:
                given.append(document)
    return numbers


def _candidates_numbered(
    candidates: list[EntityCandidate], result: dict[str, Any]
) -> list[DocumentPick]:
    fields = result.get("fields", {})
    company_names = fields.get("company_names") or []
    numbers = {
        normalize_registration_number(number): number
        for number in fields.get("registration_numbers") or []
    }
    if not company_names and len(numbers) > 1:
        return []  # a chart of a group's companies, say: which of them is the client?
    picks = []
    for candidate in candidates:
        if not candidate.registration_number:  # a person's, or a company's not on record
            continue
        number = numbers.get(normalize_registration_number(candidate.registration_number))
        if number is None:
            continue
        if company_names and not any(
            name_score(name, candidate.name) >= STRONG_MATCH for name in company_names
        ):
            continue  # the number is this candidate's, the company named is another
        picks.append(DocumentPick(candidate, result.get("document_id", ""), number))
    return picks


def namesake_company_answer(state: AtlasState, item: EvidenceItem) -> str | None:
    """The analyst's answer to the question about a document on another company of the
    subject's name (the playbook names that company in it), or None before one."""
    return answer_naming(state, item.namesake_company.split(COMPANY_NUMBER)[0])


def documents_about_namesake_companies(state: AtlasState) -> list[EvidenceItem]:
    """Documents about another company of the subject's name than the one matched that the
    analyst has not been asked about: the client may be that company."""
    return [
        item
        for item in state.evidence
        if item.namesake_company and namesake_company_answer(state, item) is None
    ]
