"""Whether a sanctions hit, or a match on the register of politically exposed persons, is
on the person the subject was matched to (or the director a company's record names), or
may be on a namesake: the entry names a registry entity, and the registry says whom the
subject was matched to and which companies a person directs. Only a reviewer rules on it;
the evidence says what the registry shows, so the ruling is quick."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from atlas.runtime.state import AtlasState
from atlas.runtime.wording import listed

LINKED_ELSEWHERE = "The list links this entry to {entity}, not to {matched}"
REGISTERED_ELSEWHERE = "The register's entry is {entity}, not {matched}"
FOR_A_REVIEWER = "for a reviewer to confirm or mark a false positive"


def hit_note(
    state: AtlasState, hit: dict[str, Any], about: str, boards: Sequence[tuple[str, str]] = ()
) -> tuple[str, bool]:
    """What a sanctions hit's claim adds, and whether the hit may be on a namesake: for a
    hit on the subject, when its list links the entry to another registry entity than the
    subject's match; for one on a person screened by name as a director of `boards` (the
    companies, entity id and name, whose records list them), whether the listed person's
    record lists one of those companies among the companies they direct."""
    linked = hit.get("linked_entity")
    if not linked:
        return "", False
    if not about:
        return _another_entity(state, linked, LINKED_ELSEWHERE)
    if boards:
        return _director_listed(linked, boards)
    return "", False


def register_note(state: AtlasState, match: dict[str, Any], about: str) -> tuple[str, bool]:
    """The same for a match on the register of politically exposed persons on the
    subject."""
    return ("", False) if about else _another_entity(state, match, REGISTERED_ELSEWHERE)


def _another_entity(state: AtlasState, entity: dict[str, Any], sentence: str) -> tuple[str, bool]:
    selected = state.selected_entity
    if (
        selected is None
        or entity["entity_id"] == selected.entity_id
        or entity.get("entity_type", selected.entity_type) != selected.entity_type
    ):
        return "", False
    born = f", born {selected.born_year}" if selected.born_year else ""
    said = sentence.format(
        entity=_named(entity),
        matched=f"{selected.name} ({selected.jurisdiction}{born}) [{selected.entity_id}]",
    )
    return (
        f" {said}, the registry entity the subject was matched to: the match may be on a "
        f"namesake, {FOR_A_REVIEWER}.",
        True,
    )


def _director_listed(linked: dict[str, Any], boards: Sequence[tuple[str, str]]) -> tuple[str, bool]:
    """Results stored before listed persons carried their companies say nothing here."""
    if linked["entity_type"] != "person" or "directs" not in linked:
        return "", False
    person = _named(linked)
    directed = [name for entity_id, name in boards if entity_id in linked["directs"]]
    if directed:
        return (
            f" The list links this entry to {person}, whose registry record lists "
            f"{directed[0]} among the companies they direct: the same person, on the "
            "registry's record.",
            False,
        )
    companies = listed([name for _, name in boards], "or")
    return (
        f" The list links this entry to {person}, whose registry record does not list "
        f"{companies} among the companies they direct: the hit may be on a namesake, "
        f"{FOR_A_REVIEWER}.",
        True,
    )


def _named(entity: dict[str, Any]) -> str:
    born = f", born {entity['born_year']}" if entity.get("born_year") else ""
    return f"{entity['name']} ({entity['jurisdiction']}{born}) [{entity['entity_id']}]"
