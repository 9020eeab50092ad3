"""Two gaps redaction had: a valid IBAN right after a code shaped like an IBAN's start
("Ref GB12 GB82 WEST …"), and tables in PDFs whose header cells pypdf runs into one another
("Company numberIBAN") or whose "Date of birth" column is one space from the next."""

from __future__ import annotations

import time

import pytest

from atlas.runtime.context import model_view
from atlas.runtime.memory import MemoryDocumentSource
from atlas.runtime.ports import StoredDocument
from atlas.runtime.redaction import personal_data_found, redact
from atlas.runtime.tools.base import ToolContext
from atlas.runtime.tools.builtin import extract_uploaded_document
from atlas.runtime.tools.schemas import ExtractDocumentArgs
from atlas.runtime.world import default_world
from tests.pdfs import table_pdf

VALID_IBAN = "GB82 WEST 1234 5698 7654 32"


@pytest.mark.parametrize(
    ("text", "redacted"),
    [
        ("Ref GB12 GB82 WEST 1234 5698 7654 32", "Ref GB12 [REDACTED IBAN]"),
        ("AB12 GB82 WEST 1234 5698 7654 32 paid", "AB12 [REDACTED IBAN] paid"),
        ("Code AB12 GB82WEST12345698765432.", "Code AB12 [REDACTED IBAN]."),
        ("AB12GB82WEST12345698765432", "AB12[REDACTED IBAN]"),
        ("AB12GB82 WEST 1234 5698 7654 32", "AB12[REDACTED IBAN]"),
        ("AB12-DE89-3704-0044-0532-0130-00", "AB12-[REDACTED IBAN]"),
        ("ref ab12 cd34 gb82 west 1234 5698 7654 32", "ref ab12 cd34 [REDACTED IBAN]"),
        ("XAB12 GB82 WEST 1234 5698 7654 32", "XAB12 [REDACTED IBAN]"),
    ],
    ids=[
        "ref-code",
        "code-first",
        "compact",
        "glued-compact",
        "glued-grouped",
        "dashes",
        "lower-case-two-codes",
        "longer-code",
    ],
)
def test_a_valid_iban_after_a_code_shaped_like_its_start_is_redacted(text, redacted):
    assert redact(text) == redacted


def test_the_iban_after_a_code_is_found_whole_and_the_code_is_not():
    found = personal_data_found(
        "Ref GB12 GB82 WEST 1234 5698 7654 32 and AB12DE89370400440532013000"
    )
    assert found == {"ibans": [VALID_IBAN, "DE89370400440532013000"]}


@pytest.mark.parametrize(
    "text",
    [
        # Codes and references shaped like IBANs whose check digits hold nowhere.
        "Ref GB12 GB00 WEST 1234 5698 7654 32",
        "Order AB12 CD34 EF56 GH78 IJ90 KL12 shipped",
        "AB12GB00WEST12345698765432",
        # Check digits that hold after a code, but not at the country's IBAN length (GB: 22).
        "AB12GB49WEST123456987654321",
        "Ref AB12 GB49 WEST 1234 5698 7654 321",
        # Nor for a country without IBANs (QQ).
        "AB12QQ44WEST12345698765432",
        # A hash in lower case.
        "sha ab12cd34ef56ab78cd90ef12ab34cd56ef78ab90",
        "Acme Analytics Ltd, company number 01234567, incorporated 5 April 2001, "
        "share capital GBP 1,500,000.00",
    ],
)
def test_codes_that_hold_no_valid_iban_are_left_alone(text):
    assert redact(text) == text


def _extracted_and_shown(pdf: bytes) -> tuple[str, dict[str, list[str]], str]:
    """The PDF's extracted text, the fields extracted from it, and what the model is shown
    of the extraction's result."""
    documents = MemoryDocumentSource(
        [
            StoredDocument(
                document_id="doc-table",
                name="register.pdf",
                content_type="application/pdf",
                content=pdf,
            )
        ]
    )
    result = extract_uploaded_document(
        ExtractDocumentArgs(document_id="doc-table"),
        ToolContext(brief=None, documents=documents, world=default_world()),
    )
    shown, _ = model_view("extract_uploaded_document", result.model_dump(mode="json"))
    return result.text, result.fields, shown


