"""Action addresses act on POST only; a GET of one (a reload after a refused form, a
pasted link) leads to the page the action belongs to and changes nothing."""

from __future__ import annotations

import pytest
from django.urls import reverse

from reviews.models import HumanDecision, ReviewItem
from runs.models import Run
from tests.case_rows import waiting_for_answer
from tests.conftest import client_for
from tests.review_runs import approval_item, conflict_item, question_item

pytestmark = pytest.mark.django_db


def test_a_get_of_a_reviewers_action_goes_to_the_item_and_records_nothing(
    client, tenant, analyst, reviewer
):
    approval = approval_item(tenant, analyst)
    conflict = conflict_item(tenant, analyst)
    client_for(client, reviewer)
    for action in ("reviews-claim", "reviews-release", "reviews-decide"):
        response = client.get(reverse(action, args=[approval.pk]))
        assert response.status_code == 302, action
        assert response["Location"] == reverse("reviews-item", args=[approval.pk])
    response = client.get(reverse("reviews-claim", args=[conflict.pk]))
    assert response["Location"] == reverse("reviews-conflict", args=[conflict.pk])
    for action in ("reviews-resolve", "reviews-extend", "reviews-close"):
        response = client.get(reverse(action, args=[conflict.pk]))
        assert response.status_code == 302, action
        assert response["Location"] == reverse("reviews-conflict", args=[conflict.pk])
    assert client.get(response["Location"]).status_code == 200
    assert not HumanDecision.objects.exists()
    assert not ReviewItem.objects.filter(claimed_by__isnull=False).exists()
    assert set(ReviewItem.objects.values_list("status", flat=True)) == {"open"}


def test_a_get_of_an_analysts_action_goes_to_the_case_and_records_nothing(
    client, tenant, analyst, case
):
    run = waiting_for_answer(case)
    question = question_item(tenant, analyst)
    client_for(client, analyst)
    case_page = reverse("runs-case-detail", args=[case.pk])
    for action in ("runs-run-cancel", "runs-run-answer"):
        response = client.get(reverse(action, args=[run.pk]))
        assert response["Location"] == f"{case_page}?run={run.pk}", action
    response = client.get(reverse("runs-case-rerun", args=[case.pk]))
    assert response["Location"] == case_page
    response = client.get(reverse("reviews-answer", args=[question.pk]))
    assert response["Location"] == reverse("reviews-clarifications")
    run.refresh_from_db()
    assert run.status == "waiting_for_input" and run.cancel_requested_at is None
    assert Run.objects.filter(case=case).count() == 1
    assert not HumanDecision.objects.exists()


def test_the_lookup_keeps_roles_and_tenants(client, tenant, analyst, reviewer, outsider, case):
    run = waiting_for_answer(case)
    approval = approval_item(tenant, analyst)
    client_for(client, outsider)
    assert client.get(reverse("runs-run-cancel", args=[run.pk])).status_code == 404
    assert client.get(reverse("reviews-decide", args=[approval.pk])).status_code == 403
    client_for(client, analyst)
    assert client.get(reverse("reviews-decide", args=[approval.pk])).status_code == 403


def test_other_methods_are_still_not_allowed(client, tenant, analyst, reviewer):
    approval = approval_item(tenant, analyst)
    response = client_for(client, reviewer).put(reverse("reviews-decide", args=[approval.pk]))
    assert response.status_code == 405 and response["Allow"] == "POST"


def test_an_item_address_of_an_escalation_or_a_question_goes_to_its_own_page(
    client, tenant, analyst, reviewer
):
    conflict = conflict_item(tenant, analyst)
    question = question_item(tenant, analyst)
    client_for(client, reviewer)
    response = client.get(reverse("reviews-item", args=[conflict.pk]))
    assert response["Location"] == reverse("reviews-conflict", args=[conflict.pk])
    response = client.get(reverse("reviews-item", args=[question.pk]))
    assert response["Location"] == f"{reverse('reviews-clarifications')}#review-item-{question.pk}"
    assert client.get(response["Location"]).status_code == 200
