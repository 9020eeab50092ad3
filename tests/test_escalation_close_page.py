"""The escalation page right after a decision: what it says before the run applies it,
while a worker has taken the run up, and after; and the queue's way to the escalation."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from reviews.models import ReviewItem
from runs.models import Run
from tests.conftest import client_for
from tests.review_runs import (
    CONFLICT_SUBJECT,
    advance,
    conflict_item,
    mark_unresolvable,
    open_item,
    paused_run,
)

pytestmark = pytest.mark.django_db

DECISION = "Decline onboarding: directors unclear"
STALE_STATUS = "its sources disagree"


def escalation_page(client, item: ReviewItem) -> str:
    return client.get(reverse("reviews-conflict", args=[item.pk])).content.decode()


def run_badge(page: str) -> str:
    """The run's badge in the page's heading (the second: the first is the escalation's)."""
    head = page.split('class="queue-head"')[1].split("</div>")[0]
    return re.findall(r'<span class="badge badge-[\w-]+">([^<]*)</span>', head)[1]


def run_now(page: str) -> str:
    return page.split("Run now:")[1].split("<a ")[0].strip()


def close_case(client, item: ReviewItem):
    return client.post(reverse("reviews-close", args=[item.pk]), {"decision": DECISION})


def worker_took_the_run_up(item: ReviewItem) -> None:
    """A worker claimed the run and cleared its resume request, and has not yet committed
    the step that applies the decision."""
    Run.objects.filter(pk=item.run_id).update(resume_requested_at=None)


def test_a_case_just_closed_says_it_is_closing_with_no_stale_status(
    client, tenant, analyst, reviewer
):
    item = conflict_item(tenant, analyst)
    client_for(client, reviewer)
    response = client.post(
        reverse("reviews-close", args=[item.pk]), {"decision": DECISION}, follow=True
    )
    page = response.content.decode()
    assert "Closed case by Reviewer at" in page and f"“{DECISION}”" in page
    assert run_badge(page) == "Closing"
    assert run_now(page) == "closing the case with this decision; it ends in a moment."
    assert "Awaiting review" not in page and STALE_STATUS not in page
    assert "Next: packet sign-off" not in page


def test_a_closing_case_a_worker_has_taken_up_still_says_it_is_closing(
    client, tenant, analyst, reviewer
):
    item = conflict_item(tenant, analyst)
    client_for(client, reviewer)
    close_case(client, item)
    worker_took_the_run_up(item)
    page = escalation_page(client, item)
    assert run_badge(page) == "Closing"
    assert run_now(page) == "closing the case with this decision; it ends in a moment."
    assert STALE_STATUS not in page


def test_a_case_the_worker_closed_says_it_is_complete(client, tenant, analyst, reviewer):
    item = conflict_item(tenant, analyst)
    client_for(client, reviewer)
    close_case(client, item)
    advance(item)
    page = escalation_page(client, item)
    assert run_badge(page) == "Completed"
    assert run_now(page) == (
        "A reviewer closed the case with its packet as it stood; the case is complete."
    )
    assert f"“{DECISION}”" in page and "Next:" not in page


def test_a_resolution_a_worker_has_taken_up_still_says_it_is_being_picked_up(
    client, tenant, analyst, reviewer
):
    item = conflict_item(tenant, analyst)
    client_for(client, reviewer)
    mark_unresolvable(client, item)
    worker_took_the_run_up(item)
    page = escalation_page(client, item)
    assert run_badge(page) == "Resuming"
    assert run_now(page) == "picking up the decision; it goes on in a moment."
    assert STALE_STATUS not in page


def settle_links(page: str) -> list[str]:
    return re.findall(r'<a href="([^"]*)">settle it</a>', page)


def test_a_signoff_held_by_a_conflict_links_to_its_own_escalation(
    client, tenant, analyst, reviewer
):
    runs = [paused_run(tenant, analyst, CONFLICT_SUBJECT) for _ in range(2)]
    escalations = [open_item(run, ReviewItem.Kind.ESCALATION) for run in runs]
    client_for(client, reviewer)
    page = client.get(reverse("reviews-queue")).content.decode()
    assert settle_links(page) == [
        reverse("reviews-conflict", args=[escalation.pk]) for escalation in escalations
    ]


def test_a_row_redrawn_after_a_claim_keeps_the_link_to_its_escalation(
    client, tenant, analyst, reviewer
):
    run = paused_run(tenant, analyst, CONFLICT_SUBJECT)
    signoff = open_item(run, ReviewItem.Kind.SIGNOFF)
    escalation = open_item(run, ReviewItem.Kind.ESCALATION)
    client_for(client, reviewer)
    row = client.post(
        reverse("reviews-claim", args=[signoff.pk]), HTTP_HX_REQUEST="true"
    ).content.decode()
    assert settle_links(row) == [reverse("reviews-conflict", args=[escalation.pk])]


def test_a_signoff_whose_run_has_no_open_escalation_links_to_the_list(
    client, tenant, analyst, reviewer
):
    run = paused_run(tenant, analyst, CONFLICT_SUBJECT)
    ReviewItem.objects.filter(run=run, kind=ReviewItem.Kind.ESCALATION).update(
        status=ReviewItem.Status.WITHDRAWN
    )
    client_for(client, reviewer)
    page = client.get(reverse("reviews-queue")).content.decode()
    assert settle_links(page) == [reverse("reviews-escalations")]
