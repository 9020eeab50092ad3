"""Which of the candidates an analyst's free-text answer picks, as the rule-based playbook
reads it: an entity id or registration number, a country (said by code, by name or as an
adjective, and not negated: "not the UK one"), a fact only one candidate has ("the one
born 1965"), which is older or younger, or its place in the question's list ("the second
one", "2"). To a question that offered one candidate ("Is it the subject?"), a yes picks it
and a no does not. An answer that does not single one out picks none, and the playbook
asks again, unless it says none of them is the subject."""

from __future__ import annotations

import re
from collections.abc import Set
from typing import Any

import pycountry
from rapidfuzz import fuzz

from atlas.runtime.countries import COUNTRY_ADJECTIVES, COUNTRY_NAMES, US_STATES
from atlas.runtime.state import candidate_label
from atlas.runtime.world.normalize import (
    LEGAL_SUFFIXES,
    legal_form_word,
    legal_forms,
    normalize_registration_number,
)

# A negation rules out what follows it in its clause ("not the US or the UK one"), until
# a word that turns the sentence back ("but", "it is"): "No, the UK one" means the UK.
NEGATIONS = {
    *("not", "no", "isn't", "isnt", "except", "nor", "neither", "without", "exclude"),
    *("excluding", "never"),
}
NEGATION_ENDS = {"but", "rather", "instead", "is", "it's", "its", "was"}
# Two words that rule out what follows, though the second ends a negation alone:
# "anything but Singapore", "other than the GB one", "rather than the US one".
NEGATING_PAIRS = {
    *(("anything", "but"), ("everything", "but")),
    *(("other", "than"), ("rather", "than")),
}

