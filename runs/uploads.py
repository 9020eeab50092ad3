"""Checks on uploaded documents: size and type are decided by the content, not the claimed type."""

from __future__ import annotations

import codecs
import hashlib
import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from django.conf import settings
from django.core.exceptions import SuspiciousFileOperation, ValidationError
from django.core.files.uploadedfile import UploadedFile
from django.utils.text import get_valid_filename
from pypdf import PdfReader
from pypdf.errors import FileNotDecryptedError, LimitReachedError, WrongPasswordError

from atlas.runtime.redaction import personal_data_in
from atlas.runtime.tools.builtin import document_text

logger = logging.getLogger(__name__)

ALLOWED_TYPES = {"application/pdf": "PDF", "text/plain": "plain text"}
EXTENSIONS = {"application/pdf": ".pdf", "text/plain": ".txt"}
# The stored name only has to be recognisable next to its hash prefix; the name as
# uploaded is kept whole on the Document. Filesystems allow 255 bytes per name.
STORED_STEM_CHARS = 80
STORED_EXTENSION_CHARS = 10


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


def _not_all_utf8(name: str, offset: int) -> str:
    return (
        f"“{name}” is not all UTF-8 text: byte {offset:,} is not. Save it as UTF-8 text "
        "(Save As, Encoding: UTF-8) or as a PDF, and upload it again."
    )


