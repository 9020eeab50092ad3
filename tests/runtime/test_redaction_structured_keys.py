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
