"""The lowest risk rating the evidence allows, and why. A proposed packet is held to it,
and so is a reviewer who signs a packet off with a rating of their own, except that the
screening matches they marked false positives are set aside: those matches alone, not
what another source (the registry record, an article about the subject) says. Evidence
about a registry candidate other than the entity the subject was matched to (a namesake's
record, a screen by its id) is about someone else and counts for nothing here."""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import NamedTuple

from atlas.runtime.codirectors import unscreened_codirectors, unsearched_codirectors
from atlas.runtime.declared_businesses import (
    unlooked_businesses,
    unscreened_businesses,
    unsearched_businesses,
)
from atlas.runtime.directors import unscreened_directors, unsearched_directors
from atlas.runtime.directorships import unscreened_directorships, unsearched_directorships
from atlas.runtime.jurisdiction_risk import in_high_risk_jurisdictions
from atlas.runtime.namesakes import turned_down
from atlas.runtime.owners import documents_with_unread_owners, unscreened_owners, unsearched_owners
from atlas.runtime.state import AtlasState, EvidenceItem, Signal
from atlas.runtime.wording import fact_words, listed

RATINGS = ("low", "medium", "high")
# In every refusal of a reviewer's rating (why_not), so a page can tell which field it is on.
RULED_OUT = "rating is ruled out by"


class RatingRule(NamedTuple):
    floor: str  # the lowest rating allowed while the rule applies
    applies: Callable[[AtlasState, set[str]], bool]  # given the state and its signals
    to_the_agent: str  # why a lower rating was refused, for the model ("": said otherwise)
    in_words: str  # what rules a lower rating out, for a reviewer
    # What still holds and where it comes from, for a reviewer: one clause each, given the
    # state and the evidence ids set aside (None: `in_words` says it all).
    grounds: Callable[[AtlasState, frozenset[str]], list[str]] | None = None


class RulesAgainst(list[RatingRule]):
    """The rules that rule a rating out, read with the evidence ids `set_aside`."""

    def __init__(self, rules: list[RatingRule], set_aside: Collection[str]) -> None:
        super().__init__(rules)
        self.set_aside = frozenset(set_aside)


def _signal(*signals: Signal) -> Callable[[AtlasState, set[str]], bool]:
    return lambda s, present: any(signal in present for signal in signals)


def about_the_subject(s: AtlasState) -> list[EvidenceItem]:
    """The evidence the subject's rating rests on: all of it but what is about a registry
    candidate for the subject other than the entity it was matched to. Before a match,
    any candidate may be the subject, so all of it counts, unless the analyst said none
    of the candidates offered is (namesakes.turned_down)."""
    entity = s.selected_entity
    # An article about another registry entity than any the subject may be is not its.
    evidence = [item for item in s.evidence if not item.about_another_entity]
    if entity is None:
        if turned_down(None, s.answered_questions):
            return [item for item in evidence if not item.candidate_id]
        return evidence
    return [item for item in evidence if item.candidate_id in ("", entity.entity_id)]


def _number(s: AtlasState, item: EvidenceItem) -> str:
    """`item`'s number on the packet page: from 1, in the order the run found them."""
    return f"[{s.evidence.index(item) + 1}]"


def _kind(item: EvidenceItem) -> tuple[str, str, str]:
    """What kind of source `item` is, as a reviewer reads it: for one, for several, and
    what follows the numbers."""
    if item.evidence_class == "registry":
        return "the registry record", "registry records", ""
    if item.evidence_class == "pep":
        register = "on the register of politically exposed persons"
        return f"the match {register}", f"matches {register}", ""
    if item.evidence_class == "sanctions":
        label = item.source_label or "sanctions list"
        return f"the {label} entry", f"{label} entries", ""
    if item.evidence_class == "adverse_media":
        by_name = " found by the name alone" if item.found_by_name else ""
        return "an article", "articles", by_name
    if item.evidence_class == "document":
        return "the uploaded document", "uploaded documents", ""
    label = item.source_label or "a source"
    return label, label, ""


def _sources(s: AtlasState, items: list[EvidenceItem]) -> str:
    """`items` by kind with their numbers: "the registry record [1] and articles [4] and
    [6]"."""
    by_kind: dict[tuple[str, str, str], list[str]] = {}
    for item in items:
        by_kind.setdefault(_kind(item), []).append(_number(s, item))
    return listed(
        [
            f"{one if len(numbers) == 1 else many} {listed(numbers, 'and')}{after}"
            for (one, many, after), numbers in by_kind.items()
        ],
        "and",
    )


def _subject_name(s: AtlasState) -> str:
    return s.selected_entity.name if s.selected_entity else s.brief.subject


