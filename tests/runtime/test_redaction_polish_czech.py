"""Personal data under the labels Polish and Czech KYC documents give it is hidden as the
English labels' is: the number word may come before the label ("Numer paszportu", "Číslo
pasu"), labels are declined ("rachunku", "dowodu osobistego"), and the numbers have their
own shapes (Poland's 26-digit account number, a Czech account's bank code, the rodné
číslo's slash, a date with a space after each full stop)."""

from __future__ import annotations

import pytest

from atlas.runtime.redaction import personal_data_found, redact


@pytest.mark.parametrize(
    ("text", "redacted"),
    [
        ("Numer paszportu: AB1234567", "Numer paszportu: [REDACTED PASSPORT]"),
        ("Paszport nr AB1234567", "Paszport nr [REDACTED PASSPORT]"),
        ("Číslo pasu: 12345678", "Číslo pasu: [REDACTED PASSPORT]"),
        ("Cestovní pas č. 12345678", "Cestovní pas č. [REDACTED PASSPORT]"),
        (
            "Numer rachunku: 12 1020 1026 0000 0402 0123 4567",
            "Numer rachunku: [REDACTED ACCOUNT]",
        ),
        ("Nr konta: 12345678901", "Nr konta: [REDACTED ACCOUNT]"),
        ("Číslo účtu: 123456789/0800", "Číslo účtu: [REDACTED ACCOUNT]"),
        ("Dowód osobisty: ABC123456", "Dowód osobisty: [REDACTED NATIONAL ID]"),
        (
            "Numer dowodu osobistego: ABC123456",
            "Numer dowodu osobistego: [REDACTED NATIONAL ID]",
        ),
        ("Občanský průkaz č. 123456789", "Občanský průkaz č. [REDACTED NATIONAL ID]"),
        ("Rodné číslo: 750314/1234", "Rodné číslo: [REDACTED NATIONAL ID]"),
        ("Data urodzenia: 14.03.1975", "Data urodzenia: [REDACTED DOB]"),
        ("Jan Kowalski, ur. 14.03.1975 w Krakowie", "Jan Kowalski, ur. [REDACTED DOB] w Krakowie"),
        ("Datum narození: 14. 3. 1975", "Datum narození: [REDACTED DOB]"),
        ("Jana Nováková, nar. 14. 3. 1975", "Jana Nováková, nar. [REDACTED DOB]"),
        ("Telefon komórkowy: +48 601 234 567", "Telefon komórkowy: [REDACTED PHONE]"),
        ("Tel. kom.: 601 234 567", "Tel. kom.: [REDACTED PHONE]"),
        ("Mobilní telefon: +420 601 234 567", "Mobilní telefon: [REDACTED PHONE]"),
    ],
)
def test_a_labelled_number_in_polish_or_czech_is_hidden_whole(text, redacted):
    assert redact(text) == redacted


@pytest.mark.parametrize(
    "text",
    [
        "Kompasu 1234567",
        "Pasu ruchu 2",
        "Fleur. 12.03.2020",
        "KRS 0000123456; NIP 5261040828; REGON 012345678.",
        "Kapitał zakładowy 1 000 000 zł; przychody 12 500 000 zł w 2023 r.",
        "IČO 12345678, zapsaná 14. 3. 2010 u Městského soudu v Praze.",
    ],
)
def test_company_numbers_and_ordinary_words_stay(text):
    assert redact(text) == text


def test_a_polish_kyc_table_hides_its_personal_columns_and_keeps_the_issue_date():
    table = (
        "| Imię i nazwisko | Numer paszportu | Data wydania paszportu | Data urodzenia |\n"
        "|---|---|---|---|\n"
        "| Jan Kowalski | AB1234567 | 2019-03-01 | 1975-03-14 |\n"
    )
    assert redact(table).splitlines()[-1] == (
        "| Jan Kowalski | [REDACTED PASSPORT] | 2019-03-01 | [REDACTED DOB] |"
    )


def test_the_upload_warning_names_each_kind_found_in_a_czech_form():
    form = "Jméno: Jana Nováková\nRodné číslo: 755314/1234\nČíslo pasu: 12345678\n"
    assert personal_data_found(form) == {
        "passport_numbers": ["12345678"],
        "national_id_numbers": ["755314/1234"],
    }
