"""Read-side helpers for the review queues."""

from __future__ import annotations

from django.db.models import Count

from reviews.models import ReviewItem
from runs.models import Tenant

NAV_KEYS = {
    ReviewItem.Kind.APPROVAL: "reviews-queue",
    ReviewItem.Kind.SIGNOFF: "reviews-queue",
    ReviewItem.Kind.CLARIFICATION: "reviews-clarifications",
    ReviewItem.Kind.ESCALATION: "reviews-escalations",
}


def open_counts_for_nav(tenant: Tenant) -> dict[str, int]:
    """Open items per navigation section, in one query."""
    rows = (
        ReviewItem.objects.filter(tenant=tenant, status=ReviewItem.Status.OPEN)
        .values("kind")
        .annotate(n=Count("id"))
    )
    counts: dict[str, int] = {}
    for row in rows:
        key = NAV_KEYS[row["kind"]]
        counts[key] = counts.get(key, 0) + row["n"]
    return counts
