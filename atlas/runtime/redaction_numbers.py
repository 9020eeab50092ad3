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
# Between an IBAN's groups: as between any number's, or an underscore or a full stop, as
# file names and exports join them ("DE89_3704_0044_0532_0130_00").
_IBAN_GAP = rf"(?:{GROUP_GAP}|[_.])"
# Four characters in groups as banks print them, or all together; which start of it is
# an IBAN `_iban_end` decides.
_IBAN_SHAPE = re.compile(
    rf"aa00(?:{_IBAN_GAP}?[a0]{{4}}){{2,7}}(?:{_IBAN_GAP}?[a0]{{1,4}})?".encode()
)
# "IBAN", "IBAN No.:", and as a file name joins it to its number: "iban_no_", "iban.".
_IBAN_LABEL_BEFORE = re.compile(r"iban(?:[\s_.-]*(?:no\.?|nr\.?|number|#))?[\s_|:=#.-]*\Z")
# Written all together, or in groups of four (4-4-4-4, 4-4-4-4-3) or 4-6-5 (American
# Express, Diners Club): amounts in groups of three are none of these.
_CARD_SHAPE = re.compile(
    rb"0000(?:0{9,15}|([ -])0000(?:\1|[ \t]*\r?\n[ \t]*)0000(?:\1|[ \t]*\r?\n[ \t]*)0{1,4}"
    rb"(?:(?:\1)0{1,3})?|([ -])0{6}(?:\2|[ \t]*\r?\n[ \t]*)0{4,5})"
)
# A company's number can pass the Luhn check (France's SIRET does by design): one the line
# names as such is not a card.
_COMPANY_NUMBER_BEFORE = re.compile(
    r"\b(?:regist|reg\b|reg\.|company|siret|siren|kvk|vat|tax|hrb|crn|handelsregister|rcs"
    r"|ust|steuer|tva|iva|cif|nif|cnpj|abn|acn|lei|gst|nit|rut|ruc|krs|regon|nip|oib|cvr"
    r"|org\.? ?nr|инн|огрн)[^\n]{0,30}\Z"
)
# Each country's IBAN length, from the SWIFT IBAN registry.
IBAN_LENGTHS = {
    **dict.fromkeys(["NO"], 15),
    **dict.fromkeys(["BE"], 16),
    **dict.fromkeys(["DK", "FI", "FK", "FO", "GL", "NL", "SD"], 18),
    **dict.fromkeys(["MK", "SI"], 19),
    **dict.fromkeys(["AT", "BA", "EE", "KZ", "LT", "LU", "MN", "XK"], 20),
    **dict.fromkeys(["CH", "HR", "LI", "LV"], 21),
    **dict.fromkeys(["BG", "BH", "CR", "DE", "GB", "GE", "IE", "ME", "RS", "VA"], 22),
    **dict.fromkeys(["AE", "GI", "IL", "IQ", "OM", "SO", "TL"], 23),
    **dict.fromkeys(["AD", "CZ", "ES", "MD", "PK", "RO", "SA", "SE", "SK", "TN", "VG"], 24),
    **dict.fromkeys(["LY", "PT", "ST"], 25),
    **dict.fromkeys(["IS", "TR"], 26),
    **dict.fromkeys(["BI", "DJ", "FR", "GR", "IT", "MC", "MR", "SM"], 27),
    **dict.fromkeys(["AL", "AZ", "BY", "CY", "DO", "GT", "HN", "HU", "LB", "NI", "PL", "SV"], 28),
    **dict.fromkeys(["BR", "EG", "PS", "QA", "UA"], 29),
    **dict.fromkeys(["JO", "KW", "MU", "YE"], 30),
    **dict.fromkeys(["MT", "SC"], 31),
    **dict.fromkeys(["LC"], 32),
    **dict.fromkeys(["RU"], 33),
}


