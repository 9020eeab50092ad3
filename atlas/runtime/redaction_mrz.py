"""A passport's or identity card's machine-readable zone (ICAO Doc 9303): a passport's two
lines of 44 characters ("P<IRNRAHIMI<<FARHAD<<<...", "K123456784IRN7903122M3001019<<<..."),
a visa's or older card's two of 36, or an identity card's three of 30.

A zone parts a name with a double filler, so a line of text that happens to be as long is
not one; a zone an OCR spaced apart is read as well. Its document number, date of birth
and personal number are personal data: redaction hides them, as their labels would
elsewhere, wherever lines are laid out as a zone, even where an OCR misread a check digit.
Its holder's name and nationality are read by document extraction only where the check
digits of its document number and date of birth hold, and its date of birth gives a year
only where its own check digit does.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import NamedTuple

from atlas.runtime.redaction_labels import Found

# One line of a zone, on its own line: 30 to 44 characters, which an OCR'd text may have
# spaced apart ("K123456784 IRN 7903122 M 3001019 ...").
_LINE = re.compile(r"(?im)^[ \t]*([a-z0-9<](?:[ ]?[a-z0-9<]){29,43})[ \t]*\r?$")
_WEIGHTS = (7, 3, 1)
# What opens a zone (a passport, a visa, an identity card), a date as a zone writes it
# (YYMMDD), and a nationality's code.
_DOCUMENT_CODE = re.compile(r"(?i)[pvaci][a-z<]")
ZONE_DATE = re.compile(r"[0-9]{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12][0-9]|3[01])")
_LETTERS = re.compile(r"(?i)[a-z][a-z<]{2}")
# The codes of Doc 9303 that are no ISO code: Germany's "D", and the United Kingdom's
# kinds of British national.
_COUNTRY_OF = {"d": "DEU", "gbd": "GBR", "gbn": "GBR", "gbo": "GBR", "gbs": "GBR", "gbp": "GBR"}


class Field(NamedTuple):
    """Where a field of a zone's line starts, how long it is, and where its check digit
    is (None for a field without one)."""

    start: int
    length: int
    check: int | None


# Per line length: (line, field) of the document number, date of birth, nationality,
# personal number and names (a names field runs to its line's end). A zone of two lines
# of 36 is laid out as a passport's, but for a personal number without a check digit.
_PASSPORT = {
    "document": (1, Field(0, 9, 9)),
    "birth": (1, Field(13, 6, 19)),
    "nationality": (1, Field(10, 3, None)),
    "personal": (1, Field(28, 14, 42)),
    "names": (0, Field(5, 39, None)),
}
_LAYOUTS = {
    44: _PASSPORT,
    36: {**_PASSPORT, "personal": (1, Field(28, 7, None))},
    30: {
        "document": (0, Field(5, 9, 14)),
        "birth": (1, Field(0, 6, 6)),
        "nationality": (1, Field(15, 3, None)),
        "personal": (0, Field(15, 15, None)),
        "names": (2, Field(0, 30, None)),
    },
}
_LINES_IN_A_ZONE = {44: 2, 36: 2, 30: 3}
# Which kind of personal data each field is, for a passport (a zone of 44 characters) and
# for any other document.
_KINDS = {
    "document": ("passport_numbers", "national_id_numbers"),
    "birth": ("dates_of_birth", "dates_of_birth"),
    "personal": ("national_id_numbers", "national_id_numbers"),
}


class Line(NamedTuple):
    """A zone's line: its characters, without any spaces between them, and where each of
    them is in the text."""

    text: str
    at: list[int]


class Zone(NamedTuple):
    lines: list[Line]

    def field(self, name: str) -> tuple[int, int, str]:
        """Where the field starts and ends in the text, and what it holds, fillers left
        out."""
        line, place = _LAYOUTS[len(self.lines[0].text)][name]
        row = self.lines[line]
        value = row.text[place.start : place.start + place.length].rstrip("<")
        start = row.at[place.start]
        return start, row.at[place.start + len(value) - 1] + 1 if value else start, value

    def holds(self, *names: str) -> bool:
        """Whether each field's check digit holds (a field without one holds when it holds
        anything)."""
        return all(self._holds(name) for name in names)

    def laid_out(self) -> bool:
        """Whether the zone opens with a document's code ("P<", "I<", "V<"), and gives a
        date of birth that is a date and a nationality of letters where Doc 9303 puts
        them."""
        return bool(
            _DOCUMENT_CODE.match(self.lines[0].text)
            and ZONE_DATE.fullmatch(self._written("birth")[0])
            and _LETTERS.fullmatch(self._written("nationality")[0])
        )

    def _written(self, name: str) -> tuple[str, str, Field]:
        """The field as written, fillers and all; its line's text; where it is."""
        line, place = _LAYOUTS[len(self.lines[0].text)][name]
        text = self.lines[line].text
        return text[place.start : place.start + place.length], text, place

    def _holds(self, name: str) -> bool:
        value, text, place = self._written(name)
        if place.check is None:
            return bool(value.strip("<"))
        return value.strip("<") != "" and text[place.check] == check_digit(value)


