"""Redaction of personal data whose label and number a file name joins with "_", "-" or
".", as uploaded documents and stored paths are named, and of the same in free text; and
the file names with nothing personal in them, which stay as they are."""

from __future__ import annotations

import pytest

from atlas.runtime.redaction import personal_data_found, redact

STORED_NAME = "2024-03-01-Passport_K7654321_acct_12345678_John_Roe.txt"


def test_a_stored_file_name_keeps_its_words_and_hides_its_numbers():
    assert redact(STORED_NAME) == (
        "2024-03-01-Passport_[REDACTED PASSPORT]_acct_[REDACTED ACCOUNT]_John_Roe.txt"
    )


def test_what_a_stored_file_name_holds_is_found_as_it_is_redacted():
    assert personal_data_found(STORED_NAME) == {
        "passport_numbers": ["K7654321"],
        "account_numbers": ["12345678"],
    }


@pytest.mark.parametrize(
    ("text", "redacted"),
    [
        ("passport_no_K7654321", "passport_no_[REDACTED PASSPORT]"),
        ("passport.K7654321.pdf", "passport.[REDACTED PASSPORT].pdf"),
        ("passport.no.K7654321.pdf", "passport.no.[REDACTED PASSPORT].pdf"),
        ("passport_number_K7654321_scan.jpg", "passport_number_[REDACTED PASSPORT]_scan.jpg"),
        ("reisepass_nr_K7654321", "reisepass_nr_[REDACTED PASSPORT]"),
        ("acct_no_12345678", "acct_no_[REDACTED ACCOUNT]"),
        ("account_number_12345678_2024.pdf", "account_number_[REDACTED ACCOUNT]_2024.pdf"),
        ("cuenta_corriente_12345678", "cuenta_corriente_[REDACTED ACCOUNT]"),
        ("national_id_AB123456C.pdf", "national_id_[REDACTED NATIONAL ID].pdf"),
        ("social-security-123-45-6789.pdf", "social-security-[REDACTED NATIONAL ID].pdf"),
        ("date_of_birth_1970-01-02_Jane", "date_of_birth_[REDACTED DOB]_Jane"),
        ("Date.of.Birth_12_March_1968.pdf", "Date.of.Birth_[REDACTED DOB].pdf"),
        ("dob_1970_01_02.pdf", "dob_[REDACTED DOB].pdf"),
        # Capitals in groups after the label are an IBAN even mistyped (a check digit off).
        ("IBAN_No_GB82WEST12345698765431.pdf", "IBAN_No_[REDACTED IBAN].pdf"),
        ("iban.GB82WEST12345698765431.pdf", "iban.[REDACTED IBAN].pdf"),
    ],
)
def test_a_label_joined_to_its_number_is_redacted_as_its_spaced_form_is(text, redacted):
    assert redact(text) == redacted


@pytest.mark.parametrize(
    ("text", "redacted"),
    [
        ("Passport-No-K7654321.pdf", "Passport-No-[REDACTED PASSPORT].pdf"),
        ("account.12345678.csv", "account.[REDACTED ACCOUNT].csv"),
        ("card_no_4111111111111111_Roe", "card_no_[REDACTED CARD]_Roe"),
        ("statement_iban_GB82WEST12345698765432.pdf", "statement_iban_[REDACTED IBAN].pdf"),
        ("contact_jane.roe@example.com", "[REDACTED EMAIL]"),
    ],
)
def test_the_joined_forms_redacted_before_still_are(text, redacted):
    assert redact(text) == redacted


def test_joined_labels_in_free_text_are_redacted():
    text = "Uploaded passport_no K7654321; the date_of_birth: 1970-01-02 was checked."
    assert redact(text) == (
        "Uploaded passport_no [REDACTED PASSPORT]; the date_of_birth: [REDACTED DOB] was checked."
    )


def test_a_table_headed_by_joined_labels_is_redacted():
    table = "| name | date_of_birth | passport_no |\n| Jane Roe | 1970-01-02 | K7654321 |"
    assert redact(table).endswith("| Jane Roe | [REDACTED DOB] | [REDACTED PASSPORT] |")


@pytest.mark.parametrize(
    "text",
    [
        "invoice_2024_03.pdf",
        "case_12345678.pdf",
        "Case_2024-00123_passport_scan.pdf",
        "release_v1.2.3_build_12345678.tar.gz",
        "sha256_3f2a9c1b7e4d9a0b.bin",
        "passport_photo_2024.jpg",
        "passport.2024.pdf",
        "passport.v2.jpg",
        "passport-renewal-2024-03.pdf",
        "account_summary_2024_03.pdf",
        "account_2024_03_statement.pdf",
        "accountant_12345678.pdf",
        "card_2024.pdf",
        "dob_2024_report.pdf",
    ],
)
def test_file_names_with_nothing_personal_are_left_alone(text):
    assert redact(text) == text
