"""The new-case form's file input says, to a screen reader too, that a document is already
kept for it: a browser shows a refilled form's file input as empty."""

from __future__ import annotations

import re

from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from tests.conftest import client_for


def _file_input(page: str) -> str:
    found = re.search(r'<input type="file"[^>]*>', page)
    assert found, "the form has no file input"
    return found.group(0)


def test_the_file_input_is_described_by_the_document_kept_for_it(client, analyst):
    client_for(client, analyst)
    response = client.post(
        reverse("runs-case-new"),
        {
            "subject_name": "",
            "subject_type": "company",
            "form_token": "first",
            "document": SimpleUploadedFile("report.txt", b"Director: Jane Roe\n", "text/plain"),
        },
    )
    assert response.status_code == 400
    page = response.content.decode()
    assert 'id="kept-document"' in page

    file_input = _file_input(page)
    described_by = re.search(r'aria-describedby="([^"]+)"', file_input).group(1).split()
    assert described_by == ["id_document_helptext", "kept-document"]
    assert 'name="document"' in file_input and 'id="id_document"' in file_input


def test_with_nothing_kept_the_file_input_is_described_by_its_help_alone(client, analyst):
    client_for(client, analyst)
    page = client.get(reverse("runs-case-new")).content.decode()
    assert 'aria-describedby="id_document_helptext"' in _file_input(page)
