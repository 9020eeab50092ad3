"""The approval queue: tool approvals and packet sign-offs, claims, four-eyes, one decision."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from django.db import connection, connections
from django.urls import reverse
from django.utils import timezone

from reviews.actions import (
    AlreadyDecided,
    ClaimHeld,
    do_claim_item,
    do_decide_approval,
    screening_matches_of,
)
from reviews.models import HumanDecision, ReviewItem
from runs.models import Case, Run, TraceEvent
from tests.case_rows import XSS
from tests.conftest import client_for
from tests.queue_pages import copies_of, link, shown_ids
from tests.review_runs import (
    CONFLICT_SUBJECT,
    advance,
    approval_item,
    mark_unresolvable,
    open_item,
    paused_run,
    signoff_item,
)

pytestmark = pytest.mark.django_db


def shown(item) -> dict:
    """What the item's page sends with a decision: how many reasons for it the page showed."""
    return {"reasons_seen": len(item.payload.get("reasons", []))}


def decide_url(item: ReviewItem) -> str:
    return reverse("reviews-decide", args=[item.pk])


def test_the_queue_lists_approvals_and_signoffs_oldest_first_with_nav_counts(
    client, tenant, analyst, reviewer
):
    approval = approval_item(tenant, analyst)
    signoff = signoff_item(tenant, analyst)
    ReviewItem.objects.filter(pk=signoff.pk).update(
        requested_at=approval.requested_at - timedelta(hours=2)
    )
    html = client_for(client, reviewer).get(reverse("reviews-queue")).content.decode()
    assert html.index(f'id="review-item-{signoff.pk}"') < html.index(
        f'id="review-item-{approval.pk}"'
    )
    assert "resolve_entity" in html and "Estimated cost $0.01 is above" in html
    assert "LOW risk" in html
    assert '<span class="count">2</span>' in html  # the Approvals nav link


def test_a_signoff_says_what_its_rating_stands_on_in_the_queue_and_on_its_page(
    client, tenant, analyst, reviewer
):
    """A medium packet on a company on no list: the reviewer sees why it is not low (its
    director's conviction) without opening the packet; a low one says nothing was found."""
    director = open_item(paused_run(tenant, analyst, "Harrow Bay Freight"), "signoff")
    clean = signoff_item(tenant, analyst)
    client_for(client, reviewer)
    queue = client.get(reverse("reviews-queue")).content.decode()
    grounds = "On the evidence of an adverse article (on director Colin Marsh)."
    assert grounds in row_of(queue, director)
    nothing = "The evidence holds no sanctions hit, adverse article, PEP link or disputed fact."
    assert nothing in row_of(queue, clean)
    page = client.get(reverse("reviews-item", args=[director.pk])).content.decode()
    assert grounds in page


def row_of(html: str, item: ReviewItem) -> str:
    start = html.index(f'id="review-item-{item.pk}"')
    return html[start : html.index("</tr>", start)]


def test_the_queue_filters_by_kind_age_and_case(client, tenant, analyst, reviewer):
    approval = approval_item(tenant, analyst)
    signoff = signoff_item(tenant, analyst)
    ReviewItem.objects.filter(pk=signoff.pk).update(
        requested_at=timezone.now() - timedelta(hours=5)
    )
    client_for(client, reviewer)
    url = reverse("reviews-queue")
    only_approvals = client.get(url, {"kind": "approval"}).content.decode()
    assert f"review-item-{approval.pk}" in only_approvals
    assert f"review-item-{signoff.pk}" not in only_approvals
    old = client.get(url, {"age": "4h"}).content.decode()
    assert f"review-item-{signoff.pk}" in old and f"review-item-{approval.pk}" not in old
    by_case = client.get(url, {"q": str(approval.case_id)}).content.decode()
    assert f"review-item-{approval.pk}" in by_case and f"review-item-{signoff.pk}" not in by_case
    nothing = client.get(url, {"q": "no such subject"}).content.decode()
    assert "No open item matches these filters" in nothing


def test_the_item_page_shows_the_proposed_action_and_why_it_needs_approval(
    client, tenant, analyst, reviewer
):
    item = approval_item(tenant, analyst)
    response = client_for(client, reviewer).get(reverse("reviews-item", args=[item.pk]))
    html = response.content.decode()
    assert response.status_code == 200
    assert "<code>resolve_entity</code>" in html
    assert "Acme Analytics Ltd" in html and "jurisdiction" in html
    assert "above the approval threshold" in html
    assert 'name="reason"' in html and "Approve action" in html


def test_the_signoff_page_summarises_the_packet_and_links_to_it(client, tenant, analyst, reviewer):
    item = signoff_item(tenant, analyst)
    html = (
        client_for(client, reviewer).get(reverse("reviews-item", args=[item.pk])).content.decode()
    )
    assert "Packet awaiting sign-off" in html and "No sanctions hits" in html
    assert reverse("runs-packet", args=[item.run_id]) in html
    assert "Sign off packet" in html


def test_approving_records_one_decision_and_resumes_the_run(
    client, tenant, analyst, reviewer, django_capture_on_commit_callbacks
):
    item = approval_item(tenant, analyst)
    version = Run.objects.get(pk=item.run_id).state_version
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        response = client_for(client, reviewer).post(
            decide_url(item),
            {"decision": "approve", "reason": "Registry lookups are routine", **shown(item)},
        )
    assert response.status_code == 302 and response["Location"] == reverse("reviews-queue")
    decision = HumanDecision.objects.get(review_item=item)
    assert decision.kind == HumanDecision.Kind.APPROVE and decision.actor == reviewer
    assert decision.reason == "Registry lookups are routine"
    assert decision.state_version == version
    assert decision.payload == {
        "action_id": item.key,
        "approved": True,
        "reason": "Registry lookups are routine",
        "reasons_seen": item.payload["reasons"],  # what the reviewer was shown
    }
    item.refresh_from_db()
    assert item.status == ReviewItem.Status.DECIDED and item.decided_at is not None
    assert Run.objects.get(pk=item.run_id).resume_requested_at is not None
    assert len(callbacks) == 1  # the worker is woken after commit
    run = advance(item)
    assert TraceEvent.objects.filter(run=run, type="approval_granted").exists()
    assert TraceEvent.objects.filter(run=run, type="tool_succeeded").exists()


def test_denying_records_a_denial_the_run_applies(client, tenant, analyst, reviewer):
    item = approval_item(tenant, analyst)
    client_for(client, reviewer).post(
        decide_url(item), {"decision": "deny", "reason": "Not needed for this case"}
    )
    decision = HumanDecision.objects.get(review_item=item)
    assert decision.kind == HumanDecision.Kind.DENY and decision.payload["approved"] is False
    run = advance(item)
    assert TraceEvent.objects.filter(run=run, type="approval_denied").exists()


