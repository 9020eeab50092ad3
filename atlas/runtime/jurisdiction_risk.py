"""Country risk: the subject, a company a person subject directs, or a business a declared
source of wealth or funds names, registered in one of the tenant's high-risk jurisdictions
(its policy's list; FATF's call for action by default), or a director of the subject
company living in one, as its registry record says. That alone rules out a low rating, and
the packet asks for enhanced due diligence."""

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
    in one, then the directors living in one ("director Farhad Rahimi (Iran, IR)")."""
    directors_there = [f"director {who}" for who in high_risk_residences(s)]
    return high_risk_registrations(s) + directors_there


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
    """The subject company's directors who live in a high-risk jurisdiction, by its registry
    record: "Farhad Rahimi (Iran, IR)". A director a reviewer set aside in a conflict is
    not one (directors)."""
    high_risk = set(s.high_risk_jurisdictions)
    selected = s.selected_entity
    if not high_risk or selected is None or selected.entity_type != "company":
        return []
    lives_in: dict[str, str] = {}
    for item in s.evidence:
        if item.evidence_class == "registry" and item.candidate_id == selected.entity_id:
            lives_in |= {
                director_key(name): code for name, code in item.director_residences.items()
            }
    return [
        f"{name} ({country_words(lives_in[key])})"
        for name in directors(s)
        if lives_in.get(key := director_key(name)) in high_risk
    ]


def jurisdiction_gaps(s: AtlasState) -> list[str]:
    """The packet's open items for them: one for registrations, one for residences."""
    return [gap for gap in (_registration_gap(s), _residence_gap(s)) if gap]


def _residence_gap(s: AtlasState) -> str:
    found = high_risk_residences(s)
    if not found:
        return ""
    if len(found) == 1:
        who = f"Director {found[0]} lives in one of"
    else:
        who = f"Directors {listed(found, 'and')} live in"
    return f"{who} the tenant's high-risk jurisdictions: enhanced due diligence applies."


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