def _stray_byte(head: bytes) -> int | None:
    """Where UTF-8 text holds a byte that is not UTF-8, when it is text but for a few such
    bytes (one pasted from a Latin-1 file, say)."""
    text = head.decode("utf-8", errors="replace")
    stray = text.count("\ufffd")
    if not stray or stray > max(2, len(text) // 100) or not _printable(text):
        return None
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as error:
        return error.start
    return None


def _printable(text: str) -> bool:
    """At least 95% of it is printable, and it has few characters decoding failed on."""
    failed = text.count("\ufffd")
    shown = sum(1 for c in text if c != "\ufffd" and (c.isprintable() or c in "\r\n\t"))
    return failed <= max(4, len(text) // 50) and shown >= 0.95 * (len(text) - failed)


def _other_text_encoding(head: bytes) -> str | None:
    """The encoding of text that is not UTF-8, when it plainly is one Atlas could name:
    UTF-16 (what Windows Notepad saves as "Unicode"), or Windows Latin-1."""
    if head.startswith((b"\xff\xfe", b"\xfe\xff")) or _is_utf16_without_mark(head):
        return "UTF-16"
    if b"\x00" in head:
        return None
    # The few bytes cp1252 leaves undefined do not make a Latin-1 text something else.
    text = head.decode("cp1252", errors="replace")
    return "Windows Latin-1 (cp1252)" if _printable(text) else None


def _is_utf16_without_mark(head: bytes) -> bool:
    """Latin text in UTF-16 saved without its byte order mark: every other byte is a zero,
    which sniffing takes for a binary file. Binary data decodes too, mostly as CJK."""
    sample = head[: len(head) // 2 * 2]
    for encoding in ("utf-16-le", "utf-16-be"):
        text = sample.decode(encoding, errors="replace")
        latin = sum(1 for c in text if c.isascii() and (c.isprintable() or c in "\r\n\t"))
        if text and latin >= 0.95 * len(text):
            return True
    return False


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
    if content_type is None and (offset := _stray_byte(head)) is not None:
        raise ValidationError(_not_all_utf8(upload.name, offset), code="wrong_encoding")
    if content_type is None and (encoding := _other_text_encoding(head)):
        raise ValidationError(
            f"“{upload.name}” is text, but in {encoding}, not UTF-8. Save it as UTF-8 text "
            "(Save As, Encoding: UTF-8) or as a PDF, and upload it again.",
            code="wrong_encoding",
        )
    if content_type is None:
        raise ValidationError(
            f"“{upload.name}” is not a PDF or plain-text file. Upload a PDF or a .txt document.",
            code="wrong_type",
        )
    if content_type == "application/pdf":
        _check_pdf_opens(upload)
    else:
        _check_all_of_it_is_utf8(upload)
    digest = hashlib.sha256()
    upload.seek(0)
    for chunk in upload.chunks():
        digest.update(chunk)
    upload.seek(0)
    return CheckedUpload(content_type=content_type, size=upload.size, sha256=digest.hexdigest())


def _check_all_of_it_is_utf8(upload: UploadedFile) -> None:
    """The first 4 KB decided it is text; the rest must be UTF-8 too, or a name further
    down ("José Müller" in Latin-1) would be read, and screened, garbled. And some of it
    must be more than blank space, as a PDF's pages must hold text."""
    upload.seek(0)
    decoder = codecs.getincrementaldecoder("utf-8-sig")()
    offset, has_text = 0, False
    try:
        for chunk in upload.chunks():
            has_text = has_text or bool(decoder.decode(chunk).strip())
            offset += len(chunk)
        decoder.decode(b"", final=True)
    except UnicodeDecodeError as error:
        raise ValidationError(
            _not_all_utf8(upload.name, offset + error.start), code="wrong_encoding"
        ) from None
    finally:
        upload.seek(0)
    if not has_text:
        raise ValidationError(
            f"“{upload.name}” holds only blank space: it has no text to read.", code="no_text"
        )


def checked_upload_fields(upload: UploadedFile, checked: CheckedUpload, model) -> dict:
    """The fields a stored upload's row (a document, one kept for a form) takes from the
    upload and its checks."""
    limit = model._meta.get_field("original_name").max_length
    return {
        "original_name": display_name(upload.name, limit),
        "content_type": checked.content_type,
        "size": checked.size,
        "sha256": checked.sha256,
    }


def saved_with_file(row, upload: UploadedFile):
    """`row` saved with `upload` as its file; the file is not kept if the row is not."""
    row.file.save(upload.name, upload, save=False)
    try:
        row.save()
    except BaseException:
        row.file.delete(save=False)  # no row points at it: do not keep the bytes
        raise
    return row


def display_name(name: str, limit: int) -> str:
    """The name as uploaded, cut to `limit` characters without losing its extension."""
    if len(name) <= limit:
        return name
    stem, dot, extension = name.rpartition(".")
    if not dot or len(extension) > STORED_EXTENSION_CHARS:
        return name[:limit]
    return f"{stem[: limit - len(extension) - 1]}.{extension}"


def personal_data_of(upload: UploadedFile, content_type: str) -> list[str]:
    """The kinds of personal data in a checked upload's text, by the patterns redaction
    uses; [] when its text cannot be read (the run's extraction then says why)."""
    upload.seek(0)
    content = upload.read()
    upload.seek(0)
    try:
        text, _ = document_text(content, content_type)
    except Exception:  # a PDF that opens can still fail to give up its text
        logger.warning("Could not read the text of “%s” to look for personal data", upload.name)
        return []
    return personal_data_in(text)


def download_name(name: str, content_type: str) -> str:
    """The name a download is saved under: the name as uploaded, ending in the extension of
    the type its content was found to be, so "invoice.js" that is plain text downloads as
    "invoice.js.txt" and opens as text, not as a script."""
    extension = EXTENSIONS.get(content_type, ".bin")
    return name if name.lower().endswith(extension) else name + extension


def stored_file_name(name: str) -> str:
    """A short, safe name to store an upload under, whatever the browser sent."""
    try:
        safe = get_valid_filename(name.replace("\\", "/").rsplit("/", 1)[-1])
    except SuspiciousFileOperation:  # nothing usable was left of the name
        return "document"
    stem, dot, extension = safe.rpartition(".")
    if not dot or not stem:
        return safe[:STORED_STEM_CHARS]
    return f"{stem[:STORED_STEM_CHARS]}.{extension[:STORED_EXTENSION_CHARS]}"


def _check_pdf_opens(upload: UploadedFile) -> None:
    """A file that starts like a PDF must also read as one, or its extraction would fail
    in the middle of a run instead of here, where the analyst can upload it again."""
    upload.seek(0)
    pages, locked, has_text, too_big = 0, False, True, False
    try:
        # pypdf opens a file encrypted without a user password (print or copy limits).
        with _pypdf_logging_silenced():
            reader = PdfReader(upload)
            pages = len(reader.pages)
        has_text = _has_text(reader)
    except (FileNotDecryptedError, WrongPasswordError):
        locked = True
    except LimitReachedError:
        too_big = True
    except Exception:  # pypdf raises many kinds of error for a damaged file
        pass
    finally:
        upload.seek(0)
    if too_big:
        raise ValidationError(
            f"“{upload.name}” expands, once decompressed, to more than Atlas reads from a "
            "document. Upload the pages that matter as a smaller PDF or as text.",
            code="too_large_inside",
        )
    if locked:
        raise ValidationError(
            f"“{upload.name}” is password-protected. Upload a copy without a password.",
            code="encrypted",
        )
    if not pages:
        raise ValidationError(
            f"“{upload.name}” could not be read as a PDF: it is damaged or incomplete. "
            "Upload the original file.",
            code="unreadable",
        )
    if not has_text:
        raise ValidationError(
            f"“{upload.name}” has no text to read: its pages look like scanned images. Atlas "
            "reads text, not images: upload a copy with a text layer (after OCR) or a text "
            "file.",
            code="no_text",
        )


PAGES_LOOKED_AT_FOR_TEXT = 30


def _has_text(reader: PdfReader) -> bool:
    """Whether any of the first pages gives up text. A page whose text cannot be taken out
    counts as text: the run's extraction then says what went wrong, rather than this
    check calling the file a scan."""
    for page in reader.pages[:PAGES_LOOKED_AT_FOR_TEXT]:
        try:
            if (page.extract_text() or "").strip():
                return True
        except LimitReachedError:
            raise
        except Exception:
            return True
    return False


# pypdf's level is shared by every thread: checks take turns, so that one never restores
# the level another has just raised.
_PYPDF_LEVEL_LOCK = threading.Lock()


@contextmanager
def _pypdf_logging_silenced() -> Iterator[None]:
    """pypdf logs what it finds wrong in a damaged file ("EOF marker not found"); the check's
    own error says it in one line."""
    logger = logging.getLogger("pypdf")
    with _PYPDF_LEVEL_LOCK:
        level = logger.level
        logger.setLevel(logging.CRITICAL + 1)
        try:
            yield
        finally:
            logger.setLevel(level)
