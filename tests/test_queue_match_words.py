"""A queue row counts the screening matches to mark by kind, as its summary does."""

from __future__ import annotations

from django.urls import reverse

from reviews.models import ReviewItem
from runs.templatetags.atlas_text import screening_matches_words
from tests.conftest import client_for
from tests.review_runs import open_item, paused_run


def test_matches_of_several_kinds_are_counted_by_kind():
    matches = [{"kind": "sanctions"}, {"kind": "sanctions"}, {"kind": "adverse_media"}]
    assert screening_matches_words(matches) == (
        "3 screening matches (2 sanctions hits, 1 article found by a name alone)"
    )
    assert screening_matches_words([{"kind": "pep"}]) == "1 screening match"


def test_the_matches_that_may_be_on_a_namesake_are_counted():
    sanctions, namesake = {"kind": "sanctions"}, {"kind": "sanctions", "possible_namesake": True}
    assert screening_matches_words([sanctions, namesake, {**namesake, "kind": "pep"}]) == (
        "3 screening matches (2 sanctions hits, 1 politically exposed person match; 2 possibly "
        "a namesake's)"
    )
    assert screening_matches_words([namesake]) == "1 screening match (possibly a namesake's)"
    assert screening_matches_words([namesake, namesake]) == (
        "2 screening matches (all possibly a namesake's)"
    )


def test_a_high_risk_rows_matches_read_as_its_summary_counts_them(
    client, tenant, analyst, reviewer
):
    run = paused_run(tenant, analyst, "Amber Coast Freight", jurisdiction="LT")
    item = open_item(run, ReviewItem.Kind.SIGNOFF)
    kinds = {match["kind"] for match in item.payload["screening_matches"]}
    assert {"sanctions", "adverse_media"} <= kinds
    client_for(client, reviewer)
    queue = client.get(reverse("reviews-queue")).content.decode()
    row = queue[queue.index(f'id="review-item-{item.pk}"') :].split("</tr>")[0]
    assert "sanctions hit" in row.split("mark its", 1)[1]
    assert "found by a name alone) as confirmed or false positive" in row
