"""Plain-text uploads as editors save them: blank files, UTF-16 without its mark, and personal
data written in odd ways, which the case page must still name."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from runs.forms import DocumentForm
from runs.models import Document
from tests.conftest import client_for

pytestmark = pytest.mark.django_db


def _form_errors(name: str, content: bytes) -> list[str]:
    form = DocumentForm(data={}, files={"document": SimpleUploadedFile(name, content)})
    assert not form.is_valid()
    return form.errors["document"]


@pytest.mark.parametrize("content", [b"   \n\n\t\r\n", "\ufeff\n".encode()], ids=["blank", "bom"])
def test_a_text_file_of_blank_space_is_refused_as_having_no_text(content):
    # A scanned PDF with no text is refused; a blank text file was attached and read as nothing.
    assert _form_errors("notes.txt", content) == [
        "“notes.txt” holds only blank space: it has no text to read."
    ]


@pytest.mark.parametrize("encoding", ["utf-16-le", "utf-16-be"])
def test_utf16_without_its_byte_order_mark_is_named_as_utf16(encoding):
    content = "Company: Acme Analytics Ltd\nDirectors: José Müller\n".encode(encoding)
    [error] = _form_errors("minutes.txt", content)
    assert error.startswith("“minutes.txt” is text, but in UTF-16, not UTF-8.")


def test_binary_data_with_zero_bytes_is_still_not_text():
    png = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x01\x00" + bytes(range(256)) * 8
    [error] = _form_errors("scan.txt", png)
    assert "is not a PDF or plain-text file" in error


def test_personal_data_written_in_odd_ways_is_named_on_the_case_page(client, case, analyst):
    client_for(client, analyst)
    content = (
        b"Directors: Jane Roe\n"
        b"| Passport | P1234567 |\n"
        b"IBAN: gb29 nwbk 6016 1331 9268 19\n"
        b"Account numbers: 12345678, 87654321\n"
    )
    response = client.post(
        reverse("runs-case-attach-document", args=[case.pk]),
        {"document": SimpleUploadedFile("statement.txt", content, "text/plain")},
    )
    assert response.status_code == 302
    document = Document.objects.get(case=case)
    assert document.personal_data == ["IBAN", "passport number", "account number"]
    page = client.get(response["Location"]).content.decode()
    assert "holds personal data (IBAN, passport number, account number)" in page
