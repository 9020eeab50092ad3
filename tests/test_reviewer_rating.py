"""A reviewer signs a packet off at the proposed rating or at another the evidence allows,
the screening matches they marked false positives set aside."""

from __future__ import annotations

import pytest
from django.urls import reverse

from reviews.actions import screening_matches_of
from reviews.models import HumanDecision, ReviewItem
from tests.conftest import client_for
from tests.review_runs import advance, open_item, paused_run

pytestmark = pytest.mark.django_db


@pytest.fixture
def harrow_bay(tenant, analyst) -> ReviewItem:
    """Rated medium on one article found by a director's name alone."""
    return open_item(
        paused_run(tenant, analyst, "Harrow Bay Freight", jurisdiction="GB"), "signoff"
    )


def sign_off(client, item: ReviewItem, disposition: str, rating: str):
    fields = {f"hit-{m['evidence_id']}": disposition for m in screening_matches_of(item)}
    return client.post(
        reverse("reviews-decide", args=[item.pk]),
        {"decision": "approve", "reason": "Weighed the article.", "risk_rating": rating, **fields},
    )


def test_the_signoff_page_offers_the_proposed_rating_and_the_others(client, reviewer, harrow_bay):
    page = client_for(client, reviewer).get(reverse("reviews-item", args=[harrow_bay.pk]))
    html = page.content.decode()
    assert '<option value="" selected>As proposed: medium</option>' in html
    for rating in ("low", "medium", "high"):
        assert f'<option value="{rating}">' in html


def test_a_namesake_marked_false_positive_lets_the_rating_come_down(client, reviewer, harrow_bay):
    response = sign_off(client_for(client, reviewer), harrow_bay, "false_positive", "low")
    assert response.status_code == 302
    queue = client.get(response.url).content.decode()
    assert "packet rated medium risk. You rated it low risk." in queue
    decision = HumanDecision.objects.get(review_item=harrow_bay)
    assert decision.payload["risk_rating"] == "low"
    run = advance(harrow_bay)
    assert (run.status, run.risk_rating) == ("completed", "low")
    assert run.state["proposed_packet"]["proposed_risk_rating"] == "medium"
    packet_page = client.get(reverse("runs-packet", args=[run.pk])).content.decode()
    assert "Rated low by the reviewer at sign-off; the run proposed medium." in packet_page
    assert "marked false positive by the reviewer" in packet_page
    assert "Signed off packet, rated low" in packet_page


def test_a_rating_the_evidence_rules_out_is_refused_and_nothing_is_recorded(
    client, reviewer, harrow_bay
):
    response = sign_off(client_for(client, reviewer), harrow_bay, "confirmed_match", "low")
    html = response.content.decode()
    assert response.status_code == 409
    assert "A low rating is ruled out by adverse media or a politically exposed person" in html
    assert not HumanDecision.objects.filter(review_item=harrow_bay).exists()
    # The form comes back as it was sent, the rating marked as the field at fault.
    assert '<option value="low" selected>Low</option>' in html
    assert 'aria-describedby="risk-rating-help decision-error" aria-invalid="true"' in html
    assert 'value="confirmed_match" checked' in html


def test_an_unknown_rating_is_refused_in_plain_words(client, reviewer, harrow_bay):
    response = sign_off(client_for(client, reviewer), harrow_bay, "false_positive", "none")
    assert response.status_code == 400
    assert "Choose a rating of low, medium or high." in response.content.decode()
    assert not HumanDecision.objects.filter(review_item=harrow_bay).exists()


def test_the_proposed_rating_chosen_by_name_records_no_other(client, reviewer, harrow_bay):
    sign_off(client_for(client, reviewer), harrow_bay, "confirmed_match", "medium")
    assert "risk_rating" not in HumanDecision.objects.get(review_item=harrow_bay).payload
    run = advance(harrow_bay)
    assert (run.risk_rating, run.state["proposed_packet"]["proposed_risk_rating"]) == (
        "medium",
        None,
    )
