"""Checks on uploaded documents: size and type are decided by the content, not the claimed type."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import UploadedFile

ALLOWED_TYPES = {"application/pdf": "PDF", "text/plain": "plain text"}


@dataclass(frozen=True)
class CheckedUpload:
    content_type: str
    size: int
    sha256: str


def sniff_content_type(head: bytes) -> str | None:
    if head.startswith(b"%PDF-"):
        return "application/pdf"
    if b"\x00" in head:
        return None
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as error:
        # A multi-byte character cut at the end of the sample is still text.
        if error.start < len(head) - 3:
            return None
    return "text/plain"


def check_upload(upload: UploadedFile) -> CheckedUpload:
    """Raise a ValidationError that says exactly what is wrong; read nothing into storage."""
    limit = settings.ATLAS_UPLOAD_MAX_BYTES
    if upload.size is not None and upload.size > limit:
        raise ValidationError(
            f"“{upload.name}” is {upload.size:,} bytes; the limit is {limit:,} bytes ({limit // 1024 // 1024} MB).",
            code="too_big",
        )
    if not upload.size:
        raise ValidationError(f"“{upload.name}” is empty.", code="empty")
    upload.seek(0)
    head = upload.read(4096)
    content_type = sniff_content_type(head)
    if content_type is None:
        raise ValidationError(
            f"“{upload.name}” is not a PDF or plain-text file. Upload a PDF or a .txt document.",
            code="wrong_type",
        )
    digest = hashlib.sha256()
    upload.seek(0)
    for chunk in upload.chunks():
        digest.update(chunk)
    upload.seek(0)
    return CheckedUpload(content_type=content_type, size=upload.size, sha256=digest.hexdigest())
