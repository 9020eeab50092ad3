from __future__ import annotations

import logging

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from runs.forms import CaseForm
from runs.models import Case, Document
from runs.uploads import stored_file_name
from tests.case_rows import acme_case_with_document
from tests.mrz import passport_zone
from tests.runtime.runtime_helpers import minimal_pdf


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
        SimpleUploadedFile(
            "report.bin",
            minimal_pdf("Directors: Jane Roe"),
            content_type="application/octet-stream",
        )
    )
    assert form.is_valid(), form.errors
    assert form.checked_upload.content_type == "application/pdf"
    assert form.cleaned_data["jurisdiction"] == "GB"


def test_a_bad_jurisdiction_is_explained(db):
    form = CaseForm(data={"subject_name": "Acme", "subject_type": "company", "jurisdiction": "G1"})
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


def test_a_file_that_only_starts_like_a_pdf_is_refused_at_upload(db):
    form = _form(SimpleUploadedFile("minutes.pdf", b"%PDF-1.4\nnot really a pdf"))
    assert not form.is_valid()
    assert "could not be read as a PDF" in form.errors["document"][0]


def test_a_pdf_that_expands_beyond_what_is_read_is_refused_at_upload(db):
    # 80 MB of page content in about 80 KB: past pypdf's limit on what it decompresses.
    bomb = minimal_pdf("Directors: Jane Roe", padding=80_000_000)
    assert len(bomb) < 200_000
    form = _form(SimpleUploadedFile("filing.pdf", bomb))
    assert not form.is_valid()
    assert "expands, once decompressed, to more than Atlas reads" in form.errors["document"][0]
    assert _form(
        SimpleUploadedFile("filing.pdf", minimal_pdf("Directors: Jane Roe", padding=1000))
    ).is_valid()


def test_a_cut_off_pdf_is_refused_without_pypdf_logging_its_own_complaint(db, caplog):
    pdf = minimal_pdf("Directors: Jane Roe")
    level = logging.getLogger("pypdf").level
    with caplog.at_level(logging.DEBUG):
        form = _form(SimpleUploadedFile("filing.pdf", pdf[: len(pdf) // 2]))
        assert not form.is_valid()
    assert "could not be read as a PDF" in form.errors["document"][0]
    assert [r.getMessage() for r in caplog.records if r.name.startswith("pypdf")] == []
    assert logging.getLogger("pypdf").level == level


def test_a_pdf_locked_with_a_password_is_refused_at_upload(db):
    import io

    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(minimal_pdf("Passport 123456789"))))
    writer.encrypt(user_password="secret", algorithm="AES-256")
    locked = io.BytesIO()
    writer.write(locked)
    form = _form(SimpleUploadedFile("statement.pdf", locked.getvalue()))
    assert not form.is_valid()
    assert "password-protected" in form.errors["document"][0]


def test_a_long_file_name_is_kept_whole_and_stored_under_a_short_one(client, analyst):
    from tests.conftest import client_for

    name = "board minutes " + "a" * 240 + ".txt"
    upload = SimpleUploadedFile(name, b"Directors: Jane Roe", content_type="text/plain")
    response = client_for(client, analyst).post(
        "/cases/new/",
        {
            "subject_name": "Acme Widgets",
            "subject_type": "company",
            "jurisdiction": "GB",
            "notes": "",
            "document": upload,
        },
    )
    assert response.status_code == 302
    document = Case.objects.get().documents.get()
    assert document.original_name == name[:251] + ".txt"  # 255 characters, type kept
    stored = document.file.name.rsplit("/", 1)[-1]
    assert len(stored.encode()) < 120 and stored.endswith(".txt")
    with document.file.open("rb") as handle:
        assert handle.read() == b"Directors: Jane Roe"


@pytest.mark.parametrize("name", ["..", "/", "..\\..\\", "", "\u202e.txt"])
def test_a_name_with_nothing_usable_is_stored_under_a_plain_one(name):
    stored = stored_file_name(name)
    assert stored and "/" not in stored and "\\" not in stored and stored not in (".", "..")


# The tool reads the document on a helper thread, through its own connection.
@pytest.mark.django_db(transaction=True)
def test_a_document_whose_file_this_worker_cannot_read_is_a_gap_in_the_packet(
    tenant, analyst, caplog
):
    """A worker without the shared MEDIA_ROOT: the call fails in plain words (no server
    path reaches the model or the trace), is not retried as if the failure were passing,
    and the packet says which document was not read."""
    from runs.actions import do_start_run
    from runs.execution import run_inline

    case = acme_case_with_document(tenant, analyst, "kyc_note.txt", b"Director: Jane Roe")
    document = Document.objects.get(case=case)
    path = document.file.path
    document.file.storage.delete(document.file.name)
    run = run_inline(do_start_run(case, analyst, wake=False))
    assert (run.status, run.termination_reason) == ("awaiting_review", "finish_proposed")
    failures = [e.data for e in run.events.filter(type="tool_failed")]
    assert failures and all(
        (f["error_type"], f["retryable"], f["attempt"]) == ("document_unavailable", False, 1)
        for f in failures
    )
    assert failures[0]["message"] == "The file of “kyc_note.txt” cannot be read from storage."
    assert path not in str(list(run.events.values_list("data", flat=True)))
    # The gateway does not retry it; the playbook asks once more, then gives up on it.
    reads = run.events.filter(type="tool_started", data__tool="extract_uploaded_document")
    assert reads.count() == 2
    assert (
        "Uploaded document “kyc_note.txt” was not read."
        in run.state["proposed_packet"]["open_gaps"]
    )
    assert any(path in record.getMessage() for record in caplog.records)  # for operators


def test_personal_data_is_found_in_a_pdfs_text_too(db, tenant, analyst):
    pdf = minimal_pdf("Passport number: X1234567")
    case = acme_case_with_document(tenant, analyst, "scan.pdf", pdf)
    assert case.documents.get().personal_data == ["passport number"]


def test_a_passports_machine_readable_zone_is_found_as_personal_data(db, tenant, analyst):
    zone = passport_zone("Rahimi", "Farhad", "IRN", "K12345678", "790312")
    case = acme_case_with_document(tenant, analyst, "passport.txt", f"PASSPORT\n{zone}".encode())
    assert case.documents.get().personal_data == ["passport number", "date of birth"]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("Café Müller, Geschäftsführer: Jürgen Groß\n".encode("cp1252"), "in Windows Latin-1"),
        ("Director: Jane Roe\n".encode("utf-16"), "in UTF-16"),
        # Latin-1 with a few bytes cp1252 leaves undefined (a file cut and pasted together).
        (
            "Café Müller, Geschäftsführer: Jürgen Groß\n".encode("cp1252") + b"\x81\x8d\n" * 2,
            "in Windows Latin-1",
        ),
        # UTF-8 but for one stray byte near the start: where it is.
        (
            "Director: José Müller\n".encode() + b"\xff" + b"Secretary: Ana Roe\n" * 4,
            "byte 24 is not",
        ),
    ],
    ids=["latin-1", "utf-16", "latin-1-with-undefined-bytes", "utf-8-with-a-stray-byte"],
)
def test_text_that_is_not_utf8_is_named_as_text_and_the_fix_is_given(db, content, message):
    form = _form(SimpleUploadedFile("notes.txt", content))
    assert not form.is_valid()
    error = form.errors["document"][0]
    assert message in error and "Save it as UTF-8 text" in error


