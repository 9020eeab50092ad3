"""A document chosen on the new-case form, kept while the form is refused for another
reason (a duplicate warning, a bad field): a browser cannot refill a file input, so the
analyst need not choose it again. It is kept for one person in one tenant, for an hour
(runs.models.PendingUpload), and attached when the case opens."""

from __future__ import annotations

from django.core.files import File
from django.http import HttpRequest

from runs.actions import do_open_case
from runs.forms import CaseForm
from runs.models import Case, PendingUpload


def open_case_with(request, tenant, data: dict, checked, kept: PendingUpload | None) -> Case:
    fields = {
        "tenant": tenant,
        "user": request.user,
        "subject_name": data["subject_name"],
        "subject_type": data["subject_type"],
        "jurisdiction": data["jurisdiction"],
        "notes": data["notes"],
        "sensitive": data.get("document_sensitive", False),
    }
    if kept is None:
        return do_open_case(**fields, upload=data.get("document") or None, checked=checked)
    with kept.file.open("rb") as stored:
        upload = File(stored, name=kept.original_name)
        case = do_open_case(**fields, upload=upload, checked=kept.checked)
    kept.discard()  # attached: the case's document is the copy that counts now
    return case


KEPT_DOCUMENT_EXPIRED = (
    "kept for an hour after the form was first sent, and that hour is over: choose the file again."
)


NOT_KEPT_FOR_YOU = (
    "No document is kept for you under this form (it may have been sent from another "
    "account's page): choose the file again."
)


def kept_document(request: HttpRequest, tenant, form: CaseForm) -> PendingUpload | None:
    """The document kept from an earlier send of this form, unless the analyst removed it
    or chose another file. A token that is not this person's (forged, or another's) finds
    nothing, and an expired one finds a document no longer kept: either is an error on the
    form, which is then shown again with what was typed."""
    sent = request.POST.get("kept_document", "")
    if not sent:
        return None
    try:
        kept = PendingUpload.objects.of_token(sent, user=request.user, tenant=tenant)
    except PendingUpload.DoesNotExist:
        form.is_valid()  # an error is added only to a cleaned form
        form.add_error("document", NOT_KEPT_FOR_YOU)
        return None
    if form.files.get("document") or request.POST.get("remove_kept_document"):
        if kept is not None:
            kept.discard()
        return None
    if kept is not None and not kept.is_expired():
        return kept
    form.is_valid()  # an error is added only to a cleaned form
    if kept is None:
        form.add_error("document", f"The document you chose was {KEPT_DOCUMENT_EXPIRED}")
    else:
        form.add_error("document", f"“{kept.original_name}” was {KEPT_DOCUMENT_EXPIRED}")
        kept.discard()
    return None


def keep_chosen_document(request: HttpRequest, tenant, form: CaseForm) -> PendingUpload | None:
    """Keep the file sent with a refused form when the file itself passed its checks."""
    upload = form.files.get("document")
    if upload is None or form.checked_upload is None or form.has_error("document"):
        return None
    return PendingUpload.objects.keep(upload, form.checked_upload, user=request.user, tenant=tenant)
