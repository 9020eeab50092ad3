"""In Chromium: a document chosen on a new-case form that warns of a duplicate is kept, and
attached, still marked sensitive, once the analyst confirms."""

from __future__ import annotations

import pytest
from django.urls import reverse

from runs.models import Case, Document
from tests.conftest import login_in_browser, screenshot
from tests.live_server import atlas_server  # noqa: F401 - the fixture

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_duplicate_warning_keeps_the_document_until_the_analyst_confirms(
    atlas_server,  # noqa: F811
    page,
    analyst,
    tenant,
):
    Case.objects.create(
        tenant=tenant,
        subject_name="Acme Analytics",
        subject_type="company",
        jurisdiction="GB",
        created_by=analyst,
    )
    login_in_browser(page, atlas_server.url, "analyst")
    page.goto(atlas_server.url + reverse("runs-case-new"))
    page.fill("#id_subject_name", "Acme Analytics")
    page.fill("#id_jurisdiction", "GB")
    page.set_input_files(
        "#id_document",
        files=[{"name": "report.txt", "mimeType": "text/plain", "buffer": b"Director: Jane Roe\n"}],
    )
    page.check("#id_document_sensitive")
    page.click("button[type=submit].primary")

    page.wait_for_selector("text=You opened a case on Acme Analytics")
    assert page.locator("#kept-document").inner_text().startswith("report.txt (kept, 19\xa0bytes)")
    assert page.is_checked("#id_document_sensitive")
    assert "was not kept" not in page.content()
    screenshot(page, "case-new-kept-document")

    page.check("input[name=open_another]")
    page.click("button[type=submit].primary")
    page.wait_for_url("**/cases/*/")
    opened = Case.objects.order_by("-pk").first()
    assert page.url.endswith(reverse("runs-case-detail", args=[opened.pk]))
    document = Document.objects.get()
    assert document.case == opened and document.original_name == "report.txt"
    assert document.sensitive
