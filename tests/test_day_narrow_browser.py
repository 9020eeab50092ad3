"""An analyst's case list on a phone held upright: each case's status is in view."""

from __future__ import annotations

import pytest
from django.urls import reverse

from tests.case_rows import add_events, awaiting_signoff, make_run, tool_step
from tests.conftest import login_in_browser, screenshot
from tests.review_runs import budget_item, question_item
from tests.test_review_browser import off_the_browser_loop

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

NARROW = {"width": 360, "height": 800}


def test_the_case_list_shows_each_cases_status_without_scrolling_sideways(
    page, live_server, analyst, case
):
    awaiting_signoff(case)
    page.set_viewport_size(NARROW)
    login_in_browser(page, live_server.url, analyst.username)
    page.goto(live_server.url + reverse("runs-case-list"))
    screenshot(page, "day-case-list-360")

    row = page.locator("table.case-table tbody tr").first
    status = row.locator(".badge-awaiting_review")
    box = status.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= NARROW["width"]
    table = page.locator("table.case-table")
    assert table.evaluate("t => t.scrollWidth <= t.clientWidth")
    # Each fact keeps its name once the column headings are out of sight.
    labels = row.locator("td").evaluate_all(
        "cells => cells.map(cell => getComputedStyle(cell, '::before').content)"
    )
    assert '"Opened by: "' in labels


def test_a_steps_figures_line_up_on_the_right_whether_or_not_they_wrap(
    page, live_server, analyst, case
):
    run = make_run(case, status="completed", reason="packet_approved")
    add_events(
        run,
        ("run_started", 0, {}),
        *tool_step(1, "screen_sanctions", {"entity_id": "co-acme"}, "none"),
        *tool_step(
            2,
            "search_adverse_media",
            {"query": "Acme Widgets Ltd", "entity_id": "co-acme-widgets-gb"},
            "none",
        ),
    )
    page.set_viewport_size(NARROW)
    login_in_browser(page, live_server.url, analyst.username)
    page.goto(live_server.url + reverse("runs-case-detail", args=[case.pk]))
    screenshot(page, "day-steps-360")
    gaps = page.locator("li.step .step-head").evaluate_all(
        """heads => heads.filter(head => head.querySelector('.step-meta')).map(head => {
            const meta = head.querySelector('.step-meta').getBoundingClientRect();
            const title = head.querySelector('.step-title').getBoundingClientRect();
            const box = head.getBoundingClientRect();
            return {wrapped: meta.top > title.bottom - 1, gap: Math.round(box.right - meta.right)};
        })"""
    )
    assert any(step["wrapped"] for step in gaps), gaps
    assert all(step["gap"] <= 1 for step in gaps), gaps


def test_a_question_gets_room_to_be_read_beside_its_answer_field(
    page, live_server, tenant, analyst
):
    off_the_browser_loop(question_item, tenant, analyst)
    page.set_viewport_size({"width": 1280, "height": 900})
    login_in_browser(page, live_server.url, analyst.username)
    page.goto(live_server.url + reverse("reviews-clarifications"))
    screenshot(page, "day-questions-1280")
    question = page.locator("td.question-text").first.bounding_box()
    answer = page.locator("td.answer-col").first.bounding_box()
    assert question["width"] >= 18 * 16, question
    assert answer["width"] >= 24 * 16, answer


def test_the_run_list_scrolls_sideways_inside_its_table_not_the_whole_page(
    page, live_server, admin_user, case
):
    make_run(case, status="completed", reason="packet_approved")
    page.set_viewport_size(NARROW)
    login_in_browser(page, live_server.url, admin_user.username)
    page.goto(live_server.url + reverse("runs-trace-list"))
    screenshot(page, "day-run-list-360")
    assert page.evaluate(
        "() => document.documentElement.scrollWidth <= document.documentElement.clientWidth"
    )
    assert page.locator("table.run-table").evaluate("t => t.scrollWidth > t.clientWidth")


def test_a_packets_subject_keeps_its_words_whole_beside_the_risk_rating(
    page, live_server, analyst, case
):
    run = awaiting_signoff(case)
    page.set_viewport_size(NARROW)
    login_in_browser(page, live_server.url, analyst.username)
    page.goto(live_server.url + reverse("runs-packet", args=[run.pk]))
    screenshot(page, "day-packet-360")
    head = page.locator("header.packet-head").bounding_box()
    title = page.locator("header.packet-head h1").bounding_box()
    assert title["width"] >= head["width"] * 0.8, (title, head)


def test_side_by_side_sections_stack_in_a_narrow_window(
    page, live_server, tenant, analyst, reviewer, case
):
    item = off_the_browser_loop(budget_item, tenant, analyst)
    run = awaiting_signoff(case)
    page.set_viewport_size(NARROW)
    login_in_browser(page, live_server.url, analyst.username)
    page.goto(live_server.url + reverse("runs-packet", args=[run.pk]))
    halves = page.locator("article.packet .grid-halves > section")
    assert halves.nth(1).bounding_box()["y"] > halves.nth(0).bounding_box()["y"]

    page.context.clear_cookies()
    login_in_browser(page, live_server.url, reviewer.username)
    page.goto(live_server.url + reverse("reviews-conflict", args=[item.pk]))
    screenshot(page, "day-budget-escalation-360")
    extend = page.locator("section:has(h2:text('Extend the budget'))").bounding_box()
    close = page.locator("section:has(h2:text('Close the case'))").bounding_box()
    assert close["y"] > extend["y"] and close["width"] >= extend["width"] * 0.95
    fields = page.locator(".four-cols label")
    assert fields.nth(2).bounding_box()["y"] > fields.nth(0).bounding_box()["y"]


# Typed in, the placeholder's words would overflow the field exactly when they are cut off.
PLACEHOLDER_FITS = """field => {
    field.value = field.placeholder;
    const fits = field.scrollWidth <= field.clientWidth;
    field.value = "";
    return fits;
}"""


@pytest.mark.parametrize("width", [1280, 360])
def test_the_case_search_shows_all_it_searches_in_its_placeholder(
    page, live_server, analyst, width
):
    page.set_viewport_size({"width": width, "height": 900})
    login_in_browser(page, live_server.url, analyst.username)
    page.goto(live_server.url + reverse("runs-case-list"))
    field = page.locator("form.filters input[name=q]")
    assert "country code or case number" in field.get_attribute("placeholder")
    assert field.evaluate(PLACEHOLDER_FITS)
    assert page.evaluate(
        "() => document.documentElement.scrollWidth <= document.documentElement.clientWidth"
    )
