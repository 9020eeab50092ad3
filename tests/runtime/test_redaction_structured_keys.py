"""Structured data whose keys say what their values are: the values are hidden for the
model whatever their shape, and other keys' values are redacted as text as before."""

from __future__ import annotations

import pytest

from atlas.runtime.context import model_view
from atlas.runtime.redaction import redact_value
from atlas.runtime.redaction_labels import field_named_by


@pytest.mark.parametrize(
    ("key", "field"),
    [
        ("passport_no", "passport_numbers"),
        ("passportNumber", "passport_numbers"),
        ("dob", "dates_of_birth"),
        ("dateOfBirth", "dates_of_birth"),
        ("IBAN", "ibans"),
        ("emailAddress", "emails"),
        ("accountNo", "account_numbers"),
        ("id_card_number", "national_id_numbers"),
        ("card_number", "card_numbers"),
    ],
)
def test_a_key_naming_personal_data_is_read_as_its_kind(key, field):
    assert field_named_by(key) == field


@pytest.mark.parametrize(
    "key",
    ["registration_number", "entity_id", "name", "birth_place", "cardholder", "listed_on"],
)
def test_other_keys_name_no_personal_data(key):
    assert field_named_by(key) is None


def test_a_providers_record_shows_the_model_no_personal_data():
    record = {
        "holder": {
            "name": "Jane Roe",
            "dob": "1970-01-02",
            "passport_no": "K7654321",
            "dateOfBirth": {"day": 2, "month": 1, "year": 1970},
            "verified": True,
        }
    }
    view, _ = model_view("tool:kyc_lookup", record)
    for value in ("1970-01-02", "K7654321", "1970"):
        assert value not in view
    assert '"name": "Jane Roe"' in view and '"verified": true' in view
    assert redact_value(record)["holder"]["dateOfBirth"] == {
        "day": "[REDACTED DOB]",
        "month": "[REDACTED DOB]",
        "year": "[REDACTED DOB]",
    }


def test_personal_data_used_as_a_key_is_redacted_and_no_value_is_lost():
    record = {
        "contacts": {"jane@example.com": "director", "john@example.org": "secretary"},
        "GB33BUKB20201555555555": {"holder": "Jane Roe"},
        7: "a key that is not text",
    }
    view, _ = model_view("tool:contacts", record)
    for value in ("jane@example.com", "john@example.org", "GB33BUKB20201555555555"):
        assert value not in view
    shown = redact_value(record)
    assert shown["contacts"] == {
        "[REDACTED EMAIL]": "director",
        "[REDACTED EMAIL] (2)": "secretary",
    }
    assert shown["[REDACTED IBAN]"] == {"holder": "Jane Roe"}
    assert shown[7] == "a key that is not text"


def test_a_value_written_out_with_escapes_is_redacted_before_it_is_escaped():
    # As JSON, the line break is "\n" and the Cyrillic label "\u043d...": the patterns see
    # neither. Each value is redacted as the text it is.
    record = {"note": "Паспорт номер 4509 123456", "wrapped": "Passport No.\nK7654321"}
    view, _ = model_view("tool:notes", record)
    assert "4509 123456" not in view and "K7654321" not in view
