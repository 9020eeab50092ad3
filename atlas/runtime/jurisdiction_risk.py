"""Country risk: the subject, a company a person subject directs, or a business a declared
source of wealth or funds names, registered in one of the tenant's high-risk jurisdictions
(its policy's list; FATF's call for action by default), or a director of the subject
company, or a person subject, living in one, as a company's registry record says. That
alone rules out a low rating, and the packet asks for enhanced due diligence."""

from __future__ import annotations

import pycountry

from atlas.runtime.declared_businesses import registered_businesses
from atlas.runtime.directors import director_key, directors
from atlas.runtime.directorships import directorships
from atlas.runtime.state import AtlasState
from atlas.runtime.wording import listed

DIRECTED = "a company the subject directs"


def in_high_risk_jurisdictions(s: AtlasState) -> list[str]:
    """Everyone the diligence is on with a tie to a high-risk jurisdiction: those registered
    in one, then those living in one ("director Farhad Rahimi (Iran, IR)")."""
    return high_risk_registrations(s) + high_risk_residences(s)


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
    """Who lives in a high-risk jurisdiction, as a company's registry record says: a
    director of the subject company ("director Farhad Rahimi (Iran, IR)"; not one a
    reviewer set aside in a conflict), or a person subject, by the record of a company they
    direct ("the subject (Iran, IR, by Gulfstar Marine Services Ltd's registry record)")."""
    high_risk = set(s.high_risk_jurisdictions)
    if not high_risk or (s.selected_entity is None and s.brief.subject_type != "person"):
        return []
    if s.brief.subject_type == "person":
        return _subject_living_there(s, high_risk)
    residences = _residences(s, f"registry:{s.selected_entity.entity_id}")
    return [
        f"director {name} ({country_words(residences[key])})"
        for name in directors(s)
        if residences.get(key := director_key(name)) in high_risk
    ]


def _subject_living_there(s: AtlasState, high_risk: set[str]) -> list[str]:
    names = {s.brief.subject, s.selected_entity.name if s.selected_entity else ""}
    for company in directorships(s):
        residences = _residences(s, f"registry:{company.entity_id}")
        keys = {director_key(name) for name in {*names, company.listed_as} if name}
        for code in {residences[key] for key in keys if key in residences}:
            if code in high_risk:
                return [f"the subject ({country_words(code)}, by {company.name}'s registry record)"]
    return []


def _residences(s: AtlasState, source_id: str) -> dict[str, str]:
    """The country each director lives in, by the registry record read from `source_id`."""
    return {
        director_key(name): code
        for item in s.evidence
        if item.evidence_class == "registry" and item.source_id == source_id
        for name, code in item.director_residences.items()
    }


def jurisdiction_gaps(s: AtlasState) -> list[str]:
    """The packet's open items for them: one for registrations, one for residences."""
    return [gap for gap in (_registration_gap(s), _residence_gap(s)) if gap]


def _residence_gap(s: AtlasState) -> str:
    found = high_risk_residences(s)
    if not found:
        return ""
    who = listed(found, "and")
    where = "lives in one of" if len(found) == 1 else "live in"
    return (
        f"{who[:1].upper()}{who[1:]} {where} the tenant's high-risk jurisdictions: enhanced due "
        "diligence applies."
    )


def _registration_gap(s: AtlasState) -> str:
    found = high_risk_registrations(s)
    if not found:
        return ""
    who = listed(found, "and")
    who += "," if found[-1].endswith(DIRECTED) else ""  # the aside closes before the verb
    where = "is registered in one of" if len(found) == 1 else "are registered in"
    return (
        f"{who[:1].upper()}{who[1:]} {where} the tenant's high-risk jurisdictions: enhanced due "
        "diligence applies."
    )


def country_words(code: str) -> str:
    country = pycountry.countries.get(alpha_2=code)
    name = getattr(country, "common_name", None) or getattr(country, "name", None)
    return f"{name}, {code}" if name else code
