"""The only code that creates cases and changes a run's status from outside the worker."""

from __future__ import annotations

from django.conf import settings
from django.core.files.uploadedfile import UploadedFile
from django.db import transaction
from django.utils import timezone

from atlas.runtime.policy import sensitive_document_reason
from atlas.runtime.scenario import Scenario
from atlas.runtime.state import (
    USER_STATUS,
    AttachedDocument,
    Budgets,
    CaseBrief,
    VersionBundle,
    new_state,
)
from reviews.models import HumanDecision, ReviewItem
from runs.dispatch import wake_worker
from runs.execution import SCRIPTED_IN_SCENARIO, cancel_idle_run
from runs.leases import claim_run, hold_here, release_lease, take_from_gone_worker
from runs.models import Case, CaseEdit, Document, Run, Tenant
from runs.uploads import (
    CheckedUpload,
    check_upload,
    checked_upload_fields,
    personal_data_of,
    saved_with_file,
)


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
        personal_data=personal_data_of(upload, checked.content_type),
        case=case,
        sensitive=sensitive,
        uploaded_by=user,
        **checked_upload_fields(upload, checked, Document),
    )
    return saved_with_file(document, upload)


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
    """Open a case and store its document; the file is written outside any transaction so
    a slow disk never holds the database's write lock."""
    case = Case.objects.create(
        tenant=tenant,
        subject_name=subject_name,
        subject_type=subject_type,
        jurisdiction=jurisdiction,
        notes=notes,
        created_by=user,
    )
    if upload is not None:
        try:
            do_attach_document(case, upload, user=user, sensitive=sensitive, checked=checked)
        except BaseException:
            case.delete()  # never started, nothing refers to it: the analyst simply retries
            raise
    return case


@transaction.atomic
def do_mark_sensitive(document: Document, user) -> list[ReviewItem]:
    """Mark a document sensitive (there is no way back, on purpose). An approval already
    waiting to extract it, requested for another reason, gains this one: the reviewer sees
    it in the queue as on the item's page, and an approval given without seeing it is
    refused (reviews.actions). Returns those approvals."""
    marked = Document.objects.filter(pk=document.pk, sensitive=False).update(
        sensitive=True, sensitive_marked_by=user, sensitive_marked_at=timezone.now()
    )
    if not marked:
        return []
    waiting = list(
        ReviewItem.objects.select_for_update().filter(
            case_id=document.case_id,
            kind=ReviewItem.Kind.APPROVAL,
            status=ReviewItem.Status.OPEN,
            payload__tool_name="extract_uploaded_document",
            payload__arguments__document_id=str(document.pk),
        )
    )
    added = [
        sensitive_document_reason(document.original_name),
        f"It was marked by {user.get_full_name() or user.get_username()} after this approval "
        "was requested.",
    ]
    for item in waiting:
        item.payload["reasons"] = [*item.payload.get("reasons", []), *added]
        item.save(update_fields=["payload"])
    return waiting


class CaseBusy(Exception):
    """A run of the case is still going: its subject cannot change under it."""


SUBJECT_FIELDS = ("subject_name", "subject_type", "jurisdiction", "notes")


@transaction.atomic
def do_correct_subject(
    case: Case, user, subject: dict, reason: str, *, run_again: bool = False
) -> tuple[CaseEdit | None, Run | None]:
    """Correct the case's subject (recorded, with the reason, as a CaseEdit; None when
    nothing changed), and with `run_again` start a run that researches it as corrected."""
    # Locked as "Run again" locks it: a run started meanwhile is seen here, and refuses.
    case = Case.objects.select_for_update().get(pk=case.pk)
    latest = Run.objects.latest_of(case.pk)
    if latest is not None and not latest.is_terminal:
        raise CaseBusy(_why_the_subject_waits(latest))
    changes = {
        name: {"before": getattr(case, name), "after": subject[name]}
        for name in SUBJECT_FIELDS
        if getattr(case, name) != subject[name]
    }
    edit = None
    if changes:
        for name in changes:
            setattr(case, name, subject[name])
        case.save(update_fields=[*changes, "updated_at"])
        edit = CaseEdit.objects.create(case=case, edited_by=user, changes=changes, reason=reason)
    run = do_start_run(case, user) if run_again else None
    return edit, run


def _why_the_subject_waits(run: Run) -> str:
    if run.status == Run.Status.WAITING_FOR_INPUT:
        return (
            f"Run {run.pk} waits for your answer to its question: answer it, or cancel it "
            "with this correction, before the subject can change."
        )
    if run.waits_for_reviewer:
        return (
            f"Run {run.pk} waits for a reviewer, so the subject can be corrected once they "
            "have decided."
        )
    return "A run of this case is in progress: its subject cannot change now."


