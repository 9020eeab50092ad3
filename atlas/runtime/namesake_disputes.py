"""What the disputes of a screening match by a person's particulars share (their year of
birth, birth_year_disputes; their nationality, nationality_disputes; their middle name,
middle_name_disputes): whom a match is on, which sources speak for the people of the
companies the research is on, and how a dispute is put to the reviewer, beside the match
on the sign-off page and in the packet's gaps.

A dispute gives its `kind` ("listed", "linked" or "aged"), and words for what the match
says (`entry_words`) and what the case says (`source_words`)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Protocol

from atlas.runtime.birth_years import document_names
from atlas.runtime.codirectors import AS_CODIRECTOR, as_codirector, codirectors
from atlas.runtime.directors import AS_DIRECTOR, director_key
from atlas.runtime.directorships import directorships
from atlas.runtime.listed_namesakes import FOR_A_REVIEWER
from atlas.runtime.owners import AS_OWNER
from atlas.runtime.state import AtlasState, EvidenceItem

# What a match of each evidence class is called, one and several.
HIT_WORDS = {
    "sanctions": ("sanctions hit", "sanctions hits"),
    "pep": (
        "match on the register of politically exposed persons",
        "matches on the register of politically exposed persons",
    ),
}


class Dispute(Protocol):
    kind: str

    def entry_words(self, *, sentence: bool = False) -> str: ...

    def source_words(self, whom: str, matched: str) -> str: ...


def person_screened(state: AtlasState, item: EvidenceItem) -> str | None:
    """The director_key of the subject company's director or owner, or of a person subject's
    co-director, a match is on; "" for a match on the subject that is not linked to the
    registry person they were matched to (one that is, is theirs); None for a match on
    anyone else."""
    name = name_screened(state, item)
    return director_key(name) if name else name


def name_screened(state: AtlasState, item: EvidenceItem) -> str | None:
    """The name of the person a match is on as person_screened tells them: "Dmitri Volkov"
    for a director, owner or co-director; "" for the subject; None for anyone else."""
    role = next((r for r in (AS_DIRECTOR, AS_OWNER) if item.about.startswith(r)), None)
    if role is not None:
        return item.about.removeprefix(role)
    if item.about.startswith(AS_CODIRECTOR):
        named = (name for name in codirectors(state) if as_codirector(state, name) == item.about)
        return next(named, None)
    selected = state.selected_entity
    if item.about or (selected and item.linked_entity_id == selected.entity_id):
        return None
    return ""


def company_sources(state: AtlasState) -> Iterator[tuple[EvidenceItem, str]]:
    """The evidence that speaks for the people of the subject company, or of the companies
    a person subject directs, each with its words: the documents (what they say of people
    is read only from those about the subject company) and those companies' own registry
    records. Any other company's record is left out: a namesake of its people is not
    theirs."""
    names = document_names(state)
    records = {f"registry:{c.entity_id}": c.label() for c in directorships(state)}
    selected = state.selected_entity
    if selected is not None:
        records[f"registry:{selected.entity_id}"] = matched_words(state)
    for item in state.evidence:
        if item.source_id in names:
            yield item, document_words(names[item.source_id])
        elif item.source_id in records:
            yield item, f"the registry record of {records[item.source_id]}"


def document_words(name: str) -> str:
    return f"the uploaded document “{name}”"


def matched_words(state: AtlasState) -> str:
    """ "Oleg Danilov (GB)": the registry entity the subject was matched to."""
    selected = state.selected_entity
    return f"{selected.name} ({selected.jurisdiction})" if selected else ""


def dispute_sentence(state: AtlasState, dispute: Dispute, whom: str) -> str:
    """The sign-off page's sentence, beside the match, for a `dispute` over `whom`."""
    match = "It" if dispute.kind == "aged" else "Its entry"
    entry = dispute.entry_words(sentence=True)
    return f"{match} {entry}; {dispute.source_words(whom, matched_words(state))}."


def dispute_gaps(state: AtlasState, disputes: Mapping[str, Dispute]) -> list[str]:
    """The packet's gaps for `disputes` (evidence id -> dispute): one for the list or
    register matches on a person that the case disputes alike, naming their lists; one for
    each article."""
    by_id = {item.evidence_id: item for item in state.evidence}
    matched = matched_words(state)
    # (kind, whom, linked entity, dispute) -> lists
    grouped: dict[tuple[str, str, str, Dispute], list[str]] = {}
    articles = []
    for evidence_id, dispute in disputes.items():
        item = by_id[evidence_id]
        whom = item.about or "the subject"
        if dispute.kind == "aged":
            articles.append(
                f"The article on {whom} ({item.claim}) {dispute.entry_words(sentence=True)}, "
                f"but {dispute.source_words(whom, matched)}: it may be about a namesake, "
                f"{FOR_A_REVIEWER}."
            )
            continue
        key = (item.evidence_class, whom, item.linked_entity_id, dispute)
        lists = grouped.setdefault(key, [])
        if item.source_label not in lists:
            lists.append(item.source_label)
    gaps = []
    for (kind, whom, linked, dispute), lists in grouped.items():
        one, many = HIT_WORDS[kind]
        hits, entries, they = (
            (f"{one} on {whom} ({lists[0]}) is", "an entry", "it")
            if len(lists) == 1
            else (f"{many} on {whom} ({', '.join(lists)}) are", "entries", "they")
        )
        entry = dispute.entry_words() + (f" [{linked}]" if dispute.kind == "linked" else "")
        gaps.append(
            f"The {hits} on {entries} {entry}, but {dispute.source_words(whom, matched)}: "
            f"{they} may be on a namesake, {FOR_A_REVIEWER}."
        )
    return gaps + articles
