"""Uploaded documents about someone other than the case's subject (another company's
certificate, someone else's client form): their facts are not used, and the analyst who
attached one is asked why, before the run finishes, so a reviewer reads the reason in the
packet instead of sending it back to ask."""

from __future__ import annotations

from atlas.runtime.redaction import redact
from atlas.runtime.state import AtlasState, EvidenceItem
from atlas.runtime.world.normalize import normalize_text


def answer_naming(state: AtlasState, *names: str) -> str | None:
    """The analyst's latest answer to a question naming each of `names` (as the model is
    shown them: redacted), or None before one."""
    wanted = [f" {normalize_text(redact(name))} " for name in names]
    if not all(name.strip() for name in wanted):
        return None
    for answered in reversed(state.answered_questions):
        question = f" {normalize_text(answered.get('question', ''))} "
        if all(name in question for name in wanted):
            return answered.get("answer", "")
    return None


def answer_about_document(state: AtlasState, item: EvidenceItem) -> str | None:
    """The analyst's answer to the question naming both the document and whom it is about
    (the playbook names both), or None before one."""
    return answer_naming(state, item.source_label, item.about_other_subject)


def unexplained_documents_about_others(state: AtlasState) -> list[EvidenceItem]:
    """Documents about another company or person that the analyst has not been asked about.
    One about another company of the subject's own name has a question of its own
    (document_picks.documents_about_namesake_companies): the client may be that company."""
    return [
        item
        for item in state.evidence
        if item.about_other_subject
        and not item.namesake_company
        and answer_about_document(state, item) is None
    ]
