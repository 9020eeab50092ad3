"""The sign-off item lists a register match on the subject's namesake candidate apart from
the subject's own, under the candidate it is about."""

from __future__ import annotations

import pytest
from django.urls import reverse

from reviews.models import ReviewItem
from reviews.sync import matches_payload
from tests.conftest import client_for
from tests.namesake_states import FINN, register_matches, researched
from tests.review_runs import signoff_item

pytestmark = pytest.mark.django_db

NAMESAKE = "Maria Lindqvist (FI, born 1958)"


def with_matches_of(item: ReviewItem, state) -> ReviewItem:
    """`item` asking for the screening matches of `state` instead of its own run's."""
    item.payload["screening_matches"] = matches_payload(state)
    item.save(update_fields=["payload"])
    return item


def test_a_match_on_the_namesake_names_the_candidate_it_is_about():
    state = researched(swedish_pep=True)

    by_candidate = {m["evidence_id"]: m["candidate"] for m in matches_payload(state)}

    assert {
        item.candidate_id: by_candidate[item.evidence_id] for item in register_matches(state)
    } == {FINN: NAMESAKE, "pe-maria-lindqvist-se": ""}


def test_the_sign_off_item_groups_the_namesakes_match_apart_from_the_subjects(
    client, tenant, analyst, reviewer
):
    state = researched(swedish_pep=True)
    item = with_matches_of(signoff_item(tenant, analyst), state)
    (own,) = [m for m in register_matches(state) if m.candidate_id != FINN]
    (namesakes,) = [m for m in register_matches(state) if m.candidate_id == FINN]

    page = client_for(client, reviewer).get(reverse("reviews-item", args=[item.pk]))
    html = page.content.decode()

    subject = html.index('On the subject <span class="muted">(1 match)</span>')
    namesake = html.index(
        f"About another candidate of the same name: {NAMESAKE}, not the subject "
        '<span class="muted">(1 match)</span>'
    )
    assert subject < html.index(f'id="hit-{own.evidence_id}"') < namesake
    assert namesake < html.index(f'id="hit-{namesakes.evidence_id}"')
    assert html.count("On the subject") == 1
