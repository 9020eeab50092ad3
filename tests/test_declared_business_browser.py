"""In Chromium: an analyst opens a case on a minister with her client declaration; the
business her declared source of wealth names is on a sanctions list, and a reviewer rules
on that match under the business it is about."""

from __future__ import annotations

import pytest

from reviews.models import ReviewItem
from runs.models import Case, Run
from tests.conftest import login_in_browser, open_case_in_browser, screenshot
from tests.live_server import atlas_server  # noqa: F401 (a fixture)
from tests.test_review_browser import wait_for

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

DECLARATION = "okafor_declaration_listed_source.txt"
BUSINESS = "source-of-wealth business Northern Star Trading FZE"


def test_a_listed_source_of_wealth_is_found_and_ruled_on(
    chromium,
    page,
    atlas_server,  # noqa: F811 (the fixture imported above)
    analyst,
    reviewer,
):
    login_in_browser(page, atlas_server.url, analyst.username)
    open_case_in_browser(page, atlas_server.url, "Amara Okafor", "person", DECLARATION)
    page.wait_for_url("**/cases/*/")
    run = wait_for(
        lambda: Run.objects.filter(
            case=Case.objects.get(), status=Run.Status.AWAITING_REVIEW
        ).first(),
        "the run to pause for review",
    )
    page.get_by_role("link", name="Packet").first.click()
    page.wait_for_url(f"**/runs/{run.pk}/packet/")
    text = page.locator("main").inner_text()
    assert f"Sanctions hit on {BUSINESS}" in text
    assert "Registry record of the source-of-wealth business Kestrel Foods Ltd" in text
    assert "The registry could not confirm the source-of-wealth business Northern Star" in text
    screenshot(page, "packet-listed-source-of-wealth")

    item = ReviewItem.objects.get(run=run, kind=ReviewItem.Kind.SIGNOFF)
    context = chromium.new_context(viewport={"width": 1366, "height": 900})
    reviewing = context.new_page()
    login_in_browser(reviewing, atlas_server.url, reviewer.username)
    reviewing.goto(f"{atlas_server.url}/reviews/items/{item.pk}/")
    group = reviewing.get_by_role("heading", name=f"On {BUSINESS} (1 match)")
    assert group.is_visible()
    hit = next(m for m in item.payload["screening_matches"] if BUSINESS in m["claim"])
    pep = next(m for m in item.payload["screening_matches"] if m is not hit)
    reviewing.check(f"input[name='hit-{hit['evidence_id']}'][value=false_positive]")
    reviewing.check(f"input[name='hit-{pep['evidence_id']}'][value=confirmed_match]")
    reviewing.get_by_label("Risk rating").select_option("medium")
    reviewing.get_by_label("Reason").fill("Northern Star dividends ended in 2019; see the file.")
    screenshot(reviewing, "review-item-listed-source-of-wealth")
    reviewing.get_by_role("button", name="Sign off packet").click()
    wait_for(
        lambda: Run.objects.filter(pk=run.pk, status=Run.Status.COMPLETED).exists(),
        "the worker to apply the sign-off",
    )
    reviewing.goto(f"{atlas_server.url}/runs/{run.pk}/packet/")
    assert "Rated medium by the reviewer; the run proposed high." in (
        reviewing.locator("main").inner_text()
    )
    context.close()
