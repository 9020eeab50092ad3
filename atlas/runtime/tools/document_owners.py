"""Beneficial owners a document names: on a labelled line ("Beneficial owners: ...",
"Ultimate beneficial owner (UBO): ...", "UBO 1 - ...") or one a line under such a label,
with the share of each where the document gives one ("60%", "more than 25%"). Names are
read as a directors line reads them (document_directors.names_listed). A document that
speaks of its owners but names none this way is told apart (mentions_owners), for a person
to read. An owner may be a business named by its legal form ("Pinecrest Holdings Ltd"):
its name is read whole."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import NamedTuple, TypeVar

from atlas.runtime.countries import country_code, nationality_codes
from atlas.runtime.tools.document_birth_years import birth_years_listed, written_year
from atlas.runtime.tools.document_directors import BULLET, names_listed
from atlas.runtime.tools.document_nationalities import nationalities_listed
from atlas.runtime.tools.document_residences import residences_listed, said_beside_names
from atlas.runtime.tools.document_tables import (
    birth_column,
    cell_at,
    cells,
    person_columns,
)

T = TypeVar("T")

OWNERS_LABEL = (
    r"(?:(?:ultimate[ \t]+)?beneficial[ \t]+owners?(?:[ \t]*\(s\))?(?:[ \t]*\(ubos?\))?|ubos?)"
    r"(?:[ \t]+\d{1,2})?"
)
_ON_ITS_LINE = re.compile(
    rf"(?im)^[ \t]*{OWNERS_LABEL}[ \t]*(?::|[ \t][-–—])[ \t]*(?P<value>\S.*?)[ \t]*$"
)
_OVER_A_LIST = re.compile(rf"(?im)^[ \t]*{OWNERS_LABEL}[ \t]*:[ \t]*\n")
_SHARE = re.compile(
    r"\(?\b(?P<bound>(?:more|less)[ \t]+than|over|under|below|at[ \t]+least|up[ \t]+to)?[ \t]*"
    r"(?P<number>\d{1,3}(?:[.,]\d+)?)[ \t]*(?:%|per[ \t]?cent\b)"
    r"(?P<ceiling>[ \t]+but[ \t]+(?:not[ \t]+more|less)[ \t]+than[ \t]+\d{1,3}(?:\.\d+)?%)?\)?"
    r"(?P<or_more>[ \t]+or[ \t]+more\b)?(?P<each>[ \t]+each\b)?",
    re.IGNORECASE,
)
# A share given as a band ("more than 25% but not more than 50%", "more than 50% but less
# than 75%", as the UK's register of persons with significant control writes them; "25-50%",
# "25 to 50%"), written one way (_as_band) so that _SHARE reads it as one share.
_BAND = re.compile(
    r"(?i)\b(?P<more>(?:more[ \t]+than|over)[ \t]+)?(?P<low>\d{1,3}(?:[.,]\d+)?)[ \t]*"
    r"(?:%|per[ \t]?cent\b)?[ \t]*(?:,?[ \t]*but[ \t]+(?:not[ \t]+more|(?P<less>less))[ \t]+than"
    r"|to|[-–])[ \t]*(?P<high>\d{1,3}(?:[.,]\d+)?)[ \t]*(?:%|per[ \t]?cent\b)"
)
# A heading over a table of the owners ("Beneficial ownership", "Persons with significant
# control"): nothing but the heading on its line.
_TABLE_HEADING = re.compile(
    r"(?im)^[ \t]*(?:(?:ultimate[ \t]+)?beneficial[ \t]+own(?:ers?|ership)(?:[ \t]*\(ubos?\))?"
    r"|persons?[ \t]+with[ \t]+significant[ \t]+control|ubos?)[ \t]*:?[ \t]*$"
)
# The words of a share said only to be at most a number (atlas.runtime.shares).
UPPER_BOUNDS = ("less than", "under", "below", "up to")
_WRITTEN = re.compile(
    r"(?:(?:more than|less than|over|under|below|at least|up to) )?\d{1,3}(?:\.\d+)?%"
    r"(?: but (?:not more|less) than \d{1,3}(?:\.\d+)?%)?"
)
_MENTION = re.compile(r"(?i)\b(?:beneficial[ \t]+owner|ubos?\b)")
MAX_LIST_LINES = 20


def owners_named(text: str) -> list[str]:
    """The owners `text` names, each once, in order."""
    names = [name for value in _owner_values(text) for name in _listed(value)]
    return list(dict.fromkeys(names))


def owner_shares(text: str) -> dict[str, str]:
    """Each owner's share as `text` gives it ("60%", "more than 25%"), by name, for the
    owners whose share can be told: a share is the name's it follows ("Jane Roe (60%)"), or
    the one it comes before when shares open the list ("60% Jane Roe; 40% John Doe"). A
    list whose shares cannot be told apart gives none, rather than a guess."""
    shares: dict[str, str] = {}
    for value in _owner_values(text):
        for name, share in _shares_in(value).items():
            shares.setdefault(name, share)
    return shares


def owner_residences(text: str) -> dict[str, str]:
    """Where each owner lives, as `text` says beside their name (document_residences), or
    in a table's "Country of residence" column."""
    return _said_of_owners(text, residences_listed, lambda row: country_code(row.residence))


