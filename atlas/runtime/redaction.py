"""PII redaction for what the model sees (the store keeps the original).

Each kind of personal data is found by a label before it (`redaction_labels`), by its own
form (`redaction_numbers`: e-mail addresses, IBANs, card numbers), by the table column it
stands in (`redaction_tables`) or by its place in a passport's machine-readable zone
(`redaction_mrz`). All of them read the text once, in lower case; the spans
found are then replaced in one pass. Document extraction reads the same spans, so what is
extracted is what is redacted.
"""

from __future__ import annotations

import functools
import re

from atlas.runtime import redaction_numbers as numbers
from atlas.runtime.invisible import visible
from atlas.runtime.redaction_labels import (
    LABEL_GAP,
    NUMBER_WORD,
    Found,
    dates_beside_names,
    field_named_by,
    labelled,
    listed_numbers,
    phones_beside_a_person,
)
from atlas.runtime.redaction_mrz import mrz_spans
from atlas.runtime.redaction_tables import stacked_columns, table_columns

# How each kind of personal data is marked in redacted text, in the order they are named.
LABELS = {
    "emails": "EMAIL",
    "ibans": "IBAN",
    "passport_numbers": "PASSPORT",
    "account_numbers": "ACCOUNT",
    "card_numbers": "CARD",
    "national_id_numbers": "NATIONAL ID",
    "driving_licence_numbers": "DRIVING LICENCE",
    "dates_of_birth": "DOB",
    "phone_numbers": "PHONE",
}

# How the kinds of personal data are named to people.
PERSONAL_DATA_NAMES = {
    "emails": "e-mail address",
    "ibans": "IBAN",
    "passport_numbers": "passport number",
    "account_numbers": "account number",
    "card_numbers": "payment card number",
    "national_id_numbers": "national ID number",
    "driving_licence_numbers": "driving licence number",
    "dates_of_birth": "date of birth",
    "phone_numbers": "personal phone number",
}

# "IBAN" with an IBAN after it is no table's header.
_IBAN_WITH_VALUE = re.compile(rf"iban{NUMBER_WORD}{LABEL_GAP}[a-z]{{2}}[0-9]{{2}}")
# A list's numbers are found one by one.
_LISTED_FIELDS = ("passport_numbers", "account_numbers", "phone_numbers")


def personal_data_in(text: str) -> list[str]:
    """The kinds of personal data `text` holds, named for people, in a fixed order."""
    fields = {found.field for found in _spans(visible(text))}
    return [name for field, name in PERSONAL_DATA_NAMES.items() if field in fields]


def personal_data_found(text: str) -> dict[str, list[str]]:
    """Each kind's values in `text`, in the order found, a list read as its numbers and a
    number wrapped over lines as one: what `redact` hides."""
    by_field: dict[str, list[str]] = {}
    text = visible(text)
    for start, end, field in _spans(text):
        value = text[start:end]
        values = listed_numbers(value) if field in _LISTED_FIELDS else [value]
        for each in values:
            if each := " ".join(each.split()):
                by_field.setdefault(field, []).append(each)
    return {field: by_field[field] for field in LABELS if field in by_field}


# Shorter texts (claims, labels, names, a result's fields) come back step after step and
# are redacted once; a document's text is redacted as it comes.
_REMEMBERED_CHARS = 2_000


def redact(text: str) -> str:
    return _remembered(text) if len(text) <= _REMEMBERED_CHARS else _redacted(text)


@functools.lru_cache(maxsize=4096)
def _remembered(text: str) -> str:
    return _redacted(text)


def _redacted(text: str) -> str:
    text = visible(text)
    pieces = []
    done = 0
    for start, end, field in _spans(text):
        # The line breaks of a number wrapped over lines stay, so the lines after it stay apart.
        line_breaks = "\n" * text.count("\n", start, end)
        pieces += [text[done:start], f"[REDACTED {LABELS[field]}]", line_breaks]
        done = end
    pieces.append(text[done:])
    return "".join(pieces)


