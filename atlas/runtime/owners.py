"""The beneficial owners of the subject company that its documents name ("Ultimate
beneficial owner: ..."), each screened against the sanctions lists and searched for in the
news by name, each a step of its own: a company owned by a listed or notorious person is
exposed to them, whoever its directors are. Directors are researched as directors
(atlas.runtime.directors); the subject's own screening covers the subject's own name."""

from __future__ import annotations

from collections.abc import Collection
from decimal import Decimal

from atlas.runtime.directors import (
    AS_DIRECTOR,
    SEPARATOR,
    director_key,
    directors,
    named_in,
    named_step,
    not_done,
)
from atlas.runtime.state import AtlasState, Fact
from atlas.runtime.tools.document_owners import read_share_entry, share_entry, share_percent
from atlas.runtime.wording import listed as listed_words

FACT = "beneficial_owners"
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
    return [name for key, name in _named_owners(state).items() if key not in covered]


def _named_owners(state: AtlasState) -> dict[str, str]:
    """director_key -> name of everyone a document names as an owner of the selected
    company, directors among them."""
    selected = state.selected_entity
    names: dict[str, str] = {}
    for fact in state.facts:
        if fact.fact != FACT or fact.entity_id != selected.entity_id:
            continue
        for name in fact.display_value.split(SEPARATOR):
            names.setdefault(director_key(name), name.strip())
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


# --- how much of the company owners on the lists hold ---

SHARES_FACT = "ownership_shares"
# A document's shares, one owner each: "Dmitri Volkov: 60%; Irina Sokolova: 40%".
SHARES_SEPARATOR = "; "
# OFAC's 50 Percent Rule: a company owned 50% or more, together, by blocked people is
# itself blocked, listed or not.
BLOCKING_PERCENT = Decimal(50)


def shares_display(shares: dict[str, str]) -> str:
    return SHARES_SEPARATOR.join(share_entry(*owned) for owned in shares.items())


def shares_value(shares: dict[str, str]) -> str:
    """Shares as compared for conflicts: the same owners with the same shares however
    the names are spelled or ordered."""
    return SHARES_SEPARATOR.join(
        sorted(f"{director_key(name)}={share}" for name, share in shares.items())
    )


def ownership_by_listed_owners(
    state: AtlasState, set_aside: Collection[str] = ()
) -> tuple[str, str]:
    """What the shares the documents give say of the selected company's ownership by
    owners with a sanctions hit: a sentence for the packet's sanctions result, or a gap
    when it cannot be told (a listed owner's share is not given, or the documents
    disagree on the shares and no reviewer settled which to take). ("", "") when no
    beneficial owner has a hit; hits whose evidence ids are in `set_aside` (marked false
    positives) are none."""
    selected = state.selected_entity
    if selected is None or selected.entity_type != "company":
        return "", ""
    listed = _people_with_hits(state, set_aside)
    owners_listed = {key: name for key, name in _named_owners(state).items() if key in listed}
    if not owners_listed:
        return "", ""
    facts = _shares_facts(state)
    if len({fact.value for fact in facts}) > 1:
        return "", (
            f"The documents disagree on the shares of {selected.name}'s owners, and "
            f"{listed_words(list(owners_listed.values()), 'and')} {_has(owners_listed)} a "
            "sanctions hit: whether owners on the lists hold 50% or more of it (OFAC's 50 "
            "Percent Rule) is not known until a reviewer settles which shares stand."
        )
    shares = _shares(facts[0]) if facts else {}
    held = {key: entry for key, entry in shares.items() if key in listed}
    counted_share = [share_percent(share) for _, share in held.values()]
    total = sum((Decimal(p) for p in counted_share if p is not None), Decimal(0))
    # Not given, or said only to be under a number or over one ("more than 25%" counts as
    # 25%): enough to reach 50% with the others, never to rule it out.
    unknown = [name for key, name in owners_listed.items() if key not in held]
    unknown += [name for (name, share) in held.values() if " " in share]
    holdings = ", ".join(f"{name} {share}" for name, share in held.values())
    sources = list(dict.fromkeys(f.source_label[:1].lower() + f.source_label[1:] for f in facts))
    per = f"by {listed_words(sources, 'and')}"
    at_least = "at least " if unknown else ""
    percent = f"{total.normalize():f}%"
    if total >= BLOCKING_PERCENT:
        return (
            f"Owners with sanctions hits hold {at_least}{percent} of {selected.name} "
            f"({holdings}, {per}): 50% or more, so under OFAC's 50 Percent Rule the company "
            "is itself blocked while those hits stand.",
            "",
        )
    if unknown:
        who = "a beneficial owner with a sanctions hit"
        if len(unknown) > 1:
            who = "beneficial owners with sanctions hits"
        return "", (
            f"The documents give no exact share for {listed_words(unknown, 'and')}, {who}: "
            f"whether owners on the lists hold 50% or more of {selected.name} (OFAC's 50 "
            "Percent Rule) is not known."
        )
    return (
        f"Owners with sanctions hits hold {percent} of {selected.name} ({holdings}, {per}): "
        "under 50%, so OFAC's 50 Percent Rule does not block the company by ownership alone.",
        "",
    )


def _has(names: dict) -> str:
    return "has" if len(names) == 1 else "each have"


def _people_with_hits(state: AtlasState, set_aside: Collection[str]) -> set[str]:
    """The directors and owners with a sanctions hit, by director_key."""
    keys = set()
    for item in state.sanctions_hits():
        if item.evidence_id in set_aside:
            continue
        for role in (AS_DIRECTOR, AS_OWNER):
            if item.about.startswith(role):
                keys.add(director_key(item.about.removeprefix(role)))
    return keys


def _shares_facts(state: AtlasState) -> list[Fact]:
    """The documents' shares of the selected company; once a reviewer settles a conflict
    over them, only the value they chose."""
    selected = state.selected_entity
    facts = [f for f in state.facts if f.fact == SHARES_FACT and f.entity_id == selected.entity_id]
    for conflict in state.conflicts:
        chosen = conflict.resolution.value if conflict.resolution else None
        if chosen and conflict.fact == SHARES_FACT and conflict.entity_id == selected.entity_id:
            facts = [f for f in facts if f.display_value == chosen]
    return facts


def _shares(fact: Fact) -> dict[str, tuple[str, str]]:
    """director_key -> (name, share as written)."""
    shares = {}
    for entry in fact.display_value.split(SHARES_SEPARATOR):
        name, share = read_share_entry(entry)
        if name:
            shares.setdefault(director_key(name), (name, share))
    return shares
