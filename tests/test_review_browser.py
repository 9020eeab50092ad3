"""Reviewer journeys in Chromium, with screenshots in artifacts/ for a person to judge."""

from __future__ import annotations

import threading
import time

import pytest
from django.db import connection

from reviews.models import HumanDecision, ReviewItem
from runs.actions import do_open_case, do_start_run
from runs.models import Run
from tests.conftest import login_in_browser, screenshot
from tests.live_server import atlas_server  # noqa: F401 (a fixture)
from tests.review_runs import (
    CONFLICT_SUBJECT,
    SIGNOFF_SUBJECT,
    approval_item,
    conflict_item,
    question_item,
    sanctioned_signoff_item,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WAIT_SECONDS = 15


def wait_for(condition, what: str):
    deadline = time.monotonic() + WAIT_SECONDS
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.1)
    pytest.fail(f"Timed out waiting for {what}")


def off_the_browser_loop(make, *args):
    """Run `make` on its own thread: Playwright's event loop owns this one, and the run store
    announces updates through async_to_sync, which refuses to run beside a running loop."""
    result: dict = {}

    def target() -> None:
        try:
            result["value"] = make(*args)
        except BaseException as error:  # re-raised on the test's thread
            result["error"] = error
        finally:
            connection.close()

    thread = threading.Thread(target=target)
    thread.start()
    thread.join(WAIT_SECONDS)
    if "error" in result:
        raise result["error"]
    return result["value"]


def run_paused_by_the_worker(tenant, analyst, subject: str) -> Run:
    """Open a case and let the live server's worker research it until it pauses."""
    case = do_open_case(
        tenant=tenant, user=analyst, subject_name=subject, subject_type="company", jurisdiction="GB"
    )
    run = do_start_run(case, analyst)
    return wait_for(
        lambda: Run.objects.filter(pk=run.pk, status=Run.Status.AWAITING_REVIEW).first(),
        "the run to pause for review",
    )


def test_a_second_user_signs_off_a_packet_from_the_queue(
    page,
    atlas_server,  # noqa: F811 (the fixture imported above)
    tenant,
    analyst,
    reviewer,
):
    run = run_paused_by_the_worker(tenant, analyst, SIGNOFF_SUBJECT)
    item = ReviewItem.objects.get(run=run, kind=ReviewItem.Kind.SIGNOFF)
    login_in_browser(page, atlas_server.url, reviewer.username)
    page.goto(f"{atlas_server.url}/reviews/")
    row = page.locator(f"#review-item-{item.pk}")
    assert "LOW risk" in row.inner_text()
    assert page.locator(".mainnav a[aria-current=page] .count").inner_text() == "1"
    row.get_by_role("button", name="Claim").click()
    page.wait_for_selector(f"#review-item-{item.pk} .claim-mine")
    row.locator("input[name=reason]").fill(
        "Registry, sanctions and media all clean; low risk stands."
    )
    screenshot(page, "review-queue-before-signoff")
    row.get_by_role("button", name="Sign off").click()
    page.wait_for_selector(f"#review-item-{item.pk} .decided")
    assert "Signed off packet by Reviewer" in row.inner_text()
    # The nav counts the open items again without a reload.
    page.wait_for_selector(".mainnav a[aria-current=page]:not(:has(.count))", timeout=5_000)
    screenshot(page, "review-queue-signed-off")
    decision = HumanDecision.objects.get(review_item=item)
    assert decision.kind == HumanDecision.Kind.SIGN_OFF and decision.actor == reviewer
    wait_for(
        lambda: Run.objects.filter(pk=run.pk, status=Run.Status.COMPLETED).exists(),
        "the worker to apply the sign-off",
    )
    page.goto(f"{atlas_server.url}/reviews/audit/")
    assert "Applied" in page.locator(f"#decision-{decision.pk}").inner_text()
    screenshot(page, "review-audit-after-signoff")


