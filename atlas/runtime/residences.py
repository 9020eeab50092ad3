"""Where the subject company's directors and beneficial owners live, as each source says:
its registry record and the documents about it; and where a person subject lives, as a form
of theirs or the record of a company they direct says. A source's word on one person is a
fact of its own, so sources naming different people never disagree (each is weighed where
it speaks); two giving one person different countries are a conflict for a reviewer, and
once a reviewer settles it only the country they chose counts."""

from __future__ import annotations

from atlas.runtime.countries import country_words
from atlas.runtime.directors import director_key, directors
from atlas.runtime.directorships import directorships
from atlas.runtime.owners import owners
from atlas.runtime.state import AtlasState, Conflict, EvidenceItem, Fact, conflict_id_for

FACT = "country_of_residence"


def residence_fact(entity_id: str, name: str, code: str, item: EvidenceItem, excerpt: str) -> Fact:
    """`item`'s word that `name`, of the entity `entity_id`, lives in the country `code`."""
    return Fact.said_by(
        item,
        fact=FACT,
        entity_id=entity_id,
        person=name,
        value=code,
        display_value=country_words(code),
        excerpt=excerpt,
    )


def people_of_the_company(state: AtlasState) -> dict[str, str]:
    """director_key -> how a conflict over where one lives names them ("director Farhad
    Rahimi", "beneficial owner Jane Roe"): the selected company's directors and owners."""
    people: dict[str, str] = {}
    for role, names in (("director", directors(state)), ("beneficial owner", owners(state))):
        for name in names:
            people.setdefault(director_key(name), f"{role} {name}")
    return people


def person_of_the_company(state: AtlasState, name: str) -> str:
    """How a conflict over a fact about `name` names them: with their role, once the
    research holds them a director or owner of the selected company."""
    return people_of_the_company(state).get(director_key(name), name)


def residence_facts(state: AtlasState) -> dict[str, list[Fact]]:
    """director_key -> what the sources say of where each director or owner of the
    selected company lives; once a reviewer settles a conflict over one, only the country
    they chose."""
    selected = state.selected_entity
    if selected is None or selected.entity_type != "company":
        return {}
    people = people_of_the_company(state)
    said: dict[str, list[Fact]] = {}
    for fact in state.facts:
        if fact.fact != FACT or fact.entity_id != selected.entity_id:
            continue
        if (key := director_key(fact.person)) in people:
            said.setdefault(key, []).append(fact)
    return {
        key: state.settled_facts(conflict_id_for(selected.entity_id, FACT, key), facts)
        for key, facts in said.items()
    }


def countries_lived_in(state: AtlasState) -> dict[str, set[str]]:
    """director_key -> the countries the selected company's directors and owners live in,
    as the sources say and reviewers settled."""
    return {key: {fact.value for fact in facts} for key, facts in residence_facts(state).items()}


def with_residence_facts(state: AtlasState) -> AtlasState:
    """A state written before residences were facts of their own holds them only on its
    evidence: read from there, each with the source's claim as its excerpt."""
    selected = state.selected_entity
    if selected is None or selected.entity_type != "company":
        return state  # a person subject's are derived with every step
    if any(fact.fact == FACT for fact in state.facts):
        return state
    for item in state.evidence:
        if item.evidence_class == "document":
            entity_id = selected.entity_id
        elif item.source_id.startswith("registry:"):
            entity_id = item.source_id.removeprefix("registry:")
        else:
            continue
        for name, code in item.residences.items():
            state.facts.append(residence_fact(entity_id, name, code, item, item.claim))
    return state


def subject_entity_id(state: AtlasState) -> str:
    """What a person subject's own facts are of: their registry match, "" without one."""
    return state.selected_entity.entity_id if state.selected_entity else ""


def subject_residence_facts(state: AtlasState) -> list[Fact]:
    """For a person subject, where they live as each source says: a form of theirs, then
    the record of each company they direct (under the name it lists them by), one fact a
    source. Derived afresh from the evidence with each step: which companies they direct
    is only known once the subject is matched."""
    if state.brief.subject_type != "person":
        return []
    names = {state.brief.subject, state.selected_entity.name if state.selected_entity else ""}
    sources = [(item, names) for item in state.evidence if item.evidence_class == "document"]
    by_source = {item.source_id: item for item in state.evidence}
    for company in directorships(state):
        if record := by_source.get(f"registry:{company.entity_id}"):
            sources.append((record, {*names, company.listed_as}))
    facts: dict[str, Fact] = {}
    for item, named in sources:
        keys = {director_key(name) for name in named if name}
        code = next((c for n, c in item.residences.items() if director_key(n) in keys), None)
        # A declaration read from a form is the form's word again, not another source's.
        if code and item.source_id not in facts:
            excerpt = item.residence_line or item.claim
            fact = residence_fact(subject_entity_id(state), "", code, item, excerpt)
            facts[item.source_id] = fact
    return list(facts.values())


def home_countries_in_documents(state: AtlasState) -> dict[str, list[str]]:
    """For a person subject, country code -> the names of their own documents that say
    they live there: before a registry match, what tells same-name candidates apart."""
    return state.given_by_documents(subject_residence_facts(state))


def subject_residences(state: AtlasState) -> list[Fact]:
    """`subject_residence_facts` as a reviewer settled them: once one settles a conflict
    over where the subject lives, only the country they chose."""
    over = conflict_id_for(subject_entity_id(state), FACT)
    return state.settled_facts(over, subject_residence_facts(state))


def moot_conflicts(state: AtlasState) -> list[Conflict]:
    """Open conflicts over where someone lives who is no longer a director or owner of the
    selected company (a reviewer settled its directors without them): nothing the
    diligence is on is in dispute there any more."""
    selected = state.selected_entity
    if selected is None or selected.entity_type != "company":
        return []
    standing = {
        conflict_id_for(selected.entity_id, FACT, key) for key in people_of_the_company(state)
    }
    return [
        c
        for c in state.conflicts
        if c.fact == FACT and c.person and c.status == "open" and c.conflict_id not in standing
    ]
