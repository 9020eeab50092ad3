"""An ambiguous company name settled by the company number in the analyst's own document,
through the pages: the case page, the sign-off page and the packet say how the registry
entity was told apart from its namesakes, so a reviewer can check it."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from reviews.models import ReviewItem
from tests.conftest import client_for
from tests.review_runs import open_item, paused_run

# The document is read on a tool thread, through a connection of its own.
pytestmark = pytest.mark.django_db(transaction=True)

CERTIFICATE = b"Company: Northwind Trading Pte Ltd\nCompany number: 2015 34871K\nDirectors: Lim Wei Ming, Tan Hui Min\n"
TOLD_APART = (
    "Told apart from 2 other registry candidates by company number 2015 34871K, which the "
    "attached document certificate.txt gives."
)


def test_the_pages_say_which_document_told_the_namesakes_apart(client, tenant, analyst, reviewer):
    upload = SimpleUploadedFile("certificate.txt", CERTIFICATE, content_type="text/plain")
    run = paused_run(tenant, analyst, "Northwind Trading", jurisdiction="", upload=upload)
    assert (run.status, run.termination_reason) == ("awaiting_review", "finish_proposed")
    assert run.matched_entity == "Northwind Trading Pte Ltd (SG)"

    case_page = client_for(client, analyst).get(reverse("runs-case-detail", args=[run.case_id]))
    assert TOLD_APART in case_page.text
    packet = client.get(reverse("runs-packet", args=[run.pk]))
    assert TOLD_APART in packet.text

    item = open_item(run, ReviewItem.Kind.SIGNOFF)
    sign_off = client_for(client, reviewer).get(reverse("reviews-item", args=[item.pk]))
    assert TOLD_APART in sign_off.text
