"""How much of the subject company each beneficial owner holds, as each source says (a
document, or a registry's persons with significant control), and what that tells under
OFAC's 50 Percent Rule.

A source's word on one owner's share is a fact of its own, so sources are compared only
where both give that owner a share: one that lists fewer owners disputes nothing, and a
share inside another's band ("60%" and "more than 50% but less than 75%") agrees with it.
Two that cannot both hold are a conflict for a reviewer, and once one settles it only the
share they chose counts."""

from __future__ import annotations

import re
from collections.abc import Collection
from decimal import Decimal

from atlas.runtime.directors import AS_DIRECTOR, director_key
from atlas.runtime.owners import AS_OWNER, named_owners
from atlas.runtime.owners import SHARE_FACT as FACT
from atlas.runtime.state import AtlasState, EvidenceItem, Fact, conflict_id_for
from atlas.runtime.tools.document_owners import UPPER_BOUNDS, read_share_entry
from atlas.runtime.wording import listed

# A run stored before each owner's share was a fact of its own holds a document's shares as
# one fact ("Dmitri Volkov: 60%; Irina Sokolova: 40%"), compared whole.
WHOLE_MAP_FACT = "ownership_shares"
WHOLE_MAP_SEPARATOR = "; "
# OFAC's 50 Percent Rule: a company owned 50% or more, together, by blocked people is
# itself blocked, listed or not.
BLOCKING_PERCENT = Decimal(50)
HUNDRED = Decimal(100)


def share_fact(entity_id: str, name: str, share: str, item: EvidenceItem, excerpt: str) -> Fact:
    """`item`'s word that `name` holds `share` ("60%", "more than 25%") of `entity_id`."""
    return Fact.said_by(
        item,
        fact=FACT,
        entity_id=entity_id,
        person=name,
        value=share,
        display_value=share,
        excerpt=excerpt,
    )


def shares_held(state: AtlasState) -> dict[str, list[Fact]]:
    """director_key -> what the sources say each owner holds of the selected company;
    once a reviewer settles a conflict over one's share, only the share they chose."""
    selected = state.selected_entity
    said: dict[str, list[Fact]] = {}
    for fact in state.facts:
        if fact.fact == FACT and fact.entity_id == selected.entity_id:
            said.setdefault(director_key(fact.person), []).append(fact)
    held = {
        key: state.settled_facts(conflict_id_for(selected.entity_id, FACT, key), facts)
        for key, facts in said.items()
    }
    for key, facts in _whole_maps_by_owner(state).items():
        held.setdefault(key, []).extend(facts)
    return held


def _whole_maps_by_owner(state: AtlasState) -> dict[str, list[Fact]]:
    """A stored run's whole-map shares, as settled, split into each owner's share."""
    selected = state.selected_entity
    maps = [
        f for f in state.facts if f.fact == WHOLE_MAP_FACT and f.entity_id == selected.entity_id
    ]
    said: dict[str, list[Fact]] = {}
    for fact in state.settled_facts(conflict_id_for(selected.entity_id, WHOLE_MAP_FACT), maps):
        for entry in fact.display_value.split(WHOLE_MAP_SEPARATOR):
            name, share = read_share_entry(entry)
            if name:
                update = {"fact": FACT, "person": name, "value": share, "display_value": share}
                said.setdefault(director_key(name), []).append(fact.model_copy(update=update))
    return said


