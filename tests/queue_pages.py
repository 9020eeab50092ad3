"""Queues at volume: many open items cloned from one real item, and a page's links read
back the way a person follows them."""

from __future__ import annotations

import re
from datetime import timedelta
from html import unescape

from reviews.models import ReviewItem

ROW = re.compile(r'id="review-item-(\d+)"')


def copies_of(item: ReviewItem, count: int) -> list[ReviewItem]:
    """`count` more open items like `item` on its run, requested a second apart after the
    newest item of the tenant."""
    newest = ReviewItem.objects.filter(tenant_id=item.tenant_id).latest("requested_at", "id")
    return ReviewItem.objects.bulk_create(
        ReviewItem(
            tenant_id=item.tenant_id,
            case_id=item.case_id,
            run_id=item.run_id,
            kind=item.kind,
            key=f"{item.key}-copy-{n}",
            summary=item.summary,
            payload=item.payload,
            requested_at=newest.requested_at + timedelta(seconds=n),
        )
        for n in range(1, count + 1)
    )


def shown_ids(html: str) -> list[int]:
    return [int(pk) for pk in ROW.findall(html)]


def link(html: str, rel: str) -> str | None:
    """The query string of the page's Older (prev) or Newer (next) link, if it has one."""
    match = re.search(rf'<a href="\?([^"]*)" rel="{rel}"', html)
    return unescape(match.group(1)) if match else None
