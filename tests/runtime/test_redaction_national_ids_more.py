"""National identity numbers under the labels KYC documents give them in English and other
languages, hidden whole however they are grouped; the same words without a number stay."""

from __future__ import annotations

import pytest

from atlas.runtime.redaction import personal_data_found, redact


@pytest.mark.parametrize(
    ("text", "redacted"),
    [
        ("ID card number: AB1234567", "ID card number: [REDACTED NATIONAL ID]"),
        ("identity card no. AB1234567", "identity card no. [REDACTED NATIONAL ID]"),
        ("Personalausweisnummer: L01X00T47", "Personalausweisnummer: [REDACTED NATIONAL ID]"),
        ("Ausweis-Nr.: L01X00T47", "Ausweis-Nr.: [REDACTED NATIONAL ID]"),
        ("Steuer-ID: 12 345 678 901", "Steuer-ID: [REDACTED NATIONAL ID]"),
        ("carte d'identité n° AB1234567", "carte d'identité n° [REDACTED NATIONAL ID]"),
        (
            "numéro de sécurité sociale : 1 85 05 78 006 084 36.",
            "numéro de sécurité sociale : [REDACTED NATIONAL ID].",
        ),
        ("DNI: 12345678Z", "DNI: [REDACTED NATIONAL ID]"),
        ("Codice fiscale: RSSMRA85T10A562S", "Codice fiscale: [REDACTED NATIONAL ID]"),
        ("BSN: 123456782. Next", "BSN: [REDACTED NATIONAL ID]. Next"),
        ("PESEL: 85051212345", "PESEL: [REDACTED NATIONAL ID]"),
        ("CPF: 123.456.789-09", "CPF: [REDACTED NATIONAL ID]"),
        ("Aadhaar: 1234 5678 9012", "Aadhaar: [REDACTED NATIONAL ID]"),
    ],
)
def test_a_labelled_national_id_is_hidden_whole(text, redacted):
    assert redact(text) == redacted


def test_a_national_id_in_a_document_is_found_for_the_upload_warning():
    found = personal_data_found("Name: Jane Roe\nPersonalausweis Nr. L01X00T47\n")
    assert found == {"national_id_numbers": ["L01X00T47"]}


@pytest.mark.parametrize(
    "text",
    [
        "the ID card was issued in 2019 by the city",
        "bsn was mentioned 3 times",
        "Ausweis vorgelegt am 12.03.2024",
        "Pesel-Verfahren, Seite 4",
    ],
)
def test_the_labels_without_a_number_after_them_leave_the_text(text):
    assert redact(text) == text
