"""The sign-off page says, beside the rating choice, which ratings the evidence rules out
as it stands, before anything is sent; the server still judges on submit."""

from __future__ import annotations

import json
import re

import pytest
from django.urls import reverse

from reviews.actions import screening_matches_of
from reviews.models import ReviewItem
from tests.conftest import client_for
from tests.review_runs import (
    CONFLICT_SUBJECT,
    SIGNOFF_SUBJECT,
    open_item,
    paused_run,
    sanctioned_signoff_item,
)

pytestmark = pytest.mark.django_db

SANCTIONS_HITS = (
    "a sanctions hit: the Synthetic OFAC SDN entry [2] matches Volga Petrochem Export JSC, "
    "which marking it a false positive would set aside; the Synthetic OFAC SDN entry [4] and "
    "the Synthetic UK HMT Consolidated entry [5] match director Dmitri Volkov, which marking "
    "them false positives would set aside"
)
MAY_ALLOW = "Marking those screening matches false positives may allow it"


def signoff_of(tenant, analyst, subject: str) -> ReviewItem:
    return open_item(paused_run(tenant, analyst, subject), ReviewItem.Kind.SIGNOFF)


def item_page(client, reviewer, item: ReviewItem) -> str:
    return (
        client_for(client, reviewer).get(reverse("reviews-item", args=[item.pk])).content.decode()
    )


def refusal_of(html: str, rating: str) -> str | None:
    found = re.search(rf'<p [^>]*id="rating-refusal-{rating}"[^>]*>(.*?)</p>', html, re.S)
    return found.group(1) if found else None


def test_each_rating_the_evidence_rules_out_is_named_beside_the_choice(
    client, tenant, analyst, reviewer
):
    html = item_page(client, reviewer, sanctioned_signoff_item(tenant, analyst))
    assert 'data-refusals="rating-refusals"' in html
    assert refusal_of(html, "medium") == (
        f"A medium rating is ruled out by {SANCTIONS_HITS}. {MAY_ALLOW}: the rating is "
        "checked with your marks when you sign off."
    )
    # Low stays ruled out by an article about the company itself, whatever is marked.
    low = refusal_of(html, "low")
    assert low.startswith("A low rating is ruled out by a sanctions hit and adverse media:")
    assert MAY_ALLOW not in low
    assert refusal_of(html, "high") is None  # the run's own rating


def test_a_refusal_no_mark_can_lift_does_not_hold_out_that_hope(client, tenant, analyst, reviewer):
    from tests.review_runs import advance, mark_unresolvable

    run = paused_run(tenant, analyst, CONFLICT_SUBJECT)
    # While the conflict is open the packet cannot be signed off: no rating is offered.
    html = item_page(client, reviewer, open_item(run, ReviewItem.Kind.SIGNOFF))
    assert 'name="risk_rating"' not in html
    # Marked unresolvable, it comes back for sign-off carrying the conflict.
    escalation = open_item(run, ReviewItem.Kind.ESCALATION)
    mark_unresolvable(client, escalation)
    advance(escalation)
    html = item_page(client, reviewer, open_item(run, ReviewItem.Kind.SIGNOFF))
    assert refusal_of(html, "low") == (
        "A low rating is ruled out by sources that disagree on a fact nobody settled: "
        "sources disagree on directors (the registry record [1] and an article [3])."
    )


def test_a_packet_every_rating_is_open_to_has_no_refusals(client, tenant, analyst, reviewer):
    html = item_page(client, reviewer, signoff_of(tenant, analyst, SIGNOFF_SUBJECT))
    assert 'id="rating-refusals"' not in html
    assert "data-refusals" not in html


def test_the_refusal_escapes_what_the_evidence_says(client, tenant, analyst, reviewer):
    item = signoff_of(tenant, analyst, "Harrow Bay Freight")
    state = json.loads(json.dumps(item.run.state).replace("Colin Marsh", "Colin <em>Marsh</em>"))
    item.run.state = state
    item.run.save(update_fields=["state"])
    low = refusal_of(item_page(client, reviewer, item), "low")
    assert "director Colin &lt;em&gt;Marsh&lt;/em&gt;, which marking it" in low
    assert "<em>" not in low


def test_a_rating_refused_on_submit_is_not_named_twice(client, tenant, analyst, reviewer):
    item = signoff_of(tenant, analyst, "Harrow Bay Freight")
    marks = {f"hit-{m['evidence_id']}": "confirmed_match" for m in screening_matches_of(item)}
    response = client_for(client, reviewer).post(
        reverse("reviews-decide", args=[item.pk]),
        {"decision": "approve", "reason": "Weighed it.", "risk_rating": "low", **marks},
    )
    html = response.content.decode()
    assert response.status_code == 409
    assert 'id="decision-rating-error"' in html
    assert html.count("A low rating is ruled out by") == 1
    assert refusal_of(html, "low") is None
