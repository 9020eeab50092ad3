"""What extract_uploaded_document reads from a plain-text upload as Windows saves it, and
from personal data written in lists and over lines."""

from __future__ import annotations

from atlas.runtime.memory import MemoryDocumentSource
from atlas.runtime.ports import StoredDocument
from atlas.runtime.tools.base import ToolContext
from atlas.runtime.tools.builtin import extract_uploaded_document
from atlas.runtime.tools.schemas import ExtractDocumentArgs, ExtractDocumentResult
from atlas.runtime.world import default_world


def _extracted(content: bytes, content_type: str = "text/plain") -> ExtractDocumentResult:
    stored = StoredDocument(
        document_id="doc-1", name="kyc.txt", content_type=content_type, content=content
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


def test_numbers_under_labels_in_other_languages_or_in_a_table_are_extracted():
    result = _extracted(
        "Reisepassnummer: C01X00T47\nNuméro de compte : 12345678901\n"
        "Virement vers FR14 2004 1010 0505 0001 3M02 606\n\n"
        "Name | Passport No.\nJane Roe | K7654321\n".encode()
    )
    assert result.fields["passport_numbers"] == ["C01X00T47", "K7654321"]
    assert result.fields["account_numbers"] == ["12345678901"]
    assert result.fields["ibans"] == ["FR14 2004 1010 0505 0001 3M02 606"]


def test_labels_side_by_side_on_one_line_are_each_read():
    # A PDF's two columns come out as one line.
    result = _extracted(
        b"Company: Harrow Bay Freight Ltd   Directors: Colin Marsh, Jane Roe\n"
        b"Registration number: 09934127\tStatus: active\n"
    )
    assert result.fields["company_names"] == ["Harrow Bay Freight Ltd"]
    assert result.fields["directors"] == ["Colin Marsh", "Jane Roe"]
    assert result.fields["registration_numbers"] == ["09934127"]
    assert result.text.startswith("Company: Harrow Bay Freight Ltd   Directors:")  # as written
