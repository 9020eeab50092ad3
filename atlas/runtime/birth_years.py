"""A person subject's year of birth as each source gives it: the registry record the subject
was matched to, the record of each company they are found to direct (where it gives its
directors' years), and each form of theirs (a passport, an identity card, a declaration)
whose dates of birth all fall in one year. A form born in another year than the registry
person, or than a company's director of their name, is the mark of a namesake, so sources
that disagree are a conflict for a reviewer. A company's director's or owner's year, as
its record and the documents about it give it, is a fact of its own. Only the year is
compared and shown: the date itself stays redacted."""

from __future__ import annotations

from atlas.runtime.directors import director_key
from atlas.runtime.directorships import directorships
from atlas.runtime.namesakes import RECORD_BORN, RECORD_NAME
from atlas.runtime.residences import subject_entity_id
from atlas.runtime.state import (
    AtlasState,
    Conflict,
    ConflictValue,
    EvidenceItem,
    Fact,
    conflict_id_for,
)
from atlas.runtime.wording import listed

FACT = "year_of_birth"


def subject_birth_year_facts(state: AtlasState) -> list[Fact]:
    """For a person subject, the year they were born in as each source says: the record of
    the registry person they were matched to, then each of their forms, one fact a source.
    Derived afresh from the evidence with each step, like where they live: the match may
    come after the forms were read, or change."""
    if state.brief.subject_type != "person":
        return []
    entity_id = subject_entity_id(state)
    facts = []
    selected = state.selected_entity
    if selected is not None and selected.born_year:
        record = next((e for e in state.evidence if e.source_id == f"registry:{entity_id}"), None)
        if record is not None:
            facts.append(_said(record, entity_id, selected.born_year, record.claim))
    facts += _listed_as_director(state, entity_id)
    forms: dict[str, EvidenceItem] = {}
    for item in state.evidence:
        if item.evidence_class == "document" and item.birth_year:
            forms.setdefault(item.source_id, item)
    for item in forms.values():
        excerpt = f"A date of birth in {item.birth_year} (the date itself is redacted)."
        facts.append(_said(item, entity_id, item.birth_year, excerpt))
    return facts


def _listed_as_director(state: AtlasState, entity_id: str) -> list[Fact]:
    """The year the registry record of each company the subject is found to direct gives
    its director of the subject's name, where it gives one (as the UK register does)."""
    names = [state.brief.subject]
    if state.selected_entity is not None:
        names.append(state.selected_entity.name)
    by_source = {item.source_id: item for item in state.evidence}
    facts = []
    for company in directorships(state):
        record = by_source.get(f"registry:{company.entity_id}")
        if record is None:
            continue
        keys = {director_key(name) for name in [*names, company.listed_as] if name}
        listed = [(n, y) for n, y in record.birth_years_of.items() if director_key(n) in keys]
        if listed:
            name, year = listed[0]
            excerpt = f"{company.label()}'s registry record lists its director {name}, born {year}."
            facts.append(_said(record, entity_id, year, excerpt))
    return facts


def person_birth_year_fact(
    entity_id: str, name: str, year: int, item: EvidenceItem, excerpt: str
) -> Fact:
    """`item`'s word that `name`, a director or owner of the company `entity_id`, was born
    in `year`: sources giving one person different years are a conflict for a reviewer (a
    slip, or someone else of that name)."""
    return Fact.said_by(
        item,
        fact=FACT,
        entity_id=entity_id,
        person=name,
        value=str(year),
        display_value=str(year),
        excerpt=excerpt,
    )


def birth_years_in_documents(state: AtlasState) -> dict[str, list[str]]:
    """year -> the names of the subject's own documents that give it."""
    return state.given_by_documents(subject_birth_year_facts(state))


def _said(item: EvidenceItem, entity_id: str, year: int, excerpt: str) -> Fact:
    return Fact.said_by(
        item,
        fact=FACT,
        entity_id=entity_id,
        value=str(year),
        display_value=str(year),
        excerpt=excerpt,
    )


