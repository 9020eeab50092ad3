"""The other directors of the companies a person subject directs, as the companies'
registry records list them: each screened against the sanctions lists and searched for
adverse media by name, as steps of their own. Someone who sits on a board beside a listed
person, or beside one convicted of fraud, is exposed to them. The
directors only an article or a document gives such a company are left to a person, as a
gap of the packet (packets.with_open_issues)."""

from __future__ import annotations

from atlas.runtime.directors import SEPARATOR, director_key, named_in, named_step, not_done
from atlas.runtime.directorships import directorships
from atlas.runtime.state import AtlasState, HeldDirectorship
from atlas.runtime.world import SPELLED_AS_ITS_NAME, name_score

# How a person screened as a co-director is named in the evidence.
AS_CODIRECTOR = "co-director "


def codirector_step(name: str) -> str:
    """The completed step for screening one co-director."""
    return named_step("screen_codirector", name)


def codirector_media_step(name: str) -> str:
    """The completed step for searching adverse media on one co-director."""
    return named_step("search_codirector", name)


def registry_directors(state: AtlasState, company_id: str) -> list[str]:
    """The directors the company's own registry record lists, each once."""
    return list(
        dict.fromkeys(
            name
            for fact in state.facts
            if fact.entity_id == company_id
            and fact.fact == "directors"
            and fact.source_id == f"registry:{company_id}"
            for name in fact.display_value.split(SEPARATOR)
        )
    )


def codirectors_of(state: AtlasState, company: HeldDirectorship) -> list[str]:
    """The directors the company's registry record lists besides the subject, however the
    record spells the subject's name."""
    own = [state.brief.subject, company.listed_as]
    if state.selected_entity is not None:
        own.append(state.selected_entity.name)
    return [
        name
        for name in registry_directors(state, company.entity_id)
        if not any(name_score(name, mine) >= SPELLED_AS_ITS_NAME for mine in own if mine)
    ]


def codirectors(state: AtlasState) -> list[str]:
    """The co-directors of every company the subject directs, each once."""
    names: dict[str, str] = {}
    for company in directorships(state):
        for name in codirectors_of(state, company):
            names.setdefault(director_key(name), name)
    return list(names.values())


def as_codirector(state: AtlasState, name: str) -> str:
    """How the evidence names a co-director: "co-director Dmitry Volkov at Amber Coast
    Freight UAB (LT)", with each company the subject directs whose record lists them."""
    companies = [company.label() for company in codirector_companies(state, name)]
    return f"{AS_CODIRECTOR}{name} at {' and '.join(companies)}"


def codirector_companies(state: AtlasState, name: str) -> list[HeldDirectorship]:
    """The companies the subject directs whose registry records list `name` too."""
    key = director_key(name)
    return [
        company
        for company in directorships(state)
        if any(director_key(other) == key for other in codirectors_of(state, company))
    ]


def unscreened_codirectors(state: AtlasState) -> list[str]:
    return not_done(state, codirectors(state), codirector_step)


def unsearched_codirectors(state: AtlasState) -> list[str]:
    return not_done(state, codirectors(state), codirector_media_step)


def screened_codirector(state: AtlasState, arguments: dict) -> str | None:
    """The co-director a screen by name alone is for, if any."""
    return named_in(codirectors(state), arguments, "name")


def searched_codirector(state: AtlasState, arguments: dict) -> str | None:
    """The co-director a media search by query alone is for, if any."""
    return named_in(codirectors(state), arguments, "query")
