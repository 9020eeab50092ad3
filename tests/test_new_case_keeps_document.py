"""A new-case form refused for a reason other than its document keeps the document: a
browser cannot fill a file input in again, so the checked file waits on the server for the
analyst who chose it, and is attached when the form is finally accepted."""

from __future__ import annotations

import datetime as dt
import os
import re

import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from django.utils import timezone

from runs.models import Case, Document, Membership, PendingUpload
from runs.sweep import clear_expired_pending_uploads
from tests.conftest import client_for

CONTENT = b"Acme Analytics Ltd\nDirector: Jane Roe\n" * 300
SUBJECT = {"subject_name": "Acme Analytics", "subject_type": "company", "jurisdiction": "GB"}


def report() -> SimpleUploadedFile:
    return SimpleUploadedFile("report.txt", CONTENT, "text/plain")


def kept_token(page: str) -> str:
    found = re.search(r'name="kept_document" value="([^"]+)"', page)
    assert found, "the form carries no kept document"
    return found.group(1)


def open_first_case(client) -> Case:
    client.post(reverse("runs-case-new"), {**SUBJECT, "form_token": "first"})
    return Case.objects.get()


def refused_as_a_duplicate(client, status: int = 409) -> str:
    """The same subject again within minutes, with a document ticked sensitive."""
    response = client.post(
        reverse("runs-case-new"),
        {**SUBJECT, "form_token": "second", "document": report(), "document_sensitive": "on"},
    )
    assert response.status_code == status
    return response.content.decode()


def test_a_document_sent_with_a_duplicate_warning_is_attached_when_confirmed(client, analyst):
    client_for(client, analyst)
    open_first_case(client)
    page = refused_as_a_duplicate(client)
    assert "was not kept" not in page
    assert "report.txt (kept, 11.1\xa0KB)" in page
    assert re.search(r'name="document_sensitive"[^>]* checked', page)
    assert not Document.objects.exists()

    confirmed = client.post(
        reverse("runs-case-new"),
        {
            **SUBJECT,
            "form_token": "second",
            "open_another": "1",
            "document_sensitive": "on",
            "kept_document": kept_token(page),
        },
    )
    assert confirmed.status_code == 302
    second = Case.objects.order_by("-pk").first()
    document = Document.objects.get()
    assert document.case == second and document.original_name == "report.txt"
    assert document.sensitive and document.uploaded_by == analyst
    assert document.file.read() == CONTENT
    assert not PendingUpload.objects.exists()


def test_a_document_sent_with_a_bad_field_elsewhere_is_kept(client, analyst):
    client_for(client, analyst)
    refused = client.post(
        reverse("runs-case-new"), {**SUBJECT, "jurisdiction": "G1", "document": report()}
    )
    page = refused.content.decode()
    assert refused.status_code == 400 and "two-letter country code" in page
    assert "“report.txt” is kept" in page
    accepted = client.post(reverse("runs-case-new"), {**SUBJECT, "kept_document": kept_token(page)})
    assert accepted.status_code == 302
    assert Document.objects.get().case == Case.objects.get()


def test_a_refused_file_is_still_refused_and_not_kept(client, analyst, settings):
    settings.ATLAS_UPLOAD_MAX_BYTES = 100
    client_for(client, analyst)
    open_first_case(client)
    page = refused_as_a_duplicate(client, status=400)  # the file is checked first
    assert "“report.txt” is 11,400 bytes; the limit is 100 bytes" in page
    assert "The document “report.txt” was refused" in page
    assert 'name="kept_document"' not in page
    assert not PendingUpload.objects.exists()


def test_a_removed_document_is_not_attached(client, analyst):
    client_for(client, analyst)
    open_first_case(client)
    token = kept_token(refused_as_a_duplicate(client))
    confirmed = client.post(
        reverse("runs-case-new"),
        {**SUBJECT, "open_another": "1", "kept_document": token, "remove_kept_document": "1"},
    )
    assert confirmed.status_code == 302 and Case.objects.count() == 2
    assert not Document.objects.exists() and not PendingUpload.objects.exists()


def second_analyst(tenant):
    user = get_user_model().objects.create_user(username="analyst2", first_name="Analyst2")
    Membership.objects.create(user=user, tenant=tenant, role=Membership.Role.ANALYST)
    return user


