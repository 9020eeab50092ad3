"""Country risk: the subject, a company a person subject directs, or a business a declared
source of wealth or funds names, registered in one of the tenant's high-risk jurisdictions
(its policy's list; FATF's call for action by default), or a director or beneficial owner
of the subject company, or a person subject, living in one, as a registry record or a
document says; or, where the tenant's policy counts nationality, a person subject or a
director or owner of the subject company who is a national of one, as a document or the
company's registry record says. That alone rules out a low rating, and the
packet asks for enhanced due diligence."""

from __future__ import annotations

from atlas.runtime.countries import country_words
from atlas.runtime.declared_businesses import registered_businesses
from atlas.runtime.directors import director_key, directors
from atlas.runtime.directorships import directorships
from atlas.runtime.owners import owners
from atlas.runtime.residences import (
    countries_lived_in,
    people_of_the_company,
    subject_residences,
)
from atlas.runtime.state import AtlasState
from atlas.runtime.wording import listed

DIRECTED = "a company the subject directs"


def in_high_risk_jurisdictions(s: AtlasState) -> list[str]:
    """Everyone the diligence is on with a tie to a high-risk jurisdiction: those registered
    in one, those living in one ("director Farhad Rahimi (Iran, IR)"), then, where the
    tenant's policy counts nationality, those who are nationals of one."""
    return high_risk_registrations(s) + high_risk_residences(s) + high_risk_nationalities(s)


def high_risk_registrations(s: AtlasState) -> list[str]:
    """Who the diligence is on that is registered in a high-risk jurisdiction: "the subject
    (Myanmar, MM)", "Acme Ltd (Myanmar, MM), a company the subject directs"."""
    high_risk = set(s.high_risk_jurisdictions)
    if not high_risk:
        return []
    found = []
    subject = s.selected_entity.jurisdiction if s.selected_entity else s.brief.jurisdiction
    if subject in high_risk:
        found.append(f"the subject ({country_words(subject)})")
    for company in directorships(s):
        if company.jurisdiction in high_risk:
            where = country_words(company.jurisdiction)
            found.append(f"{company.name} ({where}), {DIRECTED}")
    for business, code in registered_businesses(s):
        if code in high_risk:
            found.append(f"the {business} ({country_words(code)})")
    return list(dict.fromkeys(found))


def high_risk_residences(s: AtlasState) -> list[str]:
    """Who lives in a high-risk jurisdiction: a director or beneficial owner of the subject
    company, as its registry record or a document about it says ("director Farhad Rahimi
    (Iran, IR)"; not a director a reviewer set aside in a conflict, nor a country a reviewer
    ruled out where sources disagree), or a person subject, by a form of theirs or the
    record of a company they direct ("the subject (Iran, IR, by Gulfstar Marine Services
    Ltd's registry record)")."""
    high_risk = set(s.high_risk_jurisdictions)
    if not high_risk or (s.selected_entity is None and s.brief.subject_type != "person"):
        return []
    if s.brief.subject_type == "person":
        return _subject_living_there(s, high_risk)
    lives_in = countries_lived_in(s)
    found = []
    for role, names in (("director", directors(s)), ("beneficial owner", owners(s))):
        for name in names:
            said = lives_in.get(director_key(name), set())
            if there := sorted(said & high_risk):
                # Sources that disagree are both shown: the reviewer weighs them.
                elsewhere = "; ".join(map(country_words, sorted(said - high_risk)))
                also = f"; another source says {elsewhere}" if elsewhere else ""
                found.append(f"{role} {name} ({'; '.join(map(country_words, there))}{also})")
    return found


def _subject_living_there(s: AtlasState, high_risk: set[str]) -> list[str]:
    """A person subject's residence, by a document of theirs (a form that is not a
    company's) or the record of a company they direct, as a reviewer settled it."""
    companies = {f"registry:{c.entity_id}": c.name for c in directorships(s)}
    for fact in subject_residences(s):
        if fact.value in high_risk:
            label = fact.source_label[:1].lower() + fact.source_label[1:]
            by = (
                f"{companies[fact.source_id]}'s registry record"
                if fact.source_id in companies
                else label
            )
            return [f"the subject ({country_words(fact.value)}, by {by})"]
    return []


def high_risk_nationalities(s: AtlasState) -> list[str]:
    """Who is a national of a high-risk jurisdiction, where the tenant's policy counts
    nationality: a person subject, by a form of theirs ("the subject (a national of Iran,
    IR, by uploaded document declaration.txt)"), or a director or beneficial owner of the
    subject company, by a document about it or its registry record ("director Farhad
    Rahimi (a national of Iran, IR, by uploaded document board.txt)")."""
    if not s.nationality_counts:
        return []
    high_risk = set(s.high_risk_jurisdictions)
    if s.brief.subject_type == "person":
        said = [("the subject", item, item.nationalities) for item in s.evidence]
    elif s.selected_entity is not None:
        people = people_of_the_company(s)
        # A registry record speaks for its own company's people only: a namesake's record
        # lists its own.
        records = {f"registry:{s.selected_entity.entity_id}"}
        said = [
            (people[key], item, codes)
            for item in s.evidence
            if item.evidence_class != "registry" or item.source_id in records
            for name, codes in item.nationalities_of.items()
            if (key := director_key(name)) in people
        ]
    else:
        return []
    found: dict[str, str] = {}
    for who, item, codes in said:
        if there := [code for code in codes if code in high_risk]:
            label = item.source_label[:1].lower() + item.source_label[1:]
            countries = listed([country_words(code) for code in there], "and")
            found.setdefault(who, f"{who} (a national of {countries}, by {label})")
    return list(found.values())


def jurisdiction_gaps(s: AtlasState) -> list[str]:
    """The packet's open items for them: one for registrations, one for residences, one
    for nationality."""
    gaps = (_registration_gap(s), _residence_gap(s), _nationality_gap(s))
    return [gap for gap in gaps if gap]


def _nationality_gap(s: AtlasState) -> str:
    return _gap(
        high_risk_nationalities(s),
        "is a national of one of",
        "are nationals of",
        ", which its policy counts",
    )


def _residence_gap(s: AtlasState) -> str:
    return _gap(high_risk_residences(s), "lives in one of", "live in")


def _registration_gap(s: AtlasState) -> str:
    return _gap(high_risk_registrations(s), "is registered in one of", "are registered in")


def _gap(found: list[str], one: str, many: str, counted: str = "") -> str:
    """The packet's open item saying how `found` are tied to the tenant's high-risk
    jurisdictions ("Director X lives in one of the tenant's high-risk jurisdictions:
    enhanced due diligence applies."), or "" when nobody is found."""
    if not found:
        return ""
    who = listed(found, "and")
    who += "," if found[-1].endswith(DIRECTED) else ""  # the aside closes before the verb
    verb = one if len(found) == 1 else many
    return (
        f"{who[:1].upper()}{who[1:]} {verb} the tenant's high-risk jurisdictions{counted}: "
        "enhanced due diligence applies."
    )
