"""Redaction of personal data written the ways real documents write it: lower case, dashes,
wrapped over lines, in a table's cells, in lists, in file names."""

from __future__ import annotations

import time

import pytest

from atlas.runtime.redaction import personal_data_in, redact


@pytest.mark.parametrize(
    ("text", "secrets", "label"),
    [
        ("IBAN: gb29 nwbk 6016 1331 9268 19", ["6016 1331"], "IBAN"),
        ("iban: de89370400440532013000", ["0532013000"], "IBAN"),
        ("IBAN: GB29-NWBK-6016-1331-9268-19", ["6016-1331"], "IBAN"),
        ("IBAN GB29 NWBK 6016\n1331 9268 19", ["6016", "9268 19"], "IBAN"),
        ("Passport number: K 765\n4321", ["765", "4321"], "PASSPORT"),
        ("| Passport | P1234567 |", ["P1234567"], "PASSPORT"),
        ("Passport Nr: 123456789", ["123456789"], "PASSPORT"),
        ("Passport № K7654321", ["K7654321"], "PASSPORT"),
        ('Passport: "K7654321"', ["K7654321"], "PASSPORT"),
        ("Passport: K7654321, P1234567", ["K7654321", "P1234567"], "PASSPORT"),
        ("Passport numbers: K7654321 and P1234567", ["K7654321", "P1234567"], "PASSPORT"),
        ("Account numbers: 12345678, 87654321", ["12345678", "87654321"], "ACCOUNT"),
        ("account number 1234\n5678", ["1234", "5678"], "ACCOUNT"),
        ("Jane_Roe_passport_K7654321.pdf", ["K7654321"], "PASSPORT"),
        ("statement_IBAN_GB29NWBK60161331926819.pdf", ["GB29NWBK"], "IBAN"),
    ],
)
def test_personal_data_in_odd_formats_is_redacted(text, secrets, label):
    redacted = redact(text)
    for secret in secrets:
        assert secret not in redacted
    assert f"[REDACTED {label}]" in redacted
    assert personal_data_in(text)


def test_a_number_wrapped_over_lines_keeps_the_lines_after_it_apart():
    text = "Passport number: K 765\n4321\nDirectors: Jane Roe"
    assert redact(text) == "Passport number: [REDACTED PASSPORT]\n\nDirectors: Jane Roe"


@pytest.mark.parametrize(
    ("text", "redacted"),
    [
        ("fy23 then that does rise", "fy23 then that does rise"),
        ("Reference ab12 cdef ghij klmn", "Reference ab12 cdef ghij klmn"),
        ("Passport: K7654321, 2 copies", "Passport: [REDACTED PASSPORT], 2 copies"),
    ],
)
def test_words_that_only_look_like_numbers_are_left_alone(text, redacted):
    assert redact(text) == redacted


def test_the_word_after_an_iban_in_lower_case_is_left_alone():
    text = "IBAN gb29 nwbk 6016 1331 9268 19 then more text"
    assert redact(text) == "IBAN [REDACTED IBAN] then more text"


@pytest.mark.parametrize(
    "label", ["passport", "account", "card", "ssn", "date of birth", "passport no"]
)
@pytest.mark.parametrize("gap", [" ", "\n"])
def test_a_long_gap_after_a_label_takes_linear_time(label, gap):
    # Spaces that two quantifiers could share in many ways took quadratic time: 8,000 of
    # them after "passport" cost 14 s, a 5 MB upload hours of a web process.
    text = label + gap * 20_000 + "x"
    began = time.perf_counter()
    redact(text)
    personal_data_in(text)
    assert time.perf_counter() - began < 1.0