# What rules out the candidate named before it in its clause: "Singapore is wrong", "the
# US one is not the subject", "GB isn't it".
RULED_OUT_AFTER = re.compile(
    r"(?i)[\w']+(?:\s+(?:one|company|entity|candidate|option|listing|record))?"
    r"(?:\s+(?:is|was|are)\s+|'s\s+)(?:(?:definitely|clearly|certainly)\s+)?"
    r"(?:wrong|incorrect|not\s+(?:it|right|correct|relevant"
    r"|the\s+(?:one|subject|company|person|entity)))"
    r"|[\w']+(?:\s+(?:one|company|entity|candidate|option|listing|record))?"
    r"\s+(?:isn't|isnt|wasn't|aren't)\s+(?:it|right|correct|relevant"
    r"|the\s+(?:one|subject|company|person|entity))"
)
# Where a clause may end after such a predicate.
CLAUSE_ENDS = re.compile(r"\s*(?:[,.;:!?()]|\s[-–—]\s|$)")
NOT_A_NEGATION_AFTER = {"sure", "certain"}  # "not sure": doubt, not exclusion
CLAUSE_BREAK = re.compile(r"[,.;:!?()]|\s[-–—]\s")
# Words an answer is made of that say nothing about which candidate is meant.
FILLER = {"the", "one", "and", "for", "not", "with", "please", "check", "pick", "choose"}
MIN_FACT_WORD = 3
# A registration number written another way is recognised from this many characters.
MIN_NUMBER_CHARS = 5
# When a candidate was born or incorporated, as its details say it, for "the older one".
AGE_FACT = re.compile(r"\b(?:born|incorporated) (\d{4}(?:-\d\d-\d\d)?)\b")
OLDER = {"older", "oldest", "elder", "eldest"}
YOUNGER = {"younger", "youngest", "newer", "newest", "latest"}
# A candidate's place in the list a question gave, as an answer says it.
PLACES = {
    **dict.fromkeys(("first", "1st"), 0),
    **dict.fromkeys(("second", "2nd"), 1),
    **dict.fromkeys(("third", "3rd"), 2),
    **dict.fromkeys(("fourth", "4th"), 3),
    **dict.fromkeys(("fifth", "5th"), 4),
    "last": -1,
}
PLACE_ANSWER = re.compile(
    r"(?i)^(?:(?:it'?s|it is)\s+)?(?P<negated>not\s+)?(?:the\s+)?(?:"
    rf"(?P<word>{'|'.join(PLACES)})"
    r"(?:\s+(?:one|candidate|option|entry|match|result|company|person|entity))?"
    r"(?:\s+(?:listed|on the list|in the list))?"
    # "number 2", "#2", or the number alone as the list wrote it: "2", "2.", "(2)".
    r"|(?:(?:number|no\.?|option|candidate|#)\s*)?"
    r"(?P<open>\()?(?P<number>[1-9]\d?)(?(open)\)))$"
)
# The legal forms an answer can name: "as", "co" and "company" are words of a sentence too.
ANSWER_LEGAL_FORMS = LEGAL_SUFFIXES - {"as", "co", "company"}
# A yes or a no to a question about one candidate ("Is it the subject?"). Doubt ("not
# sure", "maybe") is neither, and so is an answer that says both.
AFFIRMATIONS = {
    *("yes", "yeah", "yep", "yup", "aye", "correct", "right", "exactly", "indeed"),
    *("confirmed", "confirm", "affirmative", "ok", "okay", "sure", "true"),
}
DENIALS = {
    *("no", "not", "nope", "nah", "isn't", "isnt", "wrong", "incorrect", "neither", "nor"),
    *("none", "never", "different", "another", "other"),
}
# "no. 08812345" is a number, not a no.
NUMBER_ABBREVIATION = re.compile(r"(?i)\bno\.\s*(?=[\w-]*\d)")
# A yes said with a no-word in it: "no doubt", "no question", "without a doubt".
SURE_WITH_A_NO = re.compile(
    r"(?i)\bno\s+(?:doubt|questions?)\b|\bwithout\s+(?:a\s+|any\s+)?doubt\b"
    r"|\bof\s+course\b(?![^,.;!?]*(?:\bnot\b|n't))"
)
# A yes said as a sentence within a longer answer: "that is the company", "it's the one".
IT_IS_THE_ONE = re.compile(
    r"(?i)\b(?:it|that|this|he|she)(?:'s|\s+is)\s+(?:indeed\s+)?"
    r"(?:the\s+(?:one|subject|company|person|entity|same)|him|her|correct|right)"
    r"(?=\s*(?:[,.;:!?]|$))"
)
DOUBT = re.compile(
    r"(?i)\bnot\s+(?:sure|certain)\b|\b(?:maybe|perhaps|possibly|unsure|unknown|dunno|hmm+)\b"
    r"|\bno\s+idea\b|\b(?:do\s*n[o']?t|did\s*n[o']?t|can\s*n[o']?t|can't)\s+(?:know|tell|say)\b"
    r"|\bneeds?\s+to\s+(?:check|verify|confirm)\b|\bto\s+be\s+(?:checked|confirmed)\b"
)
# A yes said without a yes-word, as the whole answer: "It is.", "That's the one", "this one".
THAT_ONE = re.compile(
    r"(?i)^(?:(?:it|that|this|he|she)(?:'s|\s+is)"
    r"(?:\s+(?:it|him|her|the\s+one|the\s+subject|the\s+company|the\s+person))?"
    r"|(?:that|this|the\s+same)(?:\s+one)?)$"
)
# An answer that none of the candidates is the subject, unless it goes on to except one
# ("none but the UK one").
NONE_OF_THEM = re.compile(r"(?i)\b(?:none|neither|not\s+(?:any|one)\s+of)\b")
EXCEPTING = re.compile(r"(?i)\b(?:but|except|apart|besides|other\s+than|save)\b")


def candidate_from_answer(
    p: dict[str, Any], candidates: list[dict[str, Any]]
) -> dict[str, Any] | None:
    """The candidate the analyst's latest answer picks, if it singles one out. The runtime
    reads the answer when it is applied (`picked_entity_id`); the playbook acts on that
    reading, so the two never disagree on what the analyst meant."""
    if not p["answered_questions"]:
        return None
    latest = p["answered_questions"][-1]
    if "picked_entity_id" in latest:
        picked = latest["picked_entity_id"]
        return next((c for c in candidates if picked and c["entity_id"] == picked), None)
    return candidate_picked_by(latest.get("answer", ""), candidates)


