"""Dates of birth under their labels in the languages documents come in, and written all
together year first; a date or a number with no such label stays."""

from __future__ import annotations

import pytest

from atlas.runtime.redaction import personal_data_found, redact


@pytest.mark.parametrize(
    ("text", "redacted"),
    [
        ("date of birth 19700302", "date of birth [REDACTED DOB]"),
        ("Geburtsdatum: 02.03.1970", "Geburtsdatum: [REDACTED DOB]"),
        ("Geboren am 02.03.1970 in Köln", "Geboren am [REDACTED DOB] in Köln"),
        ("geb. 2. März 1970", "geb. [REDACTED DOB]"),
        ("date de naissance : 2 mars 1970", "date de naissance : [REDACTED DOB]"),
        ("née le 2 mars 1970", "née le [REDACTED DOB]"),
        ("Fecha de nacimiento: 02/03/1970", "Fecha de nacimiento: [REDACTED DOB]"),
        ("Data di nascita: 2 marzo 1970", "Data di nascita: [REDACTED DOB]"),
        ("Data de nascimento: 02/03/1970", "Data de nascimento: [REDACTED DOB]"),
        ("Geboortedatum: 02-03-1970", "Geboortedatum: [REDACTED DOB]"),
        ("Дата рождения: 02.03.1970", "Дата рождения: [REDACTED DOB]"),
    ],
)
def test_a_labelled_date_of_birth_is_hidden(text, redacted):
    assert redact(text) == redacted


def test_a_date_written_all_together_is_found_as_a_date_of_birth():
    assert personal_data_found("DOB: 19700302") == {"dates_of_birth": ["19700302"]}


@pytest.mark.parametrize(
    "text",
    [
        "invoice 19700302",  # no label
        "DOB: 19701302",  # no thirteenth month
        "Zimmer 12.03.2024, Mietvertrag",
        "Born in 1970",  # a year alone is no date
    ],
)
def test_a_date_or_number_that_is_no_birth_date_stays(text):
    assert redact(text) == text