# "Company number" and "Account number" are as wide as their columns.
OFFICERS_X = [40, 100, 174, 246, 306]
OFFICERS = [
    ["Director", "Company number", "Account number", "Passport No.", "Date of birth"],
    ["Jane Roe", "01234567", "12345678", "K7654321", "1970-01-02"],
    ["John Smith", "SC123456", "87654321", "P1234567", "12/03/1968"],
]


def test_a_pdf_tables_glued_header_cells_still_head_their_columns():
    text, fields, shown = _extracted_and_shown(table_pdf(OFFICERS, OFFICERS_X))
    assert text.splitlines()[0] == (
        "Director Company numberAccount numberPassport No. Date of birth"
    )
    assert redact(text).splitlines()[1:3] == [
        "Jane Roe 01234567 [REDACTED ACCOUNT] [REDACTED PASSPORT] [REDACTED DOB]",
        "John Smith SC123456 [REDACTED ACCOUNT] [REDACTED PASSPORT] [REDACTED DOB]",
    ]
    assert fields["account_numbers"] == ["12345678", "87654321"]
    assert fields["passport_numbers"] == ["K7654321", "P1234567"]
    assert fields["dates_of_birth"] == ["1970-01-02", "12/03/1968"]
    for secret in ("12345678", "87654321", "K7654321", "P1234567", "1970-01-02", "12/03/1968"):
        assert secret not in shown
    for kept in ("Jane Roe", "John Smith", "01234567", "SC123456"):
        assert kept in shown


# IBANs as typed into a register, check digits mistyped: only their column tells.
ACCOUNTS_X = [40, 140, 214, 380, 450]
ACCOUNTS = [
    ["Company name", "Company number", "IBAN", "Incorporated", "Share capital"],
    ["Acme Analytics Ltd", "01234567", "GB00 WEST 1234 5698 7654 32", "2001-04-05", "1500000"],
    ["Northwind Trading", "SC123456", "DE00370400440532013000", "5 April 2010", "250000"],
    ["Meridian Shipping", "04455667", VALID_IBAN, "2012-11-30", "75000"],
]


def test_a_pdf_tables_iban_column_glued_to_the_one_before_is_redacted_and_nothing_else():
    text, fields, shown = _extracted_and_shown(table_pdf(ACCOUNTS, ACCOUNTS_X))
    assert "Company numberIBAN" in text.splitlines()[0]
    assert redact(text).splitlines()[1:4] == [
        "Acme Analytics Ltd 01234567 [REDACTED IBAN] 2001-04-05 1500000",
        "Northwind Trading SC123456 [REDACTED IBAN] 5 April 2010 250000",
        "Meridian Shipping 04455667 [REDACTED IBAN] 2012-11-30 75000",
    ]
    assert fields["ibans"] == [
        "GB00 WEST 1234 5698 7654 32",
        "DE00370400440532013000",
        VALID_IBAN,
    ]
    assert "GB00 WEST" not in shown and "DE00370400440532013000" not in shown


BIRTHS_X = [40, 110, 190, 260]
BIRTHS = [
    ["Name", "Date of birth", "Nationality", "Appointed"],
    ["Jane Roe", "02/01/1970", "British", "2015-06-01"],
    ["John Smith", "12 March 1968", "Irish", "1 May 2019"],
]
PROSE_UNDER = ["Acme Analytics Ltd was incorporated on 5 April 2001 with capital of 1500000."]


def test_a_date_of_birth_column_one_space_from_the_next_is_redacted_other_dates_are_not():
    text, fields, shown = _extracted_and_shown(table_pdf(BIRTHS, BIRTHS_X, PROSE_UNDER))
    assert text.splitlines()[:2] == [
        "Name Date of birth Nationality Appointed",
        "Jane Roe 02/01/1970 British 2015-06-01",
    ]
    assert redact(text).splitlines()[1:4] == [
        "Jane Roe [REDACTED DOB] British 2015-06-01",
        "John Smith [REDACTED DOB] Irish 1 May 2019",
        PROSE_UNDER[0],
    ]
    assert fields["dates_of_birth"] == ["02/01/1970", "12 March 1968"]
    assert "02/01/1970" not in shown and "12 March 1968" not in shown
    for kept in ("2015-06-01", "1 May 2019", "5 April 2001", "1500000", "Acme Analytics Ltd"):
        assert kept in shown


