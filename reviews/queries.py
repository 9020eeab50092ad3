"""Read-side helpers for the review queues."""

from __future__ import annotations

from django.db.models import Count, Exists, OuterRef, Q, QuerySet
from django.utils import timezone

from reviews.models import ReviewItem
from runs.models import Document, Run, Tenant
from runs.search_text import matching_cases

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


# Why an escalated run stopped, as the escalations queue names and filters it.
ESCALATION_REASON_LABELS = {
    "max_iterations": "Iteration limit",
    "token_budget": "Token budget",
    "cost_budget": "Cost budget",
    "deadline": "Time limit",
    "no_progress": "No progress",
    "repeated_action": "Repeated action",
    "policy_denied": "Policy denials",
    "finish_proposed": "Unresolved conflict",
}

AGE_FILTERS = {
    "1h": ("Older than 1 hour", 3600),
    "4h": ("Older than 4 hours", 4 * 3600),
    "24h": ("Older than 1 day", 24 * 3600),
}

# Who holds an item, as the approvals queue filters it; an expired claim holds nothing.
CLAIM_FILTERS = {
    "unclaimed": "Unclaimed",
    "mine": "Claimed by me",
}


# Whether the reviewer reading the queue can decide an item now, as the approvals queue
# filters it: not on a case they opened (four-eyes), not while someone else's claim lasts,
# and not a sign-off while its run's conflict escalation is open
# (reviews.actions.refusal_for, reviews.actions.open_conflict_facts).
READINESS_FILTERS = {
    "ready": "Nothing stops your decision",
    "blocked": "Sign-off waits on a conflict",
}


def waits_on_a_conflict() -> Exists:
    """The item's run has an open escalation of the conflicts its packet left: open until
    every one of them is settled (reviews.actions.do_resolve_conflict)."""
    return Exists(
        ReviewItem.objects.filter(
            run=OuterRef("run"),
            kind=ReviewItem.Kind.ESCALATION,
            status=ReviewItem.Status.OPEN,
            payload__reason="finish_proposed",
        )
    )


def claim_not_live(now) -> Q:
    """The negation of reviews.actions.claim_is_live: nobody holds the item, or the claim
    has run out."""
    return (
        Q(claimed_by__isnull=True) | Q(claim_expires_at__isnull=True) | Q(claim_expires_at__lte=now)
    )


def open_items(tenant: Tenant, kinds: list[str]) -> QuerySet[ReviewItem]:
    """A tenant's open items of `kinds`, oldest first (uses reviews_item_open_queue_idx)."""
    return (
        ReviewItem.objects.filter(tenant=tenant, status=ReviewItem.Status.OPEN, kind__in=kinds)
        .select_related("case", "case__created_by", "run", "claimed_by")
        .defer("run__state")  # the queues never show it; it is the run's biggest column
        .order_by("requested_at", "id")
    )


def filter_queue(
    items: QuerySet[ReviewItem],
    *,
    kind: str = "",
    age: str = "",
    query: str = "",
    reason: str = "",
    claim: str = "",
    readiness: str = "",
    user=None,
    opened_by=None,
    now=None,
) -> QuerySet[ReviewItem]:
    """`items` narrowed by a queue page's filters; a reason, claim or readiness it does not
    know filters nothing. `user` is who a claim "mine" means; `opened_by`, whose cases only."""
    now = now or timezone.now()
    if kind:
        items = items.filter(kind=kind)
    if age in AGE_FILTERS:
        items = items.filter(
            requested_at__lte=now - timezone.timedelta(seconds=AGE_FILTERS[age][1])
        )
    if query:
        items = items.filter(matching_cases(query, "case"))
    if reason in ESCALATION_REASON_LABELS:
        items = items.filter(payload__reason=reason)
    if opened_by is not None:
        items = items.filter(case__created_by=opened_by)
    if claim == "mine" and user is not None:
        items = items.filter(claimed_by=user, claim_expires_at__gt=now)
    elif claim == "unclaimed":
        items = items.filter(claim_not_live(now))
    if readiness == "blocked":
        items = items.filter(waits_on_a_conflict(), kind=ReviewItem.Kind.SIGNOFF)
    elif readiness == "ready":
        items = items.exclude(waits_on_a_conflict(), kind=ReviewItem.Kind.SIGNOFF)
        if user is not None:
            items = items.exclude(case__created_by=user).filter(
                claim_not_live(now) | Q(claimed_by=user)
            )
    return items


def replacement_of(item: ReviewItem) -> ReviewItem | None:
    """The open item that took over from `item` once its run moved on without it: a newer
    one of the same run, else one of the case's latest run; None when nothing waits."""
    waiting = ReviewItem.objects.filter(
        tenant_id=item.tenant_id, case_id=item.case_id, status=ReviewItem.Status.OPEN
    ).order_by("id")
    if newer := waiting.filter(run_id=item.run_id, pk__gt=item.pk).first():
        return newer
    latest = Run.objects.latest_of(item.case_id)
    if latest is None or latest.pk == item.run_id:
        return None
    return waiting.filter(run_id=latest.pk).first()


def documents_not_given(items) -> dict[int, list[Document]]:
    """For each sign-off among `items` (by item id), the documents of its case that its run
    was never given (attached after it started, and not with an answer): nothing in the
    packet rests on them. Two queries for a whole page."""
    signoffs = [item for item in items if item.kind == ReviewItem.Kind.SIGNOFF]
    if not signoffs:
        return {}
    given_to = Run.objects.documents_given_to({item.run_id for item in signoffs})
    by_case: dict[int, list[Document]] = {}
    for document in Document.objects.filter(
        case_id__in={item.case_id for item in signoffs}
    ).order_by("pk"):
        by_case.setdefault(document.case_id, []).append(document)
    unread = {}
    for item in signoffs:
        given = given_to.get(item.run_id, set())
        unread[item.pk] = [d for d in by_case.get(item.case_id, []) if str(d.pk) not in given]
    return unread
