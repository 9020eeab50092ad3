"""Uploaded documents' names and case notes (and a correction's reason and changes, which
quote the notes) are shown redacted in the Django admin, on list pages, detail pages and
search results, like every other field that can hold personal data; and the admin's search
matches identifiers, codes and e-mail addresses as a person means them."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from reviews.models import ReviewItem
from runs.actions import do_correct_subject
from runs.models import Case, CaseEdit, Document, DocumentDownload, PendingUpload, ToolCall
from tests.admin_pages import admin_url
from tests.case_rows import document_row
from tests.run_rows import add_tool_call, make_run

pytestmark = pytest.mark.django_db

PASSPORT = "123456789"
DOCUMENT_NAME = f"passport {PASSPORT}.pdf"
BIRTH = "02/11/1968"
NOTES = f"Director's date of birth: {BIRTH}, passport number K7654321"
PERSONAL_DATA = (PASSPORT, BIRTH, "K7654321")
NOTE = "Personal data redacted on this page"
SHA256 = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"


@pytest.fixture
def document(case, analyst) -> Document:
    document = document_row(case, analyst, DOCUMENT_NAME)
    Document.objects.filter(pk=document.pk).update(sha256=SHA256)
    DocumentDownload.objects.create(document=document, user=analyst)
    PendingUpload.objects.create(
        tenant=case.tenant,
        user=analyst,
        file=f"pending/{DOCUMENT_NAME}",
        original_name=DOCUMENT_NAME,
        content_type="application/pdf",
        size=10,
        sha256="ab" * 32,
    )
    return document


@pytest.fixture
def correction(case, analyst) -> CaseEdit:
    """The case's notes written in a correction of its subject, with a reason."""
    subject = {
        "subject_name": case.subject_name,
        "subject_type": case.subject_type,
        "jurisdiction": case.jurisdiction,
        "notes": NOTES,
    }
    edit, _ = do_correct_subject(case, analyst, subject, f"Notes from passport {PASSPORT}")
    return edit


def pages_of(document: Document, correction: CaseEdit) -> list[str]:
    download = DocumentDownload.objects.get(document=document)
    pending = PendingUpload.objects.get()
    pages = [admin_url(Case, "change", document.case_id)]
    for model, row in (
        (Document, document),
        (DocumentDownload, download),
        (PendingUpload, pending),
        (CaseEdit, correction),
    ):
        pages += [
            admin_url(model, "changelist"),
            admin_url(model, "change", row.pk),
            admin_url(model, "history", row.pk),
        ]
    return pages


def assert_redacted(page: str, url: str) -> None:
    for value in PERSONAL_DATA:
        assert value not in page, (value, url)


@pytest.mark.parametrize("who", ["admin_user", "root"])
def test_document_names_and_case_notes_are_shown_redacted_to_every_admin(
    client, document, correction, who, request
):
    client.force_login(request.getfixturevalue(who))
    for url in pages_of(document, correction):
        response = client.get(url)
        assert response.status_code == 200, url
        page = response.content.decode()
        assert_redacted(page, url)
        if "history" not in url:
            assert NOTE in page, url
    document_page = client.get(admin_url(Document, "change", document.pk)).content.decode()
    assert "passport [REDACTED PASSPORT].pdf" in document_page
    case_page = client.get(admin_url(Case, "change", document.case_id)).content.decode()
    assert "Director&#x27;s date of birth: [REDACTED DOB]" in case_page
    if who == "root":  # the case's documents are listed on it for a superuser
        assert case_page.count("passport [REDACTED PASSPORT].pdf") == 2  # the row's title too


def test_search_results_show_names_redacted_and_no_row_is_found_by_personal_data(
    client, admin_user, document, correction
):
    client.force_login(admin_user)
    found = client.get(admin_url(Document, "changelist"), {"q": "passport"}).content.decode()
    assert admin_url(Document, "change", document.pk) in found
    assert "passport [REDACTED PASSPORT].pdf" in found
    assert_redacted(found, "search for a word")
    rows = {
        Document: admin_url(Document, "change", document.pk),
        DocumentDownload: admin_url(DocumentDownload, "change", document.downloads.get().pk),
        PendingUpload: admin_url(PendingUpload, "change", PendingUpload.objects.get().pk),
        Case: admin_url(Case, "change", document.case_id),
        CaseEdit: admin_url(CaseEdit, "change", correction.pk),
    }
    for model, row in rows.items():
        for term in (PASSPORT, "1968"):
            page = client.get(admin_url(model, "changelist"), {"q": term}).content.decode()
            assert row not in page, (model, term)


def test_an_email_address_is_found_whole_not_by_its_domain(client, root, analyst):
    analyst.email = "colin.marsh@example.com"
    analyst.save(update_fields=["email"])
    client.force_login(root)
    accounts = admin_url(get_user_model(), "changelist")
    row = admin_url(get_user_model(), "change", analyst.pk)
    assert row not in client.get(accounts, {"q": "example"}).content.decode()
    assert row in client.get(accounts, {"q": "Colin.Marsh@example.com"}).content.decode()
    assert row in client.get(accounts, {"q": "anal"}).content.decode()


def test_codes_hashes_and_keys_match_as_a_person_means_them(client, admin_user, case, document):
    client.force_login(admin_user)
    case_row = admin_url(Case, "change", case.pk)
    assert case_row in client.get(admin_url(Case, "changelist"), {"q": "gb"}).content.decode()
    assert case_row not in client.get(admin_url(Case, "changelist"), {"q": "b"}).content.decode()
    document_list = admin_url(Document, "changelist")
    document_page = admin_url(Document, "change", document.pk)
    start, middle = SHA256[:12], SHA256[4:16]
    assert document_page in client.get(document_list, {"q": start}).content.decode()
    assert document_page not in client.get(document_list, {"q": middle}).content.decode()
    run = make_run(case)
    call = add_tool_call(run, 1, "screen_sanctions", key=f"{run.pk}:1:{SHA256[:16]}")
    item = ReviewItem.objects.create(
        tenant=case.tenant,
        case=case,
        run=run,
        kind="approval",
        key=f"{run.pk}:act:1",
        summary="Approve a sanctions screening",
        requested_at=run.created_at,
    )
    calls = admin_url(ToolCall, "changelist")
    call_row = admin_url(ToolCall, "change", call.pk)
    assert call_row in client.get(calls, {"q": call.idempotency_key}).content.decode()
    assert call_row not in client.get(calls, {"q": call.idempotency_key[:-2]}).content.decode()
    items = admin_url(ReviewItem, "changelist")
    item_row = admin_url(ReviewItem, "change", item.pk)
    assert item_row in client.get(items, {"q": item.key}).content.decode()
    assert item_row not in client.get(items, {"q": "act"}).content.decode()
