"""Passport and account numbers under labels in other languages, and IBANs and card numbers
with no label at all, known by their check digits."""

from __future__ import annotations

import pytest

from atlas.runtime.redaction import personal_data_found, redact


@pytest.mark.parametrize(
    ("line", "secret", "label"),
    [
        ("Reisepass: C01X00T47", "C01X00T47", "PASSPORT"),
        ("Reisepassnummer: C01X00T47", "C01X00T47", "PASSPORT"),
        ("Reisepass-Nr. C01X00T47", "C01X00T47", "PASSPORT"),
        ("Kontonummer: 1234567890", "1234567890", "ACCOUNT"),
        ("Girokontonummer: 1234567890", "1234567890", "ACCOUNT"),
        ("Konto-Nr.: 1234567890", "1234567890", "ACCOUNT"),
        ("Passeport : 12AB34567", "12AB34567", "PASSPORT"),
        ("N° de passeport : 12AB34567", "12AB34567", "PASSPORT"),
        ("Numéro de compte : 12345678901", "12345678901", "ACCOUNT"),
        ("Pasaporte: XDC123456", "XDC123456", "PASSPORT"),
        ("Número de pasaporte: XDC123456", "XDC123456", "PASSPORT"),
        ("Número de cuenta: 0049 1500 05 1234567890", "1234567890", "ACCOUNT"),
        ("Passaporto n. YA1234567", "YA1234567", "PASSPORT"),
        ("Conto corrente n. 000012345678", "000012345678", "ACCOUNT"),
        ("Numero di conto: 000012345678", "000012345678", "ACCOUNT"),
        ("Paspoort: NXC3PF2L8", "NXC3PF2L8", "PASSPORT"),
        ("Paspoortnummer NXC3PF2L8", "NXC3PF2L8", "PASSPORT"),
        ("Rekeningnummer: 123456789", "123456789", "ACCOUNT"),
        ("Bankrekening 123456789", "123456789", "ACCOUNT"),
        ("Паспорт: 4506 123456", "123456", "PASSPORT"),
        ("Номер паспорта: 4506 123456", "123456", "PASSPORT"),
        ("Счёт № 40817810099910004312", "40817810099910004312", "ACCOUNT"),
        ("Номер счета: 40817810099910004312", "40817810099910004312", "ACCOUNT"),
        ("Расчетный счет 40817810099910004312", "40817810099910004312", "ACCOUNT"),
    ],
)
def test_labels_in_other_languages_are_recognised(line, secret, label):
    redacted = redact(f"Jane Roe\n{line}\nStatus: aktiv")
    assert secret not in redacted
    assert f"[REDACTED {label}]" in redacted
    assert redacted.startswith("Jane Roe\n") and redacted.endswith("\nStatus: aktiv")


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("Paid into DE89370400440532013000 on Monday.", "DE89370400440532013000"),
        ("Paid into GB29 NWBK 6016 1331 9268 19 on Monday.", "6016 1331"),
        ("paid into gb29 nwbk 6016 1331 9268 19 then left", "6016 1331"),
        ("Beneficiary FR14 2004 1010 0505 0001 3M02 606", "0505 0001"),
        ("Ref SC123456 GB29 NWBK 6016 1331 9268 19", "6016 1331"),
    ],
)
def test_an_iban_with_no_label_is_redacted_when_its_check_digits_hold(text, secret):
    redacted = redact(text)
    assert secret not in redacted
    assert "[REDACTED IBAN]" in redacted


@pytest.mark.parametrize(
    "text",
    [
        "Order reference XY12 ABCD EFGH IJKL shipped.",
        "Paid into GB29 NWBK 6016 1331 9268 18 on Monday.",  # one digit wrong
        "Model AB12 3456 7890 1234 in stock.",
    ],
)
def test_a_code_shaped_like_an_iban_whose_check_digits_fail_is_left_alone(text):
    assert redact(text) == text


def test_an_iban_after_its_label_is_redacted_even_mistyped():
    assert redact("IBAN: GB29 NWBK 6016 1331 9268 18") == "IBAN: [REDACTED IBAN]"


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("Paid with 4111 1111 1111 1111 on Monday", "4111 1111"),
        ("Paid with 4111-1111-1111-1111 on Monday", "1111-1111"),
        ("Paid with 5500005555555559.", "5500005555555559"),
        ("Amex 3782 822463 10005 on file", "822463"),
        ("Visa 4222222222222 (13 digits)", "4222222222222"),
    ],
)
def test_a_card_number_with_no_label_is_redacted_when_it_passes_the_luhn_check(text, secret):
    redacted = redact(text)
    assert secret not in redacted
    assert "[REDACTED CARD]" in redacted
    assert personal_data_found(text)["card_numbers"]


@pytest.mark.parametrize(
    "text",
    [
        "Invoice 4111 1111 1111 1112 is due",  # fails the Luhn check
        "Timestamp 1700000000000 logged",  # passes it, but no card starts with 1
        "SIRET 73282932000074",  # a company's number: France's pass the Luhn check
        "Numéro SIRET : 732 829 320 00074",
        "Registration number 4111111111111111",
        "Total 4 111 111 111 111 EUR",  # an amount in groups of three
        "CNPJ 41111111111114",  # a Brazilian company's number, Luhn-valid
    ],
)
def test_a_number_that_is_no_card_is_left_alone(text):
    assert redact(text) == text


@pytest.mark.parametrize(
    "text",
    [
        "Skonto: 3 % bis 12.03.2024",
        "Kontostand: 1.250.000,00 EUR",
        "Sconto del 10% sul totale di 1.500.000 EUR",
        "Le passeport a été délivré le 12/03/2020 à Paris.",
        "El pasaporte caduca el 12 de marzo de 2031.",
        "Паспорт выдан 12.03.2020.",
    ],
)
def test_words_in_other_languages_near_numbers_that_are_no_label_are_left_alone(text):
    assert redact(text) == text