def test_signing_off_a_packet_completes_the_run(client, tenant, analyst, reviewer):
    item = signoff_item(tenant, analyst)
    client_for(client, reviewer).post(
        decide_url(item),
        {"decision": "approve", "reason": "Clean registry, no hits", **shown(item)},
    )
    assert HumanDecision.objects.get(review_item=item).kind == HumanDecision.Kind.SIGN_OFF
    run = advance(item)
    assert (run.status, run.termination_reason) == ("completed", "packet_approved")
    page = client.get(reverse("reviews-item", args=[item.pk])).content.decode()
    assert "Packet awaiting sign-off" not in page and "Packet proposed at step" in page


def test_a_decision_without_a_reason_is_refused_and_nothing_is_recorded(
    client, tenant, analyst, reviewer
):
    item = approval_item(tenant, analyst)
    client_for(client, reviewer)
    response = client.post(
        decide_url(item), {"decision": "approve", "reason": "   ", **shown(item)}
    )
    assert response.status_code == 400
    assert "A reason is required" in response.content.decode()
    htmx = client.post(decide_url(item), {"decision": "deny", "reason": ""}, HTTP_HX_REQUEST="true")
    assert htmx.status_code == 200 and "A reason is required" in htmx.content.decode()
    assert not HumanDecision.objects.filter(run_id=item.run_id).exists()
    item.refresh_from_db()
    assert item.status == ReviewItem.Status.OPEN


def test_an_unknown_decision_value_is_refused(client, tenant, analyst, reviewer):
    item = approval_item(tenant, analyst)
    response = client_for(client, reviewer).post(
        decide_url(item), {"decision": "maybe", "reason": "Not sure yet"}
    )
    assert response.status_code == 400 and "Choose approve or deny" in response.content.decode()
    assert not HumanDecision.objects.exists()


def test_a_double_submit_records_one_decision(client, tenant, analyst, reviewer):
    item = approval_item(tenant, analyst)
    client_for(client, reviewer)
    data = {"decision": "approve", "reason": "Routine lookup", **shown(item)}
    first = client.post(decide_url(item), data)
    second = client.post(decide_url(item), data, follow=True)
    assert first.status_code == 302 and second.status_code == 200
    assert "Your decision was already recorded" in second.content.decode()
    assert HumanDecision.objects.filter(run_id=item.run_id).count() == 1


def test_changing_ones_mind_after_deciding_is_refused_not_swallowed(
    client, tenant, analyst, reviewer
):
    item = approval_item(tenant, analyst)
    client_for(client, reviewer)
    client.post(
        decide_url(item), {"decision": "approve", "reason": "Routine lookup", **shown(item)}
    )
    second = client.post(decide_url(item), {"decision": "deny", "reason": "On reflection, no"})
    html = second.content.decode()
    assert second.status_code == 409
    assert "Reviewer already recorded “Approved”" in html and "decision was not recorded" in html
    assert "On reflection, no" in html  # given back to copy
    decision = HumanDecision.objects.get(run_id=item.run_id)
    assert decision.kind == HumanDecision.Kind.APPROVE


def test_the_second_reviewer_is_told_who_decided_and_when(
    client, tenant, analyst, reviewer, second_reviewer
):
    item = approval_item(tenant, analyst)
    do_decide_approval(item, reviewer, True, "Routine")
    response = client_for(client, second_reviewer).post(
        decide_url(item), {"decision": "deny", "reason": "Too expensive"}
    )
    html = response.content.decode()
    assert response.status_code == 409
    assert "Reviewer already recorded “Approved” at" in html and "was not recorded" in html
    assert HumanDecision.objects.filter(run_id=item.run_id).count() == 1


def test_htmx_decision_updates_the_count_the_page_shows_with_its_filters(
    client, tenant, analyst, reviewer
):
    item = approval_item(tenant, analyst)
    approval_item(tenant, analyst)  # another case, outside the filter below
    page = f"http://testserver{reverse('reviews-queue')}?q={item.case_id}"
    response = client_for(client, reviewer).post(
        decide_url(item),
        {"decision": "approve", "reason": "Routine", **shown(item)},
        HTTP_HX_REQUEST="true",
        HTTP_HX_CURRENT_URL=page,
    )
    html = response.content.decode()
    assert 'id="queue-open-count" hx-swap-oob="true">0 open items matching' in html
    unfiltered = client.post(
        decide_url(approval_item(tenant, analyst)),
        {"decision": "approve", "reason": "Routine", **shown(item)},
        HTTP_HX_REQUEST="true",
        HTTP_HX_CURRENT_URL=f"http://testserver{reverse('reviews-queue')}",
    ).content.decode()
    assert 'hx-swap-oob="true">1 open item · oldest first' in unfiltered
    listed = client.get(reverse("reviews-queue"), {"q": str(item.case_id)}).content.decode()
    assert 'id="queue-open-count">0 open items matching' in listed


def test_htmx_decision_replaces_the_row_with_who_decided(client, tenant, analyst, reviewer):
    item = approval_item(tenant, analyst)
    response = client_for(client, reviewer).post(
        decide_url(item),
        {"decision": "approve", "reason": "Routine", **shown(item)},
        HTTP_HX_REQUEST="true",
    )
    html = response.content.decode()
    assert response.status_code == 200
    assert html.lstrip().startswith(f'<tr id="review-item-{item.pk}"')
    assert "<strong>Approved</strong> by Reviewer" in html and "“Routine”" in html


def test_an_analyst_cannot_see_the_queue_or_approve(client, tenant, analyst):
    item = approval_item(tenant, analyst)
    client_for(client, analyst)
    assert client.get(reverse("reviews-queue")).status_code == 403
    assert client.get(reverse("reviews-item", args=[item.pk])).status_code == 403
    response = client.post(
        decide_url(item), {"decision": "approve", "reason": "mine", **shown(item)}
    )
    assert response.status_code == 403
    assert client.post(reverse("reviews-claim", args=[item.pk])).status_code == 403
    assert not HumanDecision.objects.exists()


@pytest.mark.parametrize("make_item", [approval_item, signoff_item])
def test_an_analyst_cannot_approve_a_case_someone_else_opened(
    client, tenant, analyst, reviewer, make_item
):
    # The case is not the analyst's own, so only the role check stands in the way.
    item = make_item(tenant, reviewer)
    response = client_for(client, analyst).post(
        decide_url(item), {"decision": "approve", "reason": "looks fine", **shown(item)}
    )
    assert response.status_code == 403
    assert not HumanDecision.objects.exists()
    item.refresh_from_db()
    assert item.status == ReviewItem.Status.OPEN


def test_another_tenants_item_is_not_found(client, other_tenant, outsider, tenant, reviewer):
    item = approval_item(other_tenant, outsider)
    client_for(client, reviewer)
    assert client.get(reverse("reviews-item", args=[item.pk])).status_code == 404
    assert (
        client.post(
            decide_url(item), {"decision": "approve", "reason": "x", **shown(item)}
        ).status_code
        == 404
    )
    assert client.post(reverse("reviews-claim", args=[item.pk])).status_code == 404
    assert f"review-item-{item.pk}" not in client.get(reverse("reviews-queue")).content.decode()
    assert not HumanDecision.objects.exists()


