"""An uploaded document, downloaded by anyone of its case's tenant who can read the case;
every download is recorded (DocumentDownload) for the audit. A download another site
starts (a link or a redirect elsewhere) is asked about first, so no site can write a
download into a user's audit trail."""

from __future__ import annotations

import logging

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import content_disposition_header
from django.views.decorators.http import require_safe

from runs.access import get_for_tenant, require_role, tenant_of
from runs.actions import do_mark_sensitive
from runs.models import Document, DocumentDownload, Run, ToolCall
from runs.post_only import post_only
from runs.uploads import download_name
from runs.views.cases import READERS

logger = logging.getLogger(__name__)


def _document_of(request: HttpRequest, case_id: int, document_id: int) -> Document:
    """The case's document, if the case is the user's tenant's; otherwise a 404."""
    return get_for_tenant(
        Document.objects.select_related("case"),
        tenant_of(request),
        tenant_field="case__tenant",
        pk=document_id,
        case_id=case_id,
    )


@require_safe
@require_role(*READERS)
def document_file(request: HttpRequest, case_id: int, document_id: int) -> HttpResponse:
    document = _document_of(request, case_id, document_id)
    if request.headers.get("Sec-Fetch-Site") in {"cross-site", "same-site"}:
        return render(request, "runs/document_confirm.html", {"document": document})
    try:
        with document.file.open("rb") as handle:
            content = handle.read()  # uploads are capped at ATLAS_UPLOAD_MAX_BYTES
    except OSError as error:
        logger.warning("Document %s cannot be read from storage: %s", document.pk, error)
        raise Http404(f"The file of “{document.original_name}” is missing from storage.") from None
    if request.method == "GET":  # a HEAD asks about the file without receiving it
        DocumentDownload.objects.create(document=document, user=request.user)
        if document.sensitive:
            logger.info(
                "Sensitive document %s of case %s downloaded by %s",
                document.pk,
                document.case_id,
                request.user.get_username(),
            )
    # Always a download, never shown inline: an upload is untrusted content.
    response = HttpResponse(content, content_type=document.content_type)
    response["Content-Disposition"] = content_disposition_header(
        as_attachment=True, filename=download_name(document.original_name, document.content_type)
    )
    response["Content-Security-Policy"] = "sandbox"
    return response


def _case_page(request: HttpRequest, case_id: int, document_id: int) -> str:
    """The document's case page, looked up as the action looks it up: another tenant's
    document is a 404 on a GET too."""
    document = _document_of(request, case_id, document_id)
    return reverse("runs-case-detail", kwargs={"case_id": document.case_id})


@require_role("analyst")
@post_only(_case_page)
def mark_sensitive(request: HttpRequest, case_id: int, document_id: int) -> HttpResponse:
    """Mark a document sensitive: from now on, extracting it needs a reviewer's approval,
    in a run already under way too (it reads the mark when it asks to extract). There is
    no way back, on purpose, so the first post only asks; the mark needs `confirm`."""
    document = _document_of(request, case_id, document_id)
    if not document.sensitive and request.POST.get("confirm") != "yes":
        return redirect(_confirm_page(document))
    waiting = []
    if not document.sensitive:
        waiting = do_mark_sensitive(document, request.user)
        logger.info(
            "Document %s of case %s marked sensitive by %s",
            document.pk,
            document.case_id,
            request.user.get_username(),
        )
    latest = Run.objects.latest_of(document.case_id)
    if latest is not None and f"extract:{document.pk}" in (latest.state or {}).get(
        "completed_steps", []
    ):
        when = (
            f"Run {latest.pk} read it before it was marked, without an approval, and its "
            "packet holds what it found; later runs need a reviewer's approval to extract it."
        )
    elif waiting:
        when = (
            "the approval waiting to extract it, requested before the mark, now says so; "
            "a reviewer who approves it must have seen that."
        )
    elif latest is not None and not latest.is_terminal:
        when = "extracting it now needs a reviewer's approval, in the run under way too."
    else:
        when = "the runs to come need a reviewer's approval to extract it."
    messages.success(request, f"“{document.original_name}” is marked sensitive: {when}")
    return redirect(_case_page(request, case_id, document_id))


def _confirm_page(document: Document) -> str:
    return reverse("runs-document-confirm-sensitive", args=[document.case_id, document.pk])


@require_role("analyst")
@require_safe
def confirm_sensitive(request: HttpRequest, case_id: int, document_id: int) -> HttpResponse:
    """The question before the mark, on a page of its own (a GET), so that Back to it or
    from the case page after it loads a page instead of asking to send a form again."""
    document = _document_of(request, case_id, document_id)
    if document.sensitive:
        return redirect("runs-case-detail", case_id=document.case_id)
    latest = Run.objects.latest_of(document.case_id)
    read_by = runs_that_read(document)
    under_way = latest is not None and not latest.is_terminal and latest.pk not in read_by
    context = {
        "document": document,
        "read_by": read_by,
        "run_under_way": latest if under_way else None,
    }
    return render(request, "runs/document_sensitive_confirm.html", context)


def runs_that_read(document: Document) -> list[int]:
    """The ids of the runs that extracted the document, oldest first."""
    return list(
        ToolCall.objects.filter(
            run__case_id=document.case_id,
            tool="extract_uploaded_document",
            effect_status=ToolCall.Effect.SUCCEEDED,
            arguments__document_id=str(document.pk),
        )
        .order_by("run_id")
        .values_list("run_id", flat=True)
        .distinct()
    )
