"""What a keyboard or screen-reader user meets first on a page: no focus taken on load, a
way past the navigation, and headings that go down one level at a time."""

from __future__ import annotations

import re
from itertools import pairwise

import pytest
from django.urls import reverse

from tests.case_rows import waiting_for_answer
from tests.conftest import client_for
from tests.review_runs import conflict_item

pytestmark = pytest.mark.django_db

HEADING = re.compile(r"<h([1-6])\b")


def levels(html: str) -> list[int]:
    return [int(level) for level in HEADING.findall(html)]


def assert_no_skipped_level(html: str) -> None:
    seen = levels(html)
    assert seen and seen[0] == 1, seen
    for before, after in pairwise(seen):
        assert after <= before + 1, seen


def test_the_case_list_takes_no_focus_and_every_page_can_skip_to_its_content(client, analyst):
    html = client_for(client, analyst).get(reverse("runs-case-list")).content.decode()
    assert "autofocus" not in html
    body = html[html.index("<body") :]
    first_link = re.search(r"<(a|button|input|select|textarea)\b[^>]*>", body).group(0)
    assert first_link == '<a class="skip-link" href="#main">'
    assert '<main class="content" id="main" tabindex="-1">' in html


def test_the_case_page_headings_go_down_one_level_at_a_time(client, analyst, case):
    client_for(client, analyst)
    without_run = client.get(reverse("runs-case-detail", args=[case.pk])).content.decode()
    assert_no_skipped_level(without_run)
    waiting_for_answer(case)
    with_run = client.get(reverse("runs-case-detail", args=[case.pk])).content.decode()
    assert_no_skipped_level(with_run)
    # The banner's title is a heading under the run's.
    assert (
        '<h3 class="banner-title" tabindex="-1">The agent needs your answer to continue</h3>'
        in (with_run)
    )


def test_the_escalation_banner_title_is_a_heading(client, tenant, analyst, reviewer):
    item = conflict_item(tenant, analyst)
    html = client_for(client, reviewer).get(reverse("reviews-conflict", args=[item.pk]))
    html = html.content.decode()
    assert '<h2 class="banner-title">Sources disagree on directors.' in html
    assert_no_skipped_level(html)
