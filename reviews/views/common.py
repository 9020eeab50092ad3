"""Shared by the review views: tenant-scoped item lookup and what a person may do with it."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from urllib.parse import urlsplit

from django.core.exceptions import TooManyFieldsSent
from django.http import HttpRequest, QueryDict
from django.utils import timezone
from django.utils.http import url_has_allowed_host_and_scheme
from django_htmx.middleware import HtmxDetails

from atlas.runtime.decisions import DISPOSE_OF_EVERY_HIT
from atlas.runtime.rating_floor import RULED_OUT
from reviews.actions import (
    FOUR_EYES_MESSAGE,
    claim_is_live,
    open_conflict_facts,
    screening_matches_of,
)
from reviews.earlier_marks import earlier_marks
from reviews.forms import hit_dispositions_in, hit_notes_in
from reviews.models import HumanDecision, ReviewItem
from reviews.queries import documents_not_given
from runs.access import get_for_tenant, tenant_of

REVIEWERS = ("reviewer",)


class HtmxHttpRequest(HttpRequest):
    htmx: HtmxDetails


def item_for(request: HttpRequest, item_id: int, *kinds: str) -> ReviewItem:
    """The tenant's item of one of `kinds`; anything else (another tenant's too) is a 404."""
    items = ReviewItem.objects.select_related(
        "case", "case__created_by", "run", "claimed_by"
    ).filter(kind__in=kinds)
    return get_for_tenant(items, tenant_of(request), pk=item_id)


def shown_page_query(request: HtmxHttpRequest) -> QueryDict:
    """The query string (the filters) of the page an htmx request was sent from. The header
    is the client's word: one that does not parse counts as a page without filters, since
    the action it came with has already been recorded."""
    try:
        return QueryDict(urlsplit(request.htmx.current_url or "").query)
    except (ValueError, TooManyFieldsSent):
        return QueryDict()


def next_url(request: HttpRequest, default: str) -> str:
    candidate = request.POST.get("next") or request.GET.get("next") or ""
    if candidate and url_has_allowed_host_and_scheme(
        candidate, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return candidate
    return default


@dataclass
class ItemView:
    """One review item as a person sees it: who holds it, who decided, what they may do."""

    item: ReviewItem
    decision: HumanDecision | None
    own_case: bool
    claim_live: bool
    claimed_by_me: bool
    error: str = ""
    reason: str = ""
    four_eyes_message: str = FOUR_EYES_MESSAGE
    # The run's settled conflicts when the caller read them for a whole page at once.
    settled_conflicts: set[str] | None = None
    # What a refused form sent (the screening matches' marks and notes, the rating), shown
    # again.
    typed: Mapping[str, str] = field(default_factory=dict)
    # A sign-off's documents its run never read, when the caller read them for a page.
    unread: list | None = None
    # A refused sign-off's problems by field (reviews.actions.sign_off_problems), each shown
    # next to its field; `error` is then for what no field holds.
    field_errors: Mapping[str, str] = field(default_factory=dict)

    @property
    def is_open(self) -> bool:
        return self.item.status == ReviewItem.Status.OPEN and self.decision is None

    @property
    def held_by_other(self) -> bool:
        return self.claim_live and not self.claimed_by_me

    @property
    def can_decide(self) -> bool:
        return self.is_open and not self.own_case and not self.held_by_other

    @cached_property
    def open_conflicts(self) -> list[str]:
        return open_conflict_facts(self.item, self.settled_conflicts)

    @property
    def signs_off_in_the_queue(self) -> bool:
        """A packet is signed off from its row only when there is nothing in it to read
        or dispose of first: no open conflict, not a high risk rating, no screening match
        (each is marked on the item's page), no source that tried to instruct the agent,
        no gap the research left open."""
        packet = self.item.payload.get("packet") or {}
        return (
            not self.open_conflicts
            and packet.get("risk_rating") != "high"
            and not self.hits
            and not self.documents_not_read
            and not self.suspect_sources
            and not packet.get("open_gaps")
        )

    @property
    def suspect_sources(self) -> list[str]:
        return self.item.payload.get("suspect_sources") or []

    @cached_property
    def documents_not_read(self) -> list:
        """The case's documents the run never read: the packet is read before sign-off."""
        if self.unread is not None:
            return self.unread
        return documents_not_given([self.item]).get(self.item.pk, [])

    @property
    def four_eyes_refused(self) -> bool:
        """The refusal is the four-eyes rule's, which then stands in for its notice."""
        return self.error.startswith(FOUR_EYES_MESSAGE)

    @property
    def hits_error(self) -> bool:
        """The refusal says some hits are not marked yet (not that the reason is missing)."""
        return self.field_errors.get("hits", self.error).startswith(DISPOSE_OF_EVERY_HIT)

    @cached_property
    def hit_choices(self) -> dict[str, str]:
        return hit_dispositions_in(self.typed)

    @property
    def rating_choice(self) -> str:
        return self.typed.get("risk_rating", "")

    @property
    def rating_error(self) -> bool:
        """The refusal is of the rating the reviewer chose."""
        return "risk_rating" in self.field_errors or RULED_OUT in self.error

    @cached_property
    def hits(self) -> list[dict]:
        """A sign-off's sanctions hits, each with the disposition chosen so far, the name
        the list entry gives and whether it is one a refusal asks to mark; the subject's
        own first, then each other person's together, then each namesake candidate's."""
        hits = [
            {
                **hit,
                "choice": self.hit_choices.get(hit["evidence_id"], ""),
                "matched": matched_name(hit),
                "unmarked": self.hits_error and hit["evidence_id"] not in self.hit_choices,
            }
            for hit in screening_matches_of(self.item)
        ]
        return sorted(hits, key=lambda hit: (hit.get("candidate") or "", hit.get("about") or ""))

    @cached_property
    def hits_to_mark(self) -> list[dict]:
        """`hits`, each with how a reviewer marked it on an earlier run of the case, if one
        did (the form that asks for the marks shows it)."""
        marks = earlier_marks(self.item) if self.hits else {}
        notes = hit_notes_in(self.typed)
        return [
            {
                **hit,
                "earlier": marks.get(hit["evidence_id"]),
                "note": notes.get(hit["evidence_id"], ""),
                "repeats": repeated_from,
            }
            for hit, repeated_from in zip(self.hits, repeated_listings(self.hits), strict=True)
        ]

    @property
    def unsaved_text(self) -> str:
        """What the person typed for a refused decision when no form is shown to hold it
        (someone else decided or holds the item): given back to copy, never lost."""
        return "" if self.can_decide else self.reason


def by_value(sources: list[dict]) -> list[dict]:
    """A conflict's sources grouped by the value they give: one competing value each, with
    every source that gives it, in the order first seen."""
    values: dict[str, dict] = {}
    for source in sources:
        values.setdefault(source["value"], {"value": source["value"], "sources": []})
        values[source["value"]]["sources"].append(source)
    return list(values.values())


def matched_name(hit: dict) -> str:
    """The listed name a hit matched, read from its claim ("… matches NAME on LIST (…)");
    the payload does not carry it on its own. "" when the claim does not say it that way."""
    found = re.search(r" matches (.+?) on " + re.escape(hit.get("list") or ""), hit["claim"])
    return found.group(1) if found and hit.get("list") else ""


def repeated_listings(hits: list[dict]) -> list[str]:
    """Per hit, the name screened in an earlier hit on the same list entry about the same
    person ("" for the first): the subject screened by the name the analyst typed, then by
    its registry entry, hits one listing twice."""
    first_query: dict[tuple, str] = {}
    repeats = []
    for hit in hits:
        matched = matched_name(hit)
        key = (hit.get("list"), matched, hit.get("about"), hit.get("candidate"))
        query = screened_query(hit)
        repeats.append(first_query.get(key, "") if matched else "")
        first_query.setdefault(key, query)
    return repeats


def screened_query(hit: dict) -> str:
    """The name screened, read from a hit's claim ("… 'NAME' matches …")."""
    found = re.search(r"'(.+?)' matches ", hit["claim"])
    return found.group(1) if found else ""


def item_view(
    item: ReviewItem, user, *, decisions: dict[int, HumanDecision] | None = None, **extra
) -> ItemView:
    if decisions is None:
        decision = item.decisions.select_related("actor").order_by("id").first()
    else:
        decision = decisions.get(item.pk)
    live = claim_is_live(item, timezone.now())
    return ItemView(
        item=item,
        decision=decision,
        own_case=item.case.created_by_id == user.pk,
        claim_live=live,
        claimed_by_me=live and item.claimed_by_id == user.pk,
        **extra,
    )


def decisions_by_item(items) -> dict[int, HumanDecision]:
    ids = [item.pk for item in items]
    return {
        d.review_item_id: d
        for d in HumanDecision.objects.filter(review_item_id__in=ids).select_related("actor")
    }