def test_a_reviewer_resolves_the_directors_conflict_side_by_side(
    page,
    atlas_server,  # noqa: F811 (the fixture imported above)
    tenant,
    analyst,
    reviewer,
):
    run = run_paused_by_the_worker(tenant, analyst, CONFLICT_SUBJECT)
    item = ReviewItem.objects.get(run=run, kind=ReviewItem.Kind.ESCALATION)
    login_in_browser(page, atlas_server.url, reviewer.username)
    page.goto(f"{atlas_server.url}/reviews/escalations/")
    screenshot(page, "review-escalations")
    page.locator(f"#review-item-{item.pk}").get_by_role("link", name="Review").click()
    # Layout is measured below: wait until the stylesheet has been applied.
    page.wait_for_load_state("load")
    cards = page.locator(".conflict .value-card")
    assert cards.count() == 3
    first, second = cards.nth(0).bounding_box(), cards.nth(1).bounding_box()
    assert abs(first["y"] - second["y"]) < 2 and second["x"] > first["x"] + first["width"]
    assert "Company registry (GB)" in cards.nth(0).inner_text()
    assert "Example Business News" in cards.nth(1).inner_text()
    screenshot(page, "review-conflict-side-by-side")
    cards.nth(1).click()
    page.fill(
        "textarea[name=note]", "The 2024 board announcement is newer than the registry filing."
    )
    page.get_by_role("button", name="Record resolution").click()
    page.wait_for_selector(".resolution")
    resolution = page.locator(".resolution").inner_text()
    assert "“Helen Carter, Viktor Petrenko” stands" in resolution
    assert "decided by Reviewer" in resolution
    # Step 10 proposed the escalated packet (after resolving, screening, a media search, and
    # screening and searching three directors); the packet after the resolution is step 11's.
    wait_for(
        lambda: ReviewItem.objects.filter(
            run=run, kind=ReviewItem.Kind.SIGNOFF, status=ReviewItem.Status.OPEN, key="packet-11"
        ).exists(),
        "the worker to apply the resolution and propose a new packet",
    )
    page.reload()
    assert "(applied to the run)" in page.locator(".resolution").inner_text()
    screenshot(page, "review-conflict-resolved")


def test_the_keyboard_moves_through_the_queue_and_approves(
    page, live_server, tenant, analyst, reviewer
):
    first = off_the_browser_loop(approval_item, tenant, analyst)
    second = off_the_browser_loop(approval_item, tenant, analyst)
    login_in_browser(page, live_server.url, reviewer.username)
    page.goto(f"{live_server.url}/reviews/")
    page.keyboard.press("j")
    assert page.locator("tr.selected").get_attribute("data-item") == str(first.pk)
    page.keyboard.press("j")
    assert page.locator("tr.selected").get_attribute("data-item") == str(second.pk)
    page.keyboard.press("k")
    assert page.locator("tr.selected").get_attribute("data-item") == str(first.pk)
    page.keyboard.press("a")
    reason = page.locator(f"#review-item-{first.pk} input[name=reason]")
    assert reason.evaluate("el => el === document.activeElement")
    page.keyboard.type("just checking")  # j and k typed here must not move the selection
    assert page.locator("tr.selected").get_attribute("data-item") == str(first.pk)
    reason.fill("Routine registry lookup")
    screenshot(page, "review-keyboard-approve")
    page.keyboard.press("Enter")
    page.wait_for_selector(f"#review-item-{first.pk} .decided")
    assert page.locator("#queue-open-count").inner_text().startswith("1 open item ")
    assert HumanDecision.objects.get(review_item=first).kind == HumanDecision.Kind.APPROVE
    assert not HumanDecision.objects.filter(review_item=second).exists()
    page.keyboard.press("j")
    page.keyboard.press("d")
    page.keyboard.type("Not needed for this case")
    page.keyboard.press("Enter")
    page.wait_for_selector(f"#review-item-{second.pk} .decided")
    assert HumanDecision.objects.get(review_item=second).kind == HumanDecision.Kind.DENY
    page.keyboard.press("?")
    assert page.locator("#keys-help").is_visible()
    screenshot(page, "review-keyboard-help")
    page.keyboard.press("Escape")
    assert not page.locator("#keys-help").is_visible()


def test_approving_by_keyboard_a_packet_decided_on_its_page_says_so(
    page, live_server, tenant, analyst, reviewer
):
    item = off_the_browser_loop(sanctioned_signoff_item, tenant, analyst)
    login_in_browser(page, live_server.url, reviewer.username)
    page.goto(f"{live_server.url}/reviews/")
    page.keyboard.press("j")
    assert page.locator("tr.selected").get_attribute("data-item") == str(item.pk)
    page.keyboard.press("a")
    status = page.locator("#keys-status")
    status.wait_for()
    assert status.inner_text() == "This item is decided on its own page: press o to open it."
    page.keyboard.press("o")
    page.wait_for_url(f"**/reviews/items/{item.pk}/")


