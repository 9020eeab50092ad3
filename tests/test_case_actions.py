"""Actions from the case page: cancel, run again, answer the agent's question."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from django.db import connection, connections, transaction
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from reviews.models import HumanDecision, ReviewItem
from runs.actions import do_start_run
from runs.models import Case, Run
from tests.case_rows import make_run, waiting_for_answer
from tests.conftest import client_for
from tests.review_runs import approval_item, question_item

pytestmark = pytest.mark.django_db


def held_by_a_worker(case) -> Run:
    return make_run(
        case, lease_owner="worker-1", lease_expires_at=timezone.now() + timedelta(seconds=30)
    )


def test_cancel_records_one_decision_and_a_double_submit_is_harmless(
    client, analyst, case, django_capture_on_commit_callbacks
):
    run = held_by_a_worker(case)
    client_for(client, analyst)
    url = reverse("runs-run-cancel", args=[run.pk])
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        first = client.post(url)
        second = client.post(url)
    assert first.status_code == second.status_code == 302
    assert first["Location"] == reverse("runs-case-detail", args=[case.pk]) + f"?run={run.pk}"
    run.refresh_from_db()
    assert run.cancel_requested_at is not None and run.cancel_requested_by == analyst
    decisions = HumanDecision.objects.filter(run=run, kind=HumanDecision.Kind.CANCEL)
    assert decisions.count() == 1
    assert len(callbacks) == 2  # each request nudges the holding worker; the row decides
    page = client.get(reverse("runs-case-detail", args=[case.pk])).content.decode()
    assert "Cancellation requested" in page and "Cancelling" in page


def test_cancel_by_htmx_returns_the_live_regions_out_of_band(client, analyst, case):
    run = held_by_a_worker(case)
    response = client_for(client, analyst).post(
        reverse("runs-run-cancel", args=[run.pk]), HTTP_HX_REQUEST="true"
    )
    html = response.content.decode()
    assert response.status_code == 200
    assert f'id="run-{run.pk}-status"' in html and 'hx-swap-oob="true"' in html
    assert f'id="run-{run.pk}-banner"' in html and "Cancelling" in html
    assert f'id="run-{run.pk}-cursor"' not in html  # only the stream moves the cursor


def test_cancelling_a_finished_run_changes_nothing(client, analyst, case):
    run = make_run(case, status="completed", reason="packet_approved")
    response = client_for(client, analyst).post(reverse("runs-run-cancel", args=[run.pk]))
    assert response.status_code == 302
    run.refresh_from_db()
    assert run.status == "completed" and run.cancel_requested_at is None
    assert not HumanDecision.objects.exists()


def test_cancel_needs_post_an_allowed_role_and_the_same_tenant(client, reviewer, outsider, case):
    run = held_by_a_worker(case)
    url = reverse("runs-run-cancel", args=[run.pk])
    client_for(client, reviewer)
    assert client.get(url).status_code in (403, 405)
    assert client.post(url).status_code == 403
    client_for(client, outsider)
    assert client.post(url).status_code == 404
    run.refresh_from_db()
    assert run.cancel_requested_at is None


def test_csrf_is_enforced_on_cancel(analyst, case):
    run = held_by_a_worker(case)
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(analyst)
    assert strict.post(reverse("runs-run-cancel", args=[run.pk])).status_code == 403
    page = strict.get(reverse("runs-case-detail", args=[case.pk]))
    token = page.cookies["csrftoken"].value
    ok = strict.post(reverse("runs-run-cancel", args=[run.pk]), {"csrfmiddlewaretoken": token})
    assert ok.status_code == 302
    run.refresh_from_db()
    assert run.cancel_requested_at is not None


def test_run_again_starts_a_new_run_for_a_finished_case(
    client, analyst, case, django_capture_on_commit_callbacks
):
    make_run(case, status="failed", reason="tool_failure")
    client_for(client, analyst)
    with django_capture_on_commit_callbacks() as callbacks:
        response = client.post(reverse("runs-case-rerun", args=[case.pk]))
    assert response.status_code == 302
    latest = Run.objects.filter(case=case).latest("id")
    assert latest.status == "queued" and latest.created_by == analyst
    assert len(callbacks) == 1  # the worker is woken after commit


def test_run_again_is_refused_while_a_run_is_in_progress(client, analyst, case):
    make_run(case)
    client_for(client, analyst)
    client.post(reverse("runs-case-rerun", args=[case.pk]))
    client.post(reverse("runs-case-rerun", args=[case.pk]))
    assert Run.objects.filter(case=case).count() == 1


@pytest.mark.skipif(connection.vendor != "postgresql", reason="needs PostgreSQL row locks")
@pytest.mark.django_db(transaction=True)
def test_a_run_again_racing_another_start_waits_for_it_and_is_refused(analyst, case):
    make_run(case, status="failed", reason="tool_failure")
    responses = []

    def run_again() -> None:
        try:
            responses.append(
                client_for(Client(), analyst).post(reverse("runs-case-rerun", args=[case.pk]))
            )
        finally:
            connections.close_all()

    # Another "Run again" holds the case row and has not committed its run yet.
    with transaction.atomic():
        Case.objects.select_for_update().get(pk=case.pk)
        racer = threading.Thread(target=run_again)
        racer.start()
        racer.join(timeout=0.5)
        do_start_run(case, analyst, wake=False)
    racer.join(timeout=10)

    assert len(responses) == 1 and responses[0].status_code == 302
    active = Run.objects.filter(case=case).exclude(status__in=Run.TERMINAL_STATUSES)
    assert active.count() == 1


def test_run_again_by_htmx_redirects_the_client(client, analyst, case):
    make_run(case, status="cancelled", reason="cancelled")
    response = client_for(client, analyst).post(
        reverse("runs-case-rerun", args=[case.pk]), HTTP_HX_REQUEST="true"
    )
    assert response.status_code == 200
    assert response["HX-Redirect"] == reverse("runs-case-detail", args=[case.pk])


def test_run_again_is_for_analysts_of_the_tenant(client, reviewer, outsider, case):
    make_run(case, status="failed", reason="tool_failure")
    assert (
        client_for(client, reviewer).post(reverse("runs-case-rerun", args=[case.pk])).status_code
        == 403
    )
    assert (
        client_for(client, outsider).post(reverse("runs-case-rerun", args=[case.pk])).status_code
        == 404
    )
    assert Run.objects.filter(case=case).count() == 1


def test_an_answer_is_recorded_once_and_resumes_the_run(
    client, analyst, case, django_capture_on_commit_callbacks
):
    run = waiting_for_answer(case)
    client_for(client, analyst)
    url = reverse("runs-run-answer", args=[run.pk])
    with django_capture_on_commit_callbacks() as callbacks:
        response = client.post(url, {"answer": "Acme Widgets Ltd (GB)", "answer_text": "ignored"})
    assert response.status_code == 302
    decision = HumanDecision.objects.get(run=run)
    assert (decision.kind, decision.actor, decision.reason) == (
        "answer",
        analyst,
        "Acme Widgets Ltd (GB)",
    )
    assert decision.payload == {
        "question_id": "q-1",
        "text": "Acme Widgets Ltd (GB)",
        "document_ids": [],
    }
    assert ReviewItem.objects.get(run=run).status == "decided"
    assert len(callbacks) == 1  # run.resume to the workers
    again = client.post(url, {"answer_text": "Something else"}, follow=True)
    assert "already answered" in again.content.decode()
    assert HumanDecision.objects.filter(run=run).count() == 1
    page = client.get(reverse("runs-case-detail", args=[case.pk])).content.decode()
    assert "Answer recorded" in page


def test_a_typed_answer_is_used_when_no_candidate_was_picked(client, analyst, case):
    run = waiting_for_answer(case)
    client_for(client, analyst).post(
        reverse("runs-run-answer", args=[run.pk]), {"answer_text": "The one in Manchester"}
    )
    assert HumanDecision.objects.get(run=run).reason == "The one in Manchester"


def test_an_empty_answer_is_refused_with_a_clear_message(client, analyst, case):
    run = waiting_for_answer(case)
    client_for(client, analyst)
    response = client.post(
        reverse("runs-run-answer", args=[run.pk]), {"answer_text": "  "}, HTTP_HX_REQUEST="true"
    )
    assert response.status_code == 200
    assert "Write an answer or pick one" in response.content.decode()
    assert not HumanDecision.objects.exists()


def test_only_analysts_of_the_tenant_answer(client, reviewer, outsider, case):
    run = waiting_for_answer(case)
    url = reverse("runs-run-answer", args=[run.pk])
    assert client_for(client, reviewer).post(url, {"answer_text": "x"}).status_code == 403
    assert client_for(client, outsider).post(url, {"answer_text": "x"}).status_code == 404
    assert not HumanDecision.objects.exists()


@pytest.mark.parametrize("htmx", [False, True], ids=["plain", "htmx"])
def test_an_answer_after_another_analysts_is_refused_and_given_back(
    client, tenant, analyst, case, htmx
):
    from reviews.actions import do_answer_question
    from tests.conftest import _person

    run = waiting_for_answer(case)
    do_answer_question(ReviewItem.objects.get(run=run), analyst, "Acme Widgets Ltd (GB)")
    other = _person("analyst2", tenant, "analyst")  # had the page open before that answer
    headers = {"HTTP_HX_REQUEST": "true"} if htmx else {}
    refused = client_for(client, other).post(
        reverse("runs-run-answer", args=[run.pk]),
        {"answer_text": "The one in <em>Leeds</em>, not London"},
        **headers,
    )
    page = refused.content.decode()
    assert refused.status_code == (200 if htmx else 409)
    name = analyst.get_full_name() or analyst.get_username()
    assert f"{name} already answered this question at " in page
    assert "; your answer was not recorded." in page
    assert "Not saved. What you wrote, to copy:" in page
    assert "The one in &lt;em&gt;Leeds&lt;/em&gt;, not London" in page
    # Outside the banner, so the push that updates the banner when the run resumes keeps it.
    oob = ' hx-swap-oob="true"' if htmx else ""
    assert f'<div id="run-{run.pk}-answer-refused"{oob}><p class="banner banner-bad"' in page
    assert HumanDecision.objects.filter(run=run).count() == 1


@pytest.mark.parametrize("htmx", [False, True], ids=["plain", "htmx"])
def test_a_refused_answer_stays_in_the_answer_box(client, analyst, case, htmx):
    run = waiting_for_answer(case)
    answer = "Acme Widgets, the one with the Leeds office. " * 50
    headers = {"HTTP_HX_REQUEST": "true"} if htmx else {}
    refused = client_for(client, analyst).post(
        reverse("runs-run-answer", args=[run.pk]), {"answer_text": answer}, **headers
    )
    page = refused.content.decode()
    assert refused.status_code == (200 if htmx else 400)
    assert "at most 2000 characters" in page
    assert f'name="answer_text" value="{answer.strip()}"' in page
    assert "Not saved. What you wrote, to copy:" not in page  # the answer box holds it
    assert not HumanDecision.objects.exists()


def test_an_answer_to_a_question_the_run_has_moved_past_is_not_given_to_the_next_one(
    client, analyst, case
):
    run = waiting_for_answer(case)
    first = ReviewItem.objects.get(run=run)
    page = client_for(client, analyst).get(reverse("runs-case-detail", args=[case.pk]))
    assert f'name="question_item" value="{first.pk}"' in page.content.decode()
    # Someone answered, the run went on and now asks something else.
    ReviewItem.objects.filter(pk=first.pk).update(status=ReviewItem.Status.DECIDED)
    ReviewItem.objects.create(
        tenant=case.tenant,
        case=case,
        run=run,
        kind=ReviewItem.Kind.CLARIFICATION,
        key="q-2",
        requested_at=timezone.now(),
    )
    refused = client.post(
        reverse("runs-run-answer", args=[run.pk]),
        {"question_item": str(first.pk), "answer_text": "Acme Widgets Ltd (GB)"},
    )
    assert refused.status_code == 409
    assert "The run no longer waits for this question (it moved on)" in refused.content.decode()
    assert not HumanDecision.objects.exists()


@pytest.mark.parametrize(
    "reason", ["finish_proposed", "max_iterations", "repeated_action", "no_progress"]
)
def test_a_run_waiting_for_a_reviewer_cannot_be_cancelled_from_the_console(
    client, analyst, admin_user, case, reason
):
    """Cancelling would take a packet or an escalation out of review unseen: the reviewer
    decides how such a run ends."""
    run = make_run(case, status="awaiting_review", reason=reason)
    url = reverse("runs-run-cancel", args=[run.pk])
    for person in (analyst, admin_user):
        response = client_for(client, person).post(url)
        assert response.status_code == 302
        page = client.get(response["Location"]).content.decode()
        assert "This run waits for a reviewer, who decides how it ends" in page
        assert "Cancel run" not in page
    htmx = client.post(url, HTTP_HX_REQUEST="true")
    assert htmx["HX-Redirect"].startswith(reverse("runs-case-detail", args=[case.pk]))
    run.refresh_from_db()
    assert run.status == "awaiting_review" and run.cancel_requested_at is None
    assert not HumanDecision.objects.exists()


def test_a_run_waiting_for_an_approval_or_an_answer_can_still_be_cancelled(client, tenant, analyst):
    for item in (approval_item(tenant, analyst), question_item(tenant, analyst)):
        client_for(client, analyst).post(reverse("runs-run-cancel", args=[item.run_id]))
        item.run.refresh_from_db()
        assert item.run.status == "cancelled"


def test_the_cancel_confirmation_says_what_the_run_waits_on(client, tenant, analyst):
    from tests.review_runs import approval_item, signoff_item

    waiting = approval_item(tenant, analyst)
    client_for(client, analyst)
    page = client.get(reverse("runs-case-detail", args=[waiting.case_id])).content.decode()
    confirm = page[page.index("data-cancel-run") :].split(">")[0]
    assert "The tool call waiting for a reviewer's approval is withdrawn" in confirm
    assert "packet" not in confirm  # there is none yet
    # A packet waiting for sign-off is the reviewer's to decide: the analyst cannot cancel.
    signing = signoff_item(tenant, analyst)
    page = client.get(reverse("runs-case-detail", args=[signing.case_id])).content.decode()
    assert "data-cancel-run" not in page


def test_run_again_from_a_page_older_than_the_latest_run_starts_none_and_names_it(
    client, analyst, case
):
    """Two tabs show the cancelled run; the first starts a run, which ends before the
    second tab's press arrives: the second starts no third run."""
    cancelled = make_run(case, status="cancelled", reason="cancelled")
    client_for(client, analyst)
    url = reverse("runs-case-rerun", args=[case.pk])
    client.post(url, {"after_run": cancelled.pk}, follow=True)
    newer = Run.objects.filter(case=case).latest("id")
    Run.objects.filter(pk=newer.pk).update(status="completed", termination_reason="packet_approved")
    response = client.post(url, {"after_run": cancelled.pk}, follow=True)
    assert Run.objects.filter(case=case).count() == 2
    said = [str(m) for m in response.context["messages"]]
    assert said == [
        f"Run {newer.pk} was started on this case since the page was shown (by "
        f"{analyst.get_full_name() or analyst.get_username()} at "
        f"{newer.created_at:%H:%M:%S} UTC); no other run was started."
    ]


