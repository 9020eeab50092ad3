"""The audit trail: every human decision with actor, time, reason and state version, read-only."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse
from django.utils import timezone

from reviews.actions import (
    do_answer_question,
    do_decide_approval,
    do_resolve_conflict,
    do_sign_off,
)
from reviews.decision_details import decision_details
from reviews.models import HumanDecision
from runs.actions import do_request_cancel
from tests.conftest import client_for
from tests.review_runs import (
    advance,
    approval_item,
    conflict_item,
    question_item,
    signoff_item,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def history(tenant, analyst, reviewer, second_reviewer):
    """One decision of each kind, by different people, on different cases."""
    approval = approval_item(tenant, analyst)
    do_decide_approval(approval, reviewer, True, "Routine registry lookup")
    denied = approval_item(tenant, analyst)
    do_decide_approval(denied, second_reviewer, False, "Not <b>needed</b>")
    question = question_item(tenant, analyst)
    do_answer_question(question, analyst, "The UK company")
    conflict = conflict_item(tenant, analyst)
    cid = conflict.payload["conflicts"][0]["conflict_id"]
    do_resolve_conflict(
        conflict, reviewer, cid, chosen_value="Helen Carter, Viktor Petrenko", note="Newer source"
    )
    signoff = signoff_item(tenant, analyst)
    do_sign_off(signoff, second_reviewer, True, "Clean")
    advance(approval)
    do_request_cancel(approval.run, analyst)
    return {"approval": approval, "question": question, "conflict": conflict, "signoff": signoff}


def test_every_kind_of_decision_is_listed_with_actor_reason_and_state(client, reviewer, history):
    html = client_for(client, reviewer).get(reverse("reviews-audit")).content.decode()
    for label in [
        "Approved",
        "Denied",
        "Answered",
        "Resolved conflict",
        "Signed off packet",
        "Cancelled run",
    ]:
        assert f">{label}</span>" in html
    assert "6 human decisions" in html
    assert "Routine registry lookup" in html and "The UK company" in html
    assert "Not &lt;b&gt;needed&lt;/b&gt;" in html and "<b>needed" not in html
    decision = HumanDecision.objects.get(review_item=history["approval"])
    assert f"v{decision.state_version}</td>" in html
    rows = re.findall(r'<tr id="decision-(\d+)"', html)
    assert [int(pk) for pk in rows] == sorted((int(pk) for pk in rows), reverse=True)


def test_the_audit_shows_whether_the_run_applied_a_decision(client, reviewer, history):
    html = client_for(client, reviewer).get(reverse("reviews-audit")).content.decode()
    applied = HumanDecision.objects.get(review_item=history["approval"])
    pending = HumanDecision.objects.get(review_item=history["signoff"])
    row = html[html.index(f'id="decision-{applied.pk}"') :]
    assert "Applied" in row[: row.index("</tr>")]
    row = html[html.index(f'id="decision-{pending.pk}"') :]
    assert "Not yet applied" in row[: row.index("</tr>")]


def test_the_audit_filters_by_case_and_actor(client, reviewer, second_reviewer, history):
    client_for(client, reviewer)
    conflict_case = history["conflict"].case
    for said in (str(conflict_case.pk), f"Case {conflict_case.pk}", f"#{conflict_case.pk}"):
        by_case = client.get(reverse("reviews-audit"), {"case": said})
        assert "1 human decision" in by_case.content.decode()
        assert "Newer source" in by_case.content.decode()
    by_actor = client.get(reverse("reviews-audit"), {"actor": second_reviewer.username})
    html = by_actor.content.decode()
    assert "2 human decisions" in html and "Clean" in html and "Routine registry" not in html
    by_subject = client.get(reverse("reviews-audit"), {"case": "Meridian"}).content.decode()
    assert "1 human decision" in by_subject


def test_the_audit_filters_by_day_and_explains_a_bad_date(client, reviewer, history):
    client_for(client, reviewer)
    total = HumanDecision.objects.count()
    today = timezone.now().date()
    url = reverse("reviews-audit")
    assert f"{total} human decisions" in client.get(url, {"date_from": today}).content.decode()
    yesterday = today - timedelta(days=1)
    assert "0 human decisions" in client.get(url, {"date_to": yesterday}).content.decode()
    bad = client.get(url, {"date_from": "31/12/2026"}).content.decode()
    assert "&#x27;31/12/2026&#x27; is not a date (use YYYY-MM-DD); it was ignored." in bad
    assert f"{total} human decisions" in bad


def test_admins_see_the_audit_and_analysts_do_not(client, analyst, admin_user, history):
    assert client_for(client, analyst).get(reverse("reviews-audit")).status_code == 403
    assert client_for(client, admin_user).get(reverse("reviews-audit")).status_code == 200


def test_another_tenants_decisions_are_not_listed(client, other_tenant, outsider, reviewer):
    item = question_item(other_tenant, outsider)
    do_answer_question(item, outsider, "Their secret answer")
    html = client_for(client, reviewer).get(reverse("reviews-audit")).content.decode()
    assert "Their secret answer" not in html and "No human decision" in html


def test_the_audit_cannot_be_edited(client, reviewer, history):
    client_for(client, reviewer)
    assert client.post(reverse("reviews-audit"), {"reason": "rewritten"}).status_code == 405
    html = client.get(reverse("reviews-audit")).content.decode()
    assert html.count('method="post"') == 1  # only the log-out form in the top bar
    decision = HumanDecision.objects.first()
    decision.reason = "rewritten"
    with pytest.raises(ValidationError):
        decision.save()
    with pytest.raises(ValidationError):
        decision.delete()
    assert HumanDecision.objects.count() == 6


@pytest.mark.parametrize(
    ("payload", "details"),
    [
        (
            {
                "extra_iterations": 5,
                "extra_tokens": 0,
                "extra_cost_usd": "0.50",
                "extra_seconds": 0.0,
            },
            ["Budget added: +5 iterations, +$0.50"],
        ),
        (
            # Recorded before extensions were stored fixed-point: "1e1" typed in the form.
            {"extra_iterations": 0, "extra_tokens": 0, "extra_cost_usd": "1E+1"},
            ["Budget added: +$10.00"],
        ),
        (
            {"extra_tokens": 20000, "extra_cost_usd": "0.5", "extra_seconds": 120.0},
            ["Budget added: +20,000 tokens, +$0.50, +120 s"],
        ),
        (
            {"conflict_id": "cf-1", "value": "Helen Carter, Viktor Petrenko", "note": "Board"},
            ["Value that stands: “Helen Carter, Viktor Petrenko”"],
        ),
        (
            {"conflict_id": "cf-1", "unresolvable": True, "note": "No filing"},
            ["Marked unresolvable"],
        ),
        (
            {
                "hit_dispositions": {
                    "ev-1": "false_positive",
                    "ev-2": "false_positive",
                    "ev-3": "confirmed_match",
                }
            },
            ["Screening matches: 1 confirmed match, 2 false positives"],
        ),
        (
            {"hit_dispositions": {"ev-1": "false_positive"}, "risk_rating": "low"},
            ["Screening matches: 1 false positive", "Risk rating set to low"],
        ),
        ({"action_id": "7:act:7"}, []),
        ({"approved": False, "reason": "Check the fine", "packet_step": 6}, []),
    ],
)
def test_a_decisions_details_read_as_words_not_as_its_payload(payload, details):
    assert decision_details(payload) == details


def test_a_budget_typed_in_exponent_notation_reads_as_dollars_and_cents(
    client, tenant, analyst, reviewer
):
    from tests.review_runs import budget_item

    item = budget_item(tenant, analyst)
    client_for(client, reviewer).post(
        reverse("reviews-extend", args=[item.pk]),
        {"extra_iterations": "1", "extra_cost_usd": "1e1", "reason": "One more search"},
    )
    decision = HumanDecision.objects.get(review_item=item)
    assert decision.payload["extra_cost_usd"] == "10"
    page = client.get(reverse("reviews-audit")).content.decode()
    assert "Budget added: +1 iteration, +$10.00</div>" in page and "E+1" not in page
    csv_file = client.get(reverse("reviews-audit-csv"))
    text = b"".join(csv_file.streaming_content).decode()
    assert '"Budget added: +1 iteration, +$10.00",' in text and "E+1" not in text


def _corrected_and_marked(client, tenant, analyst, outsider):
    """A subject corrected and a document marked sensitive, in this tenant and another."""
    from runs.actions import do_correct_subject
    from tests.case_rows import acme_case_with_document

    case = acme_case_with_document(tenant, analyst, "kyc.txt", b"Passport No: 123456789\n")
    subject = {
        "subject_name": "Acme Analytics Limited",
        "subject_type": "company",
        "jurisdiction": "GB",
        "notes": "",
    }
    do_correct_subject(case, analyst, subject, "Registry spells it out")
    document = case.documents.get()
    client_for(client, analyst).post(
        reverse("runs-document-mark-sensitive", args=[case.pk, document.pk]), {"confirm": "yes"}
    )
    theirs = acme_case_with_document(
        tenant.__class__.objects.get(slug="harbor-credit"), outsider, "x.txt", b"x"
    )
    do_correct_subject(theirs, outsider, {**subject, "subject_name": "Theirs Ltd"}, "Theirs")
    return case


def test_case_record_changes_are_in_the_audit_with_the_decisions(
    client, tenant, other_tenant, analyst, reviewer, outsider
):
    item = approval_item(tenant, analyst)
    do_decide_approval(item, reviewer, True, "Routine registry lookup")
    case = _corrected_and_marked(client, tenant, analyst, outsider)
    client_for(client, reviewer)
    html = client.get(reverse("reviews-audit")).content.decode()
    assert "3 human decisions on runs and case records" in html
    marked = html.index('decided-mark_sensitive">Marked a document sensitive')
    corrected = html.index('decided-correct_subject">Corrected the subject')
    approved = html.index("Routine registry lookup")
    assert marked < corrected < approved  # newest first
    assert "Subject: “Acme Analytics Ltd” → “Acme Analytics Limited”" in html
    assert "Registry spells it out" in html and "Document: “kyc.txt”" in html
    assert "Theirs" not in html  # another tenant's correction

    only = client.get(reverse("reviews-audit"), {"kind": "correct_subject"}).content.decode()
    assert "1 human decision on runs and case records matching" in only
    assert 'decided-correct_subject">' in only and "Routine registry lookup" not in only
    by_case = client.get(reverse("reviews-audit"), {"case": str(case.pk)}).content.decode()
    assert "2 human decisions" in by_case
    by_actor = client.get(reverse("reviews-audit"), {"actor": "reviewer"}).content.decode()
    assert "1 human decision" in by_actor and 'decided-correct_subject">' not in by_actor
