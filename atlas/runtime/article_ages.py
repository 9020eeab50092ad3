"""The age a news article gives the person it was found by ("Oleg Danilov, 62, a former
deputy minister", "Oleg Danilov (62)", "the 62-year-old former minister Oleg Danilov"), and
the years of birth that means: 62 in an article of May 2022 is born in 1959 or 1960,
whichever side of the birthday it was. Articles are untrusted text: only a number is
taken from one, and only where the article gives the person one age."""

from __future__ import annotations

import re

# A grown person's age, as articles give it.
_AGE = r"(1[6-9]|[2-9][0-9]|1[01][0-9])"
# Right after the name: ", 62," or ", aged 62." or " (62)".
_AGE_AFTER = re.compile(
    rf",[ \t]*(?:aged[ \t]+)?{_AGE}(?=[ \t]*[,;.]|[ \t]*$)"
    rf"|[ \t]*\([ \t]*(?:aged[ \t]+)?{_AGE}[ \t]*\)",
    re.IGNORECASE,
)
# Before it: "62-year-old" and up to four words in lower case ("former deputy minister").
_AGE_BEFORE = re.compile(rf"{_AGE}-year-old[ \t]+(?:[a-z][\w'-]*[ \t]+){{0,4}}$")
# How far before a name "62-year-old" may stand.
_BEFORE_CHARS = 80
_PUBLISHED_YEAR = re.compile(r"^(?P<year>(?:19|20)[0-9]{2})-[0-9]{2}-[0-9]{2}$")


def age_given(text: str, name: str) -> int | None:
    """The one age `text` gives the person named `name` (given name and surname, middle
    names or initials allowed between them); None where it gives none, or several."""
    words = name.split()
    if len(words) < 2:
        return None
    named = re.compile(
        rf"(?i)\b{re.escape(words[0])}(?:[ \t]+[\w.'-]+){{0,2}}?[ \t]+{re.escape(words[-1])}\b"
    )
    ages = set()
    for found in named.finditer(text):
        after = _AGE_AFTER.match(text, found.end())
        before = _AGE_BEFORE.search(text, max(0, found.start() - _BEFORE_CHARS), found.start())
        for said in (after, before):
            if said is not None:
                ages.add(int(next(age for age in said.groups() if age)))
    return ages.pop() if len(ages) == 1 else None


def born_years_at(age: int, published: str) -> tuple[int, ...]:
    """The years someone `age` years old on the date `published` ("2022-05-05") was born
    in, the later last; none where the date is not one."""
    dated = _PUBLISHED_YEAR.match(published)
    if dated is None:
        return ()
    year = int(dated["year"]) - age
    return (year - 1, year)