def _signal_grounds(
    signal: Signal, holds: str
) -> Callable[[AtlasState, frozenset[str]], list[str]]:
    """One clause per person or company the evidence with `signal` is about: `holds` with
    {who}, {sources} (the items not set aside) and its verb ({is}, {matches}) filled in,
    and what marking screening matches does to it."""

    def grounds(s: AtlasState, set_aside: frozenset[str]) -> list[str]:
        with_signal = [item for item in about_the_subject(s) if signal in item.signals]
        clauses = []
        for about in dict.fromkeys(item.about for item in with_signal):
            items = [item for item in with_signal if item.about == about]
            standing = [item for item in items if item.evidence_id not in set_aside]
            if not standing:
                continue  # every source of it marked a false positive: set aside
            one = len(standing) == 1
            clause = holds.format(
                who=about or _subject_name(s),
                sources=_sources(s, standing),
                **{"is": "is" if one else "are", "matches": "matches" if one else "match"},
            )
            marked = [item for item in items if item.evidence_id in set_aside]
            clauses.append(clause + _what_marking_does(s, standing, marked))
        return clauses

    return grounds


def _what_marking_does(
    s: AtlasState, standing: list[EvidenceItem], marked: list[EvidenceItem]
) -> str:
    """Said after a ground: that the matches marked false positives leave it standing, or
    that marking its sources would set it aside when they are all screening matches."""
    if marked:
        numbers = listed([_number(s, item) for item in marked], "and")
        if len(marked) == 1:
            return f", which marking the screening match {numbers} a false positive does not change"
        return f", which marking the screening matches {numbers} false positives does not change"
    markable = {item.evidence_id for item in s.screening_matches()}
    if all(item.evidence_id in markable for item in standing):
        if len(standing) == 1:
            return ", which marking it a false positive would set aside"
        return ", which marking them false positives would set aside"
    return ""


def _conflict_grounds(s: AtlasState, _set_aside: frozenset[str]) -> list[str]:
    """The facts the sources still disagree on, each with the sources that disagree."""
    clauses = []
    for conflict in s.conflicts:
        if conflict.status == "resolved":
            continue
        source_ids = {value.source_id for value in conflict.values}
        sources = [item for item in s.evidence if item.source_id in source_ids]
        clause = f"sources disagree on {fact_words(conflict.fact)}"
        clauses.append(clause + (f" ({_sources(s, sources)})" if sources else ""))
    return clauses


