"""A director's residence the registry and a document disagree on, through the pages: the
analyst's banner names whom it is about, the reviewer weighs the two countries side by side,
and the country they choose is the one the packet counts."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from reviews.models import ReviewItem
from runs.models import Run, TraceEvent
from runs.step_views import _note_for
from runs.views.trace_steps import event_summary
from tests.conftest import client_for
from tests.review_runs import advance, open_item, paused_run, settle_through_page

# The document is read on a tool thread, through a connection of its own.
pytestmark = pytest.mark.django_db(transaction=True)

KYC = (
    b"KYC form\nCompany: Gulfstar Marine Services Ltd\n"
    b"Directors: Daniel Mercer, Farhad Rahimi (resident in the United Kingdom)\n"
)
WHOM = "director Farhad Rahimi"


def escalated(
    tenant, analyst, subject="Gulfstar Marine Services", kind="company", document=KYC
) -> ReviewItem:
    run = paused_run(
        tenant,
        analyst,
        subject,
        subject_type=kind,
        jurisdiction="GB" if kind == "company" else "",
        upload=SimpleUploadedFile("kyc.txt", document, content_type="text/plain"),
    )
    return open_item(run, ReviewItem.Kind.ESCALATION)


def test_the_pages_say_whose_residence_is_disputed(client, tenant, analyst, reviewer, admin_user):
    item = escalated(tenant, analyst)
    case_page = client_for(client, analyst).get(reverse("runs-case-detail", args=[item.case_id]))
    assert f"The sources disagree on country of residence of {WHOM}" in case_page.text
    assert f"Conflicting values for country of residence of {WHOM}" in case_page.text

    client_for(client, reviewer)
    queue = client.get(reverse("reviews-escalations")).text
    assert (
        f"<strong>Country of residence</strong> of {WHOM}: “Iran, IR” vs “United Kingdom, GB”"
        in (queue)
    )
    approvals = client.get(reverse("reviews-queue")).text
    assert f"The sources still disagree on country of residence of {WHOM}: " in approvals
    signoff = ReviewItem.objects.get(run_id=item.run_id, kind=ReviewItem.Kind.SIGNOFF)
    signoff_page = client.get(reverse("reviews-item", args=[signoff.pk])).text
    assert f"<strong>Country of residence</strong> of {WHOM}: “Iran, IR”" in signoff_page
    page = client.get(reverse("reviews-conflict", args=[item.pk])).text
    assert f"Conflict: Country of residence of {WHOM}" in page
    assert f"Sources disagree on country of residence of {WHOM}." in page
    assert f"Which country of residence value stands for {WHOM}?" in page
    assert "Directors: Daniel Mercer, Farhad Rahimi (resident in the United Kingdom)" in page
    trace = client_for(client, admin_user).get(reverse("runs-trace", args=[item.run_id]))
    assert f"country_of_residence of {WHOM}: Iran, IR vs United Kingdom, GB" in trace.text


def test_the_country_a_reviewer_picks_is_the_one_the_packet_counts(
    client, tenant, analyst, reviewer, admin_user
):
    item = escalated(tenant, analyst)
    packet = Run.objects.get(pk=item.run_id).state["proposed_packet"]
    assert packet["risk_rating"] == "medium"
    before = client_for(client, reviewer).get(reverse("runs-packet", args=[item.run_id])).text
    assert f"sources that disagree on country of residence of {WHOM}" in before
    settle_through_page(
        client_for(client, reviewer),
        item,
        "United Kingdom, GB",
        "The passport copy on file gives a UK address.",
    )
    run = advance(item)
    assert (run.status, run.termination_reason) == ("awaiting_review", "finish_proposed")
    packet = run.state["proposed_packet"]
    assert packet["risk_rating"] == "low"
    assert not any("high-risk" in gap or "Farhad Rahimi" in gap for gap in packet["open_gaps"])
    page = client.get(reverse("runs-packet", args=[run.pk])).text
    assert f"<strong>Country of residence</strong> of {WHOM}" in page
    assert "Resolved to <strong>United Kingdom, GB</strong> by Reviewer" in page
    audit = client.get(reverse("reviews-audit")).text
    assert f"Conflict on the country of residence of {WHOM}" in audit
    trace = client_for(client, admin_user).get(reverse("runs-trace", args=[run.pk])).text
    assert f"1 conflict met: country of residence of {WHOM} (resolved)" in trace
    assert f"settled the country of residence of {WHOM}: “United Kingdom, GB” stands" in trace


def test_a_form_is_shown_by_what_it_says_not_by_a_declaration_read_from_it(
    client, tenant, analyst, reviewer
):
    declaration = (
        b"CLIENT DECLARATION\nName: Farhad Rahimi\n"
        b"Residential address: 4 Harbour Row, London, United Kingdom\n"
        b"Source of wealth: Salary as a marine engineer since 2009.\n"
    )
    item = escalated(tenant, analyst, "Farhad Rahimi", "person", declaration)
    page = client_for(client, reviewer).get(reverse("reviews-conflict", args=[item.pk])).text
    assert "Conflict: Country of residence" in page
    assert "Uploaded document kyc.txt (1 page) contains: a person&#x27;s name" in page
    assert "declares the source of wealth" not in page
    assert "Given by 2 sources" not in page


def test_a_withdrawn_conflict_says_so_on_the_case_page_and_the_trace():
    withdrawn = TraceEvent(
        type="conflict_resolved",
        data={
            "conflict_id": "cf-1",
            "fact": "country_of_residence",
            "person": "director Farhad Rahimi",
            "status": "withdrawn",
            "value": None,
            "note": "No longer a director or owner of the company, as the reviewer settled it.",
            "actor": "reviewer-rita",
        },
    )
    said = (
        "the conflict over the country of residence of director Farhad Rahimi was withdrawn: "
        "No longer a director or owner of the company, as the reviewer settled it."
    )
    assert _note_for(withdrawn).text == said[:1].upper() + said[1:]
    assert event_summary(withdrawn) == said