def test_a_reviewer_cannot_decide_on_a_case_they_opened(client, tenant, reviewer):
    item = approval_item(tenant, reviewer)
    client_for(client, reviewer)
    page = client.get(reverse("reviews-item", args=[item.pk])).content.decode()
    assert "You opened this case, so another reviewer must decide" in page
    assert 'name="reason"' not in page
    queue = client.get(reverse("reviews-queue")).content.decode()
    assert "Another reviewer must decide (four-eyes rule)" in queue
    claimed = client.post(reverse("reviews-claim", args=[item.pk]), follow=True)
    assert "another reviewer must decide on it (four-eyes rule)" in claimed.content.decode()
    item.refresh_from_db()
    assert item.claimed_by is None
    assert not HumanDecision.objects.exists()


@pytest.mark.parametrize("htmx", [False, True], ids=["item page", "queue row"])
def test_a_decision_on_ones_own_case_is_refused_like_a_stale_page_and_the_reason_given_back(
    client, tenant, reviewer, htmx
):
    """A stale page or a direct POST: a domain refusal (409, or a 200 row htmx swaps in)
    that says why and gives the typed reason back, not the role refusal's 403 page."""
    item = approval_item(tenant, reviewer)
    headers = {"HTTP_HX_REQUEST": "true"} if htmx else {}
    for data in (
        {"decision": "approve", "reason": "Looks <b>routine</b>", **shown(item)},
        {"decision": "approve", "reason": "", **shown(item)},  # the rule, not the form
    ):
        refused = client_for(client, reviewer).post(decide_url(item), data, **headers)
        page = refused.content.decode()
        assert refused.status_code == (200 if htmx else 409)
        assert "You opened this case, so another reviewer must decide on it (four-eyes rule)." in (
            page
        )
        assert "Nothing was recorded." in page and "not part of what" not in page
        assert 'name="reason"' not in page
    assert "Not saved. What you wrote, to copy:" not in page  # nothing was typed the 2nd time
    refused = client.post(
        decide_url(item), {"decision": "deny", "reason": "Looks <b>routine</b>"}, **headers
    )
    page = refused.content.decode()
    assert "Not saved. What you wrote, to copy:" in page
    assert "Looks &lt;b&gt;routine&lt;/b&gt;" in page
    if htmx:
        assert page.lstrip().startswith(f'<tr id="review-item-{item.pk}"')
    assert not HumanDecision.objects.exists()
    item.refresh_from_db()
    assert item.status == ReviewItem.Status.OPEN


def test_the_post_needs_a_csrf_token(tenant, analyst, reviewer):
    from django.test import Client

    item = approval_item(tenant, analyst)
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(reviewer)
    response = strict.post(decide_url(item), {"decision": "approve", "reason": "x", **shown(item)})
    assert response.status_code == 403
    assert not HumanDecision.objects.exists()


def test_a_claimed_item_shows_its_holder_and_blocks_others(
    client, tenant, analyst, reviewer, second_reviewer
):
    item = approval_item(tenant, analyst)
    client_for(client, reviewer).post(reverse("reviews-claim", args=[item.pk]))
    item.refresh_from_db()
    assert item.claimed_by == reviewer and item.claim_expires_at > timezone.now()
    client_for(client, second_reviewer)
    queue = client.get(reverse("reviews-queue")).content.decode()
    assert "Claimed by <strong>Reviewer</strong>" in queue
    refused = client.post(decide_url(item), {"decision": "deny", "reason": "Not needed"})
    assert (
        refused.status_code == 409
        and "Reviewer is working on this item" in refused.content.decode()
    )
    taken = client.post(reverse("reviews-claim", args=[item.pk]), follow=True)
    assert "Reviewer is working on this item" in taken.content.decode()
    assert not HumanDecision.objects.exists()


def test_an_expired_claim_can_be_taken_over(client, tenant, analyst, reviewer, second_reviewer):
    item = approval_item(tenant, analyst)
    ReviewItem.objects.filter(pk=item.pk).update(
        claimed_by=reviewer, claim_expires_at=timezone.now() - timedelta(seconds=1)
    )
    client_for(client, second_reviewer)
    assert "claim expired" in client.get(reverse("reviews-queue")).content.decode()
    client.post(reverse("reviews-claim", args=[item.pk]))
    item.refresh_from_db()
    assert item.claimed_by == second_reviewer and item.claim_expires_at > timezone.now()
    client.post(decide_url(item), {"decision": "approve", "reason": "Taking over", **shown(item)})
    assert HumanDecision.objects.get(review_item=item).actor == second_reviewer


def test_the_holder_can_release_a_claim(client, tenant, analyst, reviewer):
    item = approval_item(tenant, analyst)
    client_for(client, reviewer)
    client.post(reverse("reviews-claim", args=[item.pk]))
    row = client.post(reverse("reviews-release", args=[item.pk]), HTTP_HX_REQUEST="true")
    item.refresh_from_db()
    assert item.claimed_by is None and ">Claim</button>" in row.content.decode()


def test_the_holder_releases_a_claim_from_the_items_own_page(client, tenant, analyst, reviewer):
    item = approval_item(tenant, analyst)
    client_for(client, reviewer)
    page_url = reverse("reviews-item", args=[item.pk])
    client.post(reverse("reviews-claim", args=[item.pk]), {"next": page_url})
    held = client.get(page_url).content.decode()
    assert "You hold this item until" in held
    assert f'action="{reverse("reviews-release", args=[item.pk])}"' in held

    response = client.post(
        reverse("reviews-release", args=[item.pk]), {"next": page_url}, follow=True
    )
    assert response.redirect_chain[-1][0] == page_url
    page = response.content.decode()
    assert "Released; the item is back in the queue." in page
    assert "Claim this item" in page
    item.refresh_from_db()
    assert item.claimed_by is None