def candidate_picked_by(
    answer: str, candidates: list[dict[str, Any]], listed: list[str] | None = None
) -> dict[str, Any] | None:
    """The one candidate the answer singles out. `listed` is the question's list of them,
    in the order the analyst read it (else, the candidates' own order)."""
    if not candidates:
        return None
    if listed is not None and len(listed) == 1:
        # "Is it the subject?": a yes or a no decides; an answer that says neither is read
        # as any other.
        said = yes_or_no(answer.replace(listed[0], " "))  # the label says neither
        offered = candidate_labelled(listed[0], candidates)
        if said and offered is not None and _names_another_country(answer, offered):
            return None  # "Yes, the Singapore one", of a GB company: not this one
        if said is not None:
            return offered if said else None
    place = _place_named(answer, len(listed or candidates))
    if place is not None:
        return _candidate_at(place, candidates, listed)
    for key in ("entity_id", "registration_number"):
        chosen = _by_identifier(answer, candidates, key)
        if chosen is not None:
            return chosen
    chosen = _by_country(answer, candidates)
    if chosen is not None:
        return chosen
    chosen = _by_legal_form(answer, candidates)
    if chosen is not None:
        return chosen
    chosen = _by_fact(answer, candidates)
    if chosen is not None:
        return chosen
    chosen = _by_age(answer, candidates)
    if chosen is not None:
        return chosen
    # The answer written like one candidate's label, and clearly more like it than another.
    scores = sorted(
        ((fuzz.token_set_ratio(answer, candidate_label(c)), i) for i, c in enumerate(candidates)),
        reverse=True,
    )
    best, index = scores[0]
    runner_up = scores[1][0] if len(scores) > 1 else 0
    if best >= 80 and best - runner_up >= 5:
        return candidates[index]
    return None


ALL_COUNTRY_CODES = frozenset(country.alpha_2 for country in pycountry.countries)


def _names_another_country(answer: str, candidate: dict[str, Any]) -> bool:
    """Whether the answer means a country, and not the candidate's. Written all in
    capitals, its words are no codes ("YES, IT IS" names no Italy)."""
    meant, _ = country_mentions(answer.lower() if answer.isupper() else answer, ALL_COUNTRY_CODES)
    return bool(meant) and candidate.get("jurisdiction") not in meant


def _place_named(answer: str, count: int) -> int | None:
    """ "The second one", "#2", "the last": the whole answer is a place in the question's
    list (0-based); "not the first one" is the other of two."""
    match = PLACE_ANSWER.match(answer.strip().rstrip(".!").strip())
    if match is None:
        return None
    place = int(match["number"]) - 1 if match["number"] else PLACES[match["word"].lower()]
    if place == -1:
        place = count - 1
    if place >= count:
        return None
    if match["negated"]:
        return 1 - place if count == 2 else None
    return place


def candidates_ruled_out_by(
    answer: str, candidates: list[dict[str, Any]], listed: list[str]
) -> list[dict[str, Any]]:
    """The candidates a question of several listed, when the answer says none of them is
    the subject and picks none: "none of them", "neither", "not any of these", or a bare
    "no" to "which one is the subject?"."""
    if len(listed) < 2 or not (says_none_of_them(answer) or _a_bare_no(answer)):
        return []
    if candidate_picked_by(answer, candidates, listed) is not None:
        return []  # "neither the UK one nor the US one", of three, is the third
    offered = [candidate_labelled(label, candidates) for label in listed]
    return [c for c in candidates if c in offered]


def rules_out_the_one(answer: str, listed: list[str]) -> bool:
    """Whether the answer to a question offering one candidate says it is not the subject."""
    if len(listed) != 1:
        return False
    return says_none_of_them(answer) or yes_or_no(answer.replace(listed[0], " ")) is False


# A no and nothing else but courtesy: "no", "nope", "no, sorry". Any other word ("not
# GB", "no, the second") may say which one, or which not.
COURTESY = {"sorry", "thanks", "thank", "you", "please"}


def _a_bare_no(answer: str) -> bool:
    words = {word.lower() for _, word in _word_positions(answer)}
    return bool(words & {"no", "nope", "nah"}) and words <= {"no", "nope", "nah", *COURTESY}


def says_none_of_them(answer: str) -> bool:
    match = NONE_OF_THEM.search(answer)
    return match is not None and EXCEPTING.search(answer, match.end()) is None


def yes_or_no(answer: str) -> bool | None:
    """True when the answer says yes, False when it says no, None when it says neither, both
    ("yes, unless it is the other one") or doubts ("not sure")."""
    answer = NUMBER_ABBREVIATION.sub(" ", answer.replace("\u2019", "'"))
    if DOUBT.search(answer):
        return None
    answer = SURE_WITH_A_NO.sub(" yes ", answer)
    words = {word.lower() for _, word in _word_positions(answer)}
    yes = bool(words & AFFIRMATIONS) or IT_IS_THE_ONE.search(answer) is not None
    no = bool(words & DENIALS) or any(word.endswith("n't") for word in words)
    if yes != no:
        return yes
    if not yes and THAT_ONE.match(answer.strip().strip(".!").strip()):
        return True
    return None


