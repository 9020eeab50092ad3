"""Layouts of onboarding (KYC) forms redaction let through: a label with a bracket after
it, short labels ("Mob", "Acc No", "NI number", "ID No."), dates written out with an
ordinal or a comma, numbers wrapped over lines by a PDF's narrow column, lists joined by a
slash, and full-width digits. A company's own numbers under similar labels stay."""

from __future__ import annotations

import pytest

from atlas.runtime.context import model_view
from atlas.runtime.memory import MemoryDocumentSource
from atlas.runtime.ports import StoredDocument
from atlas.runtime.redaction import redact
from atlas.runtime.tools.base import ToolContext
from atlas.runtime.tools.builtin import extract_uploaded_document
from atlas.runtime.tools.schemas import ExtractDocumentArgs
from atlas.runtime.world import default_world


@pytest.mark.parametrize(
    ("text", "redacted"),
    [
        ("Document type: Passport\nDocument number: 533401882", "[REDACTED NATIONAL ID]"),
        ("Passport (UK): 533401882", "Passport (UK): [REDACTED PASSPORT]"),
        ("Passport (issued 2010): 533401882", "[REDACTED PASSPORT]"),
        ("Date of birth (DD/MM/YYYY): 14/03/1975", "[REDACTED DOB]"),
        ("Birth date: 14/03/1975", "Birth date: [REDACTED DOB]"),
        ("D.O.B.: 14/03/1975", "D.O.B.: [REDACTED DOB]"),
        ("DOB: 14th March 1975", "DOB: [REDACTED DOB]"),
        ("Date of Birth 14 March, 1975", "Date of Birth [REDACTED DOB]"),
        ("Born March 14th, 1975", "Born [REDACTED DOB]"),
        ("Fecha de nacimiento: 14 de marzo de 1975", "[REDACTED DOB]"),
        ("Mob: +44 7700 900123", "Mob: [REDACTED PHONE]"),
        ("WhatsApp: +44 7700 900123", "WhatsApp: [REDACTED PHONE]"),
        ("Portable : 06 12 34 56 78", "Portable : [REDACTED PHONE]"),
        ("Telephone (mobile): +44 7700 900123", "[REDACTED PHONE]"),
        ("NI number: QQ 12 34 56 C", "NI number: [REDACTED NATIONAL ID]"),
        ("Acc No: 41926837", "Acc No: [REDACTED ACCOUNT]"),
        ("Passport: 533401882 / 533401883", "Passport: [REDACTED PASSPORT]"),
        ("Identification number: 88112233", "[REDACTED NATIONAL ID]"),
        ("ID No.: 88112233", "ID No.: [REDACTED NATIONAL ID]"),
        ("Mob. 07700 900123", "Mob. [REDACTED PHONE]"),
        # A bracket holding digits alone is the number's own, not a note after the label.
        ("Cell (555) 123-4567", "Cell [REDACTED PHONE]"),
        ("Паспорт серия 4510 № 123456", "Паспорт серия [REDACTED PASSPORT]"),
        ("Passport No: ５３３４０１８８２", "Passport No: [REDACTED PASSPORT]"),
        ("Card number: 4111 1111\n1111 1111", "Card number: [REDACTED CARD]\n"),
        ("her card 4111 1111\n1111 1111 was used", "her card [REDACTED CARD]\n was used"),
        ("Mobile: +44\n7700 900123", "Mobile: [REDACTED PHONE]\n"),
        ("IBAN: GB29\nNWBK 6016 1331 9268\n19", "IBAN: [REDACTED IBAN]\n\n"),
        ("paid from GB29\nNWBK 6016 1331 9268\n19 today", "[REDACTED IBAN]\n\n today"),
        ("NINO QQ\n12 34 56 C", "NINO [REDACTED NATIONAL ID]\n"),
        (
            "Helen Carter DOB 14th March 1975 Mob 07700900123.txt",
            "Helen Carter DOB [REDACTED DOB] Mob [REDACTED PHONE].txt",
        ),
    ],
)
def test_a_kyc_forms_personal_data_is_redacted(text, redacted):
    shown = redact(text)
    assert redacted in shown
    for digit_run in ("533401882", "1975", "900123", "12 34 56", "41926837", "88112233"):
        assert digit_run not in shown
    assert "123456" not in shown and "1111" not in shown


@pytest.mark.parametrize(
    "text",
    [
        "Documents: 12 pages",
        "Company number: 06677889",
        "Registered in NI on 12 May 2001",
        "Mobile World Congress 2024 in Barcelona",
        "Acc. policies were revised in 2021",
        "Tax ID requirements apply from 2025",
        "Identification of 3 directors",
        "USt-IdNr. DE123456789",
        "Company ID No. 06677889",
        "VAT identification number: GB123456789",
        "Filing document number: 2024-0012",
        # A reference, a company's tax number, a list's item: research data, not a person's.
        "Filing history: Document No. 123456789 (AR01)",
        "SEC Document ID No. 0001193125-21-012345",
        "See document no. 45 on page 3",
        "Identification number 42 in the register",
        "Acme Ltd, Tax ID: 98-7654321",
        "The company's Tax ID number is 12-3456789",
        "Companies House NI number NI612345",
        "Companies House Acc No 12345678",
        "Reg. ID No. 12345678",
        "ISIN code / ID code: GB0002634946",
        "KYC checklist for each director:\nPassport number\nDate of birth\n"
        "Company number: 01234567\nIncorporated: 12/03/1968\n",
        "Fields we hold\nPassport number\nMobile\n2021: revenue 12,345,678\n",
    ],
)
def test_a_companys_numbers_and_ordinary_text_stay(text):
    assert redact(text) == text


