"""The case's documents as they stand now, against the run's brief, written when it started.

Two changes reach a run under way, each recorded in its trace:
- a sensitive mark, when the run asks to extract the document: from then on extracting it
  needs a reviewer's approval, as for a document marked before the run started;
- a document attached since, when the analyst answers one of the run's questions: the
  answer may rest on it (a reviewer who sent a packet back asked for it, say).
A mark is never taken away, and no document leaves the brief.
"""

from __future__ import annotations

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
    writer: StepWriter, s: AtlasState, buf: StepBuffer, documents: DocumentSource | None
) -> list[AttachedDocument]:
    """The documents added to the brief."""
    if documents is None:
        return []
    known = {d.document_id for d in s.brief.documents}
    added = []
    for document in documents.attached():
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