def candidate_labelled(label: str, candidates: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The candidate a question's label stands for: the one whose id ends it."""
    return next((c for c in candidates if label.endswith(f"[{c['entity_id']}]")), None)


def _candidate_at(
    place: int, candidates: list[dict[str, Any]], listed: list[str] | None
) -> dict[str, Any] | None:
    if not listed:
        return candidates[place]
    return candidate_labelled(listed[place], candidates)


def _by_identifier(
    answer: str, candidates: list[dict[str, Any]], key: str
) -> dict[str, Any] | None:
    """The one candidate whose id (or registration number) the answer names; or, when it
    only rules ids out ("not CO-GB-001"), the one candidate left."""
    named, ruled_out = [], []
    for c in candidates:
        identifier = (c.get(key) or "").lower()
        if not identifier:
            continue
        for start in _identifier_positions(answer, identifier, key):
            (ruled_out if _negated_at(answer, start) else named).append(c)
    named = [c for c in named if c not in ruled_out]
    if len(named) == 1:
        return named[0]
    left = [c for c in candidates if c not in ruled_out]
    if not named and ruled_out and len(left) == 1:
        return left[0]
    return None


def _identifier_positions(answer: str, identifier: str, key: str) -> list[int]:
    """Where the answer names the identifier: as written, or, for a registration number,
    written another way ("4512398" or "0451-2398" for 04512398)."""
    pattern = rf"(?<![\w-]){re.escape(identifier)}(?![\w-])"
    found = [m.start() for m in re.finditer(pattern, answer.lower())]
    wanted = normalize_registration_number(identifier)
    if found or key != "registration_number" or len(wanted) < MIN_NUMBER_CHARS:
        return found
    words = re.finditer(r"[\w-]+", answer)
    return [m.start() for m in words if normalize_registration_number(m.group()) == wanted]


def _by_legal_form(answer: str, candidates: list[dict[str, Any]]) -> dict[str, Any] | None:
    """ "The LLC", "the Pte Ltd one", "Northwind Trading Limited": the one candidate whose
    legal form is one the answer names; or, when it only rules forms out ("not the LLC
    nor the Pte Ltd"), the one candidate left."""
    meant, ruled_out = set(), set()
    for start, form in _legal_forms_named(answer):
        (ruled_out if _negated_at(answer, start) else meant).add(form)
    forms = {c["entity_id"]: legal_forms(c.get("name", "")) for c in candidates}
    named = [c for c in candidates if forms[c["entity_id"]] in meant - ruled_out]
    if len(named) == 1:
        return named[0]
    if not meant and ruled_out:
        left = [c for c in candidates if forms[c["entity_id"]] not in ruled_out]
        if len(left) == 1:
            return left[0]
    return None


def _legal_forms_named(answer: str) -> list[tuple[int, frozenset[str]]]:
    """Each legal form the answer names, where it starts: words of a form written next to
    each other are one form ("Pte Ltd")."""
    named: list[tuple[int, set[str]]] = []
    previous = -2
    for index, (start, word) in enumerate(_word_positions(answer)):
        form = legal_form_word(word)
        if form not in ANSWER_LEGAL_FORMS:
            continue
        if index == previous + 1:
            named[-1][1].add(form)
        else:
            named.append((start, {form}))
        previous = index
    return [(start, frozenset(forms)) for start, forms in named]


def _by_fact(answer: str, candidates: list[dict[str, Any]]) -> dict[str, Any] | None:
    """ "The one born 1965": a word of the answer that only one candidate's facts hold; or
    "the one not born 1990", the one candidate left once those ruled out are."""
    meant, ruled_out = set(), set()
    for start, word in _word_positions(answer):
        word = word.lower()
        if len(word) >= MIN_FACT_WORD and word not in FILLER:
            (ruled_out if _negated_at(answer, start) else meant).add(word)
    named, excluded = [], []
    for c in candidates:
        others = set().union(*(_words(o.get("details", "")) for o in candidates if o is not c))
        own = _words(c.get("details", "")) - others
        if own & meant:
            named.append(c)
        if own & ruled_out:
            excluded.append(c)
    named = [c for c in named if c not in excluded]
    if len(named) == 1:
        return named[0]
    left = [c for c in candidates if c not in excluded]
    if not named and excluded and len(left) == 1:
        return left[0]
    return None


def _by_age(answer: str, candidates: list[dict[str, Any]]) -> dict[str, Any] | None:
    """ "The older one": the candidate born, or incorporated, first ("the younger", "the
    newer": last), when every candidate's details say when and no two say the same."""
    dates = [AGE_FACT.search(c.get("details", "")) for c in candidates]
    if not all(dates) or len({d[1] for d in dates}) < len(dates):
        return None
    asked = [
        (word.lower() in OLDER, _negated_at(answer, start))
        for start, word in _word_positions(answer)
        if word.lower() in OLDER | YOUNGER
    ]
    if len(set(asked)) != 1:
        return None
    ((older, negated),) = set(asked)
    if negated:
        if len(candidates) != 2:
            return None
        older = not older
    by_date = sorted(zip((d[1] for d in dates), range(len(candidates)), strict=True))
    return candidates[by_date[0 if older else -1][1]]


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


def country_mentions(answer: str, codes: Set[str]) -> tuple[set[str], set[str]]:
    """The countries among `codes` the answer means, and those it rules out. A code counts
    written in capitals ("SG"; "us" is a word), or as the whole answer ("sg"), beside the
    country words and names."""
    words = _word_positions(answer)
    mentions: list[tuple[int, str]] = []
    whole = answer.strip(" .!").upper()
    if whole in codes:
        mentions.append((0, whole))
    for start, word in words:
        if len(word) == 2 and word.isupper() and word in codes:
            mentions.append((start, word))
        elif COUNTRY_ADJECTIVES.get(word.lower()) in codes:
            mentions.append((start, COUNTRY_ADJECTIVES[word.lower()]))
    for code in codes:
        for name in _country_names(code):
            for match in re.finditer(rf"\b{re.escape(name)}\b", answer, re.IGNORECASE):
                mentions.append((match.start(), code))
    if "US" in codes:
        mentions += [(start, "US") for start, state in _us_states_named(answer)]
    meant: set[str] = set()
    ruled_out: set[str] = set()
    for start, code in mentions:
        (ruled_out if _negated_at(answer, start) else meant).add(code)
    return meant, ruled_out


def _us_states_named(answer: str) -> list[tuple[int, str]]:
    """ "The Delaware one": where the answer names a US state (one or two words long)."""
    words = _word_positions(answer)
    named = []
    for index, (start, word) in enumerate(words):
        for phrase in (word, " ".join(w for _, w in words[index : index + 2])):
            if phrase.casefold() in US_STATES:
                named.append((start, phrase))
    return named


def _negated_at(answer: str, position: int) -> bool:
    """Whether what the answer says at `position` is ruled out in its clause: by a negation
    before it, or by what is said of it after ("Singapore is wrong")."""
    clause_start = max(
        (m.end() for m in CLAUSE_BREAK.finditer(answer) if m.end() <= position), default=0
    )
    clause_end = next((m.start() for m in CLAUSE_BREAK.finditer(answer, position)), len(answer))
    ruled_out = RULED_OUT_AFTER.match(answer, position, clause_end)
    if ruled_out and CLAUSE_ENDS.match(answer, ruled_out.end()):
        return True
    # "Other than the UK one, none fit": an exception to a none keeps what it names.
    excepted = NONE_OF_THEM.search(answer, position) is not None
    # "No doubt the UK one": a yes with a no-word in it negates nothing.
    sure = [m.span() for m in SURE_WITH_A_NO.finditer(answer, clause_start, position)]
    words = [
        w.lower()
        for start, w in _word_positions(answer)
        if clause_start <= start < position and not any(a <= start < b for a, b in sure)
    ]
    negating = False
    for index, word in enumerate(words):
        previous = words[index - 1] if index else ""
        following = words[index + 1] if index + 1 < len(words) else ""
        if (previous, word) in NEGATING_PAIRS:
            # "None other than the UK one" names it.
            negating = not excepted and (index < 2 or words[index - 2] != "none")
        elif word in NEGATIONS and following not in NOT_A_NEGATION_AFTER:
            negating = not (excepted and word in ("except", "excluding"))
        elif word in NEGATION_ENDS:
            negating = False
    return negating


def _word_positions(text: str) -> list[tuple[int, str]]:
    return [(m.start(), m.group()) for m in re.finditer(r"[\w']+", text)]


def _country_names(code: str) -> set[str]:
    """ISO 3166's names of the country, and those people use besides ("UK")."""
    country = pycountry.countries.get(alpha_2=code)
    names = {name for name, named in COUNTRY_NAMES.items() if named == code}
    if country is not None:
        names |= {getattr(country, a, None) for a in ("name", "common_name", "official_name")}
    return {name for name in names if name}


def _words(text: str) -> set[str]:
    return set(re.findall(r"\w+", text.lower()))