def ownership_by_listed_owners(
    state: AtlasState, set_aside: Collection[str] = ()
) -> tuple[str, str]:
    """What the sources' shares say of the selected company's ownership by owners with a
    sanctions hit: a sentence for the packet's sanctions result, or a gap when it cannot be
    told (a listed owner's exact share is not given, or the sources give one shares that
    cannot both hold and the answer turns on which stands). ("", "") when no beneficial owner has a
    hit; hits whose evidence ids are in `set_aside` (marked false positives) are none."""
    selected = state.selected_entity
    if selected is None or selected.entity_type != "company":
        return "", ""
    with_hits = _people_with_hits(state, set_aside)
    owners_listed = {key: name for key, name in named_owners(state).items() if key in with_hits}
    if not owners_listed:
        return "", ""
    held = shares_held(state)
    least, most = Decimal(0), Decimal(0)
    holdings, sources, disputed, unknown = [], [], [], []
    for key, name in owners_listed.items():
        facts = held.get(key, [])
        shares = list(dict.fromkeys(fact.display_value for fact in facts))
        if not shares:
            unknown.append(name)
            most += HUNDRED
            continue
        bounds = [share_bounds(share) for share in shares]
        if shares_agree(shares):
            low, high = max(lo for lo, _ in bounds), min(hi for _, hi in bounds)
            # The share that says the most: an exact one, or the highest floor.
            shown = max(shares, key=lambda share: (share_bounds(share)[0], " " not in share))
            if low != high:
                unknown.append(facts[0].person)
        else:
            low, high = min(lo for lo, _ in bounds), max(hi for _, hi in bounds)
            shown = " or ".join(shares)
            disputed.append(facts[0].person)
        least, most = least + low, most + high
        holdings.append(f"{facts[0].person} {shown}")
        sources += [f.source_label[:1].lower() + f.source_label[1:] for f in facts]
    held_by = f"({', '.join(holdings)}, by {listed(list(dict.fromkeys(sources)), 'and')})"
    if least >= BLOCKING_PERCENT:
        at_least = "at least " if unknown or disputed else ""
        return (
            f"Owners with sanctions hits hold {at_least}{_percent(least)} of {selected.name} "
            f"{held_by}: 50% or more, so under OFAC's 50 Percent Rule the company is itself "
            "blocked while those hits stand.",
            "",
        )
    if most < BLOCKING_PERCENT:
        at_most = "at most " if unknown or disputed else ""
        whichever = " whichever of the sources' shares stands" if disputed else ""
        return (
            f"Owners with sanctions hits hold {at_most}{_percent(most if at_most else least)} "
            f"of {selected.name} {held_by}: under 50%{whichever}, so OFAC's 50 Percent Rule "
            "does not block the company by ownership alone.",
            "",
        )
    if unknown:
        return "", (
            f"The sources give no exact share for {listed(unknown, 'and')}, {_with_hits(unknown)}: "
            f"whether owners on the lists hold 50% or more of {selected.name} (OFAC's 50 "
            "Percent Rule) is not known."
        )
    return "", (
        f"The sources disagree on the share of {selected.name} that {listed(disputed, 'and')}, "
        f"{_with_hits(disputed)}, {'holds' if len(disputed) == 1 else 'hold'}: whether owners "
        "on the lists hold 50% or more of it (OFAC's 50 Percent Rule) is not known until a "
        "reviewer settles which share stands."
    )


def share_bounds(share: str) -> tuple[Decimal, Decimal]:
    """The least and the most a share written as owner_shares writes one holds: "60%" 60
    and 60, "more than 25%" 25 and 100, "less than 10%" 0 and 10, "more than 50% but less
    than 75%" 50 and 75."""
    numbers = [Decimal(number) for number in re.findall(r"\d+(?:\.\d+)?", share)]
    if len(numbers) == 2:
        return numbers[0], numbers[1]
    if " " not in share:
        return numbers[0], numbers[0]
    if share.startswith(UPPER_BOUNDS):
        return Decimal(0), numbers[0]
    return numbers[0], HUNDRED


def shares_agree(shares: Collection[str]) -> bool:
    """Whether one owner could hold every share of `shares`: "60%" and the register's
    "more than 50%" agree, "40%" and "more than 50%" do not."""
    bounds = [share_bounds(share) for share in shares]
    return max(lo for lo, _ in bounds) <= min(hi for _, hi in bounds)


def _with_hits(names: list[str]) -> str:
    if len(names) == 1:
        return "a beneficial owner with a sanctions hit"
    return "beneficial owners with sanctions hits"


def _percent(number: Decimal) -> str:
    return f"{number.normalize():f}%"


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