def _brief_for(case: Case) -> CaseBrief:
    return CaseBrief(
        subject=case.subject_name,
        subject_type=case.subject_type,
        jurisdiction=case.jurisdiction or None,
        notes=case.notes,
        documents=[
            AttachedDocument(
                document_id=str(doc.pk), name=doc.original_name, sensitive=doc.sensitive
            )
            for doc in case.documents.order_by("pk")
        ],
    )


def model_kind_of(model_name: str) -> str:
    if model_name == "playbook":
        return "rule-based"
    if model_name.startswith("scripted"):
        return "scripted"
    return "llm"


def run_budgets(scenario: Scenario | None, budgets: dict | None) -> Budgets:
    """A run's budgets: the defaults, then the scenario's, then `budgets` (flags, forms)."""
    return Budgets(**{**(scenario.budgets.overrides() if scenario else {}), **(budgets or {})})


@transaction.atomic  # a worker's sweep must never find the run before its state
def do_start_run(
    case: Case,
    user=None,
    *,
    model_name: str | None = None,
    budgets: dict | None = None,
    scenario: Scenario | None = None,
    wake: bool = True,
    driven_here: bool = False,
) -> Run:
    """Queue a new run of `case`; a worker picks it up after commit. With `driven_here`
    the run is created held by this process (run_inline / run_headless drive it next), so
    no worker's sweep can take it in between."""
    if model_name is None and scenario is not None:
        model_name = scenario.model if isinstance(scenario.model, str) else SCRIPTED_IN_SCENARIO
    model_name = model_name or settings.ATLAS_MODEL
    merged_budgets = run_budgets(scenario, budgets)
    run = Run.objects.create(
        tenant=case.tenant,
        case=case,
        created_by=user,
        model_name=model_name,
        scenario=scenario.model_dump(mode="json") if scenario else None,
        budgets=merged_budgets.model_dump(mode="json"),
        user_status=USER_STATUS["queued"],
    )
    if driven_here:
        # Before the transaction commits, so no sweep ever sees the run unheld.
        hold_here(run.pk)
        run.refresh_from_db(fields=["lease_owner", "lease_expires_at"])
    state = new_state(
        run_id=str(run.pk),
        case_id=str(case.pk),
        tenant_id=str(case.tenant_id),
        brief=_brief_for(case),
        budgets=merged_budgets,
        versions=VersionBundle(model=model_name, model_kind=model_kind_of(model_name)),
        fault_plan=scenario.tool_faults if scenario else None,
        opened_by=case.created_by.get_username(),
    )
    run.state = state.to_json()
    run.save(update_fields=["state"])
    if wake:
        wake_worker(run.pk, "run.start")
    return run


class CancelRefused(Exception):
    """The run waits for a reviewer, who decides how it ends."""

    message = (
        "This run waits for a reviewer, who decides how it ends: sign off or reject its packet, "
        "or close the case. It was not cancelled."
    )


def do_request_cancel(
    run: Run,
    user,
    *,
    reviewer_decides: bool = False,
    reason: str = "Cancelled from the console",
) -> Run:
    """Cancel within a second: directly when no worker holds the run, else via its worker.
    With `reviewer_decides` (a person's request, from a page or the command line), raise
    CancelRefused instead when a packet or an escalation of the run waits for a reviewer."""
    with transaction.atomic():
        run = Run.objects.select_for_update().get(pk=run.pk)  # one cancel request at a time
        if run.is_terminal:
            return run
        if reviewer_decides and run.waits_for_reviewer:
            raise CancelRefused(run)
        first_request = run.cancel_requested_at is None
        if first_request:
            run.cancel_requested_at = timezone.now()
            run.cancel_requested_by = user
            run.save(update_fields=["cancel_requested_at", "cancel_requested_by"])
            HumanDecision.objects.create(
                tenant_id=run.tenant_id,
                case_id=run.case_id,
                run=run,
                actor=user,
                kind=HumanDecision.Kind.CANCEL,
                reason=reason,
                state_version=run.state_version,
            )
    # Whoever takes the lease cancels: this request when no live worker holds the run
    # (paused, queued and unclaimed, or its worker died), otherwise the worker holding it,
    # which polls for cancels.
    owner = f"cancel-{run.pk}-{user.pk}"
    if claim_run(run.pk, owner) or take_from_gone_worker(run.pk, owner):
        try:
            cancel_idle_run(run)
        finally:
            release_lease(run.pk, owner)
    else:
        with transaction.atomic():
            wake_worker(run.pk, "run.cancel")
    run.refresh_from_db()
    return run


def do_request_resume(run: Run) -> None:
    """A person decided something the run waits for: ask a worker to apply it."""
    Run.objects.filter(pk=run.pk).update(resume_requested_at=timezone.now())
    wake_worker(run.pk, "run.resume")
