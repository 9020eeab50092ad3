"""The years in which people were born, as documents write their dates of birth.

Beside the names a document lists: "Richard Miles 14.03.1975", "Dmitri Volkov (born 12
May 1985)", "Colin Marsh (b. 1971)", "Jane Roe, DOB: 1980-05-02" (a board table's "Date
of birth" column is read with the table, document_directors.board_table_rows); or a
form's "Date of birth" line a few lines below one naming that person alone ("Signatory:
Helen Carter"). A date after other words about the person ("appointed 14.03.2019",
"resident since 2015") is not a birth date. Only the year is given, never the date: it is
personal data, redacted for the model.

The extraction tool reads four-digit years as written; the runtime, which knows the year
it is, also reads a two-digit one (a passport zone's "900314") and judges whether a living
person could have been born then (year_written)."""

from __future__ import annotations

import re

from atlas.runtime.redaction_labels import MONTH
from atlas.runtime.redaction_mrz import ZONE_DATE
from atlas.runtime.tools.document_directors import after_surname, place_named, places_named

# No one alive was born longer ago than this.
OLDEST_AGE = 120

# A year of four digits standing apart ("14.03.1975", "12 March 1968", "1970-01-02"), or
# the first four of a date written whole ("19700102").
_FULL_YEAR = re.compile(r"(?<![0-9])(1[89][0-9]{2}|20[0-9]{2})(?:(?![0-9])|(?=[0-9]{4}$))")
# Two digits: a passport zone's date (YYMMDD, redaction_mrz.ZONE_DATE) or a date ending in
# its year ("14.03.75").
_SHORT_YEAR = re.compile(r"[0-9]{1,2}[./-][0-9]{1,2}[./-]([0-9]{2})")

_DATE = (
    r"[0-9]{1,2}[./-][0-9]{1,2}[./-](?:19|20)[0-9]{2}"
    r"|(?:19|20)[0-9]{2}-[0-9]{2}-[0-9]{2}"
    rf"|[0-9]{{1,2}}(?:st|nd|rd|th)?[ \t]+(?:of[ \t]+)?{MONTH}\.?,?[ \t]+(?:19|20)[0-9]{{2}}"
    rf"|{MONTH}\.?[ \t]+[0-9]{{1,2}}(?:st|nd|rd|th)?,?[ \t]+(?:19|20)[0-9]{{2}}"
)
_BIRTH_WORD = r"born(?:[ \t]+on)?|b\.|d\.?o\.?b\.?|date[ \t]+of[ \t]+birth|birth[ \t]*date"
# A date, or a year alone after a word saying it is a birth's ("born 1975").
_BORN = re.compile(
    rf"(?i)(?P<said>(?:{_BIRTH_WORD})[ \t]*:?[ \t]*)?(?P<date>{_DATE}|(?:19|20)[0-9]{{2}})"
    r"(?![0-9])"
)
# What may stand between a name and its birth date: punctuation and capitalised words
# ("VOLKOV, Dmitri 12.05.1985", "Jane Roe, British, 02.05.1980").
_BETWEEN = re.compile(r"[\s,;:()\[\]/–—-]*+(?:[A-Z][^\W\d_]*+\.?[\s,;:()\[\]/–—-]*+)*+")
# How far after a name its birth date may begin.
WINDOW = 60


def written_year(date: str) -> int | None:
    """The four-digit year a date gives, or None."""
    found = _FULL_YEAR.search(date)
    return int(found.group(1)) if found else None


def year_written(date: str, this_year: int) -> int | None:
    """The year of a date of birth as a document wrote it; None where it gives none that a
    living person could have been born in. A two-digit year is the latest such year
    ("75" is 1975, "09" 2009 in 2026)."""
    date = date.strip()
    year = written_year(date)
    zone_date = date.replace(" ", "")  # an OCR may space a zone's characters apart
    if year is None and ZONE_DATE.fullmatch(zone_date):
        year = _century(int(zone_date[:2]), this_year)
    elif year is None and (short := _SHORT_YEAR.fullmatch(date)):
        year = _century(int(short.group(1)), this_year)
    return year if year is not None and living_born_in(year, this_year) else None


