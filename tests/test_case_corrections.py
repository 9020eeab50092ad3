"""Correcting a case's subject between runs: recorded with its reason, used by the next
run, and never under a run in progress."""

from __future__ import annotations

import pytest
from django.urls import reverse

from reviews.models import HumanDecision
from runs.actions import do_open_case, do_request_cancel, do_start_run
from runs.execution import run_inline
from runs.models import Case, CaseEdit, Run
from tests.case_rows import XSS
from tests.conftest import client_for
from tests.review_runs import QUESTION_SUBJECT, paused_run

pytestmark = pytest.mark.django_db

CORRECTION = {
    "subject_name": QUESTION_SUBJECT,
    "subject_type": "company",
    "jurisdiction": "gb",
    "notes": "",
    "reason": "The client's registry extract says England and Wales.",
}


def _correct_url(case_id: int) -> str:
    return reverse("runs-case-correct", args=[case_id])


def _ended_run(tenant, analyst) -> Run:
    """Northwind without a jurisdiction matches three companies; the analyst cancels."""
    run = paused_run(tenant, analyst, QUESTION_SUBJECT, jurisdiction="")
    return do_request_cancel(run, analyst)


def test_a_corrected_jurisdiction_is_recorded_and_the_next_run_researches_it(
    client, tenant, analyst
):
    earlier = _ended_run(tenant, analyst)
    assert earlier.status == "cancelled"
    client_for(client, analyst)
    assert (
        "Correct the subject"
        in client.get(reverse("runs-case-detail", args=[earlier.case_id])).content.decode()
    )
    response = client.post(_correct_url(earlier.case_id), {**CORRECTION, "run_again": "1"})
    assert response.status_code == 302

    edit = CaseEdit.objects.get(case_id=earlier.case_id)
    assert edit.changes == {"jurisdiction": {"before": "", "after": "GB"}}
    assert (edit.edited_by, edit.reason) == (analyst, CORRECTION["reason"])
    assert Case.objects.get(pk=earlier.case_id).jurisdiction == "GB"
    rerun = run_inline(Run.objects.filter(case_id=earlier.case_id).latest("id"))
    assert rerun.pk != earlier.pk
    assert rerun.state["brief"]["jurisdiction"] == "GB"
    assert rerun.state["selected_entity"]["entity_id"] == "co-northwind-gb"
    earlier.refresh_from_db()
    assert earlier.state["brief"]["jurisdiction"] is None  # what it researched, kept

    page = client.get(reverse("runs-case-detail", args=[earlier.case_id])).content.decode()
    assert "Corrected by Analyst" in page and "Jurisdiction “—” → “GB”" in page
    assert "registry extract says England and Wales" in page
    old = client.get(
        reverse("runs-case-detail", args=[earlier.case_id]), {"run": earlier.pk}
    ).content.decode()
    assert f"This run researched {QUESTION_SUBJECT} (no jurisdiction given), before the case's" in (
        old
    )


def test_saving_without_running_again_starts_nothing(client, tenant, analyst):
    earlier = _ended_run(tenant, analyst)
    response = client_for(client, analyst).post(_correct_url(earlier.case_id), CORRECTION)
    assert response.status_code == 302
    assert Run.objects.filter(case_id=earlier.case_id).count() == 1
    assert CaseEdit.objects.filter(case_id=earlier.case_id).count() == 1


def test_the_subject_cannot_change_under_a_run_at_work(client, tenant, analyst):
    case = do_open_case(
        tenant=tenant, user=analyst, subject_name=QUESTION_SUBJECT, subject_type="company"
    )
    queued = do_start_run(case, analyst, wake=False)
    client_for(client, analyst)
    form = client.get(_correct_url(case.pk)).content.decode()
    assert "A run of this case is in progress: the subject can be corrected once it has ended" in (
        form
    )
    assert "disabled>Save</button>" in form
    response = client.post(
        _correct_url(case.pk), {**CORRECTION, "run_again": "1", "cancel_run": str(queued.pk)}
    )
    assert response.status_code == 400
    assert "A run of this case is in progress" in response.content.decode()
    assert Case.objects.get(pk=case.pk).jurisdiction == ""
    assert not CaseEdit.objects.exists()
    queued.refresh_from_db()
    assert queued.status == "queued" and queued.cancel_requested_at is None


