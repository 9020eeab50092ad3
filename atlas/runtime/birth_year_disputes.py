"""Screening matches a case disputes by a year of birth: a sanctions hit whose list entry
gives its person other years of birth, a sanctions hit or a match on the register of
politically exposed persons whose entry is linked to a registry person born in another
year, or an article found by a name that gives the person another age, than a document or
the registry gives the person screened. Such a match may be on a namesake: the reviewer is
told so beside it and in the packet's gaps, and it counts until they mark it."""

from __future__ import annotations

from typing import NamedTuple

from atlas.runtime.article_ages import born_years_at
from atlas.runtime.birth_years import FACT, birth_years_in_documents
from atlas.runtime.directors import director_key
from atlas.runtime.namesake_disputes import (
    company_sources,
    dispute_gaps,
    document_words,
    person_screened,
)
from atlas.runtime.state import AtlasState, EvidenceItem, conflict_id_for
from atlas.runtime.wording import listed


class BirthYearDispute(NamedTuple):
    """A screening match gives its person's years of birth (`entry_years`): as its list
    entry lists them (`kind` "listed"), as the registry person its entry is linked to was
    born ("linked"), or as an article found by the name gives their `age` ("aged"). The
    case gives the person screened another, `year`: its `source` ("the uploaded document
    “kyc.txt”", "the registry record of Calder Print Works Ltd (GB)"), or ("") the registry
    person the subject was matched to."""

    entry_years: tuple[int, ...]
    kind: str
    year: int
    source: str
    age: str = ""

    def entry_words(self, *, sentence: bool = False) -> str:
        """ "listing a date of birth in 1959 or 1960", "linked to a registry person born in
        1968", "giving an age of 62 on 2022-05-05, so born in 1959 or 1960"; in a
        `sentence` "lists ...", "is linked ...", "gives ..." """
        years = listed([str(year) for year in self.entry_years], "or")
        if self.kind == "listed":
            return f"{'lists' if sentence else 'listing'} a date of birth in {years}"
        if self.kind == "aged":
            return f"{'gives' if sentence else 'giving'} an age of {self.age}, so born in {years}"
        return f"{'is ' if sentence else ''}linked to a registry person born in {years}"

    def source_words(self, whom: str, matched: str) -> str:
        """ "the uploaded document “kyc.txt” gives director Dmitri Volkov a date of birth in
        1985", "the subject was matched to Oleg Danilov (GB), born in 1987" """
        if self.source:
            return f"{self.source} gives {whom} a date of birth in {self.year}"
        return f"the subject was matched to {matched}, born in {self.year}"


def birth_year_disputes(state: AtlasState) -> dict[str, BirthYearDispute]:
    """evidence id -> the dispute, for each screening match (a sanctions hit, a match on
    the register of politically exposed persons, an article found by a name) that gives
    its person other years of birth than the case gives the person screened: a document
    about the subject company, or its registry record, of a director or owner it names; a
    person subject's own documents, or else the registry record they were matched to (not
    weighed against the year of another registry person a match's entry is linked to: its
    claim says already that it is linked to someone else).
    Such a match may be on a namesake; it counts until a reviewer marks it."""
    people = _years_said_of_people(state)
    subject = _subject_year(state)
    disputes = {}
    for item in state.screening_matches():
        given = _years_given(item)
        if given is None:
            continue
        kind, entry_years = given
        said = _year_of_whom_screened(state, item, kind, people, subject)
        if said is not None and said[0] not in entry_years:
            age = f"{item.age_given} on {item.published}" if kind == "aged" else ""
            disputes[item.evidence_id] = BirthYearDispute(entry_years, kind, *said, age)
    return disputes


def hits_born_in_other_years(state: AtlasState) -> list[str]:
    """The packet's gaps for birth_year_disputes."""
    return dispute_gaps(state, birth_year_disputes(state))


def _years_given(item: EvidenceItem) -> tuple[str, tuple[int, ...]] | None:
    """(how, the years of birth) a screening match gives its person, where it gives any."""
    if item.listed_born_years:
        return "listed", tuple(item.listed_born_years)
    if item.linked_born_year is not None:
        return "linked", (item.linked_born_year,)
    # An article linked to a registry entity is said to be about it already.
    if item.age_given is None or item.candidate_id or item.about_another_entity:
        return None
    years = born_years_at(item.age_given, item.published)
    return ("aged", years) if years else None


def _year_of_whom_screened(
    state: AtlasState,
    item: EvidenceItem,
    kind: str,
    people: dict[str, tuple[int, str]],
    subject: tuple[int, str] | None,
) -> tuple[int, str] | None:
    """(the year the case gives the person a match of `kind` is on, its source in words or
    "")."""
    person = person_screened(state, item)
    if person:
        return people.get(person)
    if person is None or (subject is None and kind == "linked"):
        # Two registry persons' years: that the entry is linked to another than the
        # subject's match, its claim says already.
        return None
    return subject or _matched_year(state)


def _years_said_of_people(state: AtlasState) -> dict[str, tuple[int, str]]:
    """director_key -> (the year the subject company's registry record, or a document about
    it, gives a person it names as born in; that source, in words); for a person sources
    disagree on, the year a reviewer settled on, if one did (until then, none: the
    disagreement is a conflict of its own)."""
    said: dict[str, tuple[int, str]] = {}
    disputed = set()
    for item, source in company_sources(state):
        for name, year in item.birth_years_of.items():
            key = director_key(name)
            if key in said and said[key][0] != year:
                disputed.add(key)
            said.setdefault(key, (year, source))
    for key in disputed:
        del said[key]
        if settled := _settled_year(state, key):
            said[key] = (settled, "the year a reviewer settled on")
    return said


def _settled_year(state: AtlasState, person_key: str) -> int | None:
    """The year a reviewer settled the sources' disagreement over the year of birth of the
    subject company's person `person_key` on, if one did."""
    selected = state.selected_entity
    if selected is None:
        return None
    over = conflict_id_for(selected.entity_id, FACT, person_key)
    conflict = next((c for c in state.conflicts if c.conflict_id == over), None)
    if conflict is None or conflict.status != "resolved" or conflict.resolution is None:
        return None  # none, not yet settled, or ruled unresolvable
    return int(conflict.resolution.value)


def _subject_year(state: AtlasState) -> tuple[int, str] | None:
    """(the year a person subject's own documents give, the first of them) where they give
    one."""
    years = birth_years_in_documents(state)
    if len(years) != 1:
        return None
    ((year, documents),) = years.items()
    return int(year), document_words(documents[0])


def _matched_year(state: AtlasState) -> tuple[int, str] | None:
    """(the year the registry person a person subject was matched to was born in, "")."""
    selected = state.selected_entity
    if selected is None or not selected.born_year:
        return None
    return selected.born_year, ""