def check_digit(field: str) -> str:
    """Doc 9303's check digit of `field`: each character's value (digits as themselves,
    letters A=10 to Z=35, the filler "<" 0) times 7, 3, 1 in turn, summed, modulo 10."""
    total = 0
    for index, char in enumerate(field.upper()):
        value = 0 if char == "<" else int(char) if char.isdigit() else ord(char) - 55
        total += value * _WEIGHTS[index % 3]
    return str(total % 10)


def zones(text: str, *, checked: bool = True) -> Iterator[Zone]:
    """The zones of `text` (folded or as written): lines of one length one after another,
    with the double filler that parts a holder's names, whose document number's and date
    of birth's check digits hold; or, not `checked`, also those laid out as a zone is,
    whatever an OCR made of their check digits (what redaction hides: a zone misread is
    still one)."""
    lines = [_line(match) for match in _LINE.finditer(text)]
    index = 0
    while index < len(lines):
        length = len(lines[index].text)
        count = _LINES_IN_A_ZONE.get(length, 0)
        run = lines[index : index + count]
        if count and len(run) == count and all(len(line.text) == length for line in run):
            zone = Zone(run)
            held = zone.holds("document", "birth") or (not checked and zone.laid_out())
            if any("<<" in line.text for line in run) and held:
                yield zone
                index += count
                continue
        index += 1


def _line(match: re.Match) -> Line:
    start = match.start(1)
    kept = [(start + offset, char) for offset, char in enumerate(match.group(1)) if char != " "]
    return Line("".join(char for _, char in kept), [at for at, _ in kept])


def mrz_spans(folded: str) -> list[Found]:
    """The personal data of each zone, its check digits held or not (an OCR's misreading
    makes it no less personal): its document number, its holder's date of birth, and a
    personal number where it gives one."""
    found = []
    for zone in zones(folded, checked=False):
        passport = len(zone.lines[0].text) == 44
        for name, kinds in _KINDS.items():
            start, end, value = zone.field(name)
            if value:
                found.append(Found(start, end, kinds[0 if passport else 1]))
    return found


def misread_birth_dates(text: str) -> list[str]:
    """The dates of birth, as zones write them ("740812"), whose check digit does not hold:
    an OCR misread the date or its digit, so the date, redacted all the same, tells no
    year."""
    return [
        zone.field("birth")[2] for zone in zones(text, checked=False) if not zone.holds("birth")
    ]


class Holder(NamedTuple):
    """Whom a zone is of: their name as a form writes it ("Farhad Rahimi"), and the
    code of their nationality ("IRN"; "" where the zone gives none)."""

    name: str
    nationality: str


def mrz_holders(text: str) -> list[Holder]:
    """The holder of each zone of `text`. The zone writes the surname first and the given
    names after a double filler."""
    holders = []
    for zone in zones(text):
        *_, written = zone.field("names")
        surname, _, given = written.partition("<<")
        words = [*given.split("<"), *surname.split("<")]
        name = " ".join(word.capitalize() for word in words if word)
        *_, code = zone.field("nationality")
        code = _COUNTRY_OF.get(code.lower(), code.lower()).upper()
        holders.append(Holder(name, code))
    return holders
