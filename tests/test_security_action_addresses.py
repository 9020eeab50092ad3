"""A GET of an action address of another tenant's object is a 404 at once, plain or htmx,
as the action itself is: not a redirect to a page that then says 404."""

from __future__ import annotations

import pytest
from django.urls import reverse

from runs.models import Membership
from tests.case_rows import document_row, waiting_for_answer
from tests.conftest import _person, client_for
from tests.review_runs import conflict_item, question_item

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}


def _gets(client, url: str) -> list[int]:
    return [client.get(url).status_code, client.get(url, **HTMX).status_code]


def test_another_tenants_case_actions_are_a_404_on_get(client, outsider, case):
    client_for(client, outsider)
    for action in ("runs-case-rerun", "runs-case-attach-document"):
        assert _gets(client, reverse(action, args=[case.pk])) == [404, 404], action


def test_another_tenants_question_is_a_404_on_a_get_of_its_answer(
    client, tenant, analyst, outsider, case
):
    waiting_for_answer(case)
    question = question_item(tenant, analyst)
    client_for(client, outsider)
    assert _gets(client, reverse("reviews-answer", args=[question.pk])) == [404, 404]


def test_another_tenants_escalation_actions_are_a_404_on_get(client, tenant, analyst, other_tenant):
    conflict = conflict_item(tenant, analyst)
    other_reviewer = _person("harbor-reviewer", other_tenant, Membership.Role.REVIEWER)
    client_for(client, other_reviewer)
    for action in ("reviews-resolve", "reviews-extend", "reviews-close"):
        assert _gets(client, reverse(action, args=[conflict.pk])) == [404, 404], action


def test_the_tenants_own_people_are_still_sent_to_the_page(client, tenant, analyst, reviewer, case):
    waiting_for_answer(case)
    question = question_item(tenant, analyst)
    conflict = conflict_item(tenant, analyst)
    client_for(client, analyst)
    response = client.get(reverse("runs-case-rerun", args=[case.pk]))
    assert response["Location"] == reverse("runs-case-detail", args=[case.pk])
    response = client.get(reverse("reviews-answer", args=[question.pk]))
    assert response["Location"] == reverse("reviews-clarifications")
    client_for(client, reviewer)
    response = client.get(reverse("reviews-close", args=[conflict.pk]))
    assert response["Location"] == reverse("reviews-conflict", args=[conflict.pk])


def test_another_tenants_document_mark_is_a_404_on_get(client, outsider, case, analyst):
    document = document_row(case, analyst)
    url = reverse("runs-document-mark-sensitive", args=[case.pk, document.pk])
    assert client_for(client, analyst).get(url)["Location"] == reverse(
        "runs-case-detail", args=[case.pk]
    )
    client_for(client, outsider)
    assert _gets(client, url) == [404, 404]
