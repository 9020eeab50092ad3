"""Businesses a text names by their legal form ("Kestrel Foods Ltd", "Helios Solarwerke
GmbH"): in a declared source of wealth, or as an owner or director in a list of names; and,
in a declared source of wealth only, a name without one that what is said of it makes a
business's ("dividends from Kestrel Foods", "her stake in Pinecrest Holdings")."""

from __future__ import annotations

import re

from atlas.runtime.world.normalize import LEGAL_SUFFIXES, normalize_text

# A word of a business's name: capitalized ("Kestrel", "GmbH", "O'Neill"), a number with
# letters ("3M", not "2018"), or the "&" of "Smith & Sons".
_NAME_WORD = re.compile(r"[A-Z][\w'’.-]*|[0-9][\w'’.-]*[A-Za-z][\w'’.-]*|&")
# Words a sentence or clause may open with before a name ("From Kestrel Foods Ltd").
_LEAD_WORDS = frozenset(
    ("also", "at", "by", "for", "from", "in", "of", "since", "through", "via", "with")
)


def businesses_named(text: str) -> list[str]:
    """The businesses `text` names by a legal form ("dividends from Kestrel Foods Ltd"
    names Kestrel Foods Ltd), each once, in the order named: a run of capitalized words up
    to its last legal-form word (Ltd, GmbH, JSC, ...). A legal form written in lower case
    ("as", "co") is a word of the sentence, not of a name."""
    found: list[str] = []
    for run in _capitalized_runs(text):
        ends = [i for i, word in enumerate(run) if i and _legal_form(word)]
        if not ends:
            continue
        # A name starts after the last word of the sentence around it: "From Kestrel Foods
        # Ltd", "Dividends From Kestrel Foods Ltd" in a text in title case.
        leads = [i for i, word in enumerate(run[: ends[-1] - 1]) if word.lower() in _LEAD_WORDS]
        run = run[leads[-1] + 1 :] if leads else run
        ends = [i for i, word in enumerate(run) if i and _legal_form(word)]
        if not ends or run[0] == "&":
            continue
        name = " ".join(run[: ends[-1] + 1])
        if name.endswith(".") and "." not in name.rsplit(" ", 1)[-1][:-1]:
            name = name[:-1]  # "Ltd." at a sentence's end; "S.A." keeps its own
        # "... Kestrel Foods Ltd. Also Kestrel Foods Ltd": a sentence's first word is
        # capitalized too.
        if not any(name == known or name.endswith(f" {known}") for known in found):
            found.append(name)
    return found


_OPENING = "(\"“'‘["
_CLOSING = ")\"”'’],;:!?"


def _capitalized_runs(text: str) -> list[list[str]]:
    """The runs of name words in `text`; punctuation around a word ends a run."""
    runs: list[list[str]] = [[]]
    for word in text.split():
        if word[0] in _OPENING:
            runs.append([])
        bare = word.strip(_OPENING + _CLOSING)
        if not _NAME_WORD.fullmatch(bare):
            runs.append([])
            continue
        runs[-1].append(bare)
        if word[-1] in _CLOSING or word[-1] == ".":
            runs.append([])
    return [run for run in runs if run]


def businesses_declared(text: str) -> list[str]:
    """The businesses a declared source of wealth or funds names: by a legal form, then
    those only what is said of them makes businesses, each once."""
    named = businesses_named(text)
    return named + [
        held
        for held in businesses_held(text)
        if not any(name == held or name.startswith(f"{held} ") for name in named)
    ]


# What only a business pays or is held in, before its name: "dividends from", "shares in",
# "salary at", "employed by", "founder of". Not "inheritance from" or "sale of": a person
# or a house may follow those.
_HELD_IN = re.compile(
    r"(?i)\b(?:(?:shares?|stake|shareholding|holding|interest|equity)[ \t]+in"
    r"|dividends?[ \t]+(?:from|of|paid[ \t]+by)"
    r"|(?:salary|wages|bonus(?:es)?|share[ \t]+options?|employment)[ \t]+(?:from|at|with)"
    r"|employed[ \t]+by|(?:co-?)?founder[ \t]+of)[ \t]+(?:the[ \t]+)?(?=(?P<rest>[^\n]*))"
)
# Words that end a name run in a text in title case ("Dividends From Kestrel Foods Since
# 2016").
_AFTER_A_NAME = _LEAD_WORDS | frozenset(("and", "or", "since", "until", "between", "during"))


def businesses_held(text: str) -> list[str]:
    """The businesses `text` says something only a business has was from or in, by a name
    of two words or more without a legal form ("dividends from Kestrel Foods since 2016"
    names Kestrel Foods), each once. (businesses_named reads those with one.)"""
    found: list[str] = []
    for match in _HELD_IN.finditer(text):
        run = _capitalized_runs(match["rest"])[:1]
        words = run[0] if run and match["rest"].startswith(run[0][0]) else []
        name: list[str] = []
        for word in words:
            if word.lower() in _AFTER_A_NAME or (word == "&" and not name):
                break
            name.append(word)
        while name and name[-1] == "&":
            name.pop()
        held = " ".join(name)
        if held.endswith(".") and "." not in held.rsplit(" ", 1)[-1][:-1]:
            held = held[:-1]  # a sentence's full stop; "S.A." keeps its own
        if len(name) >= 2 and held not in found:
            found.append(held)
    return found


def _legal_form(word: str) -> bool:
    form = normalize_text(word).replace(" ", "")
    if form in _ALSO_WORDS:
        # "Kestrel AS", "Andino S.A.", but not the "As" of "Salary As Director".
        return word.isupper() or "." in word
    return form in LEGAL_SUFFIXES


# Legal forms that are words too, in a text written in title case.
_ALSO_WORDS = frozenset(("ag", "ao", "as", "sa"))
