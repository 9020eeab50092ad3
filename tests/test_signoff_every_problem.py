"""A refused sign-off reports every problem at once, each next to its field, and keeps
everything the reviewer typed; the domain function refuses the same on its own."""

from __future__ import annotations

import pytest
from django.urls import reverse

from reviews.actions import ReviewError, do_decide, screening_matches_of
from reviews.models import HumanDecision, ReviewItem
from tests.conftest import client_for
from tests.review_runs import open_item, paused_run

pytestmark = pytest.mark.django_db

UNMARKED = "Mark each screening match"
NO_REASON = "A reason is required"
RULED_OUT = "A low rating is ruled out by adverse media"


@pytest.fixture
def harrow_bay(tenant, analyst) -> ReviewItem:
    """Rated medium on one article found by a director's name alone: low is ruled out
    unless the article is marked a false positive."""
    return open_item(
        paused_run(tenant, analyst, "Harrow Bay Freight", jurisdiction="GB"), "signoff"
    )


def _note_field(item: ReviewItem) -> str:
    (match,) = screening_matches_of(item)
    return f"note-hit-{match['evidence_id']}"


def test_one_press_reports_the_reason_the_marks_and_the_rating(client, reviewer, harrow_bay):
    note = _note_field(harrow_bay)
    response = client_for(client, reviewer).post(
        reverse("reviews-decide", args=[harrow_bay.pk]),
        {"decision": "approve", "reason": "", "risk_rating": "low", note: "Namesake, born 1961"},
    )
    html = response.content.decode()
    assert response.status_code == 400
    assert NO_REASON in html and UNMARKED in html and RULED_OUT in html
    # Each problem next to its field, and the field described by it.
    assert 'aria-describedby="decision-reason-error"' in html
    assert f'id="decision-reason-error">{NO_REASON}' in html
    assert f'id="decision-hits-error">{UNMARKED}' in html
    assert 'aria-describedby="risk-rating-help decision-rating-error" aria-invalid="true"' in html
    assert f'id="decision-rating-error">{RULED_OUT}' in html
    # What was typed comes back.
    assert '<option value="low" selected>Low</option>' in html
    assert 'value="Namesake, born 1961"' in html
    assert not HumanDecision.objects.filter(review_item=harrow_bay).exists()


def test_with_a_reason_the_marks_and_the_rating_are_refused_together(client, reviewer, harrow_bay):
    response = client_for(client, reviewer).post(
        reverse("reviews-decide", args=[harrow_bay.pk]),
        {"decision": "approve", "reason": "Weighed the article.", "risk_rating": "low"},
    )
    html = response.content.decode()
    assert response.status_code == 409
    assert UNMARKED in html and RULED_OUT in html and NO_REASON not in html
    assert 'aria-describedby="decision-reason-error"' not in html
    assert "Weighed the article." in html


def test_the_domain_function_refuses_every_problem_whoever_calls(reviewer, harrow_bay):
    with pytest.raises(ReviewError) as refused:
        do_decide(harrow_bay, reviewer, True, "  ", {}, risk_rating="low")
    problems = refused.value.message_dict
    assert sorted(problems) == ["hits", "reason", "risk_rating"]
    assert problems["hits"][0].startswith(UNMARKED)
    assert problems["risk_rating"][0].startswith(RULED_OUT)
    assert not HumanDecision.objects.filter(review_item=harrow_bay).exists()


def test_a_send_back_needs_only_a_reason(client, reviewer, harrow_bay):
    response = client_for(client, reviewer).post(
        reverse("reviews-decide", args=[harrow_bay.pk]),
        {"decision": "deny", "reason": "", "risk_rating": "low"},
    )
    html = response.content.decode()
    assert response.status_code == 400
    assert NO_REASON in html and UNMARKED not in html and 'id="decision-rating-error"' not in html
