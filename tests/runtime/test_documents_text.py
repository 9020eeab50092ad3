"""What extract_uploaded_document reads from a plain-text upload as Windows saves it, and
from personal data written in lists and over lines."""

from __future__ import annotations

from atlas.runtime.memory import MemoryDocumentSource
from atlas.runtime.ports import StoredDocument
from atlas.runtime.tools.base import ToolContext
from atlas.runtime.tools.builtin import extract_uploaded_document
from atlas.runtime.tools.schemas import ExtractDocumentArgs, ExtractDocumentResult
from atlas.runtime.world import default_world


def _extracted(content: bytes) -> ExtractDocumentResult:
    stored = StoredDocument(
        document_id="doc-1", name="kyc.txt", content_type="text/plain", content=content
    )
    return extract_uploaded_document(
        ExtractDocumentArgs(document_id="doc-1"),
        ToolContext(brief=None, documents=MemoryDocumentSource([stored]), world=default_world()),
    )


def test_a_byte_order_mark_does_not_hide_the_first_line():
    # Notepad's "UTF-8 with BOM": the mark came before "Company", so the line was not read.
    result = _extracted("\ufeffCompany: Acme Analytics Ltd\nDirectors: Jane Roe\n".encode())
    assert result.fields["company_names"] == ["Acme Analytics Ltd"]
    assert not result.text.startswith("\ufeff")


def test_each_number_of_a_list_and_a_number_wrapped_over_lines_are_extracted():
    result = _extracted(b"Passport numbers: K7654321, P1234567\nAccount number 1234\n5678\n")
    assert result.fields["passport_numbers"] == ["K7654321", "P1234567"]
    assert result.fields["account_numbers"] == ["1234 5678"]
