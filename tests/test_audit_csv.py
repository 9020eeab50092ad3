"""The audit trail as a CSV file: every entry the page lists under the same filters, in
words, safe to open in a spreadsheet."""

from __future__ import annotations

import csv
import io

import pytest
from django.urls import reverse

from reviews import audit_csv
from reviews.actions import do_answer_question, do_decide_approval
from reviews.models import HumanDecision
from runs import exports
from tests.conftest import client_for
from tests.review_runs import advance, approval_item, question_item

pytestmark = pytest.mark.django_db


def rows_of(response) -> list[dict[str, str]]:
    assert response.status_code == 200
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    text = b"".join(response.streaming_content).decode("utf-8")
    assert text.startswith("\ufeff")
    return list(csv.DictReader(io.StringIO(text[1:])))


@pytest.fixture
def decided(tenant, analyst, reviewer, second_reviewer):
    approved = approval_item(tenant, analyst)
    do_decide_approval(approved, reviewer, True, "Routine registry lookup")
    advance(approved)
    denied = approval_item(tenant, analyst)
    do_decide_approval(denied, second_reviewer, False, '=HYPERLINK("http://x.test","Søren")')
    return {"approved": approved, "denied": denied}


def test_the_file_lists_every_decision_newest_first_with_its_effect(client, reviewer, decided):
    rows = rows_of(client_for(client, reviewer).get(reverse("reviews-audit-csv")))
    assert [row["Decision"] for row in rows] == ["Denied", "Approved"]
    approved = HumanDecision.objects.get(review_item=decided["approved"])
    newest, oldest = rows
    assert oldest["Reason"] == "Routine registry lookup"
    assert oldest["Actor's login"] == "reviewer"
    assert oldest["Review item"] == f"Tool approval #{decided['approved'].pk}"
    assert (oldest["Case"], oldest["Run"]) == (
        str(decided["approved"].case_id),
        str(decided["approved"].run_id),
    )
    assert oldest["State version"] == f"v{approved.state_version}"
    assert oldest["Effect"] == "Applied" and newest["Effect"] == "Not yet applied"
    assert oldest["When (UTC)"] == approved.created_at.strftime("%Y-%m-%d %H:%M:%S")


def test_a_cell_a_spreadsheet_would_run_as_a_formula_is_written_as_text(client, reviewer, decided):
    newest = rows_of(client_for(client, reviewer).get(reverse("reviews-audit-csv")))[0]
    assert newest["Reason"] == '\'=HYPERLINK("http://x.test","Søren")'


def test_the_file_keeps_the_pages_filters(client, reviewer, second_reviewer, decided):
    client_for(client, reviewer)
    url = reverse("reviews-audit-csv")
    by_actor = rows_of(client.get(url, {"actor": second_reviewer.username}))
    assert [row["Decision"] for row in by_actor] == ["Denied"]
    page = client.get(reverse("reviews-audit"), {"actor": second_reviewer.username})
    assert f'href="{url}?actor={second_reviewer.username}" download' in page.content.decode()
    refused = client.get(url, {"date_from": "31/12/2026"})
    assert refused.status_code == 400
    assert "'31/12/2026' is not a date (use YYYY-MM-DD)" in refused.content.decode()


def test_a_long_trail_is_written_a_chunk_at_a_time_in_order(
    client, monkeypatch, tenant, analyst, reviewer
):
    monkeypatch.setattr(exports, "CHUNK", 2)
    monkeypatch.setattr(audit_csv, "CHUNK", 2)
    for number in range(5):
        question = question_item(tenant, analyst)
        do_answer_question(question, analyst, f"Answer {number}")
    rows = rows_of(client_for(client, reviewer).get(reverse("reviews-audit-csv")))
    assert [row["Reason"] for row in rows] == [f"Answer {n}" for n in reversed(range(5))]


def test_only_reviewers_and_admins_get_the_file_and_only_their_tenants(
    client, other_tenant, outsider, analyst, admin_user, reviewer
):
    do_answer_question(question_item(other_tenant, outsider), outsider, "Their secret answer")
    url = reverse("reviews-audit-csv")
    assert client_for(client, analyst).get(url).status_code == 403
    assert rows_of(client_for(client, admin_user).get(url)) == []
    assert rows_of(client_for(client, reviewer).get(url)) == []
    assert client.post(url).status_code == 405