RULES = (
    RatingRule(
        "high",
        _signal(Signal.SANCTIONS_HIT),
        "A sanctions hit requires a high risk rating.",
        "a sanctions hit",
        _signal_grounds(Signal.SANCTIONS_HIT, "{sources} {matches} {who}"),
    ),
    RatingRule(
        "medium",
        _signal(Signal.ADVERSE),
        "Adverse media rules out a low risk rating.",
        "adverse media",
        _signal_grounds(Signal.ADVERSE, "{sources} {is} adverse media about {who}"),
    ),
    RatingRule(
        "medium",
        _signal(Signal.PEP),
        "A politically exposed person rules out a low risk rating.",
        "a politically exposed person",
        _signal_grounds(Signal.PEP, "{who} is a politically exposed person according to {sources}"),
    ),
    RatingRule(
        "medium",
        lambda s, _: any(conflict.status != "resolved" for conflict in s.conflicts),
        "Sources disagree on a fact that nobody has settled (see conflicts): that rules "
        "out a low risk rating.",
        "sources that disagree on a fact nobody settled",
        _conflict_grounds,
    ),
    RatingRule(
        "medium",
        # Several candidates is an error of its own: the analyst must pick one.
        lambda s, _: s.selected_entity is None and len(s.entity_candidates) <= 1,
        "The subject is not matched to a registry entity, so it was screened by name "
        "only: that rules out a low risk rating.",
        "a subject screened by name only",
    ),
    RatingRule(
        "medium",
        _signal(Signal.ANOTHER_COMPANY),
        "An uploaded document is about another company than the matched entity: that "
        "rules out a low risk rating until someone explains it.",
        "a document about another company",
        _signal_grounds(Signal.ANOTHER_COMPANY, "{sources} {is} about another company than {who}"),
    ),
    RatingRule(
        "medium",
        _signal(Signal.ANOTHER_PERSON),
        "An uploaded document gives another person's name than the subject's: that rules "
        "out a low risk rating until someone explains it.",
        "a document about another person",
        _signal_grounds(Signal.ANOTHER_PERSON, "{sources} {is} about another person than {who}"),
    ),
    RatingRule(
        "medium",
        _signal(Signal.INSTRUCTIONS),
        "A source holds text written as instructions to an AI agent: that rules out a "
        "low risk rating until a person has weighed it.",
        "a source written as instructions to an AI agent",
        _signal_grounds(
            Signal.INSTRUCTIONS, "{sources} {is} written in part as instructions to an AI agent"
        ),
    ),
    RatingRule(
        "medium",
        lambda s, _: "screen_sanctions" not in s.completed_steps,
        "",  # a proposed finish is refused for this whatever its rating
        "a subject not screened against the sanctions lists",
    ),
    RatingRule(
        "medium",
        lambda s, _: "search_adverse_media" not in s.completed_steps,
        "Adverse media has not been searched: that rules out a low risk rating.",
        "adverse media not searched",
    ),
    RatingRule(
        "medium",
        lambda s, _: bool(unscreened_directors(s)),
        "Not every director of the subject has been screened against the sanctions "
        "lists (see directors_to_screen): that rules out a low risk rating.",
        "directors not screened",
    ),
    RatingRule(
        "medium",
        lambda s, _: bool(unsearched_directors(s)),
        "Adverse media has not been searched on every director of the subject (see "
        "directors_to_search): that rules out a low risk rating.",
        "directors not searched for adverse media",
    ),
    RatingRule(
        "medium",
        lambda s, _: bool(unscreened_owners(s) or documents_with_unread_owners(s)),
        "Not every beneficial owner a document names has been screened against the "
        "sanctions lists (see owners_to_screen and documents_with_unread_owners): that "
        "rules out a low risk rating.",
        "beneficial owners not screened",
    ),
    RatingRule(
        "medium",
        lambda s, _: bool(unsearched_owners(s)),
        "Adverse media has not been searched on every beneficial owner a document names "
        "(see owners_to_search): that rules out a low risk rating.",
        "beneficial owners not searched for adverse media",
    ),
    RatingRule(
        "medium",
        lambda s, _: bool(unscreened_codirectors(s)),
        "Not every other director of the companies the subject directs has been screened "
        "against the sanctions lists (see codirectors_to_screen): that rules out a low risk "
        "rating.",
        "co-directors not screened",
    ),
    RatingRule(
        "medium",
        lambda s, _: bool(unsearched_codirectors(s)),
        "Adverse media has not been searched on every other director of the companies the "
        "subject directs (see codirectors_to_search): that rules out a low risk rating.",
        "co-directors not searched for adverse media",
    ),
    RatingRule(
        "medium",
        lambda s, _: bool(in_high_risk_jurisdictions(s)),
        "The subject, a company it directs, or a business its declared source of wealth or "
        "funds names, is registered in one of the tenant's high-risk jurisdictions, or the "
        "subject, a director or a beneficial owner of it lives in one or, where the tenant's "
        "policy counts nationality, is a national of one (see in_high_risk_jurisdictions): "
        "that rules out a low risk rating.",
        "a high-risk jurisdiction",
    ),
    RatingRule(
        "medium",
        lambda s, _: bool(
            unscreened_businesses(s) or unsearched_businesses(s) or unlooked_businesses(s)
        ),
        "Not every business a declared source of wealth or funds names has been screened "
        "against the sanctions lists, searched for adverse media and looked up in the "
        "registry (see businesses_to_screen, businesses_to_search and businesses_to_look_up): "
        "that rules out a low risk rating.",
        "declared businesses not researched",
    ),
    RatingRule(
        "medium",
        lambda s, _: bool(unscreened_directorships(s)),
        "Not every company the subject directs has been screened against the sanctions "
        "lists (see companies_to_screen): that rules out a low risk rating.",
        "companies the subject directs not screened",
    ),
    RatingRule(
        "medium",
        lambda s, _: bool(unsearched_directorships(s)),
        "Adverse media has not been searched on every company the subject directs (see "
        "companies_to_search): that rules out a low risk rating.",
        "companies the subject directs not searched for adverse media",
    ),
)


def below(rating: str, floor: str) -> bool:
    return RATINGS.index(rating) < RATINGS.index(floor)


def rules_against(s: AtlasState, rating: str, set_aside: Collection[str] = ()) -> RulesAgainst:
    """The rules that rule `rating` out, reading the signals of the evidence about the
    subject (about_the_subject) but those in `set_aside` (evidence ids)."""
    present = {
        signal
        for item in about_the_subject(s)
        if item.evidence_id not in set_aside
        for signal in item.signals
    }
    rules = [rule for rule in RULES if below(rating, rule.floor) and rule.applies(s, present)]
    return RulesAgainst(rules, set_aside)


def why_not(s: AtlasState, rating: str, rules: RulesAgainst) -> str:
    """A reviewer's refusal: "A low rating is ruled out by adverse media: an article [4] is
    adverse media about …", naming each ground that still holds with the sources it comes
    from, and what marking screening matches false positives does and does not change."""
    refusal = f"A {rating} {RULED_OUT} {listed([rule.in_words for rule in rules], 'and')}"
    clauses = [
        clause for rule in rules if rule.grounds for clause in rule.grounds(s, rules.set_aside)
    ]
    if clauses:
        refusal += ": " + "; ".join(clauses)
    return refusal + "."