def test_a_run_waiting_for_the_analysts_answer_is_cancelled_to_correct_the_subject(
    client, tenant, analyst
):
    waiting = paused_run(tenant, analyst, QUESTION_SUBJECT, jurisdiction="")
    assert waiting.status == "waiting_for_input"
    client_for(client, analyst)
    page = client.get(reverse("runs-case-detail", args=[waiting.case_id])).content.decode()
    assert f'href="{_correct_url(waiting.case_id)}">Correct the subject</a>' in page
    form = client.get(_correct_url(waiting.case_id)).content.decode()
    assert f"Run {waiting.pk} waits for your answer to its question. Saving cancels it first" in (
        form
    )
    assert f'name="cancel_run" value="{waiting.pk}"' in form

    response = client.post(
        _correct_url(waiting.case_id),
        {**CORRECTION, "run_again": "1", "cancel_run": str(waiting.pk)},
    )
    assert response.status_code == 302
    waiting.refresh_from_db()
    assert waiting.status == "cancelled"
    cancel = HumanDecision.objects.get(run=waiting, kind=HumanDecision.Kind.CANCEL)
    assert cancel.reason == f"Cancelled to correct the subject: {CORRECTION['reason']}"
    assert CaseEdit.objects.get(case_id=waiting.case_id).changes == {
        "jurisdiction": {"before": "", "after": "GB"}
    }
    rerun = run_inline(Run.objects.filter(case_id=waiting.case_id).latest("id"))
    assert rerun.pk != waiting.pk
    assert rerun.state["selected_entity"]["entity_id"] == "co-northwind-gb"


def test_an_unchanged_subject_does_not_cancel_the_waiting_run(client, tenant, analyst):
    waiting = paused_run(tenant, analyst, QUESTION_SUBJECT, jurisdiction="")
    unchanged = {**CORRECTION, "jurisdiction": "", "cancel_run": str(waiting.pk)}
    response = client_for(client, analyst).post(_correct_url(waiting.case_id), unchanged)
    assert response.status_code == 400
    assert f"Nothing in the subject changed, so run {waiting.pk} was not cancelled" in (
        response.content.decode()
    )
    waiting.refresh_from_db()
    assert waiting.status == "waiting_for_input" and waiting.cancel_requested_at is None


def test_a_page_loaded_before_the_run_waited_cancels_nothing(client, tenant, analyst):
    waiting = paused_run(tenant, analyst, QUESTION_SUBJECT, jurisdiction="")
    response = client_for(client, analyst).post(_correct_url(waiting.case_id), CORRECTION)
    assert response.status_code == 400
    assert f"Run {waiting.pk} waits for your answer to its question" in (response.content.decode())
    waiting.refresh_from_db()
    assert waiting.status == "waiting_for_input"
    assert not CaseEdit.objects.exists()


def test_a_run_waiting_for_a_reviewer_is_not_cancelled_to_correct_the_subject(
    client, tenant, analyst
):
    from tests.review_runs import signoff_item

    item = signoff_item(tenant, analyst)
    client_for(client, analyst)
    form = client.get(_correct_url(item.case_id)).content.decode()
    assert "cancel_run" not in form
    # It says who decides, not to cancel a run the case page does not let them cancel.
    assert f"Run {item.run_id} waits for a reviewer" in form
    assert "Cancel it from the" not in form
    response = client.post(
        _correct_url(item.case_id), {**CORRECTION, "cancel_run": str(item.run_id)}
    )
    assert response.status_code == 400
    # Refused for the reason the page gave: a reviewer decides, no run is at work.
    refusal = response.content.decode()
    assert f"Run {item.run_id} waits for a reviewer, so the subject can be corrected" in refusal
    assert "in progress" not in refusal
    assert Run.objects.get(pk=item.run_id).status == "awaiting_review"
    assert not CaseEdit.objects.exists()


def test_a_correction_without_a_reason_or_with_a_bad_code_saves_nothing(client, tenant, analyst):
    earlier = _ended_run(tenant, analyst)
    client_for(client, analyst)
    response = client.post(
        _correct_url(earlier.case_id), {**CORRECTION, "jurisdiction": "ZZ", "reason": "   "}
    )
    html = response.content.decode()
    assert response.status_code == 400
    assert "ZZ is not an ISO country code" in html
    assert "Say why the subject is corrected; the reason is kept." in html
    assert "Nothing was saved" in html
    assert Case.objects.get(pk=earlier.case_id).jurisdiction == ""
    assert not CaseEdit.objects.exists()


def test_a_corrected_name_is_shown_escaped(client, tenant, analyst):
    earlier = _ended_run(tenant, analyst)
    client_for(client, analyst).post(
        _correct_url(earlier.case_id), {**CORRECTION, "subject_name": f"Northwind {XSS}"}
    )
    page = client.get(reverse("runs-case-detail", args=[earlier.case_id])).content.decode()
    assert "Subject “Northwind Trading” → “Northwind &lt;script&gt;" in page
    assert XSS not in page