def test_a_kyc_form_extracted_shows_the_model_none_of_its_personal_data():
    form = (
        "Company: Meridian Shipping Holdings Ltd\n"
        "Company number: 06677889\n"
        "Directors: Helen Carter, James Whitfield\n"
        "Document type: Passport\n"
        "Document number: 533401882\n"
        "Passport (UK): 533401882\n"
        "Birth date: 14/03/1975\n"
        "D.O.B.: 14/03/1975\n"
        "DOB: 14th March 1975\n"
        "Mob: +44 7700 900123\n"
        "NI number: QQ 12 34 56 C\n"
        "Acc No: 41926837\n"
        "Passport: 533401882 / 533401883\n"
    )
    documents = MemoryDocumentSource(
        [
            StoredDocument(
                document_id="doc-kyc",
                name="kyc.txt",
                content_type="text/plain",
                content=form.encode(),
            )
        ]
    )
    result = extract_uploaded_document(
        ExtractDocumentArgs(document_id="doc-kyc"),
        ToolContext(brief=None, documents=documents, world=default_world()),
    )
    assert "533401882" in result.text  # the stored original keeps them
    shown, _ = model_view("tool:extract_uploaded_document", result.model_dump(mode="json"))
    for value in ("533401882", "533401883", "14/03/1975", "March 1975", "900123", "41926837"):
        assert value not in shown
    assert "QQ 12 34 56" not in shown
    # What research needs stays.
    assert "06677889" in shown and "Helen Carter" in shown


def test_a_pdf_tables_mobile_column_is_one_cell_redacted_as_a_phone():
    """pypdf gives a table's row one space between cells: the groups of a telephone number
    were read as numbers of other columns ("+44 7700 [REDACTED PASSPORT]")."""
    table = (
        "Name Passport number Date of birth Mobile IBAN\n"
        "Helen Carter 533401882 14/03/1975 +44 7700 900123 GB29 NWBK 6016 1331 9268 19\n"
        "James Whitfield 712345678 02/11/1968 0170 1234567 DE89 3704 0044 0532 0130 00\n"
    )
    shown = redact(table)
    assert shown.splitlines()[1:] == [
        "Helen Carter [REDACTED PASSPORT] [REDACTED DOB] [REDACTED PHONE] [REDACTED IBAN]",
        "James Whitfield [REDACTED PASSPORT] [REDACTED DOB] [REDACTED PHONE] [REDACTED IBAN]",
    ]


def test_a_label_wrapped_over_two_lines_still_names_its_value():
    text = "her mobile +44 7700 900123, national\ninsurance number QQ\n12 34 56 C."
    assert (
        redact(text)
        == "her mobile [REDACTED PHONE], national\ninsurance number [REDACTED NATIONAL ID]\n."
    )


def test_labels_stacked_over_their_values_are_paired_in_order():
    """A form in two columns, as PDF text gives it: every label, then every value."""
    form = (
        "Company: Meridian Shipping Holdings Ltd\n"
        "Directors: Helen Carter, James Whitfield\n"
        "Passport No.\nPersonalausweis\nKontonummer\nKreditkarte\nHandy\n"
        "533401882\nL01X00T47\n0532013000\n4111 1111 1111 1111\n+49 170 1234567"
    )
    assert redact(form).splitlines()[-5:] == [
        "[REDACTED PASSPORT]",
        "[REDACTED NATIONAL ID]",
        "[REDACTED ACCOUNT]",
        "[REDACTED CARD]",
        "[REDACTED PHONE]",
    ]
    # Labels whose values do not follow in as many lines are not paired with other lines.
    assert redact("Passport No.\nKontonummer\nSee the attached scan.\n2 pages") == (
        "Passport No.\nKontonummer\nSee the attached scan.\n2 pages"
    )


@pytest.mark.parametrize(
    ("text", "redacted"),
    [
        ("Mobile: 07700 900123\n2021 01234567 company number", "\n2021 01234567 company number"),
    ],
)
def test_a_number_on_the_next_line_is_not_taken_into_a_value(text, redacted):
    assert redact(text).endswith(redacted)


def test_redaction_of_one_long_line_full_of_label_words_takes_linear_time():
    """A web page flattened to one line: each label word once looked for the line's start."""
    import time

    line = "The group's mobile network division and its passport services unit grew. "
    began = time.perf_counter()
    redact(line * 2_000)
    small = time.perf_counter() - began
    began = time.perf_counter()
    redact(line * 20_000)
    assert time.perf_counter() - began < 30 * max(small, 0.001)
