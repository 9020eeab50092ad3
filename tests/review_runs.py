"""Real runs paused where people must decide: started with do_start_run, driven by run_inline.

The review items they leave are the ones the storage layer syncs from the run's state, so
the queues are tested against exactly what production shows.
"""

from __future__ import annotations

from decimal import Decimal

from django.urls import reverse

from reviews.models import ReviewItem
from runs.actions import do_open_case, do_start_run
from runs.execution import run_inline
from runs.models import Run

SIGNOFF_SUBJECT = "Acme Analytics Ltd"
QUESTION_SUBJECT = "Northwind Trading"
CONFLICT_SUBJECT = "Meridian Shipping Holdings"
SANCTIONED_SUBJECT = "Volga Petrokhim Eksport"


def paused_run(
    tenant,
    opened_by,
    subject: str,
    *,
    jurisdiction: str = "GB",
    subject_type: str = "company",
    budgets: dict | None = None,
    notes: str = "",
    upload=None,
) -> Run:
    """`upload`: a file the case is opened with (its test then needs a transactional
    database: the document is read on a tool thread, through a connection of its own)."""
    case = do_open_case(
        tenant=tenant,
        user=opened_by,
        subject_name=subject,
        subject_type=subject_type,
        jurisdiction=jurisdiction,
        notes=notes,
        upload=upload,
    )
    # Held by this process from the start: a live server's worker never takes it between.
    run = do_start_run(case, opened_by, budgets=budgets, wake=False, driven_here=True)
    return run_inline(run)


def open_item(run: Run, kind: str) -> ReviewItem:
    return ReviewItem.objects.select_related("case", "run").get(
        run=run, kind=kind, status=ReviewItem.Status.OPEN
    )


def approval_item(tenant, opened_by) -> ReviewItem:
    """Every tool call costs more than a zero threshold, so the first one waits for approval;
    the threshold is restored afterwards so the run's later calls go through."""
    threshold = tenant.approval_cost_threshold_usd
    tenant.approval_cost_threshold_usd = Decimal("0")
    tenant.save(update_fields=["approval_cost_threshold_usd"])
    try:
        run = paused_run(tenant, opened_by, SIGNOFF_SUBJECT)
    finally:
        tenant.approval_cost_threshold_usd = threshold
        tenant.save(update_fields=["approval_cost_threshold_usd"])
    return open_item(run, ReviewItem.Kind.APPROVAL)


def signoff_item(tenant, opened_by, notes: str = "") -> ReviewItem:
    run = paused_run(tenant, opened_by, SIGNOFF_SUBJECT, notes=notes)
    return open_item(run, ReviewItem.Kind.SIGNOFF)


def sanctioned_signoff_item(tenant, opened_by) -> ReviewItem:
    """A high-risk packet whose sanctions screening hit the SDN entry."""
    run = paused_run(tenant, opened_by, SANCTIONED_SUBJECT, jurisdiction="")
    return open_item(run, ReviewItem.Kind.SIGNOFF)


def sanctioned_escalation_item(tenant, opened_by) -> ReviewItem:
    """Stopped on its iteration limit right after its screening hit the SDN entry."""
    run = paused_run(
        tenant, opened_by, SANCTIONED_SUBJECT, jurisdiction="", budgets={"max_iterations": 2}
    )
    return open_item(run, ReviewItem.Kind.ESCALATION)


def question_item(tenant, opened_by) -> ReviewItem:
    run = paused_run(tenant, opened_by, QUESTION_SUBJECT, jurisdiction="")
    return open_item(run, ReviewItem.Kind.CLARIFICATION)


def conflict_item(tenant, opened_by) -> ReviewItem:
    """Meridian Shipping: the registry and a news article disagree on the directors."""
    return open_item(paused_run(tenant, opened_by, CONFLICT_SUBJECT), ReviewItem.Kind.ESCALATION)


def budget_item(tenant, opened_by) -> ReviewItem:
    """Stopped on its iteration limit before it could finish."""
    run = paused_run(tenant, opened_by, SIGNOFF_SUBJECT, budgets={"max_iterations": 2})
    return open_item(run, ReviewItem.Kind.ESCALATION)


def advance(item: ReviewItem) -> Run:
    """What the worker does after a decision: apply it and step on to the next pause."""
    return run_inline(Run.objects.get(pk=item.run_id))


def settle_through_page(client, escalation: ReviewItem, choice: str, note: str):
    """A reviewer settles the escalation's first conflict on `choice`, through its page."""
    return client.post(
        reverse("reviews-resolve", args=[escalation.pk]),
        {
            "conflict_id": escalation.payload["conflicts"][0]["conflict_id"],
            "choice": choice,
            "note": note,
        },
    )


def mark_unresolvable(client, escalation: ReviewItem, note: str = "Filing pending."):
    """A reviewer records the escalation's first conflict as unresolvable, through its page."""
    return settle_through_page(client, escalation, "__unresolvable__", note)


def corrected_and_run_again(client, waiting: Run, reason: str, **subject: str) -> Run:
    """The analyst (logged in on `client`) corrects the case's subject from the page of the
    run `waiting` for their answer, cancelling it; the new run is driven to its pause."""
    corrected = client.post(
        reverse("runs-case-correct", args=[waiting.case_id]),
        {"notes": "", **subject, "reason": reason, "run_again": "1", "cancel_run": str(waiting.pk)},
    )
    assert corrected.status_code == 302
    return run_inline(Run.objects.filter(case_id=waiting.case_id).latest("id"))
