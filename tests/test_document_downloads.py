"""An uploaded document is downloaded from its case page, by its tenant only."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from reviews.actions import do_decide
from reviews.models import ReviewItem
from runs.actions import do_mark_sensitive, do_open_case, do_request_cancel, do_start_run
from runs.execution import run_inline
from runs.models import Case, Document, DocumentDownload, Run, TraceEvent
from tests.case_rows import acme_case_with_document
from tests.conftest import client_for

pytestmark = pytest.mark.django_db

CONTENT = b"Director: Jane Roe\nPassport: X1234567\n"


def open_case_with(client, analyst, name: str = "kyc note.txt") -> Document:
    client_for(client, analyst)
    client.post(
        reverse("runs-case-new"),
        {
            "subject_name": "Acme Widgets Ltd",
            "subject_type": "company",
            "jurisdiction": "GB",
            "notes": "",
            "document": SimpleUploadedFile(name, CONTENT, "text/plain"),
            "document_sensitive": "on",
        },
    )
    return Case.objects.filter(created_by=analyst).get().documents.get()


def download_url(document: Document) -> str:
    return reverse("runs-document", args=[document.case_id, document.pk])


def test_the_case_page_links_each_document_and_the_link_downloads_it(client, analyst):
    document = open_case_with(client, analyst)
    page = client.get(reverse("runs-case-detail", args=[document.case_id])).content.decode()
    assert f'href="{download_url(document)}" download>kyc note.txt</a>' in page

    response = client.get(download_url(document))
    assert response.status_code == 200
    assert response.content == CONTENT
    assert response["Content-Type"] == "text/plain"
    assert response["Content-Disposition"] == 'attachment; filename="kyc note.txt"'
    assert response["Content-Security-Policy"] == "sandbox"
    assert response["Cache-Control"] == "private, no-store"


def test_a_reviewer_of_the_tenant_may_download_it_too_and_the_download_is_logged(
    client, analyst, reviewer, caplog
):
    document = open_case_with(client, analyst)
    assert document.sensitive
    caplog.set_level("INFO", logger="runs.views.documents")
    assert client_for(client, reviewer).get(download_url(document)).status_code == 200
    assert (
        f"Sensitive document {document.pk} of case {document.case_id} downloaded by reviewer"
        in (caplog.text)
    )


def test_a_download_another_site_starts_is_asked_about_and_recorded_only_when_taken(
    client, analyst
):
    document = open_case_with(client, analyst)
    for site in ("cross-site", "same-site"):
        response = client.get(download_url(document), headers={"Sec-Fetch-Site": site})
        assert response.status_code == 200
        page = response.content.decode()
        assert "Download “kyc note.txt”?" in page
        assert f'href="{download_url(document)}" download>Download it</a>' in page
        assert CONTENT.decode() not in page
    assert not DocumentDownload.objects.exists()

    taken = client.get(download_url(document), headers={"Sec-Fetch-Site": "same-origin"})
    assert taken.content == CONTENT
    assert DocumentDownload.objects.get().user == analyst


def test_another_tenant_or_another_case_gets_not_found(client, analyst, outsider, outsider_case):
    document = open_case_with(client, analyst)
    assert client_for(client, outsider).get(download_url(document)).status_code == 404
    client_for(client, analyst)
    elsewhere = reverse("runs-document", args=[outsider_case.pk, document.pk])
    assert client.get(elsewhere).status_code == 404


def test_anonymous_visitors_are_sent_to_login(client, analyst):
    document = open_case_with(client, analyst)
    client.logout()
    response = client.get(download_url(document))
    assert response.status_code == 302 and "/login/" in response["Location"]


def test_only_reading_is_allowed(client, analyst):
    document = open_case_with(client, analyst)
    assert client.post(download_url(document)).status_code == 405


def test_a_name_outside_ascii_is_kept_in_the_download(client, analyst):
    document = open_case_with(client, analyst, name="Übersicht “final”.txt")
    disposition = client.get(download_url(document))["Content-Disposition"]
    assert disposition.startswith("attachment; filename*=utf-8''")
    assert "%C3%9Cbersicht" in disposition


def test_a_download_ends_in_the_extension_of_the_type_its_content_was_found_to_be(client, analyst):
    document = open_case_with(client, analyst, name="invoice.js")
    assert document.content_type == "text/plain"
    disposition = client.get(download_url(document))["Content-Disposition"]
    assert disposition == 'attachment; filename="invoice.js.txt"'


def test_a_file_missing_from_storage_is_not_found_in_plain_words(client, analyst):
    document = open_case_with(client, analyst)
    document.file.storage.delete(document.file.name)
    response = client.get(download_url(document))
    assert response.status_code == 404


def test_approving_a_sensitive_extraction_links_the_document_to_read(
    client, tenant, analyst, reviewer
):
    case = acme_case_with_document(tenant, analyst, "passport scan.txt", CONTENT, sensitive=True)
    run = run_inline(do_start_run(case, analyst, wake=False))
    item = ReviewItem.objects.get(run=run, kind=ReviewItem.Kind.APPROVAL)
    assert item.payload["tool_name"] == "extract_uploaded_document"
    document = case.documents.get()
    page = client_for(client, reviewer).get(reverse("reviews-item", args=[item.pk])).content
    assert f'href="{download_url(document)}" download>passport scan.txt</a>' in page.decode()
    assert "<dt>Personal data</dt><dd>Passport number, redacted before the model reads it" in (
        page.decode()
    )


# --- Attaching a document to an open case --------------------------------------


def attach(client, case: Case, name: str = "board minutes.txt", content: bytes = CONTENT, **extra):
    return client.post(
        reverse("runs-case-attach-document", args=[case.pk]),
        {"document": SimpleUploadedFile(name, content, "text/plain"), **extra},
    )


def test_a_document_attached_later_is_read_by_the_next_run(client, tenant, analyst):
    case = do_open_case(
        tenant=tenant, user=analyst, subject_name="Acme Analytics Ltd", subject_type="company"
    )
    first = run_inline(do_start_run(case, analyst, wake=False))
    client_for(client, analyst)
    response = attach(client, case, document_sensitive="on")
    assert response.status_code == 302
    document = case.documents.get()
    assert (document.original_name, document.sensitive, document.uploaded_by) == (
        "board minutes.txt",
        True,
        analyst,
    )
    page = client.get(response["Location"]).content.decode()
    # The first run's packet waits for a sign-off: only a send-back would give it the file.
    assert (
        "“board minutes.txt” is attached to the case. The run waits for a reviewer: it is "
        "given the document only if the reviewer sends the packet back and you reply" in page
    )
    assert "Attached after this run started: read only if a reviewer sends the packet" in page

    # The first run's packet waits for a sign-off; ended here as an operator would.
    assert do_request_cancel(first, analyst).status == Run.Status.CANCELLED
    page = client.get(response["Location"]).content.decode()
    assert "Attached after this run started: not read by it." in page
    client.post(reverse("runs-case-rerun", args=[case.pk]))
    second = Run.objects.filter(case=case).latest("id")
    assert second.state["brief"]["documents"] == [
        {"document_id": str(document.pk), "name": "board minutes.txt", "sensitive": True}
    ]


def test_a_refused_attachment_says_why_and_stores_nothing(client, case, analyst):
    client_for(client, analyst)
    response = attach(client, case, name="image.bin", content=b"\x00\x01binary")
    assert response.status_code == 400
    assert "errorlist" in response.content.decode()
    assert not case.documents.exists()
    missing = client.post(reverse("runs-case-attach-document", args=[case.pk]), {})
    assert missing.status_code == 400
    assert "Choose a file to attach first." in missing.content.decode()


def test_only_the_tenants_analysts_may_attach(client, case, reviewer, outsider):
    assert attach(client_for(client, reviewer), case).status_code == 403
    assert attach(client_for(client, outsider), case).status_code == 404
    assert not case.documents.exists()


# The run reads the document on a tool thread, with a connection of its own: the document
# must be committed, not inside the test's transaction.
@pytest.mark.django_db(transaction=True)
def test_the_packet_links_each_document_it_read(client, tenant, analyst):
    case = acme_case_with_document(tenant, analyst, "board minutes.txt", CONTENT)
    run = run_inline(do_start_run(case, analyst, wake=False))
    document = case.documents.get()
    packet = client_for(client, analyst).get(reverse("runs-packet", args=[run.pk])).content
    assert f'document <a class="mono" href="{download_url(document)}" download>' in packet.decode()
    assert "It begins: “Director: Jane Roe Passport: [REDACTED PASSPORT]”" in packet.decode()


def test_every_download_is_recorded_and_the_case_page_says_who_last_downloaded(
    client, analyst, reviewer
):
    document = open_case_with(client, analyst)
    client.get(download_url(document))
    client_for(client, reviewer).get(download_url(document))
    downloads = DocumentDownload.objects.filter(document=document).order_by("downloaded_at")
    assert [d.user for d in downloads] == [analyst, reviewer]
    page = client.get(reverse("runs-case-detail", args=[document.case_id])).content.decode()
    assert "Downloaded 2 times, last by Reviewer on" in page
    assert client.post(download_url(document)).status_code == 405
    head = client.head(download_url(document))  # asks about the file, does not receive it
    assert head.status_code == 200 and "attachment" in head["Content-Disposition"]
    assert DocumentDownload.objects.filter(document=document).count() == 2


# --- Personal data in an upload ---------------------------------------------------------


def test_personal_data_in_an_upload_is_named_and_an_unmarked_one_is_flagged(client, analyst):
    document = open_case_with(client, analyst)  # marked sensitive
    assert document.personal_data == ["passport number"]
    case = document.case
    attach(client, case, name="statement.txt", content=b"IBAN: GB29 NWBK 6016 1331 9268 19\n")
    unmarked = case.documents.get(original_name="statement.txt")
    assert unmarked.personal_data == ["IBAN"] and not unmarked.sensitive
    page = client.get(reverse("runs-case-detail", args=[case.pk])).content.decode()
    assert "“statement.txt” holds personal data (IBAN) but is not marked sensitive" in page
    assert "Holds personal data: IBAN. Not marked sensitive" in page
    assert "Holds personal data: passport number.</div>" in page
    clean = attach(client, case, name="minutes.txt", content=b"Board met on Monday.\n")
    assert "holds personal data" not in client.get(clean["Location"]).content.decode()


def test_an_analyst_marks_a_document_sensitive(client, tenant, analyst, reviewer, outsider):
    case = do_open_case(
        tenant=tenant, user=analyst, subject_name="Acme Analytics Ltd", subject_type="company"
    )
    client_for(client, analyst)
    attach(client, case, name="statement.txt", content=b"IBAN: GB29 NWBK 6016 1331 9268 19\n")
    document = case.documents.get()
    url = reverse("runs-document-mark-sensitive", args=[case.pk, document.pk])
    assert client_for(client, reviewer).post(url).status_code == 403
    assert client_for(client, outsider).post(url).status_code == 404
    document.refresh_from_db()
    assert not document.sensitive
    response = client_for(client, analyst).post(url, {"confirm": "yes"})
    assert response.status_code == 302
    document.refresh_from_db()
    assert document.sensitive
    page = client.get(response["Location"]).content.decode()
    assert "“statement.txt” is marked sensitive: the runs to come need a reviewer" in page
    assert "Mark sensitive" not in page
    assert document.sensitive_marked_by == analyst and document.sensitive_marked_at
    assert "Uploaded by Analyst on " in page and "; marked sensitive by Analyst on " in page
    run = run_inline(do_start_run(case, analyst, wake=False))
    item = ReviewItem.objects.get(run=run, kind=ReviewItem.Kind.APPROVAL)
    assert item.payload["tool_name"] == "extract_uploaded_document"


def test_a_mark_made_while_a_run_is_under_way_holds_its_extraction_for_approval(
    client, tenant, analyst
):
    case = acme_case_with_document(
        tenant, analyst, "statement.txt", b"IBAN: GB29 NWBK 6016 1331 9268 19\n"
    )
    run = do_start_run(case, analyst, wake=False)  # its brief: the document is not sensitive
    document = case.documents.get()
    client_for(client, analyst).post(
        reverse("runs-document-mark-sensitive", args=[case.pk, document.pk]), {"confirm": "yes"}
    )
    run = run_inline(run)
    assert (run.status, run.termination_reason) == ("awaiting_review", "awaiting_approval")
    item = ReviewItem.objects.get(run=run, kind=ReviewItem.Kind.APPROVAL)
    assert item.payload["tool_name"] == "extract_uploaded_document"
    assert "statement.txt is marked sensitive" in " ".join(item.payload["reasons"])
    assert TraceEvent.objects.filter(run=run, type="document_marked_sensitive").exists()
    page = client.get(reverse("runs-case-detail", args=[case.pk])).content.decode()
    assert "“statement.txt” was marked sensitive after the run started" in page


def extraction_waiting_for_approval(tenant, analyst, reviewer) -> ReviewItem:
    """A run whose extraction of its (unmarked) document waits for approval for its cost
    alone: every other call over the threshold is approved on the way."""
    tenant.approval_cost_threshold_usd = Decimal("0.025")  # extraction costs $0.03
    tenant.save(update_fields=["approval_cost_threshold_usd"])
    case = acme_case_with_document(
        tenant, analyst, "statement.txt", b"IBAN: GB29 NWBK 6016 1331 9268 19\n"
    )
    run = run_inline(do_start_run(case, analyst, wake=False))
    while True:
        item = ReviewItem.objects.get(
            run=run, kind=ReviewItem.Kind.APPROVAL, status=ReviewItem.Status.OPEN
        )
        if item.payload["tool_name"] == "extract_uploaded_document":
            return item
        do_decide(item, reviewer, True, "Screening is worth its cost.")
        run = run_inline(run)


# The tool reads the document on a helper thread, through its own connection.
@pytest.mark.django_db(transaction=True)
def test_a_mark_made_while_an_extraction_waits_for_approval_is_read_before_approving(
    client, tenant, analyst, reviewer
):
    item = extraction_waiting_for_approval(tenant, analyst, reviewer)
    assert (
        len(item.payload["reasons"]) == 1
        and "above the approval threshold" in (item.payload["reasons"][0])
    )
    queue = client_for(client, reviewer).get(reverse("reviews-queue")).content.decode()
    assert 'name="reasons_seen" value="1"' in queue
    document = item.case.documents.get()
    response = client_for(client, analyst).post(
        reverse("runs-document-mark-sensitive", args=[item.case_id, document.pk]),
        {"confirm": "yes"},
        follow=True,
    )
    assert "the approval waiting to extract it, requested before the mark, now says so" in (
        response.content.decode()
    )
    item.refresh_from_db()
    assert item.payload["reasons"][1:] == [
        "Document statement.txt is marked sensitive.",
        "It was marked by Analyst after this approval was requested.",
    ]
    queue = client_for(client, reviewer).get(reverse("reviews-queue")).content.decode()
    assert "It was marked by Analyst after this approval was requested." in queue

    # Approved from a page loaded before the mark: refused, the typed reason kept.
    decide = reverse("reviews-decide", args=[item.pk])
    form = {"decision": "approve", "reason": "Cheap enough.", "reasons_seen": "1"}
    client_for(client, reviewer)
    response = client.post(decide, form, headers={"HX-Request": "true"})
    page = response.content.decode()  # the row again, with the error (htmx swaps 2xx only)
    assert "Not approved: since this page was loaded, approval is also needed because " in page
    assert 'value="Cheap enough."' in page and 'name="reasons_seen" value="3"' in page
    item.refresh_from_db()
    assert item.status == ReviewItem.Status.OPEN

    # A request that does not say what its page showed is taken to have seen nothing.
    response = client.post(
        decide, {"decision": "approve", "reason": "Cheap enough."}, headers={"HX-Request": "true"}
    )
    assert "approval is also needed because Estimated cost $" in response.content.decode()
    item.refresh_from_db()
    assert item.status == ReviewItem.Status.OPEN

    response = client.post(decide, {**form, "reasons_seen": "3"}, headers={"HX-Request": "true"})
    assert "Not approved" not in response.content.decode()
    run = run_inline(Run.objects.get(pk=item.run_id))
    types = list(TraceEvent.objects.filter(run=run).order_by("seq").values_list("type", flat=True))
    granted = len(types) - 1 - types[::-1].index("approval_granted")
    assert types[granted + 1 : granted + 4] == [
        "run_resumed",
        "document_marked_sensitive",
        "tool_started",
    ]
    assert f"extract:{document.pk}" in run.state["completed_steps"]


def test_a_denial_stands_whatever_was_added_since_the_page_was_loaded(
    client, tenant, analyst, reviewer
):
    item = extraction_waiting_for_approval(tenant, analyst, reviewer)
    do_mark_sensitive(item.case.documents.get(), analyst)
    response = client_for(client, reviewer).post(
        reverse("reviews-decide", args=[item.pk]),
        {"decision": "deny", "reason": "Not needed.", "reasons_seen": "1"},
    )
    assert response.status_code == 302
    item.refresh_from_db()
    assert item.status == ReviewItem.Status.DECIDED


# The tool reads the document on a helper thread, through its own connection.
@pytest.mark.django_db(transaction=True)
def test_a_mark_made_after_a_run_read_the_document_says_so(client, tenant, analyst):
    case = acme_case_with_document(
        tenant, analyst, "statement.txt", b"IBAN: GB29 NWBK 6016 1331 9268 19\n"
    )
    run = run_inline(do_start_run(case, analyst, wake=False))
    document = case.documents.get()
    assert f"extract:{document.pk}" in run.state["completed_steps"]
    response = client_for(client, analyst).post(
        reverse("runs-document-mark-sensitive", args=[case.pk, document.pk]),
        {"confirm": "yes"},
        follow=True,
    )
    assert f"Run {run.pk} read it before it was marked, without an approval" in (
        response.content.decode()
    )


def test_the_same_file_attached_twice_is_refused_and_named(client, tenant, analyst):
    case = do_open_case(
        tenant=tenant, user=analyst, subject_name="Acme Analytics Ltd", subject_type="company"
    )
    client_for(client, analyst)
    assert attach(client, case, name="notes.txt").status_code == 302
    again = attach(client, case, name="notes (copy).txt")
    assert again.status_code == 400
    assert "This file is already attached to the case as “notes.txt”" in again.content.decode()
    assert case.documents.count() == 1
    assert (
        attach(client, case, name="other.txt", content=b"Directors: John Doe\n").status_code == 302
    )


def test_attaching_while_the_run_asks_warns_when_it_has_too_few_iterations_left(
    client, tenant, analyst
):
    from tests.review_runs import question_item

    item = question_item(tenant, analyst)
    client_for(client, analyst)
    page = client.get(attach(client, item.case)["Location"]).content.decode()
    assert "The run reads it once you answer its question." in page
    assert "iterations left, too few" not in page
    run = Run.objects.get(pk=item.run_id)
    Run.objects.filter(pk=run.pk).update(iterations=run.budgets["max_iterations"] - 1)
    response = attach(client, item.case, name="register.txt", content=b"Directors: John Doe\n")
    page = client.get(response["Location"]).content.decode()
    assert (
        "Note: the run has 1 iteration left, too few to read the 2 documents it has not read "
        "and finish; a reviewer will be asked to extend its budget." in page
    )


def test_attaching_while_the_run_asks_warns_of_its_other_budgets_nearly_used(
    client, tenant, analyst
):
    from tests.review_runs import question_item

    item = question_item(tenant, analyst)
    client_for(client, analyst)
    page = client.get(attach(client, item.case)["Location"]).content.decode()
    assert "used most of its budget" not in page
    run = Run.objects.get(pk=item.run_id)
    Run.objects.filter(pk=run.pk).update(tokens=int(run.budgets["max_tokens"]) - 1)
    response = attach(client, item.case, name="register.txt", content=b"Directors: John Doe\n")
    page = client.get(response["Location"]).content.decode()
    assert "Note: the run has used most of its budget (tokens " in page
    assert "a reviewer will then be asked to extend it." in page
    assert "iterations left, too few" not in page
