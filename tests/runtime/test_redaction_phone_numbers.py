"""A person's own telephone line (mobile, cell, home, private) is hidden before the model
sees it, in the languages KYC documents come in, in tables and in structured data; a
company's switchboard under a bare "phone" or "tel." stays, unless what identifies a person
is beside it, as do the same words with no number after them."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from atlas.runtime import reducer
from atlas.runtime.context import model_view
from atlas.runtime.decisions import CallTool
from atlas.runtime.memory import MemoryDocumentSource
from atlas.runtime.ports import StoredDocument
from atlas.runtime.redaction import personal_data_found, personal_data_in, redact, redact_value
from atlas.runtime.tools.base import ToolContext
from atlas.runtime.tools.builtin import extract_uploaded_document
from atlas.runtime.tools.schemas import ExtractDocumentArgs
from atlas.runtime.world import default_world


@pytest.mark.parametrize(
    ("text", "redacted"),
    [
        ("Mobile: +44 7700 900123", "Mobile: [REDACTED PHONE]"),
        ("Mobile number: 07700 900123.", "Mobile number: [REDACTED PHONE]."),
        ("Cell (555) 123-4567", "Cell [REDACTED PHONE]"),
        ("Home phone: (020) 7946-0958", "Home phone: [REDACTED PHONE]"),
        ("Handynummer: 0171 1234567", "Handynummer: [REDACTED PHONE]"),
        ("Mobil: 0171/1234567", "Mobil: [REDACTED PHONE]"),
        ("Tél. portable : 06 12 34 56 78", "Tél. portable : [REDACTED PHONE]"),
        ("Teléfono móvil: +34 612 345 678", "Teléfono móvil: [REDACTED PHONE]"),
        ("GSM: +32 475 12 34 56", "GSM: [REDACTED PHONE]"),
        ("Мобильный телефон: +7 916 123-45-67", "Мобильный телефон: [REDACTED PHONE]"),
        ("mobile_number: 07700900123", "mobile_number: [REDACTED PHONE]"),
        ("Mobile: 07700 900123 (evenings)", "Mobile: [REDACTED PHONE] (evenings)"),
        (
            "Mobile: +44 7700 900123, +44 7700 900456; e-mail below",
            "Mobile: [REDACTED PHONE]; e-mail below",
        ),
    ],
)
def test_a_labelled_personal_phone_number_is_hidden_whole(text, redacted):
    assert redact(text) == redacted


@pytest.mark.parametrize(
    "text",
    [
        "Registered office telephone: phone +44 20 7946 0958",
        "Tel: +44 20 7946 0958",
        "Mobile 5G network rollout in 2023 reached 1,234,567 users",
        "mobile payments of 1234567",
        "The mobile: 2023 report",
        "Automobile 1234567",
        "Cell A1234567",
        "Mobile: 12345 and more",
    ],
)
def test_a_switchboard_and_the_words_without_a_phone_number_stay(text):
    assert redact(text) == text


@pytest.mark.parametrize(
    ("text", "redacted"),
    [
        (
            "Name: Jane Roe\nPassport No: 533380006\nPhone:\n+44 20 7946 0958",
            "Name: Jane Roe\nPassport No: [REDACTED PASSPORT]\nPhone:\n[REDACTED PHONE]",
        ),
        (
            "Tel. +44 20 7946 0958\nDate of birth: 12 March 1968",
            "Tel. [REDACTED PHONE]\nDate of birth: [REDACTED DOB]",
        ),
        (
            "Telefon: 0171 1234567, Geburtsdatum: 1970-01-02",
            "Telefon: [REDACTED PHONE], Geburtsdatum: [REDACTED DOB]",
        ),
    ],
)
def test_a_bare_phone_label_beside_a_persons_identity_is_their_own_line(text, redacted):
    """On a form that identifies a person (a passport number, a date of birth near it), a
    bare "Phone:" gives that person's number."""
    assert redact(text) == redacted


