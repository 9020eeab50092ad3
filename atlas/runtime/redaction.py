"""PII redaction for what the model sees (the store keeps the original)."""

from __future__ import annotations

import re

# "No.", "Nr", "numbers" or "#" after a label such as "Passport". Atomic, as is the gap
# after it: whitespace that could be split between two quantifiers in many ways made a
# long run of spaces after a label cost quadratic time.
_NUMBER_WORD = r"(?>\s*(?:numbers?|nos?\.?|nr\.?|#|№|code))?"
# Between a label and its value: spaces or line breaks, a colon, "=" or a dash, a table's
# bars ("| Passport | K7654321 |"), a file name's underscores ("passport_K7654321.pdf"),
# and a quotation mark before the value.
_LABEL_GAP = r"""(?>[\s_|]*(?:[:#=–—-][\s_|]*)?["'“‘]?)"""
# Between the groups of a number: a space or a dash, or a line break where it was wrapped.
_GROUP_GAP = r"(?:[ -]|[ \t]*\r?\n[ \t]*)"
# At least six characters in groups, each after an optional letter prefix holding a digit:
# "K7654321", "K 765 4321", "QQ 12 34 56", not "see page 2" nor the words after a number.
_GROUPED_NUMBER = (
    rf"(?=[A-Z0-9\s-]{{6}})(?:[A-Z]{{1,3}}[ -]?)?\d[A-Z0-9]*(?:{_GROUP_GAP}\d[A-Z0-9]*){{0,5}}"
)
# Between the numbers of a list ("K7654321, P1234567", "12345678 and 87654321").
_LIST_SEPARATOR = r"\s*(?:[,;&]|\band\b|\bor\b)\s*"
# A further number in a list has at least five digits, so "K7654321, 2 copies" ends at
# the first.
_ANOTHER_NUMBER = r"(?=(?:[A-Z -]{0,4}\d){5})"
_ACCOUNT_NUMBER = r"\d(?:[\d -]|\r?\n(?=[ ]*\d)){5,24}\d"


def _listed(number: str) -> str:
    """`number`, or a list of such numbers."""
    return rf"{number}(?:{_LIST_SEPARATOR}{_ANOTHER_NUMBER}{number})*"


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
    # Capitals in groups of four as banks print them, or in lower case; which of them is an
    # IBAN `_iban_part` decides.
    "ibans": (
        "IBAN",
        re.compile(
            r"(?P<prefix>)(?<![A-Za-z0-9])(?P<value>"
            rf"[A-Z]{{2}}\d{{2}}(?:{_GROUP_GAP}?[A-Z0-9]{{4}}){{2,7}}(?:[ -]?[A-Z0-9]{{1,4}})?"
            rf"|[a-z]{{2}}\d{{2}}(?:{_GROUP_GAP}?[a-z0-9]{{4}}){{2,7}}(?:[ -]?[a-z0-9]{{1,4}})?"
            r")(?![A-Za-z0-9])"
        ),
    ),
    # A passport number has a digit ("passport numbers" is a phrase, not a number) and may
    # be written in groups ("K 765 4321", "GB-1234567").
    "passport_numbers": (
        "PASSPORT",
        re.compile(
            rf"(?i)(?P<prefix>passport{_NUMBER_WORD}{_LABEL_GAP})"
            rf"(?P<value>{_listed(_GROUPED_NUMBER)})\b"
        ),
    ),
    "account_numbers": (
        "ACCOUNT",
        re.compile(
            rf"(?i)(?P<prefix>(?:account|acct\.?|a/c){_NUMBER_WORD}{_LABEL_GAP})"
            rf"(?P<value>{_listed(_ACCOUNT_NUMBER)})\b"
        ),
    ),
    "card_numbers": (
        "CARD",
        re.compile(
            rf"(?i)(?P<prefix>\bcard{_NUMBER_WORD}{_LABEL_GAP})(?P<value>\d(?:[ -]?\d){{12,18}})\b"
        ),
    ),
    "national_id_numbers": (
        "NATIONAL ID",
        re.compile(
            r"(?i)(?P<prefix>(?:\bssn\b|\bnino\b|social security|national insurance"
            r"|national id(?:entity)?(?: card)?|personal id(?:entification|entity)?)"
            rf"{_NUMBER_WORD}{_LABEL_GAP})(?P<value>{_GROUPED_NUMBER}(?: [A-D]\b)?)"
        ),
    ),
    "dates_of_birth": (
        "DOB",
        re.compile(
            rf"(?i)(?P<prefix>(?:date of birth|\bdob\b|\bborn(?: on)?){_LABEL_GAP})"
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
        if any(_personal_part(field, m["value"]) for m in pattern.finditer(text))
    ]


def personal_data_found(text: str) -> dict[str, list[str]]:
    """Each kind's values in `text`, in the order found, a list read as its numbers and a
    number wrapped over lines as one: what `redact` hides."""
    found: dict[str, list[str]] = {}
    for field, (_, pattern) in PERSONAL_DATA.items():
        for match in pattern.finditer(text):
            for value in re.split(_LIST_SEPARATOR, _personal_part(field, match["value"])):
                if value := " ".join(value.split()):
                    found.setdefault(field, []).append(value)
    return found


def redact(text: str) -> str:
    for field, (label, pattern) in PERSONAL_DATA.items():
        text = pattern.sub(lambda m, f=field, label=label: _redacted(m, f, label), text)
    return text


def _redacted(match: re.Match[str], field: str, label: str) -> str:
    value = match["value"]
    part = _personal_part(field, value)
    if not part:
        return match[0]
    # The line breaks of a number wrapped over lines stay, so the lines after it stay apart.
    return f"{match['prefix']}[REDACTED {label}]" + "\n" * part.count("\n") + value[len(part) :]


def _personal_part(field: str, value: str) -> str:
    """The part of a matched value that is personal data: all of it but for an IBAN."""
    return _iban_part(value) if field == "ibans" else value


def _iban_part(value: str) -> str:
    """The IBAN `value` starts with. Capitals in groups are one as banks print it; ordinary
    words can look like one in lower case ("fy23 then that"), so there it is the longest
    start, group by group, whose check digits hold (a word matched after it is left out)."""
    if value.isupper():
        return value
    ends = [gap.start() for gap in re.finditer(r"[\s-]+", value)]
    for end in [len(value), *reversed(ends)]:
        if _check_digits_hold(value[:end]):
            return value[:end]
    return ""


def _check_digits_hold(iban: str) -> bool:
    """ISO 13616: the IBAN with its first four characters moved to the end, letters as
    numbers (A=10 … Z=35), leaves 1 when divided by 97."""
    compact = iban.translate(_NO_GAPS)
    if not 15 <= len(compact) <= 34 or not compact.isalnum() or not compact.isascii():
        return False
    remainder = 0
    for char in compact[4:] + compact[:4]:
        number = int(char, 36)
        remainder = (remainder * (100 if number > 9 else 10) + number) % 97
    return remainder == 1


_NO_GAPS = str.maketrans("", "", " \t\r\n-")


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
