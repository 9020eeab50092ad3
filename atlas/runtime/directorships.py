"""The companies the subject person directs, and which of them are researched: each is
screened against the sanctions lists and searched for adverse media by its entity id, as
steps of their own. A director of a listed company, or of one under investigation, is
exposed to it, whether or not they are named themselves."""

from __future__ import annotations

import hashlib
from collections.abc import Callable

from atlas.runtime.state import AtlasState, Conflict, HeldDirectorship


def directorship_step(entity_id: str) -> str:
    """The completed step for screening one company the subject directs (hashed, as the
    director steps are: ids come from a tool)."""
    return _step("screen_directorship", entity_id)


def directorship_media_step(entity_id: str) -> str:
    """The completed step for searching adverse media on one company the subject directs."""
    return _step("search_directorship", entity_id)


def _step(kind: str, entity_id: str) -> str:
    return f"{kind}:{hashlib.sha256(entity_id.encode()).hexdigest()[:10]}"


# The key of the companies whose records list a director by a person subject's name.
BY_NAME = ""


def directorships(state: AtlasState) -> list[HeldDirectorship]:
    """The companies the registry lists the matched person as directing; while a person
    subject matches no registry person, those whose records list a director by their name,
    but for any that a registry person found in the run, and not taken for the subject,
    directs (that director is the other person)."""
    selected = state.selected_entity
    if selected is None:
        if state.brief.subject_type != "person":
            return []
        someone_elses = {
            company.entity_id
            for person, held in state.directorships.items()
            if person != BY_NAME
            for company in held
        }
        return [c for c in state.directorships.get(BY_NAME, []) if c.entity_id not in someone_elses]
    if selected.entity_type != "person":
        return []
    return state.directorships.get(selected.entity_id, [])


def unscreened_directorships(state: AtlasState) -> list[HeldDirectorship]:
    return _without(state, directorship_step)


def unsearched_directorships(state: AtlasState) -> list[HeldDirectorship]:
    return _without(state, directorship_media_step)


def _without(state: AtlasState, step: Callable[[str], str]) -> list[HeldDirectorship]:
    """The companies the subject directs whose `step` is not done yet."""
    done = set(state.completed_steps)
    return [c for c in directorships(state) if step(c.entity_id) not in done]


def directorship_named(state: AtlasState, arguments: dict) -> HeldDirectorship | None:
    """The company the subject directs that a screen or a media search by entity id is
    for, if any."""
    entity_id = arguments.get("entity_id")
    return next((c for c in directorships(state) if c.entity_id == entity_id), None)


def directed_by_the_subject(company: HeldDirectorship) -> str:
    """Whom a screen of the company, or a media search on it, is about, as evidence and
    packets say it."""
    if company.listed_as:
        return (
            f"{company.label()}, whose registry record lists a director named {company.listed_as}"
        )
    return f"{company.label()}, a company the subject directs"


def conflict_about(state: AtlasState, conflict: Conflict) -> str:
    """Whom a conflict is about, when not the subject: one of its people ("director Farhad
    Rahimi"), or a company the subject directs."""
    if conflict.person:
        return conflict.person
    company = next((c for c in directorships(state) if c.entity_id == conflict.entity_id), None)
    return directed_by_the_subject(company) if company is not None else ""


def stored_conflict_about(conflict: dict, companies: dict[str, str]) -> str:
    """`conflict_about` of a conflict as a stored state's JSON holds it, `companies` the
    state's `companies_directed`."""
    return conflict.get("person") or companies.get(str(conflict.get("entity_id", "")), "")


def companies_directed(selected: dict | None, held: dict | None) -> dict[str, str]:
    """`conflict_about` read off a stored state's JSON without loading it whole: the
    companies a person subject directs, by entity id, as a conflict about one names it.
    `selected` and `held`: the state's selected entity and directorships."""
    if selected and selected.get("entity_type") != "person":
        return {}
    # Only a person subject's run holds companies under BY_NAME.
    key = selected.get("entity_id") if selected else BY_NAME
    return {
        company["entity_id"]: directed_by_the_subject(HeldDirectorship(**company))
        for company in (held or {}).get(key, [])
    }