@pytest.mark.parametrize(
    ("text", "redacted"),
    [
        (
            "Passport No: 533380006\nTel/Fax: +44 20 7946 0958",
            "Passport No: [REDACTED PASSPORT]\nTel/Fax: [REDACTED PHONE]",
        ),
        (
            "DOB: 1970-01-02. Ph: 020 7946 0821",
            "DOB: [REDACTED DOB]. Ph: [REDACTED PHONE]",
        ),
        (
            "| Name | Passport | Phone |\n|---|---|---|\n| Sarah Linden | 533380006 | 020 7946 0821 |",
            "| Name | Passport | Phone |\n|---|---|---|\n"
            "| Sarah Linden | [REDACTED PASSPORT] | [REDACTED PHONE] |",
        ),
        (
            "Name\tDate of birth\tTelephone\nSarah Linden\t1970-01-02\t+44 20 7946 0821",
            "Name\tDate of birth\tTelephone\nSarah Linden\t[REDACTED DOB]\t[REDACTED PHONE]",
        ),
    ],
)
def test_more_phone_labels_and_table_columns_beside_a_persons_identity(text, redacted):
    assert redact(text) == redacted


def test_a_companys_phone_column_stays():
    table = "| Company | Company number | Phone |\n|---|---|---|\n| Acme Ltd | 08812345 | 020 7946 0821 |"
    assert redact(table) == table


def test_a_switchboard_far_from_a_persons_identity_stays():
    text = (
        "Director: Jane Roe, date of birth 1970-01-02.\n"
        + "The company's registered office is in London. " * 12
        + "\nTel: +44 20 7946 0958"
    )
    assert "Tel: +44 20 7946 0958" in redact(text)


def test_each_number_of_a_list_is_found_for_the_upload_warning():
    found = personal_data_found("Mobile: +44 7700 900123, +44 7700 900456")
    assert found == {"phone_numbers": ["+44 7700 900123", "+44 7700 900456"]}
    assert personal_data_in("Mobile: 07700 900123") == ["personal phone number"]


@pytest.mark.parametrize(
    ("table", "redacted_row"),
    [
        (
            "| Name | Mobile | Appointed |\n|---|---|---|\n| Jane Roe | +44 7700 900123 | 2014-06-12 |",
            "| Jane Roe | [REDACTED PHONE] | 2014-06-12 |",
        ),
        (
            "Name        Mobile            Appointed\nJane Roe    +44 7700 900123   2014-06-12",
            "Jane Roe    [REDACTED PHONE]   2014-06-12",
        ),
    ],
)
def test_a_mobile_column_is_hidden_and_its_other_columns_stay(table, redacted_row):
    assert redact(table).splitlines()[-1] == redacted_row


def test_structured_keys_that_name_a_personal_line_hide_their_values():
    assert redact_value(
        {"mobile": "+44 7700 900123", "mobilePhone": 7700900123, "phone": "+44 20 7946 0958"}
    ) == {
        "mobile": "[REDACTED PHONE]",
        "mobilePhone": "[REDACTED PHONE]",
        "phone": "+44 20 7946 0958",
    }


def test_an_extracted_kyc_form_shows_the_model_no_mobile_number(make_state):
    form = b"Signatory: Helen Carter\nMobile: +44 7700 900123\nTel: +44 20 7946 0958\n"
    result = extract_uploaded_document(
        ExtractDocumentArgs(document_id="doc-kyc"),
        ToolContext(
            brief=None,
            documents=MemoryDocumentSource(
                [StoredDocument(document_id="doc-kyc", name="kyc.txt", content=form)]
            ),
            world=default_world(),
        ),
    )
    assert result.fields["phone_numbers"] == ["+44 7700 900123"]
    view, _ = model_view("tool:extract_uploaded_document", result.model_dump(mode="json"))
    assert "7700 900123" not in view
    assert "Mobile: [REDACTED PHONE]" in view
    assert "+44 20 7946 0958" in view
    evidence = reducer.apply(
        make_state("Helen Carter", subject_type="person", jurisdiction=None),
        CallTool(tool_name="extract_uploaded_document", arguments={"document_id": "doc-kyc"}),
        result.model_dump(mode="json"),
        step=1,
        now=datetime(2026, 1, 5, tzinfo=UTC),
    ).evidence
    (claim,) = [item.claim for item in evidence if item.document_id == "doc-kyc"]
    assert "contains: personal phone numbers." in claim
    assert "Mobile: [REDACTED PHONE]" in claim