def _iban_shape_of_length(length: int) -> re.Pattern[bytes]:
    """An IBAN `length` characters long, in groups of four or all together."""
    groups, rest = divmod(length - 4, 4)
    last = f"{_IBAN_GAP}?[a0]{{{rest}}}" if rest else ""
    return re.compile(rf"aa00(?:{_IBAN_GAP}?[a0]{{4}}){{{groups}}}{last}(?![a0])".encode())


_IBAN_SHAPE_OF_LENGTH = {length: _iban_shape_of_length(length) for length in IBAN_LENGTHS.values()}
_SKELETON = bytes.maketrans(b"abcdefghijklmnopqrstuvwxyz0123456789", b"a" * 26 + b"0" * 10)
_GAP_CHARS = frozenset(" \t\r\n-_.")
_NO_GAPS = str.maketrans("", "", " \t\r\n-_.")
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
            end = at.end() + _without_file_extensions(domain.group())
            found.append(Found(at.start() - local, end, "emails"))
    return found


# The extensions of files an address can be written into the name of ("jane@acme.com.pdf"),
# none of them a top-level domain.
_FILE_EXTENSIONS = frozenset((
    "pdf", "txt", "doc", "docx", "xls", "xlsx", "csv", "tsv", "png", "jpg", "jpeg", "gif",
    "tif", "tiff", "bmp", "heic", "eml", "msg", "json", "xml", "html", "htm", "rtf", "odt",
    "ods", "ppt", "pptx",
))  # fmt: skip


def _without_file_extensions(domain: str) -> int:
    """How much of `domain` is the address's: without file extensions after it, as long as
    a dot is left."""
    while True:
        rest, dot, last = domain.rpartition(".")
        if last not in _FILE_EXTENSIONS or "." not in rest:
            return len(domain)
        domain = rest


def ibans(folded: str, skeleton: bytes, original: str) -> list[Found]:
    found = []
    at = after_a_code_until = 0
    while match := _IBAN_SHAPE.search(skeleton, at):
        start, end = match.span()
        iban_end = _iban_end(folded, skeleton, original, start, end, start < after_a_code_until)
        if iban_end > start:
            found.append(Found(start, iban_end, "ibans"))
            at = iban_end
        else:
            # A code shaped like an IBAN's start may come first ("Ref GB12 GB82 WEST …",
            # "SC123456 GB29 NWBK …"): the IBAN may start at its next letter pair.
            at, after_a_code_until = start + 1, max(after_a_code_until, end)
    return found


def _iban_end(
    folded: str, skeleton: bytes, original: str, start: int, end: int, after_a_code: bool
) -> int:
    """Where the IBAN starting at `start` ends (`start` when none does), for what matched
    its shape up to `end`."""
    if folded[end : end + 1].isalnum():
        return start
    if start and folded[start - 1].isalnum():
        # Run into a code before it, in capitals ("AB12GB82WEST…").
        return _iban_of_its_countrys_length(original[start : start + 2], folded, skeleton, start)
    if after_a_code:
        country = folded[start : start + 2].upper()
        return _iban_of_its_countrys_length(country, folded, skeleton, start)
    # After the label "IBAN", capitals in groups are one as banks print it, even one
    # mistyped. Anywhere else, and in lower case, where ordinary words can look like
    # one ("fy23 then that"), it is the longest start whose check digits hold.
    if original[start:end].isupper() and _labelled_as_iban(folded, start):
        return end
    return start + iban_length(folded[start:end])


def _iban_of_its_countrys_length(country: str, folded: str, skeleton: bytes, start: int) -> int:
    """The end of an IBAN at `start` that runs on from a code before it, or `start`: told
    from the rest of the code by its country's IBAN length as well as its check digits."""
    length = IBAN_LENGTHS.get(country)
    if length is None:
        return start
    match = _IBAN_SHAPE_OF_LENGTH[length].match(skeleton, start)
    if match and _check_digits_hold(folded[start : match.end()].translate(_NO_GAPS)):
        return match.end()
    return start


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
