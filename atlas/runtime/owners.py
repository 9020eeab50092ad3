"""The beneficial owners of the subject company that its documents name ("Ultimate
beneficial owner: ..."), each screened against the sanctions lists and searched for in the
news by name, each a step of its own: a company owned by a listed or notorious person is
exposed to them, whoever its directors are. A registry that publishes the persons with
significant control names owners too. Directors are researched as directors
(atlas.runtime.directors); the subject's own screening covers the subject's own name."""

from __future__ import annotations

from atlas.runtime.directors import (
    SEPARATOR,
    director_key,
    directors,
    named_in,
    named_step,
    not_done,
)
from atlas.runtime.state import AtlasState

FACT = "beneficial_owners"
# What one source says one owner holds (atlas.runtime.shares).
SHARE_FACT = "ownership_share"
# How a person screened as an owner is named in the evidence.
AS_OWNER = "beneficial owner "


def owner_step(name: str) -> str:
    """The completed step for screening one owner."""
    return named_step("screen_owner", name)


def owner_media_step(name: str) -> str:
    """The completed step for searching adverse media on one owner."""
    return named_step("search_owner", name)


def owners(state: AtlasState) -> list[str]:
    """The people or companies any document names as the selected company's beneficial
    owners, each once, other than its directors and the subject itself."""
    selected = state.selected_entity
    if selected is None or selected.entity_type != "company":
        return []
    covered = {director_key(name) for name in directors(state)}
    covered |= {director_key(state.brief.subject), director_key(selected.name)}
    return [name for key, name in named_owners(state).items() if key not in covered]


def named_owners(state: AtlasState) -> dict[str, str]:
    """director_key -> name of everyone a document names as an owner of the selected
    company, or its registry record as a person with significant control, directors among
    them."""
    selected = state.selected_entity
    names: dict[str, str] = {}
    for fact in state.facts:
        if fact.entity_id != selected.entity_id:
            continue
        if fact.fact == FACT:
            for name in fact.display_value.split(SEPARATOR):
                names.setdefault(director_key(name), name.strip())
        elif fact.fact == SHARE_FACT:
            names.setdefault(director_key(fact.person), fact.person)
    names.pop("", None)
    return names


def documents_with_unread_owners(state: AtlasState) -> list[str]:
    """The documents about the subject company that speak of its beneficial owners but name
    none that could be read, by their labels."""
    return [item.source_label for item in state.evidence if item.owners_unread]


def unscreened_owners(state: AtlasState) -> list[str]:
    return not_done(state, owners(state), owner_step)


def unsearched_owners(state: AtlasState) -> list[str]:
    return not_done(state, owners(state), owner_media_step)


def screened_owner(state: AtlasState, arguments: dict) -> str | None:
    """The owner a screen by name alone is for, if any."""
    return named_in(owners(state), arguments, "name")


def searched_owner(state: AtlasState, arguments: dict) -> str | None:
    """The owner a media search by query alone is for, if any."""
    return named_in(owners(state), arguments, "query")
