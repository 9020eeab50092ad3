"""Pages in Chromium for people who zoom in or use a narrow window, and for keyboard users
of the links that load more in place."""

from __future__ import annotations

import pytest
from django.urls import reverse

from runs import step_views
from runs.views import trace_steps
from tests.case_rows import add_events, awaiting_signoff, make_run, tool_step
from tests.conftest import login_in_browser, screenshot
from tests.review_runs import approval_item
from tests.test_review_browser import off_the_browser_loop

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# A phone held upright; the same width as a 720 px window at 200% zoom, or less.
NARROW = {"width": 360, "height": 800}


def run_of_steps(case, count: int):
    """A finished run of `count` tool steps after its start."""
    run = make_run(case, status="completed", reason="packet_approved")
    add_events(
        run,
        ("run_started", 0, {}),
        *(
            event
            for step in range(1, count + 1)
            for event in tool_step(step, "search_adverse_media", {"query": f"Acme {step}"}, "none")
        ),
    )
    return run


def page_scrolls_sideways(page) -> bool:
    return page.evaluate(
        "() => document.documentElement.scrollWidth > document.documentElement.clientWidth"
    )


def focused(page) -> str:
    return page.evaluate(
        "() => { const el = document.activeElement;"
        " return el.tagName + ':' + (el.dataset.step || el.closest('[data-step]')?.dataset.step || ''); }"
    )


def test_the_approval_queue_and_a_trace_fit_a_narrow_window(
    page, live_server, tenant, analyst, reviewer, admin_user, case
):
    item = off_the_browser_loop(approval_item, tenant, analyst)
    run = run_of_steps(case, 3)
    page.set_viewport_size(NARROW)
    login_in_browser(page, live_server.url, reviewer.username)
    page.goto(f"{live_server.url}/reviews/")
    deny = page.locator(f"#review-item-{item.pk}").locator("button[data-decision=deny]")
    assert deny.is_visible()
    screenshot(page, "a11y-queue-360")
    assert not page_scrolls_sideways(page)
    box = deny.bounding_box()
    assert box["x"] + box["width"] <= NARROW["width"]

    page.context.clear_cookies()
    login_in_browser(page, live_server.url, admin_user.username)
    page.goto(live_server.url + reverse("runs-trace", args=[run.pk]))
    screenshot(page, "a11y-trace-360")
    assert not page_scrolls_sideways(page)


def test_focus_moves_to_the_steps_a_load_link_brought_in(
    page, live_server, analyst, admin_user, case, monkeypatch
):
    monkeypatch.setattr(step_views, "STEPS_PER_PAGE", 4)
    monkeypatch.setattr(trace_steps, "PAGE_EVENTS", 12)
    run = run_of_steps(case, 7)  # steps 0–7: the case page shows 4–7, then 0–3

    login_in_browser(page, live_server.url, analyst.username)
    page.goto(live_server.url + reverse("runs-case-detail", args=[case.pk]))
    page.locator(f"#run-{run.pk}-steps-earlier a").focus()
    page.keyboard.press("Enter")
    page.wait_for_selector(f"#run-{run.pk}-steps > li.step[data-step='0']")
    page.wait_for_function("() => document.activeElement !== document.body")
    assert focused(page) == "LI:0"

    page.context.clear_cookies()
    login_in_browser(page, live_server.url, admin_user.username)
    page.goto(live_server.url + reverse("runs-trace", args=[run.pk]))
    # 22 events, about 12 a page: the last "Load more" brings the last steps and no new link.
    while page.locator("a#trace-more").count():
        shown = page.locator("details.trace-step").count()
        page.locator("a#trace-more").focus()
        page.keyboard.press("Enter")
        page.wait_for_function(
            f"() => document.querySelectorAll('details.trace-step').length > {shown}"
        )
        page.wait_for_timeout(100)  # htmx settles the swap 20 ms after it
    assert focused(page) == f"SUMMARY:{shown}"


def test_the_packet_offers_its_print_button_only_where_it_works(
    chromium, page, live_server, analyst, case
):
    run = awaiting_signoff(case)
    url = live_server.url + reverse("runs-packet", args=[run.pk])
    login_in_browser(page, live_server.url, analyst.username)
    page.goto(url)
    assert page.get_by_role("button", name="Print").is_visible()
    without_script = chromium.new_context(java_script_enabled=False)
    try:
        plain = without_script.new_page()
        login_in_browser(plain, live_server.url, analyst.username)
        plain.goto(url)
        assert plain.locator("h1").inner_text() == "Acme Widgets Ltd"
        assert plain.locator("button[data-print]").count() == 1
        assert not plain.locator("button[data-print]").is_visible()
    finally:
        without_script.close()
