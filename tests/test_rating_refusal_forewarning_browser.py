"""In Chromium: the reviewer sees why a rating is ruled out as they choose it."""

from __future__ import annotations

import pytest

from tests.conftest import login_in_browser, screenshot
from tests.review_runs import sanctioned_signoff_item
from tests.test_review_browser import off_the_browser_loop

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_choosing_a_ruled_out_rating_shows_why_and_choosing_another_hides_it(
    page, live_server, tenant, analyst, reviewer
):
    item = off_the_browser_loop(sanctioned_signoff_item, tenant, analyst)
    login_in_browser(page, live_server.url, reviewer.username)
    page.goto(f"{live_server.url}/reviews/items/{item.pk}/")
    choice = page.locator("#id_risk_rating")
    low = page.locator("#rating-refusal-low")
    assert not low.is_visible()  # as proposed: nothing is ruled out

    choice.select_option("low")
    assert low.is_visible()
    assert low.inner_text().startswith("A low rating is ruled out by a sanctions hit")
    assert not page.locator("#rating-refusal-medium").is_visible()
    assert choice.get_attribute("aria-describedby") == "risk-rating-help rating-refusal-low"
    screenshot(page, "rating-refusal-low")

    choice.select_option("high")
    assert not page.locator("#rating-refusals").is_visible()
    assert choice.get_attribute("aria-describedby") == "risk-rating-help"
