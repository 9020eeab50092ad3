"""A conflict quotes a document by its own words: the line that gives the value, not a
label the runtime made up ("Company number:" for a "Registered number:" line, "Directors:"
for a table)."""

from __future__ import annotations

from runtime_helpers import run

from atlas.runtime.ports import StoredDocument
from atlas.runtime.state import AttachedDocument

FILING = (
    "Company: Harrow Bay Freight Ltd\n"
    "Registered number: 0771 2233\n"
    "\n"
    "Board of directors\n"
    "Name | Role | Passport number\n"
    "Colin Marsh | Director | 533401882\n"
)


def test_a_documents_values_in_a_conflict_are_quoted_from_its_own_lines(
    make_runtime, make_state, documents
):
    documents.add(
        StoredDocument(
            document_id="doc-filing",
            name="filing.txt",
            content_type="text/plain",
            content=FILING.encode(),
        )
    )
    filing = AttachedDocument(document_id="doc-filing", name="filing.txt")
    state = run(make_runtime(), make_state("Harrow Bay Freight", documents=[filing]))
    excerpts = {
        conflict.fact: value.excerpt
        for conflict in state.conflicts
        for value in conflict.values
        if value.source_id == "document:doc-filing"
    }
    assert excerpts == {
        "registration_number": "Registered number: 0771 2233",
        # The row's passport number is known by its column: redacted as for the model.
        "directors": "Colin Marsh | Director | [REDACTED PASSPORT]",
    }


def quotes_of(make_runtime, make_state, documents, text: str, subject: str = "Harrow Bay Freight"):
    documents.add(
        StoredDocument(
            document_id="doc-q", name="q.txt", content_type="text/plain", content=text.encode()
        )
    )
    attached = AttachedDocument(document_id="doc-q", name="q.txt")
    state = run(make_runtime(), make_state(subject, documents=[attached]))
    return {
        conflict.fact: value.excerpt
        for conflict in state.conflicts
        for value in conflict.values
        if value.source_id == "document:doc-q"
    }


def test_the_line_giving_the_most_values_is_quoted_not_the_first_naming_one(
    make_runtime, make_state, documents
):
    """A contact line names a director before the directors line does; "Roe" is in
    "Monroe"."""
    text = (
        "Company: Harrow Bay Freight Ltd\n"
        "Registered office: 7 Monroe Street, London\n"
        "Contact: Colin Marsh, home address 4 Linden Close\n"
        "Directors: MARSH, Colin; ROE, Jane\n"
    )
    assert quotes_of(make_runtime, make_state, documents, text)["directors"] == (
        "Directors: MARSH, Colin; ROE, Jane"
    )


def test_a_long_line_is_quoted_around_the_values(make_runtime, make_state, documents):
    prose = "The board met in London to review the freight contracts of the year. " * 5
    text = f"Company: Harrow Bay Freight Ltd\n{prose}Its directors are Colin Marsh and Jane Roe.\n"
    quote = quotes_of(make_runtime, make_state, documents, text)["directors"]
    assert quote.startswith("…") and quote.endswith("Its directors are Colin Marsh and Jane Roe.")
    assert len(quote) <= 302
