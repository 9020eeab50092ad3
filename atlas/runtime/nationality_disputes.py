"""Screening matches a case disputes by nationality: a sanctions hit whose list entry gives
its person nationalities none of which the case gives the person screened (a person
subject's own documents, or what a document about the subject company or its registry
record says of a director or owner). Such a match may be on a namesake, or the person may
hold a nationality the case does not show: the reviewer is told so beside it and in the
packet's gaps, and it counts until they mark it."""

from __future__ import annotations

from typing import NamedTuple

from atlas.runtime.birth_years import document_names
from atlas.runtime.countries import country_words
from atlas.runtime.directors import director_key
from atlas.runtime.namesake_disputes import (
    company_sources,
    dispute_gaps,
    document_words,
    person_screened,
)
from atlas.runtime.state import AtlasState
from atlas.runtime.wording import listed


class NationalityDispute(NamedTuple):
    """A sanctions hit's entry lists its person a national of `listed_codes`; the `sources`
    (in words) give the person screened the nationalities `held`, none of those."""

    listed_codes: tuple[str, ...]
    held: tuple[str, ...]
    sources: tuple[str, ...]
    kind: str = "listed"

    def entry_words(self, *, sentence: bool = False) -> str:
        """ "listing a national of Russian Federation, RU"; in a `sentence` "lists ..." """
        return f"{'lists' if sentence else 'listing'} a national of {_countries(self.listed_codes)}"

    def source_words(self, whom: str, matched: str) -> str:
        """ "the uploaded document “passport.txt” gives the subject only the nationality of
        United Kingdom, GB" """
        many = "nationalities" if len(self.held) > 1 else "nationality"
        give = "give" if len(self.sources) > 1 else "gives"
        sources = listed(list(self.sources), "and")
        return f"{sources} {give} {whom} only the {many} of {_countries(self.held)}"


def nationality_disputes(state: AtlasState) -> dict[str, NationalityDispute]:
    """evidence id -> the dispute, for each sanctions hit whose entry's nationalities are
    none of those the case gives the person screened."""
    people = _nationalities_said_of_people(state)
    subject = _subject_nationalities(state)
    disputes = {}
    for item in state.screening_matches():
        if not item.listed_nationalities:
            continue
        person = person_screened(state, item)
        if person is None:
            continue
        said = people.get(person) if person else subject
        if said is not None and not set(item.listed_nationalities) & set(said[0]):
            disputes[item.evidence_id] = NationalityDispute(
                tuple(item.listed_nationalities), said[0], said[1]
            )
    return disputes


def hits_of_other_nationalities(state: AtlasState) -> list[str]:
    """The packet's gaps for nationality_disputes."""
    return dispute_gaps(state, nationality_disputes(state))


Said = tuple[tuple[str, ...], tuple[str, ...]]


def _nationalities_said_of_people(state: AtlasState) -> dict[str, Said]:
    """director_key -> (the nationalities the subject company's registry record and the
    documents about it give a person they name, all together; those sources, in words)."""
    codes: dict[str, list[str]] = {}
    sources: dict[str, list[str]] = {}
    for item, source in company_sources(state):
        for name, held in item.nationalities_of.items():
            key = director_key(name)
            known = codes.setdefault(key, [])
            known += [code for code in held if code not in known]
            sources.setdefault(key, []).append(source)
    return {
        key: (tuple(held), tuple(dict.fromkeys(sources[key])))
        for key, held in codes.items()
        if held
    }


def _subject_nationalities(state: AtlasState) -> Said | None:
    """(the nationalities a person subject's own documents give, all together; those
    documents, in words), where they give any."""
    names = document_names(state)
    codes: list[str] = []
    sources: list[str] = []
    for item in state.evidence:
        if item.nationalities:  # a person's own form's
            codes += [code for code in item.nationalities if code not in codes]
            sources.append(document_words(names.get(item.source_id, item.source_label)))
    return (tuple(codes), tuple(dict.fromkeys(sources))) if codes else None


def _countries(codes: tuple[str, ...]) -> str:
    return listed([country_words(code) for code in codes], "and")