def test_binary_junk_is_still_not_text(db):
    form = _form(SimpleUploadedFile("junk.txt", bytes(range(256)) * 4))
    assert "is not a PDF or plain-text file" in form.errors["document"][0]


def test_a_pdf_with_no_text_is_refused_as_a_scan(db):
    form = _form(SimpleUploadedFile("scan.pdf", minimal_pdf("")))
    assert not form.is_valid()
    assert "has no text to read: its pages look like scanned images" in (form.errors["document"][0])


@pytest.mark.parametrize(
    ("typed", "code"),
    [
        ("United Kingdom", "GB"),
        ("  singapore ", "SG"),
        ("DEU", "DE"),
        ("UK", "GB"),
        ("Russia", "RU"),
        ("BVI", "VG"),
        ("Burma", "MM"),
        ("Delaware", "US"),
        ("Georgia", "GE"),
    ],
)
def test_a_country_named_instead_of_coded_is_read_as_its_code(db, typed, code):
    form = CaseForm(data={"subject_name": "Acme", "subject_type": "company", "jurisdiction": typed})
    assert form.is_valid(), form.errors
    assert form.cleaned_data["jurisdiction"] == code
    assert 'maxlength="100"' in str(form["jurisdiction"])  # a name is not cut while typed


@pytest.mark.parametrize("typed", ["Narnia", "826"])
def test_an_unknown_country_is_named_in_the_error(db, typed):
    form = CaseForm(data={"subject_name": "Acme", "subject_type": "company", "jurisdiction": typed})
    assert f"“{typed}” is not a country Atlas knows" in form.errors["jurisdiction"][0]


@pytest.mark.parametrize(("typed", "codes"), [("Korea", "KR or KP"), ("congo", "CG or CD")])
def test_a_name_of_more_than_one_country_asks_for_the_code(db, typed, codes):
    form = CaseForm(data={"subject_name": "Acme", "subject_type": "company", "jurisdiction": typed})
    assert form.errors["jurisdiction"] == [
        f"“{typed}” names more than one country: use its code ({codes})."
    ]


def test_latin1_text_after_the_first_kilobytes_is_refused_too(db):
    content = b"Board minutes. " * 400 + "Directors: José Müller\n".encode("latin-1")
    form = _form(SimpleUploadedFile("minutes.txt", content))
    assert not form.is_valid()
    assert "is not all UTF-8 text: byte 6,014 is not" in form.errors["document"][0]
