"""PII redaction for what the model sees (the store keeps the original)."""

from __future__ import annotations

import re

# "No.", "number" or "#" after a label such as "Passport".
_NUMBER_WORD = r"(?:\s*(?:no\.?|number|#|code))?"
# At least six characters in groups, each after an optional letter prefix holding a digit:
# "K7654321", "K 765 4321", "QQ 12 34 56", not "see page 2" nor the words after a number.
_GROUPED_NUMBER = r"(?=[A-Z0-9 -]{6})(?:[A-Z]{1,3}[ -]?)?\d[A-Z0-9]*(?:[ -]\d[A-Z0-9]*){0,5}"

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
    # A passport number has a digit ("passport numbers" is a phrase, not a number) and may
    # be written in groups ("K 765 4321", "GB-1234567").
    "passport_numbers": (
        "PASSPORT",
        re.compile(
            rf"(?i)(?P<prefix>passport{_NUMBER_WORD}\s*[:#]?\s*)(?P<value>{_GROUPED_NUMBER})\b"
        ),
    ),
    "account_numbers": (
        "ACCOUNT",
        re.compile(
            rf"(?i)(?P<prefix>(?:account|acct\.?|a/c){_NUMBER_WORD}\s*[:#]?\s*)"
            r"(?P<value>\d[\d -]{5,24}\d)\b"
        ),
    ),
    "card_numbers": (
        "CARD",
        re.compile(
            rf"(?i)(?P<prefix>\bcard{_NUMBER_WORD}\s*[:#]?\s*)(?P<value>\d(?:[ -]?\d){{12,18}})\b"
        ),
    ),
    "national_id_numbers": (
        "NATIONAL ID",
        re.compile(
            r"(?i)(?P<prefix>(?:\bssn\b|\bnino\b|social security|national insurance"
            r"|national id(?:entity)?(?: card)?|personal id(?:entification|entity)?)"
            rf"{_NUMBER_WORD}\s*[:#]?\s*)(?P<value>{_GROUPED_NUMBER}(?: [A-D]\b)?)"
        ),
    ),
    "dates_of_birth": (
        "DOB",
        re.compile(
            r"(?i)(?P<prefix>(?:date of birth|\bdob\b|\bborn(?: on)?)\s*[:–-]?\s*)"
            r"(?P<value>\d{1,4}[-/.]\d{1,2}[-/.]\d{1,4}|\d{1,2} [A-Za-z]+ \d{4}"
            r"|[A-Za-z]{3,9}\.? \d{1,2},? \d{4})"
        ),
    ),
}


# How the kinds of personal data are named to people.
PERSONAL_DATA_NAMES = {
    "emails": "e-mail address",
    "ibans": "IBAN",
    "passport_numbers": "passport number",
    "account_numbers": "account number",
    "card_numbers": "payment card number",
    "national_id_numbers": "national ID number",
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
