"""An ambiguous company name settled by the company number in the analyst's own document,
through the pages: the case page, the sign-off page and the packet say how the registry
entity was told apart from its namesakes, so a reviewer can check it."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from reviews.models import ReviewItem
from runs.execution import run_inline
from runs.models import Run
from tests.conftest import client_for
from tests.review_runs import corrected_and_run_again, open_item, paused_run

# The document is read on a tool thread, through a connection of its own.
pytestmark = pytest.mark.django_db(transaction=True)

CERTIFICATE = b"Company: Northwind Trading Pte Ltd\nCompany number: 2015 34871K\nDirectors: Lim Wei Ming, Tan Hui Min\n"
TOLD_APART = (
    "Told apart from 2 other registry candidates by company number 2015 34871K, which the "
    "uploaded document certificate.txt gives."
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


def test_a_certificate_of_the_other_company_of_the_name_leads_the_analyst_to_correct_the_case(
    client, tenant, analyst
):
    """The case says GB; the client's certificate is the Singapore company's. The agent asks
    before finishing, and the analyst corrects the country from the waiting run's page: the
    new run researches the Singapore company, and reads the certificate as about it."""
    upload = SimpleUploadedFile("certificate.txt", CERTIFICATE, content_type="text/plain")
    waiting = paused_run(tenant, analyst, "Northwind Trading", jurisdiction="GB", upload=upload)
    assert waiting.status == "waiting_for_input"
    client_for(client, analyst)
    page = client.get(reverse("runs-case-detail", args=[waiting.case_id])).text
    assert "is about Northwind Trading Pte Ltd, company number 2015 34871K" in page
    correct = reverse("runs-case-correct", args=[waiting.case_id])
    assert f'href="{correct}">Correct the subject</a>' in page

    rerun = corrected_and_run_again(
        client,
        waiting,
        "The client's certificate is the Singapore company's.",
        subject_name="Northwind Trading",
        subject_type="company",
        jurisdiction="SG",
    )
    assert (rerun.status, rerun.termination_reason) == ("awaiting_review", "finish_proposed")
    assert rerun.matched_entity == "Northwind Trading Pte Ltd (SG)"
    assert not rerun.state["proposed_packet"]["open_gaps"]


def test_a_certificate_attached_while_the_question_waits_answers_it(client, tenant, analyst):
    waiting = paused_run(tenant, analyst, "Northwind Trading", jurisdiction="")
    assert waiting.status == "waiting_for_input"
    client_for(client, analyst)
    upload = SimpleUploadedFile("certificate.txt", CERTIFICATE, content_type="text/plain")
    client.post(reverse("runs-case-attach-document", args=[waiting.case_id]), {"document": upload})
    answered = client.post(
        reverse("runs-run-answer", args=[waiting.pk]),
        {"answer_text": "The client's certificate is attached."},
    )
    assert answered.status_code == 302
    run = run_inline(Run.objects.get(pk=waiting.pk))
    assert (run.status, run.termination_reason) == ("awaiting_review", "finish_proposed")
    assert run.matched_entity == "Northwind Trading Pte Ltd (SG)"
    page = client.get(reverse("runs-case-detail", args=[run.case_id])).text
    assert TOLD_APART in page