@pytest.mark.parametrize("who", ["colleague", "outsider"])
def test_another_persons_token_finds_nothing(client, analyst, outsider, tenant, who):
    client_for(client, analyst)
    open_first_case(client)
    token = kept_token(refused_as_a_duplicate(client))
    other = outsider if who == "outsider" else second_analyst(tenant)
    client.force_login(other)
    response = client.post(
        reverse("runs-case-new"),
        {**SUBJECT, "subject_name": "Other Co", "open_another": "1", "kept_document": token},
    )
    assert response.status_code == 400  # the form again, with what was typed
    page = response.content.decode()
    assert "No document is kept for you under this form" in page and 'value="Other Co"' in page
    assert not Document.objects.exists()
    assert Case.objects.count() == 1  # the analyst's first case only
    assert PendingUpload.objects.get().user == analyst  # still the analyst's to use


def test_a_forged_token_finds_nothing(client, analyst):
    client_for(client, analyst)
    response = client.post(
        reverse("runs-case-new"), {**SUBJECT, "kept_document": "1:forged:signature"}
    )
    assert response.status_code == 400 and not Case.objects.exists()
    assert "No document is kept for you under this form" in response.content.decode()


def test_an_expired_document_is_refused_with_a_clear_message(client, analyst):
    client_for(client, analyst)
    open_first_case(client)
    token = kept_token(refused_as_a_duplicate(client))
    PendingUpload.objects.update(created_at=timezone.now() - dt.timedelta(hours=1, minutes=1))
    response = client.post(
        reverse("runs-case-new"), {**SUBJECT, "open_another": "1", "kept_document": token}
    )
    page = response.content.decode()
    assert response.status_code == 400
    assert (
        "“report.txt” was kept for an hour after the form was first sent, and that hour is "
        "over: choose the file again." in page
    )
    assert Case.objects.count() == 1 and not Document.objects.exists()
    assert not PendingUpload.objects.exists()


def test_a_token_whose_document_was_swept_says_it_expired(client, analyst):
    client_for(client, analyst)
    open_first_case(client)
    token = kept_token(refused_as_a_duplicate(client))
    pending = PendingUpload.objects.get()
    stored = pending.file.path
    PendingUpload.objects.update(created_at=timezone.now() - dt.timedelta(hours=2))
    assert clear_expired_pending_uploads() == 1
    assert not PendingUpload.objects.exists()
    assert not os.path.exists(stored)
    response = client.post(
        reverse("runs-case-new"), {**SUBJECT, "open_another": "1", "kept_document": token}
    )
    assert response.status_code == 400
    assert "The document you chose was kept for an hour" in response.content.decode()
    assert Case.objects.count() == 1


def test_the_sweep_leaves_a_fresh_kept_document(client, analyst):
    client_for(client, analyst)
    open_first_case(client)
    refused_as_a_duplicate(client)
    assert clear_expired_pending_uploads() == 0
    assert PendingUpload.objects.count() == 1


def test_another_file_chosen_replaces_the_kept_one(client, analyst):
    client_for(client, analyst)
    open_first_case(client)
    token = kept_token(refused_as_a_duplicate(client))
    replacement = SimpleUploadedFile("filing.txt", b"Registered office: London\n", "text/plain")
    confirmed = client.post(
        reverse("runs-case-new"),
        {**SUBJECT, "open_another": "1", "kept_document": token, "document": replacement},
    )
    assert confirmed.status_code == 302
    assert Document.objects.get().original_name == "filing.txt"
    assert not PendingUpload.objects.exists()


def test_an_attached_kept_document_leaves_no_empty_folders_behind(client, analyst, settings):
    from pathlib import Path

    client_for(client, analyst)
    open_first_case(client)
    token = kept_token(refused_as_a_duplicate(client))
    pending = Path(settings.MEDIA_ROOT) / "pending"
    assert any(path.is_file() for path in pending.rglob("*"))
    client.post(reverse("runs-case-new"), {**SUBJECT, "open_another": "1", "kept_document": token})
    assert Document.objects.exists()
    assert not any(pending.rglob("*"))
