"""PII redaction for what the model sees (the store keeps the original)."""

from __future__ import annotations

import re

# (label, pattern); group 1, when present, is a keyword prefix that stays visible.
_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    ("EMAIL", re.compile(r"()[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}")),
    ("IBAN", re.compile(r"()\b[A-Z]{2}\d{2}(?:[ ]?[A-Z0-9]{4}){2,7}(?:[ ]?[A-Z0-9]{1,4})?\b")),
    (
        "PASSPORT",
        # A passport number has a digit: "passport numbers" is a phrase, not a number.
        re.compile(
            r"(?i)(passport(?:\s*(?:no\.?|number|#))?\s*[:#]?\s*)(?=[A-Z]*\d)[A-Z0-9]{6,10}\b"
        ),
    ),
    (
        "ACCOUNT",
        re.compile(r"(?i)(account(?:\s*(?:no\.?|number|#))?\s*[:#]?\s*)\d[\d -]{5,24}\d\b"),
    ),
    (
        "DOB",
        re.compile(
            r"(?i)((?:date of birth|\bdob\b|born on)\s*:?\s*)"
            r"(?:\d{1,4}[-/.]\d{1,2}[-/.]\d{1,4}|\d{1,2} [A-Za-z]+ \d{4})"
        ),
    ),
]


def redact(text: str) -> str:
    for label, pattern in _PATTERNS:
        text = pattern.sub(lambda m, label=label: f"{m.group(1)}[REDACTED {label}]", text)
    return text


# Structured fields whose every value is personal data, whatever it looks like.
SENSITIVE_FIELDS = {
    "passport_numbers": "PASSPORT",
    "account_numbers": "ACCOUNT",
    "ibans": "IBAN",
    "emails": "EMAIL",
    "dates_of_birth": "DOB",
}


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
