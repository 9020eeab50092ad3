"""Screening matches a case's documents dispute by a year of birth: a sanctions hit, or a
match on the register of politically exposed persons, whose entry is linked to a registry
person born in another year than a document gives the person screened. Such a match may be
on a namesake: the reviewer is told so beside it and in the packet's gaps, and it counts
until they mark it."""

from __future__ import annotations

from typing import NamedTuple

from atlas.runtime.birth_years import birth_years_in_documents, document_names
from atlas.runtime.directors import AS_DIRECTOR, director_key
from atlas.runtime.owners import AS_OWNER
from atlas.runtime.state import AtlasState

# What a hit of each evidence class is called, one and several.
HIT_WORDS = {
    "sanctions": ("sanctions hit", "sanctions hits"),
    "pep": (
        "match on the register of politically exposed persons",
        "matches on the register of politically exposed persons",
    ),
}


class BirthYearDispute(NamedTuple):
    """A screening match's entry is linked to a registry person born in `linked_year`; the
    uploaded `document` gives the person screened a date of birth in `year`."""

    linked_year: int
    year: int
    document: str

    def words(self, whom: str) -> str:
        """ "linked to a registry person born in 1968; the uploaded document “kyc.txt”
        gives director Dmitri Volkov a date of birth in 1985" """
        return (
            f"linked to a registry person born in {self.linked_year}; the uploaded document "
            f"“{self.document}” gives {whom} a date of birth in {self.year}"
        )


def birth_year_disputes(state: AtlasState) -> dict[str, BirthYearDispute]:
    """evidence id -> the dispute, for each sanctions hit or match on the register of
    politically exposed persons whose entry is linked to a registry person born in another
    year than the case's documents give the person screened: a director or owner a document
    about the subject company names, or a person subject by their own documents (the entry
    not linked to the registry person they were matched to: that is the namesake gap's).
    Such a match may be on a namesake; it counts until a reviewer marks it."""
    people = _years_said_of_people(state)
    subject = _subject_year(state)
    selected = state.selected_entity
    disputes = {}
    for item in state.evidence:
        if item.linked_born_year is None:
            continue
        role = next((r for r in (AS_DIRECTOR, AS_OWNER) if item.about.startswith(r)), None)
        if role is not None:
            said = people.get(director_key(item.about.removeprefix(role)))
        elif item.about or (selected and item.linked_entity_id == selected.entity_id):
            continue
        else:
            said = subject
        if said is not None and said[0] != item.linked_born_year:
            disputes[item.evidence_id] = BirthYearDispute(item.linked_born_year, *said)
    return disputes


def hits_born_in_other_years(state: AtlasState) -> list[str]:
    """The packet's gaps for birth_year_disputes: one for the matches of a kind on a person
    that a document disputes alike, naming their lists."""
    by_id = {item.evidence_id: item for item in state.evidence}
    # (kind, whom, linked entity, dispute) -> lists
    grouped: dict[tuple[str, str, str, BirthYearDispute], list[str]] = {}
    for evidence_id, dispute in birth_year_disputes(state).items():
        item = by_id[evidence_id]
        key = (item.evidence_class, item.about or "the subject", item.linked_entity_id, dispute)
        lists = grouped.setdefault(key, [])
        if item.source_label not in lists:
            lists.append(item.source_label)
    gaps = []
    for (kind, whom, linked, dispute), lists in grouped.items():
        one, many = HIT_WORDS[kind]
        hits, entries, they = (
            (f"{one} on {whom} ({lists[0]}) is", "an entry", "it")
            if len(lists) == 1
            else (f"{many} on {whom} ({', '.join(lists)}) are", "entries", "they")
        )
        gaps.append(
            f"The {hits} on {entries} linked to a registry person born in "
            f"{dispute.linked_year} [{linked}], but the uploaded document “{dispute.document}” "
            f"gives {whom} a date of birth in {dispute.year}: {they} may be on a namesake, "
            "for a reviewer to confirm or mark a false positive."
        )
    return gaps


def _years_said_of_people(state: AtlasState) -> dict[str, tuple[int, str]]:
    """director_key -> (the year a document about the subject company gives a person it
    names as born in, that document's name); none for a person documents disagree on."""
    names = document_names(state)
    said: dict[str, tuple[int, str]] = {}
    disputed = set()
    for item in state.evidence:
        for name, year in item.birth_years_of.items():
            key = director_key(name)
            if key in said and said[key][0] != year:
                disputed.add(key)
            said.setdefault(key, (year, names.get(item.source_id, item.source_label)))
    return {key: held for key, held in said.items() if key not in disputed}


def _subject_year(state: AtlasState) -> tuple[int, str] | None:
    """(the year a person subject's own documents give, the first of them) where they give
    one."""
    years = birth_years_in_documents(state)
    if len(years) != 1:
        return None
    ((year, documents),) = years.items()
    return int(year), documents[0]
