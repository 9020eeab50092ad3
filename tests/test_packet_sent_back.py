"""A reviewer sends a packet back: the analyst is asked to reply, and the packet returns
to sign-off carrying the reason and the reply, on the sign-off page and the packet page."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from reviews.models import HumanDecision, ReviewItem
from runs.models import TraceEvent
from tests.case_rows import XSS
from tests.conftest import client_for
from tests.review_runs import advance, open_item, signoff_item

pytestmark = pytest.mark.django_db

REASON = f"Check the 2023 fine reported in the FT {XSS}"
REPLY = f"That fine was against Acme Analytics Inc (US), not our subject {XSS}"


def _sent_back(client, tenant, analyst, reviewer):
    item = signoff_item(tenant, analyst)
    client_for(client, reviewer).post(
        reverse("reviews-decide", args=[item.pk]), {"decision": "deny", "reason": REASON}
    )
    return advance(item)


def test_the_analyst_is_asked_to_reply_to_the_reviewer(client, tenant, analyst, reviewer):
    run = _sent_back(client, tenant, analyst, reviewer)
    assert (run.status, run.termination_reason) == ("waiting_for_input", "waiting_for_input")
    assert "waiting for the analyst's reply" in run.user_status
    question = open_item(run, ReviewItem.Kind.CLARIFICATION)
    html = client_for(client, analyst).get(reverse("reviews-clarifications")).content.decode()
    assert f'id="review-item-{question.pk}"' in html
    assert "A reviewer sent the packet back" in html
    assert "Check the 2023 fine reported in the FT" in html and XSS not in html
    case_page = client.get(reverse("runs-case-detail", args=[run.case_id])).content.decode()
    assert "Packet sent back by a reviewer: “Check the 2023 fine reported in the FT" in case_page
    assert XSS not in case_page


def test_the_reply_goes_back_to_sign_off_with_the_packet(
    client, tenant, analyst, reviewer, second_reviewer
):
    run = _sent_back(client, tenant, analyst, reviewer)
    question = open_item(run, ReviewItem.Kind.CLARIFICATION)
    client_for(client, analyst).post(
        reverse("reviews-answer", args=[question.pk]), {"answer_text": REPLY}
    )
    run = advance(question)
    assert (run.status, run.termination_reason) == ("awaiting_review", "finish_proposed")
    history = run.state["proposed_packet"]["review_history"]
    assert [(r["rejected_by"], r["reason"], r["replied_by"], r["reply"]) for r in history] == [
        (reviewer.username, REASON, analyst.username, REPLY)
    ]
    types = list(TraceEvent.objects.filter(run=run).order_by("seq").values_list("type", flat=True))
    assert types.count("finish_proposed") == 2 and "final_rejected" not in types

    signoff = open_item(run, ReviewItem.Kind.SIGNOFF)
    client_for(client, second_reviewer)
    page = client.get(reverse("reviews-item", args=[signoff.pk])).content.decode()
    packet_page = client.get(reverse("runs-packet", args=[run.pk])).content.decode()
    for html in (page, packet_page):
        assert "Check the 2023 fine reported in the FT" in html
        assert "That fine was against Acme Analytics Inc (US)" in html
        assert XSS not in html
        assert f"<strong>{reviewer.get_full_name()}</strong> sent the packet back" in html
        assert f"Reply from <strong>{analyst.get_full_name()}</strong>" in html
    assert "Sent back before" in page and "Sent back by reviewers" in packet_page
    queue = client.get(reverse("reviews-queue")).content.decode()
    assert "sent back once</span>, with the analyst's reply" in queue


# The tool reads the document on a helper thread, through its own connection.
@pytest.mark.django_db(transaction=True)
def test_a_document_the_reviewer_asked_for_is_read_before_the_packet_returns(
    client, tenant, analyst, reviewer, second_reviewer
):
    run = _sent_back(client, tenant, analyst, reviewer)
    question = open_item(run, ReviewItem.Kind.CLARIFICATION)
    client_for(client, analyst)
    upload = SimpleUploadedFile(
        "fine_notice.txt", b"FCA final notice 2023: Acme Analytics Inc (US).\n"
    )
    client.post(reverse("runs-case-attach-document", args=[run.case_id]), {"document": upload})
    client.post(reverse("reviews-answer", args=[question.pk]), {"answer_text": REPLY})
    run = advance(question)
    assert (run.status, run.termination_reason) == ("awaiting_review", "finish_proposed")
    document = run.case.documents.get()
    answer = HumanDecision.objects.get(review_item=question)
    assert answer.payload["document_ids"] == [str(document.pk)]
    assert f"extract:{document.pk}" in run.state["completed_steps"]
    packet = run.state["proposed_packet"]
    assert not any("fine_notice.txt" in gap for gap in packet["open_gaps"])
    types = list(TraceEvent.objects.filter(run=run).order_by("seq").values_list("type", flat=True))
    assert types.index("document_added") > types.index("clarification_received")
    page = client.get(reverse("runs-case-detail", args=[run.case_id])).content.decode()
    assert "Given “fine_notice.txt”, attached to the case since the run started" in page
    client_for(client, second_reviewer)
    packet_page = client.get(reverse("runs-packet", args=[run.pk])).content.decode()
    assert "The document “fine_notice.txt” was given to the run with the reply." in packet_page
