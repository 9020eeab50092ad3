"""Keyset paging for the review queues: a page starts next to an item another page showed.

The queues are live: items decided in place stay on the page being read. Numbered pages
over the open items that remain would move unseen items onto a page already passed, so a
page is asked for as the items after its predecessor's last item, or before its
successor's first, in the queue's order (requested_at, then id).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db.models import Q, QuerySet
from django.http import QueryDict

from reviews.models import ReviewItem
from runs.models import Tenant
from runs.numbers import whole_number

PAGE_SIZE = 50
QUEUE_ORDER = ("requested_at", "id")
# "page" is dropped too: addresses bookmarked when the queues were numbered still open.
CURSOR_PARAMS = ("after", "before", "page")

Position = tuple[datetime, int]


@dataclass(frozen=True)
class QueuePage:
    items: list[ReviewItem]
    total: int  # the open items the filters match, on whichever page
    older_count: int  # how many of them come before the first item shown
    filters: QueryDict  # the page's query string without its cursor; its links keep it
    from_cursor: bool

    @property
    def first_number(self) -> int:
        return self.older_count + 1

    @property
    def last_number(self) -> int:
        return self.older_count + len(self.items)

    @property
    def has_older(self) -> bool:
        return bool(self.items) and self.older_count > 0

    @property
    def has_newer(self) -> bool:
        return bool(self.items) and self.last_number < self.total

    @property
    def older_query(self) -> str:
        return self._query("before", self.items[0].pk)

    @property
    def newer_query(self) -> str:
        return self._query("after", self.items[-1].pk)

    def _query(self, cursor: str, item_id: int) -> str:
        params = self.filters.copy()
        params[cursor] = str(item_id)
        return params.urlencode()


def queue_page(
    items: QuerySet[ReviewItem], params: QueryDict, tenant: Tenant, size: int = PAGE_SIZE
) -> QueuePage:
    """The page of `items` that `params` asks for: the first, the one after item `after`
    or the one before item `before`. A cursor naming no item of the tenant is ignored."""
    items = items.order_by(*QUEUE_ORDER)
    after = _position(tenant, params.get("after"))
    before = None if after else _position(tenant, params.get("before"))
    if after:
        shown = list(items.filter(_later_than(after))[:size])
    elif before:
        shown = list(items.filter(_earlier_than(before)).reverse()[:size])[::-1]
    else:
        shown = list(items[:size])
    older_count = 0
    if shown and (after or before):
        older_count = items.filter(_earlier_than((shown[0].requested_at, shown[0].pk))).count()
    filters = params.copy()
    for name in CURSOR_PARAMS:
        filters.pop(name, None)
    return QueuePage(
        items=shown,
        total=items.count(),
        older_count=older_count,
        filters=filters,
        from_cursor=bool(after or before),
    )


def cursor_to_reach(
    items: QuerySet[ReviewItem], position: Position, size: int = PAGE_SIZE
) -> int | None:
    """The `after` cursor of the page of `items` that starts at `position`, so that it and
    everything after it are on that page or a newer one; None when the first page shows it."""
    earlier = items.filter(_earlier_than(position)).order_by(*QUEUE_ORDER).reverse()
    ids = list(earlier.values_list("pk", flat=True)[:size])
    return ids[0] if len(ids) == size else None


def _position(tenant: Tenant, item_id: str | None) -> Position | None:
    """Where item `item_id` stands in queue order; decided and withdrawn items keep their
    place, so a page still continues after an item decided on the page before."""
    pk = whole_number(item_id)
    if pk is None:
        return None
    return ReviewItem.objects.filter(tenant=tenant, pk=pk).values_list(*QUEUE_ORDER).first()


def _later_than(position: Position) -> Q:
    requested_at, pk = position
    return Q(requested_at__gt=requested_at) | Q(requested_at=requested_at, pk__gt=pk)


def _earlier_than(position: Position) -> Q:
    requested_at, pk = position
    return Q(requested_at__lt=requested_at) | Q(requested_at=requested_at, pk__lt=pk)