def living_born_in(year: int, this_year: int) -> bool:
    """Whether someone alive in `this_year` could have been born in `year`."""
    return this_year - OLDEST_AGE <= year <= this_year


def _century(two_digits: int, this_year: int) -> int:
    year = this_year // 100 * 100 + two_digits
    return year if year <= this_year else year - 100


def year_of_birth(dates: list[str], this_year: int) -> int | None:
    """The year every date of birth in `dates` gives, read as `year_written` reads them;
    None when they give none, or more than one (a form that also gives a spouse's)."""
    years = {year_written(date, this_year) for date in dates}
    return years.pop() if len(years) == 1 and None not in years else None


def birth_years_listed(line: str, names: list[str]) -> dict[str, int]:
    """The year each of `names`, the names `line` lists, was born in, where a birth date
    follows the name before the next one."""
    placed = places_named(line, names)
    found: dict[str, int] = {}
    for index, (start, name) in enumerate(placed):
        after = after_surname(start, name)
        end = placed[index + 1][0] if index + 1 < len(placed) else len(line)
        born = _BORN.search(line, after, min(end, after + WINDOW + 40))
        if born is None or born.start() > after + WINDOW:
            continue
        if not _BETWEEN.fullmatch(line, after, born.start()):
            continue
        if born["said"] is None and len(born["date"]) == 4:
            continue  # a year alone, not said to be a birth's ("Jane Roe 2019")
        if year := written_year(born["date"]):
            found[name] = year
    return found


def birth_year_entry(name: str, year: int) -> str:
    """A person's year of birth as the extraction tool lists it: "Dmitri Volkov: 1985"."""
    return f"{name}: {year}"


def read_birth_year_entry(entry: str) -> tuple[str, int | None]:
    """(name, year) of a birth_year_entry; the year None where it is not one."""
    name, _, year = entry.rpartition(": ")
    return name.strip(), int(year) if year.strip().isdigit() else None


# A form's line naming one person ("Signatory: Helen Carter"), and its line giving a date
# of birth ("Date of birth: 14/03/1975").
_PERSON_LABEL = re.compile(
    r"(?i)^[ \t]*(?:signator(?:y|ies)|directors?|(?:full[ \t]+)?name|beneficial[ \t]+owners?"
    r"|ubos?)[ \t]*:[ \t]*(?P<value>\S[^\n]*)$"
)
_BIRTH_LABEL = re.compile(rf"(?i)^[ \t]*(?:{_BIRTH_WORD})[ \t]*:[ \t]*(?P<date>\S[^\n]*)$")
# What parts people on such a line: someone it names besides a listed person.
_SEVERAL = re.compile(r"[,;&]|\band\b")
# How many lines above a date of birth the line naming its person may be.
LINES_ABOVE = 3


def birth_years_labelled(text: str, names: list[str]) -> dict[str, int]:
    """The year each of `names` was born in, where a form's "Date of birth" line follows,
    in the same block and a few lines below, a line naming that one person ("Signatory:
    Helen Carter"). A line naming several people ("Directors: Helen Carter, James
    Whitfield") says whose it is of none."""
    found: dict[str, int] = {}
    lines = text.splitlines()
    for index, line in enumerate(lines):
        born = _BIRTH_LABEL.match(line)
        if born is None or (year := written_year(born["date"])) is None:
            continue
        for above in reversed(lines[max(0, index - LINES_ABOVE) : index]):
            if not above.strip():
                break
            if person := _PERSON_LABEL.match(above):
                named = [
                    name
                    for name in names
                    if place_named(person["value"], name) < len(person["value"])
                ]
                if len(named) == 1 and not _SEVERAL.search(person["value"]):
                    found.setdefault(named[0], year)
                break
    return found
