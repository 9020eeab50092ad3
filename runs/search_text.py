"""What a person typed into a search box, as the lists compare it: its runs of whitespace
collapsed (subjects are stored that way) and its length bounded; and the one search every
list of cases, review items and runs makes with it."""

from __future__ import annotations

import re

import pycountry
from django.db.models import OuterRef, Q, Subquery
from django.db.models.lookups import IsNull

from atlas.runtime.world.normalize import transliterate
from runs.models import Run
from runs.numbers import whole_number

MAX_LENGTH = 200

# A case as the pages name it ("Case 8 · run 9"): "8", "#8", "case 8", "Case #8".
_CASE_NUMBER = re.compile(r"(?:case\s*)?#?\s*(\d+)", re.IGNORECASE | re.ASCII)
# What registration numbers are written with besides their letters and digits.
REGISTRATION_NOISE = re.compile(r"[\s./-]+")


def search_text(value: str) -> str:
    return " ".join(value.split())[:MAX_LENGTH]


def case_number(query: str) -> int | None:
    """The number of the case `query` names, if it names one."""
    if match := _CASE_NUMBER.fullmatch(query):
        return whole_number(match.group(1))
    return None


def spellings(query: str) -> list[str]:
    """`query` as typed, and in the ASCII letters the research tools compare names in
    (Волков is volkov, Βόλκοφ volkof, Wołkow wolkow) when those differ from it."""
    folded = search_text(transliterate(query))
    if not folded or folded == query.lower():
        return [query]
    return [query, folded]


def is_country_code(query: str) -> bool:
    """Whether `query` is a two-letter ISO country code typed as one, in capitals ("LT");
    "lt" or "Ma" may as well be the start of a name ("Ltd", "Mayfield")."""
    if len(query) != 2 or not (query.isascii() and query.isalpha() and query.isupper()):
        return False
    return pycountry.countries.get(alpha_2=query) is not None


def name_contains(field: str, query: str) -> Q:
    """Rows whose `field` contains `query` in any of its spellings; a country code in
    capitals only as a word of its own ("AG" finds "Siemens AG"; "LT" finds no "Ltd")."""
    if is_country_code(query):
        return Q(**{f"{field}__iregex": rf"(^|\W){query}(\W|$)"})
    condition = Q()
    for spelling in spellings(query):
        condition |= Q(**{f"{field}__icontains": spelling})
    return condition


def registration_key(number: str) -> str:
    """A registration number as searches compare it: "HRB-12 345" is "HRB12345"."""
    return REGISTRATION_NOISE.sub("", number).upper()


def registration_number(query: str) -> str | None:
    """`query` as a registration number is kept, if it may be one: four or more letters
    and digits, a digit among them ("0771 2233", "HRB-12 345")."""
    folded = registration_key(query)
    if len(folded) >= 4 and any(character.isdigit() for character in folded):
        return folded
    return None


def matching_cases(query: str, via: str = "") -> Q:
    """Rows whose case `query` finds: by its subject, its jurisdiction, the entity any of
    its runs matched, or its number; each name as typed or transliterated. `via` is the
    lookup from the rows filtered to their case ("case" from a review item; "" for cases).
    No query finds every row."""
    if not query:
        return Q()
    case = f"{via}__" if via else ""
    # A scalar subquery, where EXISTS would do: PostgreSQL may turn an EXISTS under an OR
    # into one hashed scan of every tenant's runs; this one it runs per candidate row,
    # on runs_run_case_recent_idx, as the case list's latest-run columns are.
    a_matching_run = Subquery(
        Run.objects.filter(case_id=OuterRef(via or "pk"))
        .filter(matched_entity_is(query))
        .order_by()
        .values("pk")[:1]
    )
    condition = (
        name_contains(f"{case}subject_name", query)
        | Q(**{f"{case}jurisdiction__iexact": query})
        | Q(IsNull(a_matching_run, False))
    )
    if (number := case_number(query)) is not None:
        condition |= Q(**{f"{case}pk": number})
    return condition


def matched_entity_is(query: str) -> Q:
    """Runs whose matched entity `query` names, or whose registration number it gives."""
    condition = name_contains("matched_entity", query)
    if (number := registration_number(query)) is not None:
        condition |= Q(matched_registration__contains=number)
    return condition


def matching_runs(query: str) -> Q:
    """Runs `query` finds: by the subject each was started on, the entity it matched, or
    its case's subject now; each name as typed or transliterated."""
    if not query:
        return Q()
    return (
        name_contains("subject_name", query)
        | matched_entity_is(query)
        | name_contains("case__subject_name", query)
    )
