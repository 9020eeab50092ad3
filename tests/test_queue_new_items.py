"""A queue page learns of items opened after it loaded: a notice with a link, never rows
swapped under someone typing."""

from __future__ import annotations

import re
from html import unescape

import pytest
from django.urls import reverse

from reviews.models import ReviewItem
from tests.conftest import client_for
from tests.queue_pages import copies_of, shown_ids
from tests.review_runs import (
    QUESTION_SUBJECT,
    approval_item,
    conflict_item,
    paused_run,
    question_item,
)

pytestmark = pytest.mark.django_db


def _notice_url(html: str) -> str:
    match = re.search(r'hx-get="(/reviews/new/[^"]+)"', html)
    assert match, "the page polls for its notice"
    return match.group(1).replace("&amp;", "&")


def test_a_question_asked_after_the_page_loaded_is_announced(client, tenant, analyst):
    question_item(tenant, analyst)
    client_for(client, analyst)
    page = client.get(reverse("reviews-clarifications")).content.decode()
    notice = _notice_url(page)
    assert client.get(notice).content.decode().strip() == ""

    paused_run(tenant, analyst, QUESTION_SUBJECT, jurisdiction="")
    html = client.get(notice).content.decode()
    assert "1 new question since this page loaded" in html
    assert f'href="{reverse("reviews-clarifications")}"' in html


def test_the_notice_keeps_the_page_filters(client, tenant, analyst):
    client_for(client, analyst)
    page = client.get(reverse("reviews-clarifications"), {"q": "Northwind"}).content.decode()
    notice = _notice_url(page)
    assert "q=Northwind" in notice
    paused_run(tenant, analyst, QUESTION_SUBJECT, jurisdiction="")
    assert "1 new question" in client.get(notice).content.decode()
    unrelated = notice.replace("q=Northwind", "q=Acme")
    assert client.get(unrelated).content.decode().strip() == ""


def test_other_tenants_and_other_queues_are_not_counted(
    client, tenant, other_tenant, analyst, outsider, reviewer
):
    client_for(client, reviewer)
    notice = _notice_url(client.get(reverse("reviews-escalations")).content.decode())
    question_item(tenant, analyst)  # a question, not an escalation
    question_item(other_tenant, outsider)
    assert client.get(notice).content.decode().strip() == ""
    conflict_item(tenant, analyst)
    assert "1 new escalation" in client.get(notice).content.decode()


def test_only_readers_of_a_queue_hear_of_it(client, tenant, analyst):
    conflict_item(tenant, analyst)
    client_for(client, analyst)
    response = client.get(reverse("reviews-new-items", args=["escalations"]), {"after": 0})
    assert response.status_code == 204 and not response.content
    assert (
        client.get(reverse("reviews-new-items", args=["nowhere"]), {"after": 0}).status_code == 404
    )
    bad = client.get(reverse("reviews-new-items", args=["questions"]), {"after": "x"})
    assert bad.status_code == 400
    assert ReviewItem.objects.filter(kind="escalation").exists()


def test_an_unknown_escalation_reason_filters_nothing_as_on_the_page(
    client, tenant, analyst, reviewer
):
    client_for(client, reviewer)
    notice = reverse("reviews-new-items", args=["escalations"])
    conflict_item(tenant, analyst)
    assert (
        "1 new escalation" in client.get(notice, {"after": 0, "reason": "bogus"}).content.decode()
    )
    known = client.get(notice, {"after": 0, "reason": "max_iterations"}).content.decode()
    assert known.strip() == ""


def test_the_approvals_notice_keeps_the_claim_filter(client, tenant, analyst, reviewer):
    client_for(client, reviewer)
    mine = _notice_url(client.get(reverse("reviews-queue"), {"claim": "mine"}).content.decode())
    assert "claim=mine" in mine
    approval_item(tenant, analyst)  # new, and held by nobody
    assert client.get(mine).content.decode().strip() == ""
    unclaimed = client.get(mine.replace("claim=mine", "claim=unclaimed")).content.decode()
    assert "1 new item since this page loaded" in unclaimed
    assert "claim=unclaimed" in unclaimed


def test_the_questions_notice_keeps_only_the_cases_i_opened(client, tenant, analyst, reviewer):
    client_for(client, analyst)
    page = client.get(reverse("reviews-clarifications"), {"mine": "1"}).content.decode()
    notice = _notice_url(page)
    assert "mine=1" in notice
    paused_run(tenant, reviewer, QUESTION_SUBJECT, jurisdiction="")  # not the analyst's case
    assert client.get(notice).content.decode().strip() == ""
    paused_run(tenant, analyst, QUESTION_SUBJECT, jurisdiction="")
    html = client.get(notice).content.decode()
    assert "1 new question since this page loaded" in html and "mine=1" in html


def _show_link(notice_html: str) -> str:
    match = re.search(r'class="new-items-notice" href="([^"]+)"', notice_html)
    assert match, "the notice links to the new items"
    return unescape(match.group(1))


def test_show_opens_the_page_where_the_new_items_are_past_the_first_page(
    client, tenant, analyst, reviewer
):
    first = approval_item(tenant, analyst)
    older = [first, *copies_of(first, 59)]
    client_for(client, reviewer)
    page = client.get(reverse("reviews-queue"), {"kind": "approval"}).content.decode()
    assert older[-1].pk not in shown_ids(page)  # 60 items: the first page shows 50
    notice = _notice_url(page)
    new, newer = copies_of(older[-1], 2)
    html = client.get(notice).content.decode()
    assert "2 new items since this page loaded" in html
    show = _show_link(html)
    assert show == f"{reverse('reviews-queue')}?kind=approval&after={older[-1].pk}"
    assert shown_ids(client.get(show).content.decode()) == [new.pk, newer.pk]


def test_show_opens_the_first_page_when_it_shows_the_new_items(client, tenant, analyst, reviewer):
    first = approval_item(tenant, analyst)
    client_for(client, reviewer)
    notice = _notice_url(client.get(reverse("reviews-queue")).content.decode())
    (new,) = copies_of(first, 1)
    show = _show_link(client.get(notice).content.decode())
    assert show == reverse("reviews-queue")
    assert new.pk in shown_ids(client.get(show).content.decode())