def test_only_the_tenants_analysts_correct_a_subject(client, tenant, analyst, reviewer, outsider):
    earlier = _ended_run(tenant, analyst)
    assert (
        client_for(client, reviewer).post(_correct_url(earlier.case_id), CORRECTION).status_code
        == 403
    )
    assert client_for(client, outsider).get(_correct_url(earlier.case_id)).status_code == 404
    assert client.post(_correct_url(earlier.case_id), CORRECTION).status_code == 404
    assert not CaseEdit.objects.exists()


def test_the_runs_list_trace_and_export_keep_the_subject_a_run_researched(
    client, tenant, analyst, admin_user
):
    earlier = _ended_run(tenant, analyst)
    client_for(client, analyst).post(
        _correct_url(earlier.case_id), {**CORRECTION, "subject_name": "Golden Gate Shipping"}
    )
    client_for(client, admin_user)
    listed = client.get(reverse("runs-trace-list"), {"subject": "northwind"}).content.decode()
    assert f'?run={earlier.pk}">{QUESTION_SUBJECT}</a>' in listed
    trace = client.get(reverse("runs-trace", args=[earlier.pk])).content.decode()
    assert f"Run #{earlier.pk} · {QUESTION_SUBJECT}" in trace
    assert "the case's subject has been corrected since: Golden Gate Shipping, GB" in trace
    export = b"".join(
        client.get(reverse("runs-export-jsonl"), {"subject": "northwind"}).streaming_content
    ).decode()
    assert f'"subject": "{QUESTION_SUBJECT}"' in export


def test_runs_from_before_the_subject_columns_get_the_subject_their_brief_researched(case):
    from importlib import import_module

    from django.apps import apps

    from tests.case_rows import make_run

    migration = import_module("runs.migrations.0012_run_subject")
    brief = {"subject": "Northwind Trading", "subject_type": "company", "jurisdiction": None}
    researched = make_run(case, state={"brief": brief})
    briefless = make_run(case, state={})
    Case.objects.filter(pk=case.pk).update(subject_name="Corrected Ltd", jurisdiction="SG")
    migration.fill_subject(apps, None)
    researched.refresh_from_db()
    briefless.refresh_from_db()
    assert (researched.subject_name, researched.jurisdiction) == ("Northwind Trading", "")
    assert (briefless.subject_name, briefless.jurisdiction) == ("Corrected Ltd", "SG")


def test_a_signed_off_packet_keeps_the_subject_it_was_about_after_a_correction(
    client, tenant, analyst, reviewer
):
    from reviews.actions import do_sign_off
    from tests.review_runs import SIGNOFF_SUBJECT, advance, signoff_item

    item = signoff_item(tenant, analyst)
    do_sign_off(item, reviewer, True, "Clean.")
    run = advance(item)
    assert run.status == "completed"
    client_for(client, analyst).post(
        _correct_url(run.case_id),
        {**CORRECTION, "subject_name": "Volga Petrochem Export", "jurisdiction": "RU"},
    )
    packet = client.get(reverse("runs-packet", args=[run.pk])).content.decode()
    assert f"<title>Packet · {SIGNOFF_SUBJECT}" in packet
    assert "Company · GB · matched Acme Analytics Ltd" in packet
    assert "The case's subject was corrected after this run: it is now Volga Petrochem Export" in (
        packet
    )
    body = client.get(reverse("runs-packet-json", args=[run.pk])).json()
    assert body["subject"] == SIGNOFF_SUBJECT
    assert body["case_subject_corrected_to"] == "Volga Petrochem Export"
    cases = client.get(reverse("runs-case-list")).content.decode()
    assert f"Corrected since its last run, which researched {SIGNOFF_SUBJECT}" in cases
    client_for(client, reviewer)
    audit = client.get(reverse("reviews-audit"), {"kind": "sign_off"}).content.decode()
    assert f'?run={run.pk}">{SIGNOFF_SUBJECT}</a>' in audit
    assert "the case is now “Volga Petrochem Export”" in audit
    found = client.get(reverse("reviews-audit"), {"case": "acme"}).content.decode()
    assert f'?run={run.pk}">{SIGNOFF_SUBJECT}</a>' in found
    signed = client.get(reverse("reviews-item", args=[item.pk])).content.decode()
    assert f"Packet sign-off: {SIGNOFF_SUBJECT}" in signed