def test_approving_by_keyboard_an_item_on_their_own_case_says_why_not(
    page, live_server, tenant, reviewer
):
    item = off_the_browser_loop(approval_item, tenant, reviewer)
    login_in_browser(page, live_server.url, reviewer.username)
    page.goto(f"{live_server.url}/reviews/")
    page.keyboard.press("j")
    assert page.locator("tr.selected").get_attribute("data-item") == str(item.pk)
    page.keyboard.press("a")
    status = page.locator("#keys-status")
    status.wait_for()
    assert status.inner_text() == (
        "You opened this case: another reviewer must decide (four-eyes rule)."
    )
    assert not HumanDecision.objects.exists()


def test_an_analyst_answers_from_the_questions_queue(page, live_server, tenant, analyst):
    item = off_the_browser_loop(question_item, tenant, analyst)
    login_in_browser(page, live_server.url, analyst.username)
    page.goto(f"{live_server.url}/reviews/questions/")
    screenshot(page, "review-questions")
    page.get_by_role(
        "button", name="Northwind Trading Ltd (GB, no. 04512398) [co-northwind-gb]"
    ).click()
    page.wait_for_selector(f"#review-item-{item.pk} .decided")
    assert "Answered by Analyst" in page.locator(f"#review-item-{item.pk}").inner_text()
    assert page.locator("#questions-open-count").inner_text().startswith("0 open questions")
    assert HumanDecision.objects.get(review_item=item).payload["text"].endswith("[co-northwind-gb]")


def test_an_answer_sent_after_the_session_ended_is_kept_and_says_so(
    page, live_server, tenant, analyst
):
    item = off_the_browser_loop(question_item, tenant, analyst)
    login_in_browser(page, live_server.url, analyst.username)
    page.goto(f"{live_server.url}/reviews/questions/")
    field = page.locator(f"#review-item-{item.pk} input[name=answer_text]")
    field.fill("The one registered in England, number 04512398")
    page.context.clear_cookies(name="sessionid")  # signed out elsewhere, or it expired
    page.locator(f"#review-item-{item.pk} button.primary").click()
    notice = page.locator("#session-ended")
    notice.wait_for()
    assert "Your session has ended, so the last action was not sent." in notice.inner_text()
    screenshot(page, "review-session-ended")
    assert field.input_value() == "The one registered in England, number 04512398"
    assert "Sign in" not in page.locator(f"#review-item-{item.pk}").inner_text()
    assert not HumanDecision.objects.filter(review_item=item).exists()
    # Signed in again in another tab (a new CSRF token), then sent again from this page.
    other_tab = page.context.new_page()
    login_in_browser(other_tab, live_server.url, analyst.username)
    other_tab.close()
    page.locator(f"#review-item-{item.pk} button.primary").click()
    page.wait_for_selector(f"#review-item-{item.pk} .decided")
    assert HumanDecision.objects.get(review_item=item).payload["text"].startswith("The one")
    # Sent now: the notice that it was not is gone, so nobody sends it a third time.
    notice.wait_for(state="detached")
    page.reload()
    assert not page.locator(f"#review-item-{item.pk} input[name=answer_text]").count()


def test_an_answer_the_connection_dropped_is_kept_and_says_so(page, live_server, tenant, analyst):
    item = off_the_browser_loop(question_item, tenant, analyst)
    login_in_browser(page, live_server.url, analyst.username)
    page.goto(f"{live_server.url}/reviews/questions/")
    field = page.locator(f"#review-item-{item.pk} input[name=answer_text]")
    field.fill("The one registered in England, number 04512398")
    answers = "**/reviews/questions/*/answer/"
    page.route(answers, lambda route: route.fulfill(status=502, body="Bad gateway"))
    page.locator(f"#review-item-{item.pk} button.primary").click()
    notice = page.locator("#not-sent")
    notice.wait_for()
    assert "The server failed on the last action" in notice.inner_text()
    page.unroute(answers)
    page.route(answers, lambda route: route.abort())
    page.locator(f"#review-item-{item.pk} button.primary").click()
    page.wait_for_function("document.getElementById('not-sent').innerText.includes('not sent')")
    assert "The last action was not sent" in notice.inner_text()
    screenshot(page, "review-not-sent")
    assert field.input_value() == "The one registered in England, number 04512398"
    assert not HumanDecision.objects.filter(review_item=item).exists()
    # The connection is back: sent again, and the notice goes.
    page.unroute(answers)
    page.locator(f"#review-item-{item.pk} button.primary").click()
    page.wait_for_selector(f"#review-item-{item.pk} .decided")
    assert not page.locator("#not-sent").count()
    assert HumanDecision.objects.get(review_item=item).payload["text"].startswith("The one")


