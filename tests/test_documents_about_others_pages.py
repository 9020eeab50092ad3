"""A document about another company than the subject, through the pages: the analyst is
asked why it was supplied on the case page, answers there, and the packet and the sign-off
page give the answer (as text, whatever it holds) to the reviewer."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from reviews.models import ReviewItem
from runs.execution import run_inline
from runs.models import Run
from tests.conftest import client_for
from tests.review_runs import open_item, paused_run

# The document is read on a tool thread, through a connection of its own.
pytestmark = pytest.mark.django_db(transaction=True)

DECLARATION = (
    b"OWNERSHIP DECLARATION\nCompany: Harrow Bay Freight Ltd\nCompany number: 09934127\n"
    b"Directors: Colin Marsh\n"
)
ANSWER = "Harrow Bay is the client's <b>carrier</b>; sent by mistake"


def test_the_analysts_reason_for_another_companys_document_reaches_the_reviewer(
    client, tenant, analyst, reviewer
):
    upload = SimpleUploadedFile("declaration.txt", DECLARATION, content_type="text/plain")
    waiting = paused_run(tenant, analyst, "Acme Analytics Ltd", jurisdiction="GB", upload=upload)
    assert (waiting.status, waiting.termination_reason) == (
        "waiting_for_input",
        "waiting_for_input",
    )
    client_for(client, analyst)
    page = client.get(reverse("runs-case-detail", args=[waiting.case_id])).text
    assert "The uploaded document declaration.txt is about Harrow Bay Freight Ltd" in page

    answered = client.post(reverse("runs-run-answer", args=[waiting.pk]), {"answer_text": ANSWER})
    assert answered.status_code == 302
    run = run_inline(Run.objects.get(pk=waiting.pk))
    assert (run.status, run.termination_reason) == ("awaiting_review", "finish_proposed")

    gap = "Asked why it was supplied, the analyst answered: “Harrow Bay is the client&#x27;s "
    packet = client.get(reverse("runs-packet", args=[run.pk])).text
    assert gap in packet
    assert "&lt;b&gt;carrier&lt;/b&gt;" in packet and "<b>carrier</b>" not in packet

    item = open_item(run, ReviewItem.Kind.SIGNOFF)
    sign_off = client_for(client, reviewer).get(reverse("reviews-item", args=[item.pk])).text
    assert gap in sign_off
    assert "<b>carrier</b>" not in sign_off
