"""A queue page's notice of items opened after it loaded.

The page asks every few seconds, and right after each answer or decision it sends
(`atlas:queues-changed`): a question the agent asks again after an answer shows up without
a reload. Only a notice with a link is swapped in, never the rows, so nothing a person is
typing into a row is replaced under them.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlencode

from django.db.models import Max
from django.http import Http404, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_safe

from reviews.models import ReviewItem
from reviews.paging import QUEUE_ORDER, cursor_to_reach
from reviews.queries import AGE_FILTERS, filter_queue, open_items
from reviews.views.common import REVIEWERS, HtmxHttpRequest
from runs.access import has_role, tenant_of
from runs.numbers import whole_number
from runs.search_text import matching_cases, search_text

Kind = ReviewItem.Kind


@dataclass(frozen=True)
class QueuePageSpec:
    url_name: str
    kinds: list[str]
    readers: tuple[str, ...]
    noun: str  # what one item is called
    filters: tuple[str, ...]  # the query parameters the page filters by


QUEUE_PAGES = {
    "approvals": QueuePageSpec(
        "reviews-queue",
        [Kind.APPROVAL, Kind.SIGNOFF],
        REVIEWERS,
        "item",
        ("kind", "age", "q", "claim", "ready"),
    ),
    "questions": QueuePageSpec(
        "reviews-clarifications",
        [Kind.CLARIFICATION],
        ("analyst", "reviewer"),
        "question",
        ("q", "mine"),
    ),
    "escalations": QueuePageSpec(
        "reviews-escalations", [Kind.ESCALATION], REVIEWERS, "escalation", ("reason", "q")
    ),
}


def newest_item_id(request: HtmxHttpRequest) -> int:
    """Any item with a higher id was opened after the page that asked was rendered."""
    newest = ReviewItem.objects.filter(tenant=tenant_of(request)).aggregate(newest=Max("id"))
    return newest["newest"] or 0


def notice_context(request: HtmxHttpRequest, page: str) -> dict:
    """What a queue page needs to poll for its notice: its own filters, and the newest id
    there was when it was rendered."""
    return {
        "queue_page": page,
        "notice_query": urlencode(
            {**_filters(request, QUEUE_PAGES[page]), "after": newest_item_id(request)}
        ),
    }


def only_mine(request: HtmxHttpRequest, params) -> bool:
    """Whether the Questions page lists only the cases this person opened: an analyst's
    filter (only analysts open cases); anyone else's `mine` is ignored."""
    return params.get("mine") == "1" and has_role(request.user, "analyst")


def _filters(request: HtmxHttpRequest, spec: QueuePageSpec) -> dict[str, str]:
    return {name: request.GET[name] for name in spec.filters if request.GET.get(name)}


@require_safe
def new_items(request: HtmxHttpRequest, page: str) -> HttpResponse:
    if page not in QUEUE_PAGES:
        raise Http404("No such queue.")
    spec = QUEUE_PAGES[page]
    if not request.user.is_authenticated or not has_role(request.user, *spec.readers):
        # An expired session polls quietly instead of swapping a login page into the notice.
        return HttpResponse(status=204)
    after = whole_number(request.GET.get("after"))
    if after is None:
        return HttpResponse("The newest item shown must be a whole number.", status=400)
    filters = _filters(request, spec)
    kind = filters.get("kind", "")
    age = filters.get("age", "")
    query = search_text(filters.get("q", ""))
    queue = filter_queue(
        open_items(tenant_of(request), spec.kinds).filter(matching_cases(query, "case")),
        kind=kind if kind in spec.kinds else "",
        age=age if age in AGE_FILTERS else "",
        reason=filters.get("reason", ""),
        claim=filters.get("claim", ""),
        readiness=filters.get("ready", ""),
        user=request.user,
        opened_by=request.user if only_mine(request, filters) else None,
    )
    new = queue.filter(pk__gt=after)
    count = new.count()
    if not count:
        return render(request, "reviews/_new_items.html", {"count": 0})
    # New items join the end of the queue, oldest first: Show opens the page that starts
    # at the first of them, not the first page (their ids say they are new, their place
    # in the queue is by time).
    first_new = new.order_by(*QUEUE_ORDER).values_list(*QUEUE_ORDER).first()
    cursor = cursor_to_reach(queue, first_new) if first_new else None
    params = {**filters, "after": cursor} if cursor else filters
    page_url = reverse(spec.url_name) + (f"?{urlencode(params)}" if params else "")
    return render(
        request,
        "reviews/_new_items.html",
        {"count": count, "noun": spec.noun, "page_url": page_url},
    )