@pytest.mark.parametrize(
    "text",
    [
        # Tables with no personal data in them, as PDF text gives them.
        "Company name Company number Incorporated\nAcme Analytics Ltd 01234567 2001-04-05\n",
        "Company Date of incorporation Share capital\nAcme Analytics Ltd 5 April 2001 1500000\n",
        # A sentence naming a date of birth, with no date after it, heads no table.
        "The date of birth was not given in the filing\nAcme Analytics Ltd 2001-04-05 filed\n",
    ],
)
def test_tables_and_prose_without_personal_data_are_left_alone(text):
    assert redact(text) == text


@pytest.mark.parametrize(
    ("text", "redacted"),
    [
        # Two date columns, matched in order.
        (
            "Name Date of birth Date of issue Passport No.\n"
            "Jane Roe 1970-01-02 2019-03-01 K7654321\n"
            "John Smith 12 March 1968 5 May 2020 P1234567\n",
            "Name Date of birth Date of issue Passport No.\n"
            "Jane Roe [REDACTED DOB] 2019-03-01 [REDACTED PASSPORT]\n"
            "John Smith [REDACTED DOB] 5 May 2020 [REDACTED PASSPORT]\n",
        ),
        # A row with one date for two columns: which it is cannot be told, so it is hidden.
        (
            "Name Date of birth Appointed\nJane Roe 1970-01-02 2015-06-01\nJohn Smith 2019-05-01\n",
            "Name Date of birth Appointed\nJane Roe [REDACTED DOB] 2015-06-01\n"
            "John Smith [REDACTED DOB]\n",
        ),
        # Capitals: no change of case shows where one cell ends, the header's word does.
        (
            "NAME PASSPORT NO. COMPANY NUMBERACCOUNT NUMBER\nJane Roe K7654321 01234567 12345678\n",
            "NAME PASSPORT NO. COMPANY NUMBERACCOUNT NUMBER\n"
            "Jane Roe [REDACTED PASSPORT] 01234567 [REDACTED ACCOUNT]\n",
        ),
        # A sentence's date under the table is no date of birth.
        (
            "Name Date of birth Role\nJane Roe 2 January 1970 Director\n"
            "Acme Analytics Ltd 01234567 incorporated 5 April 2001\n",
            "Name Date of birth Role\nJane Roe [REDACTED DOB] Director\n"
            "Acme Analytics Ltd 01234567 incorporated 5 April 2001\n",
        ),
    ],
    ids=["two-date-columns", "one-date-for-two", "capitals", "sentence-under"],
)
def test_a_date_of_birth_column_in_pdf_text_is_told_from_other_dates(text, redacted):
    assert redact(text) == redacted


@pytest.mark.parametrize(
    "row",
    ["Jane 1970-01-02 ", "GB00 WEST 1234 5698 7654 32 K7654321 "],
    ids=["dates", "ibans-and-passports"],
)
def test_a_row_on_one_long_line_is_read_in_linear_time(row):
    # Checking each word against each date or number before it took 25 s for this.
    text = "Name Date of birth IBAN Passport No.\n" + row * (100_000 // len(row))
    began = time.perf_counter()
    redacted = redact(text)
    assert time.perf_counter() - began < 5
    assert "1970-01-02" not in redacted and "K7654321" not in redacted


@pytest.mark.parametrize(
    ("said", "shown"),
    [
        ("My passport number is K7654321.", "My passport number is [REDACTED PASSPORT]."),
        ("Her date of birth was 2 March 1970.", "Her date of birth was [REDACTED DOB]."),
        ("The passport is valid until 2030.", "The passport is valid until 2030."),
        ("Passport island 123456", "Passport island 123456"),
    ],
)
def test_a_value_given_in_a_sentence_after_is_or_was_is_redacted(said, shown):
    assert redact(said) == shown
