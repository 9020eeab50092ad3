"""What a person typed into a search box, as the lists compare it: its runs of whitespace
collapsed (subjects are stored that way) and its length bounded; and the one search every
list of cases, review items and runs makes with it."""

from __future__ import annotations

import re

from django.db.models import OuterRef, Q, Subquery
from django.db.models.lookups import IsNull

from atlas.runtime.world.normalize import transliterate
from runs.models import Run
from runs.numbers import whole_number

MAX_LENGTH = 200

# A case as the pages name it ("Case 8 · run 9"): "8", "#8", "case 8", "Case #8".
_CASE_NUMBER = re.compile(r"(?:case\s*)?#?\s*(\d+)", re.IGNORECASE | re.ASCII)


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


def name_contains(field: str, query: str) -> Q:
    """Rows whose `field` contains `query` in any of its spellings."""
    condition = Q()
    for spelling in spellings(query):
        condition |= Q(**{f"{field}__icontains": spelling})
    return condition


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
        .filter(name_contains("matched_entity", query))
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


def matching_runs(query: str) -> Q:
    """Runs `query` finds: by the subject each was started on, the entity it matched, or
    its case's subject now; each name as typed or transliterated."""
    if not query:
        return Q()
    return (
        name_contains("subject_name", query)
        | name_contains("matched_entity", query)
        | name_contains("case__subject_name", query)
    )
