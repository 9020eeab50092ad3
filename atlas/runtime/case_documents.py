"""The case's documents as they stand now, against the run's brief, written when it started.

Two changes reach a run under way, each recorded in its trace:
- a sensitive mark, when the run asks to extract the document: from then on extracting it
  needs a reviewer's approval, as for a document marked before the run started;
- a document attached since, when the analyst answers one of the run's questions: the
  answer may rest on it (a reviewer who sent a packet back asked for it, say). The engine
  offers the documents the case held when the answer was sent (`documents_offered`).
A mark is never taken away, and no document leaves the brief.
"""

from __future__ import annotations

from atlas.runtime.humans import ClarificationAnswer
from atlas.runtime.ports import DocumentSource
from atlas.runtime.state import AtlasState, AttachedDocument
from atlas.runtime.step_writer import StepBuffer, StepWriter


def take_up_sensitive_marks(
    writer: StepWriter, s: AtlasState, buf: StepBuffer, documents: DocumentSource | None
) -> None:
    if documents is None:
        return
    marked = {d.document_id for d in documents.attached() if d.sensitive}
    for document in s.brief.documents:
        if document.document_id in marked and not document.sensitive:
            document.sensitive = True
            writer.emit(
                s,
                buf,
                "document_marked_sensitive",
                document_id=document.document_id,
                name=document.name,
            )


def take_up_new_documents(
    writer: StepWriter, s: AtlasState, buf: StepBuffer, offered: list[AttachedDocument]
) -> list[AttachedDocument]:
    """Add the offered documents the brief does not hold yet; returns those added."""
    known = {d.document_id for d in s.brief.documents}
    added = []
    for document in offered:
        if document.document_id not in known:
            added.append(document)
            s.brief.documents.append(document.model_copy())
            writer.emit(
                s,
                buf,
                "document_added",
                document_id=document.document_id,
                name=document.name,
                sensitive=document.sensitive,
            )
    return added


def documents_offered(
    documents: DocumentSource | None, answer: ClarificationAnswer
) -> list[AttachedDocument]:
    """The case's documents that go to the run with `answer`."""
    if documents is None:
        return []
    wanted = None if answer.document_ids is None else set(answer.document_ids)
    return [d for d in documents.attached() if wanted is None or d.document_id in wanted]
