"""A reviewer's rating refused on the sign-off page names each ground that still holds and
the source it comes from, says what marking a match a false positive did not change, and
names no ground the marks really set aside."""

from __future__ import annotations

import html

import pytest
from django.urls import reverse

from reviews.actions import screening_matches_of
from reviews.models import HumanDecision, ReviewItem
from tests.conftest import client_for
from tests.review_runs import open_item, paused_run

pytestmark = pytest.mark.django_db


@pytest.fixture
def okafor(tenant, analyst) -> ReviewItem:
    """A minister: the registry record, the match on the register of politically exposed
    persons and an article about her (adverse media) each say so; only the match is one a
    reviewer marks."""
    run = paused_run(tenant, analyst, "Amara Okafor", jurisdiction="NG", subject_type="person")
    return open_item(run, ReviewItem.Kind.SIGNOFF)


@pytest.fixture
def volga(tenant, analyst) -> ReviewItem:
    """Sanctions hits on the company and its director, an article about the company and
    one found by the director's name alone."""
    run = paused_run(tenant, analyst, "Volga Petrokhim Eksport", jurisdiction="")
    return open_item(run, ReviewItem.Kind.SIGNOFF)


def number(item: ReviewItem, evidence_class: str, about: str = "") -> str:
    """The packet page's number ("[2]") of the item's first evidence of that class."""
    for position, evidence in enumerate(item.run.state["evidence"], start=1):
        if evidence["evidence_class"] == evidence_class and evidence["about"] == about:
            return f"[{position}]"
    raise AssertionError(f"no {evidence_class} evidence about {about!r}")


def refused_sign_off(client, item: ReviewItem, disposition: str, rating: str) -> str:
    """The refusal of the rating, as the page shows it next to the rating field."""
    fields = {f"hit-{m['evidence_id']}": disposition for m in screening_matches_of(item)}
    response = client.post(
        reverse("reviews-decide", args=[item.pk]),
        {"decision": "approve", "reason": "Weighed every match.", "risk_rating": rating, **fields},
    )
    assert response.status_code == 409
    assert not HumanDecision.objects.filter(review_item=item).exists()
    page = response.content.decode()
    refusal = page.split('id="decision-rating-error">', 1)[1].split("</div>", 1)[0]
    return html.unescape(refusal)


def test_a_pep_match_marked_false_positive_leaves_the_registry_and_the_article_standing(
    client, reviewer, okafor
):
    page = refused_sign_off(client_for(client, reviewer), okafor, "false_positive", "low")
    registry, match, article = (
        number(okafor, "registry"),
        number(okafor, "pep"),
        number(okafor, "adverse_media"),
    )
    assert (
        "A low rating is ruled out by adverse media and a politically exposed person: "
        f"an article {article} is adverse media about Amara Okafor; Amara Okafor is a "
        f"politically exposed person according to the registry record {registry} and an "
        f"article {article}, which marking the screening match {match} a false positive "
        "does not change."
    ) == page
    # The match marked a false positive is no longer given as a source.
    assert f"register of politically exposed persons {match}" not in page
    assert "no longer counts" not in page


def test_a_pep_match_confirmed_is_named_among_the_sources(client, reviewer, okafor):
    page = refused_sign_off(client_for(client, reviewer), okafor, "confirmed_match", "low")
    assert (
        f"Amara Okafor is a politically exposed person according to the registry record "
        f"{number(okafor, 'registry')}, the match on the register of politically exposed "
        f"persons {number(okafor, 'pep')} and an article {number(okafor, 'adverse_media')}."
    ) in page
    assert "does not change" not in page


def test_grounds_every_match_of_which_is_marked_false_positive_are_not_named(
    client, reviewer, volga
):
    """Every hit and the director's article marked false positives: what still rules out
    a low rating is the company's own article, and nothing else is named."""
    page = refused_sign_off(client_for(client, reviewer), volga, "false_positive", "low")
    own_article = number(volga, "adverse_media")
    assert (
        "A low rating is ruled out by adverse media: an article "
        f"{own_article} is adverse media about Volga Petrochem Export JSC."
    ) == page
    directors_article = number(volga, "adverse_media", about="director Dmitri Volkov")
    assert f"an article {directors_article}" not in page
    assert "a sanctions hit" not in page and "entry [" not in page
    assert "Dmitri Volkov" not in page


def test_a_confirmed_match_that_alone_holds_a_ground_says_marking_it_would_set_it_aside(
    client, reviewer, volga
):
    page = refused_sign_off(client_for(client, reviewer), volga, "confirmed_match", "medium")
    assert (
        f"A medium rating is ruled out by a sanctions hit: the Synthetic OFAC SDN entry "
        f"{number(volga, 'sanctions')} matches Volga Petrochem Export JSC, which marking it "
        "a false positive would set aside; "
    ) in page


def test_the_help_beside_the_false_positive_choice_says_what_marking_sets_aside(
    client, reviewer, okafor
):
    page = client_for(client, reviewer).get(reverse("reviews-item", args=[okafor.pk]))
    text = page.content.decode()
    (match,) = screening_matches_of(okafor)
    assert (
        '<p class="help" id="false-positive-help">A match you mark a false positive is set '
        "aside when the risk rating is weighed: that match alone. What the registry record, "
        "an article about the subject or any other source says still counts.</p>"
    ) in text
    assert (
        f'aria-describedby="hit-{match["evidence_id"]}-claim false-positive-help" '
        f'name="hit-{match["evidence_id"]}" value="false_positive"'
    ) in text
    # Said once, beside the matches, not again under the rating.
    assert text.count("still counts") == 1
    assert "no longer counts" not in text