def test_the_buttons_that_start_a_run_say_which_run_their_page_showed(client, analyst, case):
    client_for(client, analyst)
    page = client.get(reverse("runs-case-detail", args=[case.pk])).content.decode()
    assert '<input type="hidden" name="after_run" value="">' in page
    ended = make_run(case, status="failed", reason="tool_failure")
    page = client.get(reverse("runs-case-detail", args=[case.pk])).content.decode()
    assert f'<input type="hidden" name="after_run" value="{ended.pk}">' in page


def test_run_again_while_a_run_has_not_ended_names_it(client, analyst, case):
    running = make_run(case, status="awaiting_review", reason="finish_proposed")
    client_for(client, analyst)
    response = client.post(
        reverse("runs-case-rerun", args=[case.pk]), {"after_run": running.pk}, follow=True
    )
    said = [str(m) for m in response.context["messages"]]
    assert said == [
        f"Run {running.pk} of this case has not ended yet (awaiting review); no other run was "
        "started."
    ]


def test_an_answer_to_a_question_a_cancel_withdrew_says_who_cancelled(client, tenant, case):
    from tests.conftest import _person

    run = waiting_for_answer(case)
    question = ReviewItem.objects.get(run=run)
    canceller = _person("analyst2", tenant, "analyst")
    Run.objects.filter(pk=run.pk).update(
        status="cancelled", cancel_requested_at=timezone.now(), cancel_requested_by=canceller
    )
    ReviewItem.objects.filter(pk=question.pk).update(status=ReviewItem.Status.WITHDRAWN)
    refused = client_for(client, case.created_by).post(
        reverse("runs-run-answer", args=[run.pk]),
        {"question_item": str(question.pk), "answer_text": "The UK one"},
    )
    assert refused.status_code == 409
    name = canceller.get_full_name() or canceller.get_username()
    assert f"The run was cancelled by {name} at " in refused.content.decode()
    assert "which withdrew its question; nothing was recorded." in refused.content.decode()
    assert not HumanDecision.objects.exists()
