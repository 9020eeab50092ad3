"""A person's middle names as a name writes them: "Oleg Ivanovich Danilov" and "DANILOV,
Oleg Ivanovich" give Ivanovich (a Russian patronymic, which lists give as often as a date
of birth). Two names whose middle names differ, each giving one, are likely two people:
transliterations (Petrovich, Petrovitch) and an initial standing for the name (P.) do not
differ."""

from __future__ import annotations

from rapidfuzz import fuzz

from atlas.runtime.world.normalize import normalize_person

# How alike two spellings of one middle name are at least (Petrovich, Petrovitch: 95).
SAME_SPELLING = 85


def middle_names(name: str) -> list[str]:
    """The words between a name's given name and its surname, in lower case, without
    accents: "Oleg Ivanovich Danilov" and "DANILOV, Oleg Ivanovich" give ["ivanovich"]."""
    surname, comma, given = name.partition(",")
    words = normalize_person(given if comma else name).split()
    return words[1:] if comma else words[1:-1]


def differ(one: list[str], other: list[str]) -> bool:
    """Whether two names' middle names (middle_names) are of two people: each gives one,
    and their first ones are neither one spelling nor an initial and its name."""
    if not one or not other:
        return False
    first, second = one[0].rstrip("."), other[0].rstrip(".")
    if len(first) == 1 or len(second) == 1:
        return first[0] != second[0]
    return fuzz.ratio(first, second) < SAME_SPELLING
