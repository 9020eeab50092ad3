"""An owner's share the registry's persons with significant control and a document disagree
on, through the pages: the reviewer weighs the register's band against the document's share
for the owner the conflict names, and the share they choose is the one the packet's 50
Percent Rule sentence counts."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from reviews.models import ReviewItem
from runs.models import Run
from tests.conftest import client_for
from tests.review_runs import advance, open_item, paused_run, settle_through_page

# The document is read on a tool thread, through a connection of its own.
pytestmark = pytest.mark.django_db(transaction=True)

UBO = b"Company: Kestrel Ridge Haulage Ltd\nUBO: Dmitri Volkov (40%); Owen Pryce (45%)\n"
WHOM = "beneficial owner Dmitri Volkov"
BAND = "more than 50% but less than 75%"


def escalated(tenant, analyst) -> ReviewItem:
    run = paused_run(
        tenant,
        analyst,
        "Kestrel Ridge Haulage",
        subject_type="company",
        jurisdiction="GB",
        upload=SimpleUploadedFile("ubo.txt", UBO, content_type="text/plain"),
    )
    return open_item(run, ReviewItem.Kind.ESCALATION)


def test_the_reviewer_weighs_the_registers_band_against_the_documents_share(
    client, tenant, analyst, reviewer
):
    item = escalated(tenant, analyst)
    client_for(client, reviewer)
    queue = client.get(reverse("reviews-escalations")).text
    assert f"<strong>Ownership share</strong> of {WHOM}: “{BAND}” vs “40%”" in queue
    page = client.get(reverse("reviews-conflict", args=[item.pk])).text
    assert f"Which ownership share value stands for {WHOM}?" in page
    assert "UBO: Dmitri Volkov (40%); Owen Pryce (45%)" in page
    assert (
        f"Dmitri Volkov ({BAND}; born 1968)" in page
    )  # the registry record, as its claim gives it

    settle_through_page(
        client, item, "40%", "The share register on file is newer than the registry's filing."
    )
    run = advance(item)
    assert (run.status, run.termination_reason) == ("awaiting_review", "finish_proposed")
    packet = run.state["proposed_packet"]
    assert (
        "Owners with sanctions hits hold 40% of Kestrel Ridge Haulage Ltd (Dmitri Volkov 40%, by "
        "uploaded document ubo.txt): under 50%"
    ) in packet["sanctions_result"]
    assert packet["risk_rating"] == "high"  # the hit on the owner stands, whatever the share
    page = client.get(reverse("runs-packet", args=[run.pk])).text
    assert "Resolved to <strong>40%</strong> by Reviewer" in page
    assert Run.objects.get(pk=run.pk).state["conflicts"][0]["status"] == "resolved"
