"""In Chromium: an analyst opens a case on a person the registry has no record of, turns
down the near candidate the agent offers, and the packet names the fraud conviction of the
man she sits on a board with."""

from __future__ import annotations

import pytest

from runs.models import Case, Run
from tests.conftest import login_in_browser, open_case_in_browser, screenshot
from tests.live_server import atlas_server  # noqa: F401 (a fixture)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ARTICLE = "Haulage director Colin Marsh convicted of customs fraud"
CODIRECTOR = "co-director Colin Marsh at Harrow Bay Freight Ltd (GB)"


def test_a_codirectors_conviction_reaches_the_packet(
    atlas_server,  # noqa: F811 (the fixture imported above)
    page,
    analyst,
):
    login_in_browser(page, atlas_server.url, analyst.username)
    open_case_in_browser(page, atlas_server.url, "Anita Rao", "person")
    page.wait_for_selector("text=The agent needs your answer", timeout=15_000)
    assert "Harrow Bay Freight Ltd (GB)" in page.locator("main").inner_text()

    page.locator("input[name=answer_text][data-draft]").fill("No, she is not Ananya Rao")
    page.keyboard.press("Enter")
    page.wait_for_selector("text=The packet waits for sign-off", timeout=15_000)
    run = Run.objects.get(case=Case.objects.get(subject_name="Anita Rao"))
    assert run.status == Run.Status.AWAITING_REVIEW
    assert "Look for adverse media about Colin Marsh" in page.locator("main").inner_text()

    page.click(f"#run-{run.pk}-status a:has-text('Packet')")
    page.wait_for_url(f"**/runs/{run.pk}/packet/")
    text = page.locator("main").inner_text()
    assert f"{ARTICLE} (on {CODIRECTOR})" in text
    assert "No sanctions hits for co-director Colin Marsh" in text
    assert f"Found by the search for {CODIRECTOR}." in text
    assert page.locator(".risk-box .badge.risk").inner_text() == "Medium"
    screenshot(page, "packet-adverse-codirector")
