"""The lowest risk rating the evidence allows, and why. A proposed packet is held to it,
and so is a reviewer who signs a packet off with a rating of their own, except that the
screening matches they marked false positives are set aside."""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import NamedTuple

from atlas.runtime.directors import unscreened_directors, unsearched_directors
from atlas.runtime.directorships import unscreened_directorships, unsearched_directorships
from atlas.runtime.state import AtlasState, Signal
from atlas.runtime.wording import listed

RATINGS = ("low", "medium", "high")
# In every refusal of a reviewer's rating (why_not), so a page can tell which field it is on.
RULED_OUT = "rating is ruled out by"


class RatingRule(NamedTuple):
    floor: str  # the lowest rating allowed while the rule applies
    applies: Callable[[AtlasState, set[str]], bool]  # given the state and its signals
    to_the_agent: str  # why a lower rating was refused, for the model ("": said otherwise)
    in_words: str  # what rules a lower rating out, for a reviewer


def _signal(*signals: Signal) -> Callable[[AtlasState, set[str]], bool]:
    return lambda s, present: any(signal in present for signal in signals)


RULES = (
    RatingRule(
        "high",
        _signal(Signal.SANCTIONS_HIT),
        "A sanctions hit requires a high risk rating.",
        "a sanctions hit",
    ),
    RatingRule(
        "medium",
        _signal(Signal.ADVERSE),
        "Adverse media rules out a low risk rating.",
        "adverse media",
    ),
    RatingRule(
        "medium",
        _signal(Signal.PEP),
        "A politically exposed person rules out a low risk rating.",
        "a politically exposed person",
    ),
    RatingRule(
        "medium",
        lambda s, _: any(conflict.status != "resolved" for conflict in s.conflicts),
        "Sources disagree on a fact that nobody has settled (see conflicts): that rules "
        "out a low risk rating.",
        "sources that disagree on a fact nobody settled",
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
    ),
    RatingRule(
        "medium",
        _signal(Signal.INSTRUCTIONS),
        "A source holds text written as instructions to an AI agent: that rules out a "
        "low risk rating until a person has weighed it.",
        "a source written as instructions to an AI agent",
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


def rules_against(s: AtlasState, rating: str, set_aside: Collection[str] = ()) -> list[RatingRule]:
    """The rules that rule `rating` out, reading the signals of every evidence item but
    those in `set_aside` (evidence ids)."""
    present = {
        signal
        for item in s.evidence
        if item.evidence_id not in set_aside
        for signal in item.signals
    }
    return [rule for rule in RULES if below(rating, rule.floor) and rule.applies(s, present)]


def why_not(s: AtlasState, rating: str, rules: list[RatingRule]) -> str:
    """A reviewer's refusal: "A low rating is ruled out by adverse media …", saying that
    marking screening matches false positives would help only where it would."""
    refusal = f"A {rating} {RULED_OUT} {listed([rule.in_words for rule in rules], 'and')}"
    markable = {item.evidence_id for item in s.screening_matches()}
    if len(rules_against(s, rating, markable)) < len(rules):
        refusal += "; a screening match you mark a false positive no longer counts"
    return refusal + "."
