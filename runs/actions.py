"""The only code that creates cases and changes a run's status from outside the worker."""

from __future__ import annotations

from django.core.files.uploadedfile import UploadedFile
from django.db import transaction

from runs.models import Case, Document, Tenant
from runs.uploads import CheckedUpload, check_upload


def do_attach_document(
    case: Case,
    upload: UploadedFile,
    *,
    user,
    sensitive: bool = False,
    checked: CheckedUpload | None = None,
) -> Document:
    checked = checked or check_upload(upload)
    document = Document(
        case=case,
        original_name=upload.name[:255],
        content_type=checked.content_type,
        size=checked.size,
        sha256=checked.sha256,
        sensitive=sensitive,
        uploaded_by=user,
    )
    document.file.save(upload.name, upload, save=False)
    document.save()
    return document


@transaction.atomic
def do_open_case(
    *,
    tenant: Tenant,
    user,
    subject_name: str,
    subject_type: str,
    jurisdiction: str = "",
    notes: str = "",
    upload: UploadedFile | None = None,
    sensitive: bool = False,
    checked: CheckedUpload | None = None,
) -> Case:
    case = Case.objects.create(
        tenant=tenant,
        subject_name=subject_name,
        subject_type=subject_type,
        jurisdiction=jurisdiction,
        notes=notes,
        created_by=user,
    )
    if upload is not None:
        do_attach_document(case, upload, user=user, sensitive=sensitive, checked=checked)
    return case
