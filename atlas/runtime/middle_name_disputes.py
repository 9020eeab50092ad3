"""Sanctions hits a case disputes by a middle name: the list entry's name gives its person
a middle name (a patronymic: "DANILOV, Oleg Petrovich") and every name the case gives the
person screened that has one gives another ("Oleg Ivanovich Danilov" on the subject's own
form, or the name a director or owner was screened by). Such a hit may be on a namesake:
the reviewer is told so beside it and in the packet's gaps, and it counts until they mark
it."""

from __future__ import annotations

from typing import NamedTuple

from atlas.runtime.birth_years import document_names
from atlas.runtime.middle_names import differ, middle_names
from atlas.runtime.namesake_disputes import dispute_gaps, document_words, name_screened
from atlas.runtime.state import AtlasState


class MiddleNameDispute(NamedTuple):
    """A sanctions hit's entry gives its person the middle name `listed`; `source` gives the
    person screened the middle name `held`."""

    listed: str
    held: str
    source: str
    kind: str = "listed"

    def entry_words(self, *, sentence: bool = False) -> str:
        """ "listing the middle name Petrovich"; in a `sentence` "lists ..." """
        return f"{'lists' if sentence else 'listing'} the middle name {self.listed}"

    def source_words(self, whom: str, matched: str) -> str:
        """ "the uploaded document “form.txt” gives the subject the middle name Ivanovich" """
        return f"{self.source} gives {whom} the middle name {self.held}"


def middle_name_disputes(state: AtlasState) -> dict[str, MiddleNameDispute]:
    """evidence id -> the dispute, for each sanctions hit whose entry's middle name no name
    the case gives the person screened shares, where one gives a middle name at all."""
    subject = _subject_names(state)
    disputes = {}
    for item in state.screening_matches():
        listed = middle_names(item.listed_name) if item.listed_name else []
        name = name_screened(state, item) if listed else None
        if name is None:
            continue
        said = [(name, "the name screened")] if name else subject
        held = [(middle_names(given), source) for given, source in said]
        held = [(middle, source) for middle, source in held if middle]
        if held and all(differ(listed, middle) for middle, _ in held):
            middle, source = held[0]
            disputes[item.evidence_id] = MiddleNameDispute(
                listed[0].capitalize(), middle[0].capitalize(), source
            )
    return disputes


def hits_of_other_middle_names(state: AtlasState) -> list[str]:
    """The packet's gaps for middle_name_disputes."""
    return dispute_gaps(state, middle_name_disputes(state))


def _subject_names(state: AtlasState) -> list[tuple[str, str]]:
    """(a name the case gives a person subject, its source in words): the case's own, and
    each of the subject's own forms'."""
    names = document_names(state)
    said = [(state.brief.subject, "the case")]
    for item in state.evidence:
        if item.full_name:
            said.append((item.full_name, document_words(names.get(item.source_id, ""))))
    return said
