"""Personal data recognised by its own form, with no label: e-mail addresses, IBANs whose
check digits hold, and payment card numbers that pass the Luhn check.

IBANs and card numbers are looked for in the text's `skeleton`: one byte for each of its
characters, "a" for a Latin letter, "0" for a digit. Their patterns then start with a
literal ("aa00", "0000") that the regex engine finds as fast as a plain string search,
where a pattern starting with a class of characters is tried at every position."""

from __future__ import annotations

import re

from atlas.runtime.redaction_labels import GROUP_GAP, Found

_LOCAL_PART_CHARS = "abcdefghijklmnopqrstuvwxyz0123456789._%+-"
_DOMAIN = re.compile(r"[a-z0-9.-]+\.[a-z]{2,}")
_AT_BEFORE_A_DOMAIN = re.compile(r"@(?=[a-z0-9.-])")
# Four characters in groups as banks print them, or all together; which start of it is
# an IBAN `iban_length` decides.
_IBAN_SHAPE = re.compile(rf"aa00(?:{GROUP_GAP}?[a0]{{4}}){{2,7}}(?:[ -]?[a0]{{1,4}})?".encode())
_IBAN_LABEL_BEFORE = re.compile(r"iban(?:[\s-]*(?:no\.?|nr\.?|number|#))?[\s_|:=#-]*\Z")
# Written all together, or in groups of four (4-4-4-4, 4-4-4-4-3) or 4-6-5 (American
# Express, Diners Club): amounts in groups of three are none of these.
_CARD_SHAPE = re.compile(
    rb"0000(?:0{9,15}|([ -])0000(?:\1)0000(?:\1)0{1,4}(?:(?:\1)0{1,3})?|([ -])0{6}(?:\2)0{4,5})"
)
# A company's number can pass the Luhn check (France's SIRET does by design): one the line
# names as such is not a card.
_COMPANY_NUMBER_BEFORE = re.compile(
    r"\b(?:regist|reg\b|reg\.|company|siret|siren|kvk|vat|tax|hrb|crn|handelsregister|rcs"
    r"|ust|steuer|tva|iva|cif|nif|cnpj|abn|acn|lei|gst|nit|rut|ruc|krs|regon|nip|oib|cvr"
    r"|org\.? ?nr|инн|огрн)[^\n]{0,30}\Z"
)
_SKELETON = bytes.maketrans(b"abcdefghijklmnopqrstuvwxyz0123456789", b"a" * 26 + b"0" * 10)
_GAP_CHARS = frozenset(" \t\r\n-")
_FIRST_GAP = re.compile(rb"[ \t\r\n-]+")
_NO_GAPS = str.maketrans("", "", " \t\r\n-")
_LETTERS_AS_NUMBERS = str.maketrans({chr(code): str(code - 55) for code in range(65, 91)})


def skeleton(folded: str) -> bytes:
    # Any other character becomes "?": one byte still, so positions stay the text's.
    return folded.encode("ascii", "replace").translate(_SKELETON)


def emails(folded: str) -> list[Found]:
    found = []
    after_last_at = 0
    for at in _AT_BEFORE_A_DOMAIN.finditer(folded):
        # Runs of address characters end at an "@": each is stripped once, so many "@"s
        # in a long run cost linear time.
        before = folded[after_last_at : at.start()]
        local = len(before) - len(before.rstrip(_LOCAL_PART_CHARS))
        after_last_at = at.end()
        domain = _DOMAIN.match(folded, at.end())
        if local and domain:
            found.append(Found(at.start() - local, domain.end(), "emails"))
    return found


def ibans(folded: str, skeleton: bytes, original: str) -> list[Found]:
    found = []
    at = 0
    while match := _IBAN_SHAPE.search(skeleton, at):
        start, end = match.span()
        at = end
        if start and folded[start - 1].isalnum() or folded[end : end + 1].isalnum():
            continue
        # After the label "IBAN", capitals in groups are one as banks print it, even one
        # mistyped. Anywhere else, and in lower case, where ordinary words can look like
        # one ("fy23 then that"), it is the longest start whose check digits hold.
        if original[start:end].isupper() and _labelled_as_iban(folded, start):
            iban_end = end
        else:
            iban_end = start + iban_length(folded[start:end])
        if iban_end > start:
            found.append(Found(start, iban_end, "ibans"))
            at = iban_end
        elif (gap := _FIRST_GAP.search(skeleton, start, end)) and gap.start() - start > 4:
            # What matched may start with a word glued to its first group ("SC123456 GB29
            # NWBK …"): the IBAN may start after it.
            at = gap.end()
    return found


def _labelled_as_iban(folded: str, start: int) -> bool:
    return bool(_IBAN_LABEL_BEFORE.search(folded, max(0, start - 40), start))


def iban_length(value: str) -> int:
    """How long the IBAN `value` starts with is, group by group (a word matched after it
    is left out), or 0. ISO 13616: the IBAN with its first four characters moved to the
    end, letters as numbers (A=10 … Z=35), leaves 1 when divided by 97."""
    compact = value.translate(_NO_GAPS)
    if 15 <= len(compact) <= 34 and _check_digits_hold(compact):
        return len(value)
    country_and_check = int(value[:4].upper().translate(_LETTERS_AS_NUMBERS))  # six digits
    remainder, length, longest = 0, 4, 0
    for index in range(4, len(value)):
        char = value[index]
        if char in _GAP_CHARS:
            continue
        number = int(char, 36)
        remainder = (remainder * (100 if number > 9 else 10) + number) % 97
        length += 1
        group_ends = index + 1 == len(value) or value[index + 1] in _GAP_CHARS
        if group_ends and 15 <= length <= 34 and (remainder * 10**6 + country_and_check) % 97 == 1:
            longest = index + 1
    return longest


def _check_digits_hold(compact: str) -> bool:
    return int((compact[4:] + compact[:4]).upper().translate(_LETTERS_AS_NUMBERS)) % 97 == 1


def card_numbers(folded: str, skeleton: bytes) -> list[Found]:
    found = []
    for match in _CARD_SHAPE.finditer(skeleton):
        start, end = match.span()
        if _inside_a_longer_number(folded, start, end):
            continue
        digits = folded[start:end].translate(_NO_GAPS)
        if digits[0] not in "23456" or not luhn_holds(digits):
            continue
        line_start = folded.rfind("\n", max(0, start - 40), start) + 1
        if _COMPANY_NUMBER_BEFORE.search(folded, max(line_start, start - 40), start):
            continue
        found.append(Found(start, end, "card_numbers"))
    return found


def _inside_a_longer_number(folded: str, start: int, end: int) -> bool:
    before = folded[max(0, start - 2) : start]
    after = folded[end : end + 2]
    return (
        (before[-1:].isalnum() or before[-1:] in (".", ",") and before[:1].isdigit())
        or (before[-1:] in (" ", "-") and before[:1].isdigit())
        or after[:1].isalnum()
        or (after[:1] in (" ", "-", ".", ",") and after[1:].isdigit())
    )


def luhn_holds(digits: str) -> bool:
    total = 0
    for position, char in enumerate(reversed(digits)):
        number = int(char)
        if position % 2:
            number = number * 2 - 9 if number > 4 else number * 2
        total += number
    return total % 10 == 0