def owner_nationalities(text: str) -> dict[str, list[str]]:
    """The countries each owner is a national of, as `text` says beside their name
    (document_nationalities), or in a table's "Nationality" column."""
    return _said_of_owners(
        text, nationalities_listed, lambda row: nationality_codes(row.nationality) or None
    )


def owner_birth_years(text: str) -> dict[str, int]:
    """The year each owner was born in, as `text` says beside their name
    (document_birth_years), or in a table's "Date of birth" column."""
    return _said_of_owners(text, birth_years_listed, lambda row: written_year(row.born))


def _said_of_owners(
    text: str,
    read_line: Callable[[str, list[str]], dict[str, T]],
    read_row: Callable[[OwnerRow], T | None],
) -> dict[str, T]:
    """What `read_line` finds beside an owner's name on an owners line, else what
    `read_row` reads in their row of an owners table; the first word on a name kept."""
    found = said_beside_names(_owner_lines(text), read_line)
    for row in _owner_table_rows(text):
        if (said := read_row(row)) is not None:
            found.setdefault(_listed(row.name)[0], said)
    return found


def _owner_lines(text: str) -> Iterator[tuple[str, list[str]]]:
    """Each owners line, with the names it lists."""
    for value in _owner_values(text):
        yield value, _listed(value)


def share_written(text: str) -> str | None:
    """The share `text` gives on its own ("More than 50% but less than 75%"), written as
    owner_shares writes one ("more than 50% but less than 75%"); None when it gives none."""
    share = _SHARE.search(_as_band(text))
    if share is None or float(share["number"].replace(",", ".")) > 100:
        return None
    return _written(share)


def is_share(text: str) -> bool:
    """Whether `text` is a share as owner_shares writes one."""
    return bool(_WRITTEN.fullmatch(text))


def share_entry(name: str, share: str) -> str:
    """An owner's share as the extraction tool lists it, and packets show it: "Jane Roe:
    60%"."""
    return f"{name}: {share}"


def read_share_entry(entry: str) -> tuple[str, str]:
    """(name, share) of a share_entry; the share is "" when `entry` is none."""
    name, _, share = entry.rpartition(": ")
    return name.strip(), share.strip()


def mentions_owners(text: str) -> bool:
    return bool(_MENTION.search(text))


def _owner_values(text: str) -> Iterator[str]:
    """The text after each owners label on its line, each line of a list under one, and
    each row of a table under an owners heading, as "Jane Roe 60%"."""
    for match in _ON_ITS_LINE.finditer(text):
        yield _as_band(match["value"])
    for label in _OVER_A_LIST.finditer(text):
        for line in text[label.end() :].splitlines()[:MAX_LIST_LINES]:
            line = BULLET.sub("", line).strip()
            if not line or ":" in line or not _listed(line):
                break
            yield _as_band(line)
    yield from _table_rows(text)


