"""Which of the candidates an analyst's free-text answer picks, as the rule-based playbook
reads it: an entity id or registration number, a country (said by code, by name or as an
adjective, and not negated: "not the UK one"), or a fact only one candidate has ("the one
born 1965"). An answer that does not single one out picks none, and the playbook asks
again."""

from __future__ import annotations

import re
from typing import Any

import pycountry
from rapidfuzz import fuzz

from atlas.runtime.state import candidate_label

# What analysts call a country other than by its ISO code or its name: the common short
# forms and the adjectives of the jurisdictions the registry covers.
COUNTRY_WORDS = {
    "uk": "GB",
    "britain": "GB",
    "british": "GB",
    "england": "GB",
    "english": "GB",
    "usa": "US",
    "america": "US",
    "american": "US",
    "singaporean": "SG",
    "german": "DE",
    "irish": "IE",
    "canadian": "CA",
    "dutch": "NL",
    "holland": "NL",
    "indian": "IN",
    "lithuanian": "LT",
    "swiss": "CH",
    "emirati": "AE",
    "uae": "AE",
    "australian": "AU",
    "norwegian": "NO",
    "chilean": "CL",
    "japanese": "JP",
    "austrian": "AT",
    "panamanian": "PA",
    "russian": "RU",
    "nigerian": "NG",
}

# Words that turn the country right after them into the one the analyst does not mean
# ("not the UK one"), within the same clause: "No, the UK one" means the UK.
NEGATIONS = {"not", "no", "isn't", "isnt", "except", "nor", "neither", "without", "exclude"}
NEGATION_REACH = 2  # words before a country that a negation may be
CLAUSE_BREAK = re.compile(r"[,.;:!?()]|\s[-–—]\s")
# Words an answer is made of that say nothing about which candidate is meant.
FILLER = {"the", "one", "and", "for", "not", "with", "please", "check", "pick", "choose"}
MIN_FACT_WORD = 3


def candidate_from_answer(
    p: dict[str, Any], candidates: list[dict[str, Any]]
) -> dict[str, Any] | None:
    if not p["answered_questions"] or not candidates:
        return None
    answer = p["answered_questions"][-1].get("answer", "")
    for c in candidates:
        if c["entity_id"].lower() in answer.lower():
            return c
    for c in candidates:
        number = c.get("registration_number")
        if number and number.lower() in answer.lower():
            return c
    chosen = _by_country(answer, candidates)
    if chosen is not None:
        return chosen
    # "the one born 1965": a word of the answer that only one candidate's facts contain.
    answer_words = {
        word for word in _words(answer) if len(word) >= MIN_FACT_WORD and word not in FILLER
    }
    by_fact = []
    for c in candidates:
        others = set().union(*(_words(o.get("details", "")) for o in candidates if o is not c))
        if answer_words & (_words(c.get("details", "")) - others):
            by_fact.append(c)
    if len(by_fact) == 1:
        return by_fact[0]
    best = max(candidates, key=lambda c: fuzz.token_set_ratio(answer, candidate_label(c)))
    if fuzz.token_set_ratio(answer, candidate_label(best)) >= 80:
        return best
    return None


def _by_country(answer: str, candidates: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The one candidate of a country the answer names; or, when it only rules countries
    out ("not GB"), the one candidate left."""
    meant, ruled_out = country_mentions(answer, {c["jurisdiction"] for c in candidates})
    named = [c for c in candidates if c["jurisdiction"] in meant - ruled_out]
    if len(named) == 1:
        return named[0]
    if not meant and ruled_out:
        left = [c for c in candidates if c["jurisdiction"] not in ruled_out]
        if len(left) == 1:
            return left[0]
    return None


def country_mentions(answer: str, codes: set[str]) -> tuple[set[str], set[str]]:
    """The countries among `codes` the answer means, and those it rules out. A code counts
    only written in capitals ("SG"; "us" is a word), beside the country words and names."""
    words = [(m.start(), m.group()) for m in re.finditer(r"[\w']+", answer)]
    mentions: list[tuple[int, str]] = []
    for start, word in words:
        if len(word) == 2 and word.isupper() and word in codes:
            mentions.append((start, word))
        elif COUNTRY_WORDS.get(word.lower()) in codes:
            mentions.append((start, COUNTRY_WORDS[word.lower()]))
    for code in codes:
        for name in _country_names(code):
            for match in re.finditer(rf"\b{re.escape(name)}\b", answer, re.IGNORECASE):
                mentions.append((match.start(), code))
    meant: set[str] = set()
    ruled_out: set[str] = set()
    breaks = [match.end() for match in CLAUSE_BREAK.finditer(answer)]
    for start, code in mentions:
        clause_start = max((end for end in breaks if end <= start), default=0)
        before = [word.lower() for position, word in words if clause_start <= position < start]
        negated = bool(NEGATIONS & set(before[-NEGATION_REACH:]))
        (ruled_out if negated else meant).add(code)
    return meant, ruled_out


def _country_names(code: str) -> set[str]:
    country = pycountry.countries.get(alpha_2=code)
    if country is None:
        return set()
    names = {getattr(country, a, None) for a in ("name", "common_name", "official_name")}
    return {name for name in names if name}


def _words(text: str) -> set[str]:
    return set(re.findall(r"\w+", text.lower()))
