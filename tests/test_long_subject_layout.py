"""A subject as long as the tools take (200 characters) and without a space: the new-case
form stops typing at that limit and the server refuses one more character in plain words;
in Chromium, every page that names the subject stays inside a desktop and a phone screen."""

from __future__ import annotations

import re
import time

import pytest
from django.urls import reverse

from atlas.runtime.tools.schemas import NAME_MAX_LENGTH
from reviews.models import ReviewItem
from runs.actions import do_open_case
from runs.models import Case, Run
from tests.case_rows import waiting_for_answer
from tests.conftest import client_for, login_in_browser, screenshot
from tests.live_server import atlas_server  # noqa: F401 (a fixture)
from tests.review_runs import open_item, paused_run
from tests.test_review_browser import off_the_browser_loop

LONG_SUBJECT = "Q" * NAME_MAX_LENGTH
WIDTHS = [1280, 360]
WAIT_SECONDS = 20


def _maxlength(html: str) -> int:
    field = re.search(r"<input[^>]*name=\"subject_name\"[^>]*>", html).group(0)
    return int(re.search(r'maxlength="(\d+)"', field).group(1))


@pytest.mark.django_db
def test_the_subject_fields_stop_at_the_servers_limit(client, analyst, case):
    client_for(client, analyst)
    new_case = client.get(reverse("runs-case-new")).content.decode()
    correct = client.get(reverse("runs-case-correct", args=[case.pk])).content.decode()
    assert _maxlength(new_case) == NAME_MAX_LENGTH
    assert _maxlength(correct) == NAME_MAX_LENGTH


@pytest.mark.django_db
def test_one_character_over_the_limit_is_refused_in_plain_words(client, analyst):
    client_for(client, analyst)
    form = {"subject_type": "company", "jurisdiction": "", "notes": ""}

    refused = client.post(reverse("runs-case-new"), {**form, "subject_name": "Q" * 201})

    assert refused.status_code == 400
    assert "Enter the subject&#x27;s name in at most 200 characters (this one has 201)." in (
        refused.content.decode()
    )
    assert not Case.objects.exists()
    opened = client.post(reverse("runs-case-new"), {**form, "subject_name": LONG_SUBJECT})
    assert opened.status_code == 302
    assert Case.objects.get().subject_name == LONG_SUBJECT


def _wait_for(condition, what: str):
    deadline = time.monotonic() + WAIT_SECONDS
    while time.monotonic() < deadline:
        if value := condition():
            return value
        time.sleep(0.1)
    pytest.fail(f"Timed out waiting for {what}")


def _open_case_from_the_form(page, base_url: str) -> Run:
    page.goto(base_url + reverse("runs-case-new"))
    page.fill("#id_subject_name", LONG_SUBJECT + "QQQQ")  # the browser keeps 200
    assert len(page.input_value("#id_subject_name")) == NAME_MAX_LENGTH
    page.click("button[type=submit].primary")
    page.wait_for_url(re.compile(r".*/cases/\d+/.*"))
    case = Case.objects.get(subject_name=LONG_SUBJECT)
    return _wait_for(
        lambda: Run.objects.filter(case=case, status=Run.Status.AWAITING_REVIEW).first(),
        "the run to pause for sign-off",
    )


def _question_and_escalation(tenant, analyst) -> None:
    """A question to answer and an escalation to settle, both on the long subject."""
    case = do_open_case(
        tenant=tenant, user=analyst, subject_name=LONG_SUBJECT, subject_type="company"
    )
    waiting_for_answer(case)
    stopped = paused_run(tenant, analyst, LONG_SUBJECT, budgets={"max_iterations": 2})
    open_item(stopped, ReviewItem.Kind.ESCALATION)


def _fits(page, base_url: str, path: str, width: int) -> bool:
    page.goto(base_url + path)
    page.wait_for_load_state()
    name = path.strip("/").replace("/", "-") or "home"
    screenshot(page, f"long-subject-{name}-{width}")
    return page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("width", WIDTHS)
def test_pages_naming_a_long_subject_stay_inside_the_screen(
    page,
    atlas_server,  # noqa: F811 (the fixture imported above)
    tenant,
    analyst,
    reviewer,
    admin_user,
    width,
):
    page.set_viewport_size({"width": width, "height": 900})
    base = atlas_server.url
    login_in_browser(page, base, analyst.username)
    run = _open_case_from_the_form(page, base)
    off_the_browser_loop(_question_and_escalation, tenant, analyst)
    pages_by_user = {
        analyst: [
            reverse("runs-case-list"),
            reverse("runs-case-detail", args=[run.case_id]),
            reverse("runs-packet", args=[run.pk]),
            reverse("reviews-clarifications"),
        ],
        reviewer: [reverse("reviews-queue"), reverse("reviews-escalations")],
        admin_user: [reverse("runs-trace-list"), reverse("runs-trace", args=[run.pk])],
    }
    overflowing = []
    for user, paths in pages_by_user.items():
        page.context.clear_cookies()
        login_in_browser(page, base, user.username)
        overflowing += [path for path in paths if not _fits(page, base, path, width)]
    assert overflowing == []