def test_nobody_else_can_release_a_live_claim(client, tenant, analyst, reviewer, second_reviewer):
    item = approval_item(tenant, analyst)
    client_for(client, reviewer).post(reverse("reviews-claim", args=[item.pk]))
    client_for(client, second_reviewer)
    response = client.post(reverse("reviews-release", args=[item.pk]), follow=True)
    page = response.content.decode()
    assert "holds this item until" in page and "only they can release it" in page
    assert "Released; the item is back in the queue." not in page
    item.refresh_from_db()
    assert item.claimed_by == reviewer


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(connection.vendor != "postgresql", reason="needs PostgreSQL row locks")
def test_two_reviewers_deciding_at_once_record_exactly_one_decision(
    tenant, analyst, reviewer, second_reviewer
):
    item = approval_item(tenant, analyst)
    start = threading.Barrier(2)
    outcomes: dict[str, object] = {}

    def decide(user, approve: bool) -> None:
        try:
            start.wait()
            outcomes[user.username] = do_decide_approval(item, user, approve, "at once")
        except AlreadyDecided as lost:
            outcomes[user.username] = lost
        finally:
            connections.close_all()

    threads = [
        threading.Thread(target=decide, args=(reviewer, True)),
        threading.Thread(target=decide, args=(second_reviewer, False)),
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert HumanDecision.objects.filter(review_item=item).count() == 1
    winner = HumanDecision.objects.get(review_item=item)
    losers = [o for o in outcomes.values() if isinstance(o, AlreadyDecided)]
    assert len(outcomes) == 2 and len(losers) == 1
    assert losers[0].decision.pk == winner.pk
    assert winner.actor.get_full_name() in losers[0].messages[0]


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(connection.vendor != "postgresql", reason="needs PostgreSQL row locks")
def test_two_reviewers_claiming_at_once_one_holds_and_the_other_is_told_by_whom(
    tenant, analyst, reviewer, second_reviewer
):
    """The second claim waits on the row lock and then reads the first's claim: it is
    refused naming the holder (the holder must be read after the wait, not joined before
    it, where PostgreSQL gives back no holder at all)."""
    item = approval_item(tenant, analyst)
    start = threading.Barrier(2)
    outcomes: dict[str, object] = {}

    def claim(user) -> None:
        try:
            start.wait()
            outcomes[user.username] = do_claim_item(item, user)
        except Exception as refused:  # noqa: BLE001 - the test asserts what it was
            outcomes[user.username] = refused
        finally:
            connections.close_all()

    threads = [threading.Thread(target=claim, args=(user,)) for user in (reviewer, second_reviewer)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    item.refresh_from_db()
    holder = item.claimed_by
    loser = second_reviewer if holder == reviewer else reviewer
    assert isinstance(outcomes[loser.username], ClaimHeld), outcomes
    assert outcomes[loser.username].messages[0].startswith(f"{holder.get_full_name()} is working")


@pytest.mark.parametrize(
    "name,label",
    [
        ("reviews-queue", "Approvals"),
        ("reviews-escalations", "Escalations"),
        ("reviews-audit", "Audit"),
    ],
)
def test_the_nav_marks_only_the_current_section(client, reviewer, name, label):
    html = client_for(client, reviewer).get(reverse(name)).content.decode()
    assert html.count('aria-current="page"') == 1
    assert f'href="{reverse(name)}" aria-current="page">{label}' in html


@pytest.mark.parametrize("htmx", [False, True], ids=["item page", "queue row"])
def test_a_reason_refused_because_another_reviewer_decided_is_given_back(
    client, tenant, analyst, reviewer, second_reviewer, htmx
):
    item = approval_item(tenant, analyst)
    do_decide_approval(item, reviewer, True, "Routine")
    headers = {"HTTP_HX_REQUEST": "true"} if htmx else {}
    refused = client_for(client, second_reviewer).post(
        decide_url(item),
        {"decision": "deny", "reason": "Over the limit for <b>this</b> client"},
        **headers,
    )
    page = refused.content.decode()
    # A queue row answers 200 so that htmx swaps it in; the item page is a 409.
    assert refused.status_code == (200 if htmx else 409)
    assert "Not saved. What you wrote, to copy:" in page
    assert "Over the limit for &lt;b&gt;this&lt;/b&gt; client" in page
    assert HumanDecision.objects.filter(run_id=item.run_id).count() == 1


def test_a_subject_name_with_markup_shows_as_text_on_the_review_item(
    client, tenant, analyst, reviewer
):
    item = approval_item(tenant, analyst)
    Case.objects.filter(pk=item.case_id).update(subject_name=XSS)
    Run.objects.filter(pk=item.run_id).update(subject_name=XSS)
    html = (
        client_for(client, reviewer).get(reverse("reviews-item", args=[item.pk])).content.decode()
    )
    assert "<script>alert" not in html and "<img src=x" not in html
    assert ": &lt;script&gt;alert(&quot;pwned&quot;)" in html


@pytest.mark.parametrize("htmx", [False, True], ids=["item page", "queue row"])
def test_a_reason_refused_for_a_lost_claim_is_given_back(
    client, tenant, analyst, reviewer, second_reviewer, htmx
):
    item = approval_item(tenant, analyst)
    client_for(client, reviewer).post(reverse("reviews-claim", args=[item.pk]))
    client_for(client, second_reviewer)
    headers = {"HTTP_HX_REQUEST": "true"} if htmx else {}
    refused = client.post(
        decide_url(item),
        {"decision": "deny", "reason": "Over the <i>limit</i> set for this client"},
        **headers,
    )
    page = refused.content.decode()
    assert "Reviewer is working on this item" in page
    assert 'name="reason"' not in page  # the form is hidden while someone else holds it
    assert "Not saved. What you wrote, to copy:" in page
    assert "Over the &lt;i&gt;limit&lt;/i&gt; set for this client" in page
    assert not HumanDecision.objects.exists()


def test_the_nav_alone_refreshes_counts_and_keeps_the_pages_section(
    client, tenant, analyst, reviewer, other_tenant, outsider
):
    page = client_for(client, reviewer).get(reverse("reviews-escalations")).content.decode()
    assert (
        f'hx-get="{reverse("nav-links")}" hx-trigger="every 30s, atlas:queues-changed from:body"'
        in page
    )
    approval_item(tenant, analyst)  # arrives while the page is open
    approval_item(other_tenant, outsider)  # another bank's, never counted here

    nav = client.get(
        reverse("nav-links"),
        headers={"HX-Request": "true", "HX-Current-URL": "http://testserver/reviews/escalations/"},
    ).content.decode()

    assert f'href="{reverse("reviews-queue")}" aria-current="">Approvals' in nav
    assert '<span class="count">1</span>' in nav
    assert f'href="{reverse("reviews-escalations")}" aria-current="page">' in nav
    assert "<html" not in nav


def test_the_nav_of_a_signed_out_page_is_left_as_it_is(client):
    response = client.get(reverse("nav-links"), headers={"HX-Request": "true"})
    assert response.status_code == 204 and response.content == b""


def test_a_packet_whose_sources_still_disagree_cannot_be_signed_off_until_settled(
    client, tenant, analyst, reviewer
):
    run = paused_run(tenant, analyst, CONFLICT_SUBJECT)
    signoff = open_item(run, ReviewItem.Kind.SIGNOFF)
    escalation = open_item(run, ReviewItem.Kind.ESCALATION)
    client_for(client, reviewer)

    row = client.get(reverse("reviews-queue")).content.decode()
    row = row[row.index(f'id="review-item-{signoff.pk}"') :]
    row = row[: row.index("</tr>")]
    assert "The sources still disagree on directors" in row
    assert 'value="approve"' not in row  # no one-keystroke sign-off from the queue
    page = client.get(reverse("reviews-item", args=[signoff.pk])).content.decode()
    assert "Sign-off waits" in page and 'value="approve"' not in page
    assert 'value="deny"' in page  # rejecting the packet stays possible
    # What only a sign-off uses is not asked for, and the wait is said first.
    form = page[page.index(f'action="{decide_url(signoff)}"') :]
    assert 'name="risk_rating"' not in form
    assert form.index("Sign-off waits") < form.index('name="reason"')

    refused = client.post(
        decide_url(signoff), {"decision": "approve", "reason": "Looks fine", **shown(signoff)}
    )
    assert refused.status_code == 409
    assert "still disagree on directors" in refused.content.decode()
    assert "Looks fine" in refused.content.decode()  # what was typed is given back
    assert not HumanDecision.objects.filter(review_item=signoff).exists()

    # Settled as unresolvable by a person: the packet comes back carrying the conflict,
    # and that packet can be signed off.
    mark_unresolvable(client, escalation, "Registry filing is pending; both names stay on record.")
    advance(escalation)
    again = open_item(run, ReviewItem.Kind.SIGNOFF)
    assert again.pk != signoff.pk
    client.post(
        decide_url(again), {"decision": "approve", "reason": "Conflict recorded", **shown(again)}
    )
    run.refresh_from_db()
    assert (run.status, run.termination_reason) == ("awaiting_review", "finish_proposed")
    run = advance(again)
    assert run.status == "completed"
    assert run.state["proposed_packet"]["unresolved_conflicts"][0]["status"] == "unresolvable"


def test_a_high_risk_packet_is_signed_off_from_its_page_not_from_the_queue_row(
    client, tenant, analyst, reviewer
):
    case = Case.objects.create(
        tenant=tenant, subject_name="Dmitri Volkov", subject_type="person", created_by=analyst
    )
    from runs.actions import do_start_run
    from runs.execution import run_inline

    run = run_inline(do_start_run(case, analyst, wake=False))
    signoff = open_item(run, ReviewItem.Kind.SIGNOFF)
    assert signoff.payload["packet"]["risk_rating"] == "high"
    client_for(client, reviewer)
    row = client.get(reverse("reviews-queue")).content.decode()
    row = row[row.index(f'id="review-item-{signoff.pk}"') :]
    row = row[: row.index("</tr>")]
    assert 'value="approve"' not in row
    hits = len(screening_matches_of(signoff))
    assert hits > 1
    assert (
        f"High risk: read the packet and mark its {hits} screening matches as confirmed or "
        "false positive before you decide."
    ) in row
    page = client.get(reverse("reviews-item", args=[signoff.pk])).content.decode()
    assert 'value="approve"' in page


# The document is read on a tool thread, through a connection of its own.
@pytest.mark.django_db(transaction=True)
def test_a_packet_with_an_open_gap_is_signed_off_from_its_page_not_from_the_queue_row(
    client, tenant, analyst, reviewer
):
    from runs.actions import do_start_run
    from runs.execution import run_inline
    from tests.case_rows import acme_case_with_document

    note = b"Company: Acme Analytics Ltd\nThe board of directors approved the account.\n"
    case = acme_case_with_document(tenant, analyst, "board.txt", note)
    run = run_inline(do_start_run(case, analyst, wake=False))
    signoff = open_item(run, ReviewItem.Kind.SIGNOFF)
    (gap,) = signoff.payload["packet"]["open_gaps"]
    assert "speaks of the company's directors" in gap
    client_for(client, reviewer)
    row = client.get(reverse("reviews-queue")).content.decode()
    row = row[row.index(f'id="review-item-{signoff.pk}"') :]
    row = row[: row.index("</tr>")]
    assert 'value="approve"' not in row
    assert "1 open gap" in row
    assert "1 gap the research left open: Uploaded document board.txt speaks of" in row
    page = client.get(reverse("reviews-item", args=[signoff.pk])).content.decode()
    assert 'value="approve"' in page


def test_a_reason_with_line_breaks_the_browser_accepted_is_recorded(
    client, tenant, analyst, reviewer
):
    # 180 lines make 1,979 characters in the browser's count, 2,158 once sent as CRLF.
    lines = ["Checked ok"] * 180
    item = approval_item(tenant, analyst)
    response = client_for(client, reviewer).post(
        decide_url(item), {"decision": "approve", "reason": "\r\n".join(lines), **shown(item)}
    )
    assert response.status_code == 302
    assert HumanDecision.objects.get(review_item=item).reason == "\n".join(lines)


@pytest.mark.parametrize("htmx", [False, True], ids=["item page", "queue row"])
def test_a_reason_over_the_limit_is_given_back_whole(client, tenant, analyst, reviewer, htmx):
    item = approval_item(tenant, analyst)
    reason = "Registry and sanctions lists checked. " * 60 + "The end of what I wrote."
    headers = {"HTTP_HX_REQUEST": "true"} if htmx else {}
    refused = client_for(client, reviewer).post(
        decide_url(item), {"decision": "approve", "reason": reason, **shown(item)}, **headers
    )
    page = refused.content.decode()
    assert "at most 2000 characters" in page
    assert "The end of what I wrote." in page and page.count("sanctions lists checked") == 60
    assert not HumanDecision.objects.exists()


@pytest.mark.parametrize("reason", ["?", "ok", "1234", "--- !"])
@pytest.mark.parametrize("htmx", [False, True], ids=["item page", "queue row"])
def test_a_reason_that_says_nothing_is_refused(client, tenant, analyst, reviewer, reason, htmx):
    item = signoff_item(tenant, analyst)
    headers = {"HTTP_HX_REQUEST": "true"} if htmx else {}
    refused = client_for(client, reviewer).post(
        decide_url(item), {"decision": "approve", "reason": reason, **shown(item)}, **headers
    )
    page = refused.content.decode()
    assert refused.status_code == (200 if htmx else 400)
    assert "Give a reason of a few words: it goes into the audit record." in page
    assert not HumanDecision.objects.exists()


def test_an_action_taken_without_a_page_load_tells_the_nav_to_count_again(
    client, tenant, analyst, reviewer
):
    item = approval_item(tenant, analyst)
    client_for(client, reviewer)
    claimed = client.post(reverse("reviews-claim", args=[item.pk]), HTTP_HX_REQUEST="true")
    assert "atlas:queues-changed" in claimed.headers.get("HX-Trigger-After-Settle", "")
    plain = client.post(reverse("reviews-release", args=[item.pk]))
    assert "HX-Trigger-After-Settle" not in plain.headers
    assert "HX-Trigger-After-Settle" not in client.get(reverse("reviews-queue")).headers


def test_the_queue_reads_settled_conflicts_once_for_the_whole_page(
    client, tenant, analyst, reviewer
):
    from django.test.utils import CaptureQueriesContext

    client_for(client, reviewer)

    def queries_for_the_queue(rows: int) -> int:
        with CaptureQueriesContext(connection) as captured:
            page = client.get(reverse("reviews-queue")).content.decode()
        assert page.count("The sources still disagree on directors") == rows
        return len(captured)

    paused_run(tenant, analyst, CONFLICT_SUBJECT)
    one = queries_for_the_queue(1)
    paused_run(tenant, analyst, CONFLICT_SUBJECT)
    paused_run(tenant, analyst, CONFLICT_SUBJECT)
    assert queries_for_the_queue(3) == one


@pytest.mark.parametrize("page", ["http://[", "/reviews/?" + "a=1&" * 1500])
def test_a_page_address_that_does_not_parse_counts_as_no_filters(
    client, tenant, analyst, reviewer, page
):
    item = approval_item(tenant, analyst)
    response = client_for(client, reviewer).post(
        decide_url(item),
        {"decision": "approve", "reason": "Routine", **shown(item)},
        HTTP_HX_REQUEST="true",
        HTTP_HX_CURRENT_URL=page,
    )
    assert response.status_code == 200
    assert 'id="queue-open-count" hx-swap-oob="true">0 open items · oldest first' in (
        response.content.decode()
    )


def test_the_signoff_page_names_documents_its_run_never_read(client, tenant, analyst, reviewer):
    from django.core.files.uploadedfile import SimpleUploadedFile

    item = signoff_item(tenant, analyst)
    late = SimpleUploadedFile(
        "late_filing.txt", b"Directors: Jane Roe\n", content_type="text/plain"
    )
    client_for(client, analyst).post(
        reverse("runs-case-attach-document", args=[item.case_id]), {"document": late}
    )
    page = client_for(client, reviewer).get(reverse("reviews-item", args=[item.pk]))
    html = page.content.decode()
    assert "Not read by this run: “late_filing.txt”, attached to the case after it started" in (
        html
    )


def test_a_packet_whose_run_never_read_a_document_is_not_signed_off_from_its_row(
    client, tenant, analyst, reviewer
):
    from django.core.files.uploadedfile import SimpleUploadedFile

    from runs.actions import do_attach_document

    item = signoff_item(tenant, analyst)
    row_form = f'action="{reverse("reviews-decide", args=[item.pk])}" hx-post'
    client_for(client, reviewer)
    assert row_form in client.get(reverse("reviews-queue")).content.decode()
    upload = SimpleUploadedFile("late filing.txt", b"Directors: Jane Roe\n", "text/plain")
    do_attach_document(item.case, upload, user=analyst)
    page = client.get(reverse("reviews-queue")).content.decode()
    assert "Not read by this run: “late filing.txt”, attached after it started." in page
    assert row_form not in page
    assert f'href="{reverse("reviews-item", args=[item.pk])}">Review the packet' in page


def test_deciding_on_a_page_never_moves_unseen_items_past_its_newer_link(
    client, tenant, analyst, reviewer
):
    first = approval_item(tenant, analyst)
    copies_of(first, 291)
    client_for(client, reviewer)
    url = reverse("reviews-queue")
    page_one = client.get(url).content.decode()
    page_two_before = shown_ids(client.get(f"{url}?{link(page_one, 'next')}").content.decode())
    assert len(page_two_before) == 50
    for item_id in shown_ids(page_one)[:10]:
        client.post(
            reverse("reviews-decide", args=[item_id]),
            {"decision": "approve", "reason": "Within policy", "reasons_seen": 1},
            HTTP_HX_REQUEST="true",
            HTTP_HX_CURRENT_URL=f"http://testserver{url}",
        )
    page_two = client.get(f"{url}?{link(page_one, 'next')}").content.decode()
    assert shown_ids(page_two) == page_two_before
    assert "51–100 of 282" not in page_two and "41–90 of 282" in page_two
    assert "282 open items · oldest first" in page_two


def test_the_newer_and_older_links_reach_every_item_and_keep_the_filters(
    client, tenant, analyst, reviewer
):
    first = approval_item(tenant, analyst)
    ids = [first.pk, *(item.pk for item in copies_of(first, 120))]
    client_for(client, reviewer)
    url = reverse("reviews-queue")
    html = client.get(url, {"kind": "approval"}).content.decode()
    assert "121 open items matching the filters" in html and "1–50 of 121" in html
    assert link(html, "prev") is None
    seen, pages = shown_ids(html), [html]
    while query := link(html, "next"):
        assert "kind=approval" in query
        html = client.get(f"{url}?{query}").content.decode()
        seen += shown_ids(html)
        pages.append(html)
    assert seen == ids
    assert "101–121 of 121" in pages[-1]
    back = client.get(f"{url}?{link(pages[-1], 'prev')}").content.decode()
    assert shown_ids(back) == ids[50:100] and "kind=approval" in link(back, "prev")


def test_a_queue_page_after_a_cursor_naming_nothing_starts_at_the_oldest(
    client, tenant, analyst, reviewer
):
    item = approval_item(tenant, analyst)
    client_for(client, reviewer)
    for query in ({"after": "999999"}, {"before": "x"}, {"page": "7"}):
        html = client.get(reverse("reviews-queue"), query).content.decode()
        assert shown_ids(html) == [item.pk]
    past_the_end = client.get(reverse("reviews-queue"), {"after": item.pk, "kind": "approval"})
    assert "No open item is left past this point" in past_the_end.content.decode()
    assert 'href="?kind=approval">Back to the first page' in past_the_end.content.decode()


def claimed_copies(item, reviewer, other_reviewer):
    """Three copies of `item`: held by `reviewer`, held by `other_reviewer`, and held by
    `other_reviewer` on a claim that has lapsed."""
    mine, theirs, lapsed = copies_of(item, 3)
    now = timezone.now()
    for copy, holder, expires in (
        (mine, reviewer, now + timedelta(minutes=10)),
        (theirs, other_reviewer, now + timedelta(minutes=10)),
        (lapsed, other_reviewer, now - timedelta(seconds=1)),
    ):
        ReviewItem.objects.filter(pk=copy.pk).update(claimed_by=holder, claim_expires_at=expires)
    return mine, theirs, lapsed


def test_the_queue_filters_by_who_holds_the_claim(
    client, tenant, analyst, reviewer, second_reviewer
):
    first = approval_item(tenant, analyst)
    mine, theirs, lapsed = claimed_copies(first, reviewer, second_reviewer)
    client_for(client, reviewer)
    url = reverse("reviews-queue")
    assert shown_ids(client.get(url).content.decode()) == [
        first.pk,
        mine.pk,
        theirs.pk,
        lapsed.pk,
    ]
    unclaimed = client.get(url, {"claim": "unclaimed"}).content.decode()
    assert shown_ids(unclaimed) == [first.pk, lapsed.pk]  # an expired claim holds nothing
    assert '<option value="unclaimed" selected>Unclaimed</option>' in unclaimed
    assert "2 open items matching the filters" in unclaimed
    assert shown_ids(client.get(url, {"claim": "mine"}).content.decode()) == [mine.pk]
    client_for(client, second_reviewer)
    assert shown_ids(client.get(url, {"claim": "mine"}).content.decode()) == [theirs.pk]
    assert len(shown_ids(client.get(url, {"claim": "bogus"}).content.decode())) == 4


def test_claiming_on_the_unclaimed_page_counts_one_fewer_unclaimed_item(
    client, tenant, analyst, reviewer
):
    first = approval_item(tenant, analyst)
    copies_of(first, 2)
    row = client_for(client, reviewer).post(
        reverse("reviews-claim", args=[first.pk]),
        HTTP_HX_REQUEST="true",
        HTTP_HX_CURRENT_URL=f"http://testserver{reverse('reviews-queue')}?claim=unclaimed",
    )
    html = row.content.decode()
    assert "You hold it until" in html  # the row stays where it was, now held
    assert 'id="queue-open-count" hx-swap-oob="true">2 open items matching' in html


def test_the_queue_pages_keep_the_claim_filter(client, tenant, analyst, reviewer):
    first = approval_item(tenant, analyst)
    copies_of(first, 60)
    client_for(client, reviewer)
    html = client.get(reverse("reviews-queue"), {"claim": "unclaimed"}).content.decode()
    assert "claim=unclaimed" in link(html, "next")


def test_the_queue_separates_sign_offs_waiting_on_a_conflict_from_what_can_be_decided(
    client, tenant, analyst, reviewer
):
    approval = approval_item(tenant, analyst)
    clean = signoff_item(tenant, analyst)
    run = paused_run(tenant, analyst, CONFLICT_SUBJECT)
    waiting = open_item(run, ReviewItem.Kind.SIGNOFF)
    escalation = open_item(run, ReviewItem.Kind.ESCALATION)
    client_for(client, reviewer)
    url = reverse("reviews-queue")

    ready = shown_ids(client.get(url, {"ready": "ready"}).content.decode())
    assert ready == [approval.pk, clean.pk]
    blocked = client.get(url, {"ready": "blocked"}).content.decode()
    assert shown_ids(blocked) == [waiting.pk]
    assert '<option value="blocked" selected>' in blocked

    # Settled: the escalation closes, and the packet that comes back can be decided.
    mark_unresolvable(client, escalation)
    assert shown_ids(client.get(url, {"ready": "blocked"}).content.decode()) == []
    assert waiting.pk in shown_ids(client.get(url, {"ready": "ready"}).content.decode())


def test_a_finding_that_cites_a_source_written_as_instructions_is_flagged_for_the_reviewer(
    client, tenant, analyst, reviewer
):
    from tests.review_runs import open_item, paused_run

    item = open_item(paused_run(tenant, analyst, "Crescent Minerals", jurisdiction=""), "signoff")
    client_for(client, reviewer)
    for url in (
        reverse("reviews-item", args=[item.pk]),
        reverse("runs-packet", args=[item.run_id]),
    ):
        page = client.get(url).content.decode()
        findings = page[page.index('class="findings"') :]
        findings = findings[: findings.index("</ol>")]
        (flagged,) = [li for li in findings.split("<li>")[1:] if "instructions-flag" in li]
        assert "What Crescent Minerals is not telling you" in flagged, url
        assert findings.count("instructions-flag") == 1, url


def test_a_packet_citing_a_source_that_instructs_the_agent_is_read_before_sign_off(
    client, tenant, analyst, reviewer
):
    from tests.review_runs import open_item, paused_run

    item = open_item(paused_run(tenant, analyst, "Crescent Minerals", jurisdiction=""), "signoff")
    assert item.payload["packet"]["risk_rating"] == "medium"  # no sanctions hit: not high
    assert item.payload["suspect_sources"] == ["Example Blog"]
    page = client_for(client, reviewer).get(reverse("reviews-queue")).content.decode()
    assert "Example Blog: text written as instructions to an AI agent." in page
    assert f'action="{reverse("reviews-decide", args=[item.pk])}" hx-post' not in page
    assert f'href="{reverse("reviews-item", args=[item.pk])}">Review the packet' in page


def test_ready_lists_only_what_this_reviewer_can_decide_now(
    client, tenant, analyst, reviewer, second_reviewer
):
    """Not a case they opened (four-eyes), not an item someone else holds; their own claim
    and a lapsed one are theirs to decide. Read in the query: no query per row."""
    first = approval_item(tenant, analyst)
    own = approval_item(tenant, reviewer)
    mine, theirs, lapsed = claimed_copies(first, reviewer, second_reviewer)
    url = reverse("reviews-queue")
    client_for(client, reviewer)
    everything = [first.pk, own.pk, mine.pk, theirs.pk, lapsed.pk]
    assert shown_ids(client.get(url).content.decode()) == everything
    ready = client.get(url, {"ready": "ready"}).content.decode()
    assert shown_ids(ready) == [first.pk, mine.pk, lapsed.pk]
    assert "3 open items matching the filters" in ready
    assert "four-eyes rule" not in ready and "Claimed by <strong>" not in ready
    # Said as what it filters: some of these (a sign-off with matches to mark) are still
    # decided on their own page, so "can be decided now" promised more than it keeps.
    assert '<option value="ready" selected>Nothing stops your decision</option>' in ready
    client_for(client, second_reviewer)
    ready = client.get(url, {"ready": "ready"}).content.decode()
    assert shown_ids(ready) == [first.pk, own.pk, theirs.pk, lapsed.pk]

    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as four_rows:
        client.get(url, {"ready": "ready"})
    copies_of(lapsed, 6)  # six more, nobody's claim copied
    with CaptureQueriesContext(connection) as ten_rows:
        page = client.get(url, {"ready": "ready"}).content.decode()
    assert len(shown_ids(page)) == 10
    assert len(ten_rows) == len(four_rows)


def test_a_withdrawn_signoff_says_so_and_leads_to_the_item_that_replaced_it(
    client, tenant, analyst, reviewer
):
    run = paused_run(tenant, analyst, CONFLICT_SUBJECT)
    signoff = open_item(run, ReviewItem.Kind.SIGNOFF)
    escalation = open_item(run, ReviewItem.Kind.ESCALATION)
    client_for(client, reviewer)
    mark_unresolvable(client, escalation, "Registry filing is pending.")
    advance(escalation)
    again = open_item(run, ReviewItem.Kind.SIGNOFF)
    signoff.refresh_from_db()
    assert signoff.status == ReviewItem.Status.WITHDRAWN

    page = client.get(reverse("reviews-item", args=[signoff.pk])).content.decode()
    head = page[page.index('class="queue-head"') :]
    head = head[: head.index("</div>")]
    assert ">Withdrawn</span>" in head and "Awaiting review" not in head
    replacement = f'href="{reverse("reviews-item", args=[again.pk])}"'
    assert f"{replacement}>Replaced by packet sign-off #{again.pk}</a>" in head
    assert "Withdrawn: the run no longer waits for this item." in page
    assert f"The run now waits on <a {replacement}>packet sign-off #{again.pk}</a>" in page
    # The decisions on the run, as a reviewer reads them: no internal state version.
    assert "Marked unresolvable" in page and "state v" not in page

    current = client.get(reverse("reviews-item", args=[again.pk])).content.decode()
    head = current[current.index('class="queue-head"') :]
    assert ">Awaiting review</span>" in head[: head.index("</div>")]
    assert "Replaced by" not in current


def test_a_signoff_withdrawn_by_a_cancel_leads_to_the_cases_newer_run(
    client, tenant, analyst, reviewer
):
    from runs.actions import do_request_cancel, do_start_run
    from runs.execution import run_inline

    old = signoff_item(tenant, analyst)
    do_request_cancel(old.run, analyst)
    newer = run_inline(do_start_run(old.case, analyst, wake=False, driven_here=True))
    new = open_item(newer, ReviewItem.Kind.SIGNOFF)
    page = client_for(client, reviewer).get(reverse("reviews-item", args=[old.pk]))
    html = page.content.decode()
    assert "Withdrawn: the run was cancelled." in html
    assert (
        f"The case's newer run {newer.pk} waits on "
        f'<a href="{reverse("reviews-item", args=[new.pk])}">packet sign-off #{new.pk}</a>'
    ) in html


def test_a_queue_page_of_one_row_names_the_row_not_a_range(client, tenant, analyst, reviewer):
    first = approval_item(tenant, analyst)
    copies_of(first, 50)
    client_for(client, reviewer)
    html = client.get(reverse("reviews-queue")).content.decode()
    assert "1–50 of 51" in html
    last = client.get(f"{reverse('reviews-queue')}?{link(html, 'next')}").content.decode()
    assert len(shown_ids(last)) == 1
    assert '<span class="muted">51 of 51</span>' in last and "51–51" not in last


@pytest.mark.parametrize("htmx", [False, True], ids=["page", "queue row"])
def test_releasing_an_item_nobody_holds_says_it_was_not_claimed(
    client, tenant, analyst, reviewer, second_reviewer, htmx
):
    item = approval_item(tenant, analyst)
    client_for(client, reviewer)
    release = reverse("reviews-release", args=[item.pk])
    headers = {"HTTP_HX_REQUEST": "true"} if htmx else {}

    page = client.post(release, follow=not htmx, **headers).content.decode()
    assert "This item was not claimed, so there was nothing to release." in page
    assert "Released" not in page

    lapsed = timezone.now() - timedelta(seconds=1)
    ReviewItem.objects.filter(pk=item.pk).update(
        claimed_by=second_reviewer, claim_expires_at=lapsed
    )
    page = client.post(release, follow=not htmx, **headers).content.decode()
    assert (
        "This item was not claimed (Reviewer2&#x27;s claim had expired), so there was nothing "
        "to release."
    ) in page
    assert "Released" not in page
    item.refresh_from_db()
    assert (item.claimed_by, item.claim_expires_at) == (second_reviewer, lapsed)


def test_the_keyboard_help_says_which_packets_are_not_decided_from_their_row(client, reviewer):
    """Every reason ItemView.signs_off_in_the_queue gives for opening a packet first."""
    html = client_for(client, reviewer).get(reverse("reviews-queue")).content.decode()
    keys_help = html[html.index('id="keys-help"') :]
    assert "sanctions hits is signed off on its own page" not in keys_help
    assert (
        "A packet with anything to check first (a screening match, a high risk rating, an open "
        "conflict, a source written as instructions to an AI agent, a document the run never "
        "read) is not decided from its row: its row says why, and <kbd>o</kbd> opens it."
    ) in keys_help


def test_a_signoffs_unresolved_conflict_shows_a_value_two_sources_give_once(
    client, tenant, analyst, reviewer
):
    signoff = open_item(paused_run(tenant, analyst, CONFLICT_SUBJECT), ReviewItem.Kind.SIGNOFF)
    (conflict,) = signoff.payload["packet"]["unresolved_conflicts"]
    registry, article = conflict["values"]
    conflict["values"].append(
        {**registry, "source_id": "document:7", "source_label": "Uploaded: board-minutes.pdf"}
    )
    signoff.save(update_fields=["payload"])
    page = client_for(client, reviewer).get(reverse("reviews-item", args=[signoff.pk]))
    html = page.content.decode()
    listed = html[html.index("<h3>Unresolved conflicts</h3>") :]
    listed = listed[: listed.index("</ul>")]
    assert (
        f"“{registry['value']}” (given by 2 sources: Company registry (GB), Uploaded: "
        f"board-minutes.pdf) vs “{article['value']}” (Example Business News)"
    ) in listed
    assert listed.count(registry["value"]) == 1


def test_a_sign_off_on_ones_own_case_is_refused_for_the_rule_not_for_unmarked_matches(
    client, tenant, reviewer
):
    from tests.review_runs import sanctioned_signoff_item

    item = sanctioned_signoff_item(tenant, reviewer)
    refused = client_for(client, reviewer).post(
        decide_url(item), {"decision": "approve", "reason": "Exit the relationship"}
    )
    page = refused.content.decode()
    assert refused.status_code == 409
    assert "another reviewer must decide on it (four-eyes rule). Nothing was recorded." in page
    assert "screening match" not in page.split('decision-panel">')[1].split("</section>")[0]
    assert "Exit the relationship" in page
    assert not HumanDecision.objects.exists()


def test_a_tampered_count_of_reasons_asks_to_reload_the_page(client, tenant, analyst, reviewer):
    item = approval_item(tenant, analyst)
    client_for(client, reviewer)
    refused = client.post(
        reverse("reviews-decide", args=[item.pk]),
        {"decision": "approve", "reason": "Within policy", "reasons_seen": "many"},
    )
    page = refused.content.decode()
    assert "This page is out of date: reload it" in page
    assert "Enter a whole number" not in page
    item.refresh_from_db()
    assert item.status == item.Status.OPEN


def test_each_reason_field_of_the_queue_is_named_by_its_own_case(client, tenant, analyst, reviewer):
    import re

    first, second = signoff_item(tenant, analyst), signoff_item(tenant, analyst)
    html = client_for(client, reviewer).get(reverse("reviews-queue")).content.decode()
    names = re.findall(r'name="reason"[^>]*aria-label="([^"]+)"', html)
    assert len(names) == len(set(names)) == 2
    assert any(f"case {first.case_id}," in name for name in names)
    assert any(f"case {second.case_id}," in name for name in names)


def test_a_conflict_settled_since_the_sign_off_was_asked_is_no_longer_listed_unresolved(
    client, tenant, analyst, reviewer
):
    signoff = open_item(paused_run(tenant, analyst, CONFLICT_SUBJECT), ReviewItem.Kind.SIGNOFF)
    (conflict,) = signoff.payload["packet"]["unresolved_conflicts"]
    run = signoff.run
    for held in run.state["conflicts"]:
        if held["conflict_id"] == conflict["conflict_id"]:
            held["status"] = "resolved"
    run.save(update_fields=["state"])
    html = client_for(client, reviewer).get(reverse("reviews-item", args=[signoff.pk]))
    assert "<h3>Unresolved conflicts</h3>" not in html.content.decode()
