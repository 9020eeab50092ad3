"""In Chromium: an analyst opens a case on a company with its KYC form, which says a
director lives in the United Kingdom where the registry says Iran; a reviewer settles where
he lives on the escalation, and the packet that comes back counts the country they chose."""

from __future__ import annotations

import pytest

from reviews.models import ReviewItem
from runs.models import Case, Run
from tests.conftest import login_in_browser, open_case_in_browser, screenshot
from tests.live_server import atlas_server  # noqa: F401 (a fixture)
from tests.test_review_browser import wait_for

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

KYC = "gulfstar_kyc_director_residence.txt"
DISPUTED = "country of residence of director Farhad Rahimi"


def test_a_reviewer_settles_where_a_director_lives(
    chromium,
    page,
    atlas_server,  # noqa: F811 (the fixture imported above)
    analyst,
    reviewer,
):
    login_in_browser(page, atlas_server.url, analyst.username)
    open_case_in_browser(page, atlas_server.url, "Gulfstar Marine Services", document=KYC)
    page.wait_for_selector(f"text=The sources disagree on {DISPUTED}", timeout=15_000)
    assert f"Conflicting values for {DISPUTED}" in page.locator("main").inner_text()
    run = Run.objects.get(case=Case.objects.get())
    item = ReviewItem.objects.get(run=run, kind=ReviewItem.Kind.ESCALATION)

    context = chromium.new_context(viewport={"width": 1366, "height": 900})
    reviewing = context.new_page()
    login_in_browser(reviewing, atlas_server.url, reviewer.username)
    reviewing.goto(f"{atlas_server.url}/reviews/escalations/")
    reviewing.get_by_role("link", name="Gulfstar Marine Services").first.click()
    reviewing.wait_for_url(f"**/reviews/escalations/{item.pk}/")
    assert reviewing.get_by_role(
        "heading", name="Conflict: Country of residence of director Farhad Rahimi"
    ).is_visible()
    reviewing.locator(".conflict .value-card", has_text="United Kingdom, GB").click()
    assert reviewing.get_by_label("United Kingdom, GB").is_checked()
    reviewing.fill("textarea[name=note]", "His passport copy on file gives a London address.")
    screenshot(reviewing, "conflict-director-residence")
    reviewing.get_by_role("button", name="Record resolution").click()
    wait_for(
        lambda: (
            Run.objects.filter(pk=run.pk, state_version__gt=run.state_version)
            .filter(status=Run.Status.AWAITING_REVIEW, state__conflicts__0__status="resolved")
            .exists()
        ),
        "the worker to apply the resolution",
    )
    reviewing.goto(f"{atlas_server.url}/runs/{run.pk}/packet/")
    text = reviewing.locator("main").inner_text()
    assert "Resolved to United Kingdom, GB by" in text
    assert reviewing.locator(".risk-box .badge.risk").inner_text() == "Low"
    assert "high-risk jurisdictions" not in text
    screenshot(reviewing, "packet-director-residence-settled")
    context.close()