def _as_band(text: str) -> str:
    """`text` with each band of shares written as owner_shares writes one: "more than 25%
    but not more than 50%", "at least 25% but not more than 50%" ("25-50%")."""

    def written(band: re.Match) -> str:
        low, high = (band[end].replace(",", ".") for end in ("low", "high"))
        above = "more than" if band["more"] else "at least"
        below = "less than" if band["less"] else "not more than"
        return f"{above} {low}% but {below} {high}%"

    return _BAND.sub(written, text)


def _table_rows(text: str) -> Iterator[str]:
    """The rows of a table of owners under its heading, as "Jane Roe 60%"."""
    for row in _owner_table_rows(text):
        yield f"{row.name} {row.share}"


class OwnerRow(NamedTuple):
    """An owner's row of an owners table: the name as its cell gives it, the share, and the
    cells under a "Country of residence", a "Nationality" and a "Date of birth" header (""
    where none)."""

    name: str
    share: str
    residence: str
    nationality: str
    born: str = ""


def _owner_table_rows(text: str) -> Iterator[OwnerRow]:
    """Each row of a table of owners under its heading, a name in its first cell and one
    share in another ("| Jane Roe | British | Iran | 60% |"), up to a blank line after them;
    the header row and rules are passed over."""
    for heading in _TABLE_HEADING.finditer(text):
        rows, lives_at, national_at, born_at = 0, None, None, None
        for line in text[heading.end() :].splitlines()[1 : MAX_LIST_LINES + 1]:
            if not line.strip():
                if rows:
                    break
                continue
            row = cells(line)
            if lives_at is None and national_at is None and born_at is None and not rows:
                lives_at, national_at = person_columns(row)
                born_at = birth_column(row)
            first, *others = row
            shares = [share for cell in others for share in _SHARE.finditer(_as_band(cell))]
            if len(shares) == 1 and len(_listed(first)) == 1:
                rows += 1
                yield OwnerRow(
                    first,
                    shares[0][0],
                    cell_at(row, lives_at),
                    cell_at(row, national_at),
                    cell_at(row, born_at),
                )


def _listed(value: str) -> list[str]:
    return names_listed(_SHARE.sub(" ", value))


def _shares_in(value: str) -> dict[str, str]:
    names = _listed(value)
    shares = list(_SHARE.finditer(value))
    if not names or not shares:
        return {}
    if len(shares) == 1 and shares[0]["each"]:
        return dict.fromkeys(names, _written(shares[0]))
    places = _places(value, names)
    if places is None:
        return {}
    placed = list(zip(names, places, strict=True))
    shares_lead = shares[0].start() < places[0]
    found: dict[str, str] = {}
    for share in shares:
        owner = _owner_of(share.start(), placed, shares_lead)
        if owner is None or owner in found or float(share["number"].replace(",", ".")) > 100:
            return {}
        found[owner] = _written(share)
    return found


def _owner_of(share_at: int, placed: list[tuple[str, int]], shares_lead: bool) -> str | None:
    """Whose share stands at `share_at`: the next name's, when shares open the items ("60%
    Jane Roe; 40% John Doe"), else the name's it follows."""
    if shares_lead:
        return next((name for name, at in placed if at > share_at), None)
    return next((name for name, at in reversed(placed) if at < share_at), None)


def _places(value: str, names: list[str]) -> list[int] | None:
    """Where each name stands in `value`, found by its surname in order ("ROE, Jane" holds
    Jane Roe); None when one cannot be found."""
    places, start = [], 0
    for name in names:
        found = re.compile(rf"(?i)\b{re.escape(name.split()[-1])}\b").search(value, start)
        if found is None:
            return None
        places.append(found.start())
        start = found.end()
    return places


def _written(share: re.Match) -> str:
    bound = " ".join((share["bound"] or ("at least" if share["or_more"] else "")).lower().split())
    number = share["number"].replace(",", ".")
    ceiling = " ".join((share["ceiling"] or "").lower().split())
    return f"{bound} {number}% {ceiling}".strip()
