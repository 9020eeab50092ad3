"""Country risk: the subject, a company a person subject directs, or a business a declared
source of wealth or funds names, registered in one of the tenant's high-risk jurisdictions
(its policy's list; FATF's call for action by default). That alone rules out a low rating,
and the packet asks for enhanced due diligence."""

from __future__ import annotations

import pycountry

from atlas.runtime.declared_businesses import registered_businesses
from atlas.runtime.directorships import directorships
from atlas.runtime.state import AtlasState
from atlas.runtime.wording import listed

DIRECTED = "a company the subject directs"


def in_high_risk_jurisdictions(s: AtlasState) -> list[str]:
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


def jurisdiction_gap(s: AtlasState) -> str:
    """The packet's open item for them; "" for none."""
    found = in_high_risk_jurisdictions(s)
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
