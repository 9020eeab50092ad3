"""How the runtime's identifiers read on a page."""

from __future__ import annotations

from django import template

from atlas.runtime.redaction import redact
from atlas.runtime.wording import counted, fact_label

register = template.Library()


@register.filter(name="fact_label")
def fact_label_filter(fact: str) -> str:
    """ "registration_number" reads "Registration number"."""
    return fact_label(str(fact))


@register.filter
def redacted(text) -> str:
    """`text` with personal data redacted, for pages that say they redact it (escaped as
    any other value)."""
    return redact(str(text)) if text else ""


# What each kind of screening match is, counted: counted(2, *MATCH_WORDS["pep"]).
MATCH_WORDS = {
    "sanctions": ("sanctions hit", "sanctions hits"),
    "pep": ("politically exposed person match", "politically exposed person matches"),
    "adverse_media": ("article found by a name alone", "articles found by a name alone"),
}


@register.filter
def screening_matches_words(matches) -> str:
    """ "4 screening matches (2 sanctions hits, 2 articles found by a name alone; 1 possibly
    a namesake's)": the kinds are named when there are several, as a queue row's summary
    counts them, and how many may be on a namesake, for a reviewer to read first."""
    by_kind: dict[str, int] = {}
    for match in matches:
        kind = match.get("kind") if match.get("kind") in MATCH_WORDS else "other"
        by_kind[kind] = by_kind.get(kind, 0) + 1
    whole = counted(len(matches), "screening match", "screening matches")
    parts = [counted(n, *MATCH_WORDS[kind]) for kind, n in by_kind.items() if kind in MATCH_WORDS]
    said = [", ".join(parts)] if len(by_kind) > 1 else []
    namesakes = sum(1 for match in matches if match.get("possible_namesake"))
    if namesakes and namesakes == len(matches):
        said.append("all possibly a namesake's" if namesakes > 1 else "possibly a namesake's")
    elif namesakes:
        said.append(f"{namesakes} possibly a namesake's")
    return f"{whole} ({'; '.join(said)})" if said else whole