def namesake_gaps(state: AtlasState) -> list[str]:
    """While sources disagree on a person subject's year of birth, what that means for the
    packet: the registry person they were matched to, and everything found on that match,
    may be someone else of the same name (naming the registry persons of the subject's name
    born in the year the subject's own documents give, where the research found any); so
    may a company whose record lists a director of the subject's name born in another year,
    and what was found through it."""
    if state.brief.subject_type != "person":
        return []
    over = conflict_id_for(subject_entity_id(state), FACT)
    conflict = next((c for c in state.conflicts if c.conflict_id == over), None)
    if conflict is None:
        return []
    return _match_gaps(state, conflict) + _directorship_gaps(state, conflict)


def _match_gaps(state: AtlasState, conflict: Conflict) -> list[str]:
    selected = state.selected_entity
    record = f"registry:{selected.entity_id}" if selected else None
    if selected is None or not any(value.source_id == record for value in conflict.values):
        return []  # the subject's documents disagree among themselves, or with a company's
    born = str(selected.born_year)
    matched = f"{selected.name} ({selected.jurisdiction}, born {born})"
    if conflict.status == "resolved":
        settled = conflict.resolution.value if conflict.resolution else None
        if settled in (None, born):
            return []
        return [
            f"A reviewer settled the subject's year of birth as {settled}, not that of "
            f"{matched}, the registry person they were matched to: the match is on someone "
            "else, and what was found on it is not about the subject. Send the packet back: "
            "the analyst corrects the subject ('Correct the subject' on the case page, with "
            "the country of the right person) and the research starts afresh."
        ]
    disagreeing = _documents_saying_otherwise(conflict, born)
    years = sorted({value.value for value in disagreeing})
    documents = "A document of the subject's own gives"
    if len(disagreeing) > 1:
        documents = "Documents of the subject's own give"
    gap = (
        f"{documents} a year of birth ({listed(years, 'or')}) other than that of {matched}, "
        "the registry person they were matched to: the match, and what was found on it, may "
        "be on a namesake."
    )
    if namesakes := _born_in(state, years):
        gap += f" Registry persons of the subject's name born then: {listed(namesakes)}."
    return [gap]


def _directorship_gaps(state: AtlasState, conflict: Conflict) -> list[str]:
    """For each company the subject is found to direct whose record lists its director of
    the subject's name born in another year than the subject's own documents give."""
    gaps = []
    for company in directorships(state):
        value = next(
            (v for v in conflict.values if v.source_id == f"registry:{company.entity_id}"), None
        )
        if value is None:
            continue
        lists = (
            f"the registry record of {company.label()}, a company the subject is found to direct"
        )
        if conflict.status == "resolved":
            settled = conflict.resolution.value if conflict.resolution else None
            if settled not in (None, value.value):
                gaps.append(
                    f"A reviewer settled the subject's year of birth as {settled}, not the "
                    f"{value.value} {lists}, gives its director of that name: that directorship "
                    "is a namesake's, and what was found through it is not about the subject."
                )
            continue
        if disagreeing := _documents_saying_otherwise(conflict, value.value):
            years = sorted({said.value for said in disagreeing})
            gaps.append(
                f"{lists[:1].upper()}{lists[1:]}, gives its director of the subject's name a "
                f"year of birth ({value.value}) other than a document of the subject's own "
                f"({listed(years, 'or')}): that directorship, and what was found through it, "
                "may be a namesake's."
            )
    return gaps


def _documents_saying_otherwise(conflict: Conflict, year: str) -> list[ConflictValue]:
    """What the subject's own documents say in `conflict`, where it is not `year`."""
    return [
        value
        for value in conflict.values
        if value.source_id.startswith("document:") and value.value != year
    ]


def _born_in(state: AtlasState, years: list[str]) -> list[str]:
    """ "Sergei Markov (GB, born 1990) [pe-sergei-markov-gb]": the registry candidates for
    the subject whose records the research read, born in one of `years`."""
    found = []
    for item in state.evidence:
        if not item.candidate_id:
            continue
        named, born = RECORD_NAME.match(item.claim), RECORD_BORN.match(item.claim)
        if named and born and born["year"] in years:
            found.append(
                f"{named['name']} ({named['country']}, born {born['year']}) [{item.candidate_id}]"
            )
    return list(dict.fromkeys(found))


def document_names(state: AtlasState) -> dict[str, str]:
    """source id -> name, of the case's documents."""
    return {f"document:{key}": name for key, name in state.brief.document_names().items()}
