"""Every page works under its Content-Security-Policy in Chromium: nothing it needs is
refused (a refusal shows in the console), the live stream still connects, and the packet
still prints."""

from __future__ import annotations

import pytest

from reviews.models import ReviewItem
from tests.conftest import login_in_browser
from tests.live_server import atlas_server  # noqa: F401 (a fixture)
from tests.review_runs import CONFLICT_SUBJECT
from tests.test_review_browser import run_paused_by_the_worker

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def refusals_of(page) -> list[str]:
    refused: list[str] = []
    page.on(
        "console",
        lambda message: (
            refused.append(message.text) if "Content Security Policy" in message.text else None
        ),
    )
    return refused


def test_the_pages_work_under_their_policy(
    page,
    atlas_server,  # noqa: F811 (the fixture imported above)
    tenant,
    analyst,
    reviewer,
    admin_user,
):
    refused = refusals_of(page)
    run = run_paused_by_the_worker(tenant, analyst, CONFLICT_SUBJECT)
    signoff = ReviewItem.objects.get(run=run, kind=ReviewItem.Kind.SIGNOFF)
    escalation = ReviewItem.objects.get(run=run, kind=ReviewItem.Kind.ESCALATION)

    login_in_browser(page, atlas_server.url, analyst.username)
    response = page.goto(f"{atlas_server.url}/cases/new/")
    assert "script-src 'self'" in response.headers["content-security-policy"]
    page.fill("[name=subject_name]", "Acme Analytics Ltd")
    page.select_option("select[name=subject_type]", "company")
    page.fill("[name=jurisdiction]", "GB")
    page.click('button.primary:has-text("Open case")')
    # The steps arrive over the websocket the policy lets the page open.
    page.wait_for_selector(".badge-awaiting_review", timeout=15_000)
    page.goto(f"{atlas_server.url}/runs/{run.pk}/packet/")
    page.evaluate("window.print = () => { window.printed = true; }")
    page.click("button[data-print]")
    assert page.evaluate("window.printed") is True

    page.context.clear_cookies()
    login_in_browser(page, atlas_server.url, reviewer.username)
    for address in (
        "/reviews/",
        f"/reviews/items/{signoff.pk}/",
        "/reviews/escalations/",
        f"/reviews/escalations/{escalation.pk}/",
        "/reviews/questions/",
        "/reviews/audit/",
    ):
        page.goto(f"{atlas_server.url}{address}")
        page.wait_for_load_state("networkidle")

    page.context.clear_cookies()
    login_in_browser(page, atlas_server.url, admin_user.username)
    for address in ("/runs/", f"/runs/{run.pk}/trace/", "/metrics/", "/admin/", "/admin/runs/run/"):
        page.goto(f"{atlas_server.url}{address}")
        page.wait_for_load_state("networkidle")
    assert refused == []
