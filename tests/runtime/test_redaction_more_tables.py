"""Passport and account numbers in a table's columns, where the label heads the column and
the number stands rows below it: in plain text as people type tables, and in a PDF, whose
extracted text puts each row on one line with its cells one space apart."""

from __future__ import annotations

import pytest

from atlas.runtime.memory import MemoryDocumentSource
from atlas.runtime.ports import StoredDocument
from atlas.runtime.redaction import personal_data_found, redact
from atlas.runtime.tools.base import ToolContext
from atlas.runtime.tools.builtin import document_text, extract_uploaded_document
from atlas.runtime.tools.schemas import ExtractDocumentArgs
from atlas.runtime.world import default_world
from tests.pdfs import table_pdf

BARS = """\
| Name | Passport No. | IBAN | Company number |
|------|--------------|------|----------------|
| Jane Roe | K7654321 | DE89 3704 0044 0532 0130 00 | 01234567 |
| John Smith | P1234567 | GB29 NWBK 6016 1331 9268 19 | SC123456 |
"""
ALIGNED = """\
Name          Passport No.    Account number   Company no.   Date of issue
Jane Roe      K7654321        12345678         01234567      2019-03-01
John Smith                    87654321         SC123456      2020-05-02
"""
TABS = "Name\tReisepassnummer\tKontonummer\tShares\nJane Roe\tC01X00T47\t1234567890\t1500000\n"


@pytest.mark.parametrize(
    ("text", "secrets", "kept"),
    [
        (
            BARS,
            ["K7654321", "P1234567", "DE89 3704", "GB29 NWBK"],
            ["Jane Roe", "John Smith", "01234567", "SC123456"],
        ),
        (
            ALIGNED,
            ["K7654321", "12345678", "87654321"],
            ["Jane Roe", "John Smith", "01234567", "SC123456", "2019-03-01", "2020-05-02"],
        ),
        (TABS, ["C01X00T47", "1234567890"], ["Jane Roe", "1500000"]),
    ],
    ids=["bars", "aligned", "tabs"],
)
def test_numbers_in_a_column_headed_by_their_label_are_redacted(text, secrets, kept):
    redacted = redact(text)
    for secret in secrets:
        assert secret not in redacted
    for value in kept:
        assert value in redacted
    assert redacted.count("\n") == text.count("\n")


def test_an_aligned_row_missing_a_cell_keeps_its_other_cells_in_their_columns():
    redacted = redact(ALIGNED).splitlines()[2]
    assert redacted.split() == ["John", "Smith", "[REDACTED", "ACCOUNT]", "SC123456", "2020-05-02"]


def test_a_column_about_the_passport_but_not_its_number_is_left_alone():
    text = "Name | Passport expiry | Passport issued by\nJane Roe | 2031-05-01 | HMPO 2021\n"
    assert redact(text) == text


def test_the_rows_end_at_the_first_blank_line():
    text = "Name | Passport No.\nJane Roe | K7654321\n\nCompany number 01234567, 2 copies\n"
    assert redact(text) == (
        "Name | Passport No.\nJane Roe | [REDACTED PASSPORT]\n\nCompany number 01234567, 2 copies\n"
    )


def test_values_found_in_a_table_are_extracted_as_redaction_finds_them():
    found = personal_data_found(BARS)
    assert found["passport_numbers"] == ["K7654321", "P1234567"]
    assert found["ibans"] == ["DE89 3704 0044 0532 0130 00", "GB29 NWBK 6016 1331 9268 19"]


PDF_COLUMNS_X = [40, 110, 190, 280, 380]
PDF_ROWS = [
    ["Name", "Passport No.", "Date of issue", "Company number", "IBAN"],
    ["Jane Roe", "K7654321", "2019-03-01", "01234567", "DE89 3704 0044 0532 0130 00"],
    ["John Smith", "P1234567", "2020-05-02", "SC123456", "GB29 NWBK 6016 1331 9268 19"],
]


def test_a_pdf_tables_text_has_each_row_on_a_line_with_its_cells_one_space_apart():
    text, _ = document_text(table_pdf(PDF_ROWS, PDF_COLUMNS_X), "application/pdf")
    assert text.splitlines()[:3] == [" ".join(row) for row in PDF_ROWS]


def test_the_numbers_in_a_pdf_tables_passport_column_are_redacted_and_nothing_else():
    pdf = table_pdf(PDF_ROWS + [["Total", "", "", "", ""]], PDF_COLUMNS_X)
    result = extract_uploaded_document(
        ExtractDocumentArgs(document_id="doc-t"),
        ToolContext(
            brief=None,
            documents=MemoryDocumentSource(
                [
                    StoredDocument(
                        document_id="doc-t",
                        name="ids.pdf",
                        content_type="application/pdf",
                        content=pdf,
                    )
                ]
            ),
            world=default_world(),
        ),
    )
    assert result.fields["passport_numbers"] == ["K7654321", "P1234567"]
    redacted = redact(result.text)
    assert redacted.splitlines()[1:3] == [
        "Jane Roe [REDACTED PASSPORT] 2019-03-01 01234567 [REDACTED IBAN]",
        "John Smith [REDACTED PASSPORT] 2020-05-02 SC123456 [REDACTED IBAN]",
    ]


@pytest.mark.parametrize(
    ("text", "redacted"),
    [
        # Extracted from a PDF: one space between cells, and no other number column.
        (
            "Name Passport No.\nJane Roe K7654321\nJohn Smith P1234567\n",
            "Name Passport No.\nJane Roe [REDACTED PASSPORT]\nJohn Smith [REDACTED PASSPORT]\n",
        ),
        (
            "Name Account number Shares\nJane Roe 12345678 1500000\n",
            "Name Account number Shares\nJane Roe [REDACTED ACCOUNT] 1500000\n",
        ),
        # A sentence that names a passport is no table's header.
        (
            "The passport was seen by the officer\nCompany 01234567 filed accounts\n",
            "The passport was seen by the officer\nCompany 01234567 filed accounts\n",
        ),
    ],
)
def test_a_table_as_pdf_text_gives_it_is_read_by_its_header(text, redacted):
    assert redact(text) == redacted


def test_sentences_typed_with_two_spaces_after_a_full_stop_are_no_table():
    text = (
        "Account of the meeting.  Minutes follow.\n"
        "The company number is 01234567.  It was formed in 2001.\n"
    )
    assert redact(text) == text
