"""Identity numbers written as KYC forms and analysts' sentences write them: a label with
another name after a slash, the number word after the colon, what was done with the
document between; the personal tax numbers, licences and codes forms ask for. A company's
tax number stays, as research needs it."""

from __future__ import annotations

import time

import pytest

from atlas.runtime.redaction import personal_data_found, personal_data_in, redact


@pytest.mark.parametrize(
    ("text", "redacted"),
    [
        ("SSN/Tax ID: 123-45-6789", "SSN/Tax ID: [REDACTED NATIONAL ID]"),
        ("Passport / ID card no.: K7654321", "Passport / ID card no.: [REDACTED PASSPORT]"),
        ("Passport: number P4821907", "Passport: number [REDACTED PASSPORT]"),
        (
            "Her passport, number P4821907, was sighted.",
            "Her passport, number [REDACTED PASSPORT], was sighted.",
        ),
        ("passport, no. P4821907", "passport, no. [REDACTED PASSPORT]"),
        ("Passport held: 533401882", "Passport held: [REDACTED PASSPORT]"),
        (
            "Passport issued 2020, number 533401882",
            "Passport issued 2020, number [REDACTED PASSPORT]",
        ),
        ("Personal tax ID: 123-45-6789", "Personal tax ID: [REDACTED NATIONAL ID]"),
        ("Individual taxpayer ID: 987-65-4321", "Individual taxpayer ID: [REDACTED NATIONAL ID]"),
        ("ITIN 912-70-1234", "ITIN [REDACTED NATIONAL ID]"),
        ("Asmens kodas: 47503141234", "Asmens kodas: [REDACTED NATIONAL ID]"),
        (
            "Driving licence number: LINDE807220S99AB",
            "Driving licence number: [REDACTED DRIVING LICENCE]",
        ),
        (
            "Driver's license: D1234-56789-01234 expires 2030",
            "Driver's license: [REDACTED DRIVING LICENCE] expires 2030",
        ),
        (
            "Driver's licence: MORGA753116SM9IJ",
            "Driver's licence: [REDACTED DRIVING LICENCE]",
        ),
        (
            "Drivers licence MORGA 753116 SM9IJ issued 2019",
            "Drivers licence [REDACTED DRIVING LICENCE] issued 2019",
        ),
        ("Driver licence no. D1234567", "Driver licence no. [REDACTED DRIVING LICENCE]"),
        ("DL No. D1234567", "DL No. [REDACTED DRIVING LICENCE]"),
        ("DL#: D1234567", "DL#: [REDACTED DRIVING LICENCE]"),
        (
            "National ID/Registration No.: AB123456C",
            "National ID/Registration No.: [REDACTED NATIONAL ID]",
        ),
        ("Passport/Registration: K7654321", "Passport/Registration: [REDACTED PASSPORT]"),
        ("SSN/Employer ID: 123-45-6789", "SSN/Employer ID: [REDACTED NATIONAL ID]"),
        (
            "Passport issued in 2019, number 533401882",
            "Passport issued in 2019, number [REDACTED PASSPORT]",
        ),
        (
            "Date of birth/Place of birth: 01/02/1980, London",
            "Date of birth/Place of birth: [REDACTED DOB], London",
        ),
    ],
)
def test_an_identity_number_written_so_is_hidden(text, redacted):
    assert redact(text) == redacted


@pytest.mark.parametrize(
    "text",
    [
        "Company tax ID: 12/345/67890",
        "VAT number: GB 123 4567 89",
        "Passport issued 2020",
        "Passport verified.",
        "Driving licence checked.",
        "Passport issued in 2019 by UK",
        "passport verified 2020-01-01",
        "Driving licence 2019 Annual Report",
        "Personal code 2024 edition",
        "Passport: number 5 of 7",
        "National ID 2021 scheme",
        "Passport issued in 2019",
        "Passport issued in 2019, expires 2029",
        "Passport verified on 2020-01-01",
        "Passport: 2019-2029",
        "Filed its accounts (2023-04-05) and confirmation statement",
        "Last accounts: 2023-03-31",
    ],
)
def test_a_companys_number_or_a_label_without_a_number_stays(text):
    assert redact(text) == text


def test_a_kyc_form_names_every_kind_of_identity_number_it_holds():
    form = (
        "Company: Acme Analytics Ltd\nDirectors: Sarah Linden\nSSN/Tax ID: 123-45-6789\n"
        "Passport: number P4821907\nDriving licence: LINDE807220S99AB\n"
    )
    assert personal_data_found(form) == {
        "passport_numbers": ["P4821907"],
        "national_id_numbers": ["123-45-6789"],
        "driving_licence_numbers": ["LINDE807220S99AB"],
    }
    assert personal_data_in(form) == [
        "passport number",
        "national ID number",
        "driving licence number",
    ]


@pytest.mark.parametrize(
    "text",
    [
        "Passport/Company Registration No.: 07712233",
        "SSN/EIN: 12-3456789",
        "asmens kodas/įmonės kodas: 304512345",
        "Passport / VAT no.: 123456789",
        "SSN/EIN: 12-3456789",
    ],
)
def test_a_company_number_named_after_a_slash_stays(text):
    assert redact(text) == text


def test_a_slash_then_a_long_word_without_a_value_takes_linear_time():
    # A name after the slash and the gap after it could share underscores in many ways:
    # 20,000 of them cost 0.4 s, 60,000 over 3 s.
    text = "SSN/a" + "_" * 60_000
    began = time.perf_counter()
    assert redact(text) == text
    assert time.perf_counter() - began < 1.0
