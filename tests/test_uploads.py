from __future__ import annotations

from django.core.files.uploadedfile import SimpleUploadedFile

from runs.forms import CaseForm
from runs.models import Document


def _form(upload):
    data = {
        "subject_name": "Acme Widgets Ltd",
        "subject_type": "company",
        "jurisdiction": "gb",
        "notes": "",
    }
    return CaseForm(data=data, files={"document": upload} if upload else {})


def test_a_too_big_upload_is_refused_with_its_size(db, settings):
    settings.ATLAS_UPLOAD_MAX_BYTES = 1024
    form = _form(SimpleUploadedFile("big.txt", b"a" * 2048, content_type="text/plain"))
    assert not form.is_valid()
    assert "the limit is 1,024 bytes" in form.errors["document"][0]
    assert Document.objects.count() == 0


def test_a_file_that_is_not_pdf_or_text_is_refused_whatever_it_claims(db):
    png = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"
    form = _form(SimpleUploadedFile("passport.pdf", png, content_type="application/pdf"))
    assert not form.is_valid()
    assert "not a PDF or plain-text file" in form.errors["document"][0]


def test_an_empty_file_is_refused(db):
    form = _form(SimpleUploadedFile("empty.txt", b"", content_type="text/plain"))
    assert not form.is_valid()


def test_a_pdf_is_accepted_by_its_content(db):
    form = _form(
        SimpleUploadedFile("report.bin", b"%PDF-1.4\n...", content_type="application/octet-stream")
    )
    assert form.is_valid(), form.errors
    assert form.checked_upload.content_type == "application/pdf"
    assert form.cleaned_data["jurisdiction"] == "GB"


def test_a_bad_jurisdiction_is_explained(db):
    form = CaseForm(data={"subject_name": "Acme", "subject_type": "company", "jurisdiction": "GBR"})
    assert not form.is_valid()
    assert "two-letter country code" in form.errors["jurisdiction"][0]


def test_a_storage_failure_leaves_neither_a_case_nor_a_file(
    db, tenant, analyst, settings, monkeypatch
):
    import pytest
    from django.core.files.storage import FileSystemStorage

    from runs.actions import do_open_case
    from runs.models import Case

    def broken_save(self, name, content, max_length=None):
        raise OSError("disk full")

    monkeypatch.setattr(FileSystemStorage, "save", broken_save)
    upload = SimpleUploadedFile("note.txt", b"Passport 123", content_type="text/plain")
    with pytest.raises(OSError):
        do_open_case(
            tenant=tenant, user=analyst, subject_name="Acme", subject_type="company", upload=upload
        )
    assert not Case.objects.exists() and not Document.objects.exists()
