"""Screening matches a case disputes by a year of birth: a sanctions hit whose list entry
gives its person other years of birth, or a sanctions hit or a match on the register of
politically exposed persons whose entry is linked to a registry person born in another
year, than a document gives the person screened, or than the registry record a person
subject was matched to. Such a match may be on a namesake: the reviewer is told so beside
it and in the packet's gaps, and it counts until they mark it."""

from __future__ import annotations

from typing import NamedTuple

from atlas.runtime.article_ages import born_years_at
from atlas.runtime.birth_years import birth_years_in_documents, document_names
from atlas.runtime.directors import AS_DIRECTOR, director_key
from atlas.runtime.owners import AS_OWNER
from atlas.runtime.state import AtlasState, EvidenceItem
from atlas.runtime.wording import listed

# What a hit of each evidence class is called, one and several.
HIT_WORDS = {
    "sanctions": ("sanctions hit", "sanctions hits"),
    "pep": (
        "match on the register of politically exposed persons",
        "matches on the register of politically exposed persons",
    ),
}


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
    person subject's own documents, or else the registry record they were matched to (for
    an entry not linked to that record: that is the namesake gap's, and one linked to
    another record says so in its claim). Such a match may be on a namesake; it counts
    until a reviewer marks it."""
    people = _years_said_of_people(state)
    subject = _subject_year(state)
    disputes = {}
    for item in state.evidence:
        given = _years_given(item)
        if given is None:
            continue
        said = _year_of_whom_screened(state, item, people, subject)
        if said is not None and said[0] not in given[1]:
            kind, entry_years = given
            age = f"{item.age_given} on {item.published}" if kind == "aged" else ""
            disputes[item.evidence_id] = BirthYearDispute(entry_years, kind, *said, age)
    return disputes


def _years_given(item: EvidenceItem) -> tuple[str, tuple[int, ...]] | None:
    """(how, the years of birth) a screening match gives its person, where it gives any."""
    if item.listed_born_years:
        return "listed", tuple(item.listed_born_years)
    if item.linked_born_year is not None:
        return "linked", (item.linked_born_year,)
    # An article linked to a registry entity is said to be about it already.
    about_an_entity = item.candidate_id or item.about_another_entity
    if item.age_given is None or not item.found_by_name or about_an_entity:
        return None
    years = born_years_at(item.age_given, item.published)
    return ("aged", years) if years else None


def _year_of_whom_screened(
    state: AtlasState,
    item: EvidenceItem,
    people: dict[str, tuple[int, str]],
    subject: tuple[int, str] | None,
) -> tuple[int, str] | None:
    """(the year the case gives the person a match is on, the document giving it or "")."""
    role = next((r for r in (AS_DIRECTOR, AS_OWNER) if item.about.startswith(r)), None)
    if role is not None:
        return people.get(director_key(item.about.removeprefix(role)))
    selected = state.selected_entity
    if item.about or (selected and item.linked_entity_id == selected.entity_id):
        return None
    if subject is None and item.linked_entity_id:
        return None  # linked to another registry person: its claim says so
    return subject or _matched_year(state)


def dispute_words(state: AtlasState, dispute: BirthYearDispute, whom: str) -> str:
    """The sign-off page's sentence for a match `dispute` is of, on `whom`."""
    match = "It" if dispute.kind == "aged" else "Its entry"
    entry = dispute.entry_words(sentence=True)
    return f"{match} {entry}; {dispute.source_words(whom, _matched(state))}."


def hits_born_in_other_years(state: AtlasState) -> list[str]:
    """The packet's gaps for birth_year_disputes: one for the list or register matches on a
    person that the case disputes alike, naming their lists; one for each article."""
    by_id = {item.evidence_id: item for item in state.evidence}
    # (kind, whom, linked entity, dispute) -> lists
    grouped: dict[tuple[str, str, str, BirthYearDispute], list[str]] = {}
    articles = []
    for evidence_id, dispute in birth_year_disputes(state).items():
        item = by_id[evidence_id]
        whom = item.about or "the subject"
        if dispute.kind == "aged":
            articles.append(
                f"The article on {whom} ({item.claim}) {dispute.entry_words(sentence=True)}, "
                f"but {dispute.source_words(whom, _matched(state))}: it may be about a "
                "namesake, for a reviewer to confirm or mark a false positive."
            )
            continue
        key = (item.evidence_class, whom, item.linked_entity_id, dispute)
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
        entry = dispute.entry_words() + (f" [{linked}]" if dispute.kind == "linked" else "")
        gaps.append(
            f"The {hits} on {entries} {entry}, but {dispute.source_words(whom, _matched(state))}"
            f": {they} may be on a namesake, for a reviewer to confirm or mark a false positive."
        )
    return gaps + articles


def _years_said_of_people(state: AtlasState) -> dict[str, tuple[int, str]]:
    """director_key -> (the year the subject company's registry record, or a document about
    it, gives a person it names as born in; that source, in words); none for a person
    sources disagree on."""
    names = document_names(state)
    selected = state.selected_entity
    record = f"registry:{selected.entity_id}" if selected else None
    said: dict[str, tuple[int, str]] = {}
    disputed = set()
    for item in state.evidence:
        if item.source_id in names:
            source = _document_words(names[item.source_id])
        elif item.source_id == record:
            source = f"the registry record of {_matched(state)}"
        else:
            continue  # another company's record: a namesake of its directors is not ours
        for name, year in item.birth_years_of.items():
            key = director_key(name)
            if key in said and said[key][0] != year:
                disputed.add(key)
            said.setdefault(key, (year, source))
    return {key: held for key, held in said.items() if key not in disputed}


def _document_words(name: str) -> str:
    return f"the uploaded document “{name}”"


def _subject_year(state: AtlasState) -> tuple[int, str] | None:
    """(the year a person subject's own documents give, the first of them) where they give
    one."""
    years = birth_years_in_documents(state)
    if len(years) != 1:
        return None
    ((year, documents),) = years.items()
    return int(year), _document_words(documents[0])


def _matched_year(state: AtlasState) -> tuple[int, str] | None:
    """(the year the registry person a person subject was matched to was born in, "")."""
    selected = state.selected_entity
    if selected is None or not selected.born_year:
        return None
    return selected.born_year, ""


def _matched(state: AtlasState) -> str:
    """ "Oleg Danilov (GB)": the registry entity the subject was matched to."""
    selected = state.selected_entity
    return f"{selected.name} ({selected.jurisdiction})" if selected else ""
