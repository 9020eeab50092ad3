"""PII redaction for what the model sees (the store keeps the original)."""

from __future__ import annotations

import re

# Personal data by the name of the extracted field that holds it: (label, pattern). Each
# pattern's group "prefix" is a keyword that stays visible, group "value" the data itself.
# Document extraction reads the same patterns, so what is extracted is what is redacted.
PERSONAL_DATA: dict[str, tuple[str, re.Pattern[str]]] = {
    "emails": (
        "EMAIL",
        # The look-behind starts a match only where a run of address characters starts:
        # tried at every position, a long run without "@" costs quadratic time.
        re.compile(
            r"(?P<prefix>)(?<![A-Za-z0-9._%+-])"
            r"(?P<value>[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,})"
        ),
    ),
    "ibans": (
        "IBAN",
        re.compile(
            r"(?P<prefix>)\b(?P<value>[A-Z]{2}\d{2}(?:[ ]?[A-Z0-9]{4}){2,7}(?:[ ]?[A-Z0-9]{1,4})?)\b"
        ),
    ),
    # A passport number has a digit: "passport numbers" is a phrase, not a number.
    "passport_numbers": (
        "PASSPORT",
        re.compile(
            r"(?i)(?P<prefix>passport(?:\s*(?:no\.?|number|#))?\s*[:#]?\s*)"
            r"(?P<value>(?=[A-Z]*\d)[A-Z0-9]{6,10})\b"
        ),
    ),
    "account_numbers": (
        "ACCOUNT",
        re.compile(
            r"(?i)(?P<prefix>account(?:\s*(?:no\.?|number|#))?\s*[:#]?\s*)"
            r"(?P<value>\d[\d -]{5,24}\d)\b"
        ),
    ),
    "dates_of_birth": (
        "DOB",
        re.compile(
            r"(?i)(?P<prefix>(?:date of birth|\bdob\b|born on)\s*:?\s*)"
            r"(?P<value>\d{1,4}[-/.]\d{1,2}[-/.]\d{1,4}|\d{1,2} [A-Za-z]+ \d{4})"
        ),
    ),
}


# How the kinds of personal data are named to people.
PERSONAL_DATA_NAMES = {
    "emails": "e-mail address",
    "ibans": "IBAN",
    "passport_numbers": "passport number",
    "account_numbers": "account number",
    "dates_of_birth": "date of birth",
}


def personal_data_in(text: str) -> list[str]:
    """The kinds of personal data `text` holds, named for people, in a fixed order."""
    return [
        PERSONAL_DATA_NAMES[field]
        for field, (_, pattern) in PERSONAL_DATA.items()
        if pattern.search(text)
    ]


def redact(text: str) -> str:
    for label, pattern in PERSONAL_DATA.values():
        text = pattern.sub(lambda m, label=label: f"{m['prefix']}[REDACTED {label}]", text)
    return text


# Structured fields whose every value is personal data, whatever it looks like.
SENSITIVE_FIELDS = {field: label for field, (label, _) in PERSONAL_DATA.items()}


def redact_value(value: object, key: str | None = None) -> object:
    """Redact every string inside a JSON-like value."""
    if key in SENSITIVE_FIELDS:
        label = SENSITIVE_FIELDS[key]
        if isinstance(value, list):
            return [f"[REDACTED {label}]" for _ in value]
        return f"[REDACTED {label}]"
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, list):
        return [redact_value(v) for v in value]
    if isinstance(value, dict):
        return {k: redact_value(v, k) for k, v in value.items()}
    return value