def test_a_question_asked_again_after_an_answer_is_announced_on_the_open_page(
    page,
    atlas_server,  # noqa: F811 (the fixture imported above)
    tenant,
    analyst,
):
    item = off_the_browser_loop(question_item, tenant, analyst)
    login_in_browser(page, atlas_server.url, analyst.username)
    page.goto(f"{atlas_server.url}/reviews/questions/")
    row = page.locator(f"#review-item-{item.pk}")
    row.locator("input[name=answer_text]").fill("The one we bank with")
    row.get_by_role("button", name="Send").click()
    page.wait_for_selector(f"#review-item-{item.pk} .decided")
    # The worker applies the answer, which names no candidate, and the agent asks again.
    notice = page.locator(".new-items-notice")
    notice.wait_for(timeout=WAIT_SECONDS * 1000)
    assert notice.inner_text().startswith("1 new question since this page loaded")
    screenshot(page, "review-questions-new-item")
    notice.click()
    page.wait_for_selector("text=did not point to exactly one of them")


def test_a_reason_typed_while_another_reviewer_decided_is_given_back_in_the_queue(
    page, live_server, tenant, analyst, reviewer, second_reviewer
):
    from reviews.actions import do_decide_approval

    item = off_the_browser_loop(approval_item, tenant, analyst)
    login_in_browser(page, live_server.url, reviewer.username)
    page.goto(f"{live_server.url}/reviews/")
    row = page.locator(f"#review-item-{item.pk}")
    row.locator("input[name=reason]").fill("Cost is above what this client agreed to")
    off_the_browser_loop(do_decide_approval, item, second_reviewer, True, "Routine")
    row.locator("button[data-decision=deny]").click()
    page.wait_for_selector(f"#review-item-{item.pk} .unsaved")
    screenshot(page, "review-decided-meanwhile-given-back")
    assert "already recorded" in row.inner_text()
    assert "Cost is above what this client agreed to" in row.locator(".unsaved").inner_text()
    assert HumanDecision.objects.get(review_item=item).actor == second_reviewer


def test_the_queues_fit_a_narrow_window(page, live_server, tenant, analyst, reviewer):
    off_the_browser_loop(sanctioned_signoff_item, tenant, analyst)
    off_the_browser_loop(conflict_item, tenant, analyst)
    login_in_browser(page, live_server.url, reviewer.username)
    page.set_viewport_size({"width": 800, "height": 900})
    for path in ("/reviews/", "/reviews/escalations/", "/reviews/audit/"):
        page.goto(f"{live_server.url}{path}")
        # A wide table scrolls inside itself; the page never becomes wider than the window.
        assert page.evaluate("document.documentElement.scrollWidth") <= 800, path
    # A queue's rows become cards: what decides an item is in view, not scrolled away.
    for path in ("/reviews/", "/reviews/escalations/"):
        page.goto(f"{live_server.url}{path}")
        decide = page.locator("tr.queue-row td:last-child").first.bounding_box()
        assert decide["x"] + decide["width"] <= 800, path
        screenshot(page, f"review-queue-800px{path.replace('/', '-').rstrip('-')}")


def test_a_reviewer_clears_a_namesake_with_a_note_and_rates_the_packet_low(
    page,
    atlas_server,  # noqa: F811 (the fixture imported above)
    tenant,
    analyst,
    reviewer,
):
    """Harrow Bay is rated medium on one article found by its director's name alone: the
    reviewer marks it a false positive, says why, lowers the rating, and the packet says so."""
    run = run_paused_by_the_worker(tenant, analyst, "Harrow Bay Freight")
    item = ReviewItem.objects.get(run=run, kind=ReviewItem.Kind.SIGNOFF)
    login_in_browser(page, atlas_server.url, reviewer.username)
    page.goto(f"{atlas_server.url}/reviews/items/{item.pk}/")
    page.get_by_label("False positive").check()
    page.get_by_label("Note").fill("Born 1958; the Colin Marsh in the article is 41.")
    page.get_by_label("Risk rating").select_option("low")
    page.get_by_label("Reason").fill("A namesake: nothing else rates it above low.")
    screenshot(page, "review-item-namesake-marked")
    page.get_by_role("button", name="Sign off packet").click()
    wait_for(
        lambda: Run.objects.filter(pk=run.pk, status=Run.Status.COMPLETED).exists(),
        "the worker to apply the sign-off",
    )
    page.goto(f"{atlas_server.url}/runs/{run.pk}/packet/")
    text = page.locator("main").inner_text()
    assert "Rated low by the reviewer; the run proposed medium." in text
    assert "“Born 1958; the Colin Marsh in the article is 41.”" in text
    screenshot(page, "packet-namesake-rated-low")