def redacted_opening(text: str, chars: int) -> str:
    """`redact(text)`, or a start of it at least `chars` characters long, read from only as
    much of `text` as that takes: a 5 MB document is not redacted whole to show its first
    3,000 characters."""
    read = chars + _UNSHOWN
    while read < len(text):
        opening = redact(text[:read])
        # A value cut off where the reading stopped is read differently from the whole:
        # what it became is among the last characters, which are not given.
        if len(opening) >= chars + _UNSHOWN:
            return opening[:-_UNSHOWN]
        read *= 2
    return redact(text)


# More than a value cut off, and its mark, can take once redacted.
_UNSHOWN = 200


def _spans(text: str) -> list[Found]:
    """What is personal data in `text`, in order, none overlapping another."""
    folded = _folded(text)
    found, bare_labels = labelled(folded)
    # First, so a stack's value keeps its own label where a label's pattern also took it.
    found = stacked_columns(folded, bare_labels) + found
    bare_labels += [
        hit.start()
        for hit in re.finditer("iban", folded)
        if not _IBAN_WITH_VALUE.match(folded, hit.start())
    ]
    found += numbers.emails(folded)
    skeleton = numbers.skeleton(folded)
    found += numbers.ibans(folded, skeleton, text)
    found += numbers.card_numbers(folded, skeleton)
    found += dates_beside_names(text, folded)
    found += mrz_spans(folded)
    found += phones_beside_a_person(folded, found)
    found += table_columns(text, folded, bare_labels, sorted(found))
    kept: list[Found] = []
    for span in sorted(found, key=lambda f: (f.start, -f.end)):
        if span.start >= span.end:
            continue
        if kept and span.start < kept[-1].end:
            if span.end > kept[-1].end:
                kept[-1] = kept[-1]._replace(end=span.end)
            continue
        kept.append(span)
    return kept


def _folded(text: str) -> str:
    """`text` in lower case, one character for each of its characters (a capital dotted
    I would otherwise become two)."""
    folded = text.lower()
    if len(folded) != len(text):
        folded = text.replace("\u0130", "I").lower()
    if not folded.isascii():
        folded = folded.translate(_FULL_WIDTH)
    return folded


# Full-width digits and letters ("５３３４０１８８２"), as East Asian input writes them, read as
# the ASCII ones: one character for one, so positions stay the text's.
_FULL_WIDTH = str.maketrans(
    {chr(0xFF10 + n): str(n) for n in range(10)}
    | {chr(0xFF41 + n): chr(ord("a") + n) for n in range(26)}
)


# Structured fields whose every value is personal data, whatever it looks like.
SENSITIVE_FIELDS = LABELS


def redact_value(value: object, key: object = None, *, chars_shown: int | None = None) -> object:
    """Redact every string inside a JSON-like value, keys too. With `chars_shown`, a long
    string is redacted only as far as that many characters of it show
    (`redacted_opening`)."""
    if key in SENSITIVE_FIELDS:
        label = SENSITIVE_FIELDS[key]
        if isinstance(value, list):
            return [f"[REDACTED {label}]" for _ in value]
        return f"[REDACTED {label}]"
    if isinstance(key, str) and (named := field_named_by(key)):
        return _hidden(value, f"[REDACTED {LABELS[named]}]")
    if isinstance(value, str):
        return redact(value) if chars_shown is None else redacted_opening(value, chars_shown)
    if isinstance(value, list):
        return [redact_value(v, chars_shown=chars_shown) for v in value]
    if isinstance(value, dict):
        shown: dict = {}
        for k, v in value.items():
            shown[_shown_key(k, shown)] = redact_value(v, k, chars_shown=chars_shown)
        return shown
    return value


def _shown_key(key: object, taken: dict) -> object:
    """`key` redacted ({"jane@example.com": ...}), and told apart from a key already
    redacted to the same mark, so that no value is lost."""
    if not isinstance(key, str):
        return key
    shown = redact(key)
    if shown not in taken:
        return shown
    number = 2
    while f"{shown} ({number})" in taken:
        number += 1
    return f"{shown} ({number})"


def _hidden(value: object, mark: str) -> object:
    """Every string and number in `value` replaced by `mark`: the value of a key that names
    personal data ("passport_no", "dateOfBirth"), however it is structured."""
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, list):
        return [_hidden(item, mark) for item in value]
    if isinstance(value, dict):
        return {key: _hidden(item, mark) for key, item in value.items()}
    return mark
