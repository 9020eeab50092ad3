"""Cases, documents and the persisted side of agent runs.

A run's truth lives in its row: status, serialized state with a version for optimistic
concurrency, and the lease that says which worker owns it right now.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import timedelta
from decimal import Decimal
from pathlib import Path
from typing import get_args

from django.conf import settings
from django.core import signing
from django.core.files.uploadedfile import UploadedFile
from django.db import models
from django.db.models import Q
from django.utils import timezone

from atlas.runtime.decisions import RiskRating
from atlas.runtime.policy import HIGH_RISK_JURISDICTIONS
from atlas.runtime.state import USER_STATUS_MAX_LENGTH
from runs.uploads import CheckedUpload, checked_upload_fields, saved_with_file, stored_file_name


def default_high_risk_jurisdictions() -> list[str]:
    return list(HIGH_RISK_JURISDICTIONS)


class Tenant(models.Model):
    name = models.CharField(max_length=200)
    slug = models.SlugField(unique=True)
    approval_cost_threshold_usd = models.DecimalField(
        max_digits=10, decimal_places=4, default=Decimal("0.50")
    )
    forbidden_tools = models.JSONField(default=list, blank=True)
    # ISO 3166 codes (atlas.runtime.policy.TenantPolicy.high_risk_jurisdictions).
    high_risk_jurisdictions = models.JSONField(
        "high-risk jurisdictions", default=default_high_risk_jurisdictions, blank=True
    )
    nationality_counts = models.BooleanField(
        "nationality counts",
        default=False,
        help_text=(
            "A person subject whose own form gives a nationality of one of the high-risk "
            "jurisdictions, or a director or beneficial owner a company's document gives one, "
            "is treated as one living there: not rated low, and the packet asks for enhanced "
            "due diligence."
        ),
    )
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return self.name


class Membership(models.Model):
    class Role(models.TextChoices):
        ANALYST = "analyst", "Analyst"
        REVIEWER = "reviewer", "Reviewer"
        ADMIN = "admin", "Admin"

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="membership"
    )
    tenant = models.ForeignKey(Tenant, on_delete=models.PROTECT, related_name="memberships")
    role = models.CharField(max_length=16, choices=Role.choices)

    def __str__(self) -> str:
        return f"{self.user} ({self.role} at {self.tenant})"


class CaseQuerySet(models.QuerySet):
    def for_tenant(self, tenant: Tenant) -> CaseQuerySet:
        return self.filter(tenant=tenant)


class Case(models.Model):
    class SubjectType(models.TextChoices):
        COMPANY = "company", "Company"
        PERSON = "person", "Person"

    tenant = models.ForeignKey(Tenant, on_delete=models.PROTECT, related_name="cases")
    subject_name = models.CharField(max_length=300)
    subject_type = models.CharField(max_length=16, choices=SubjectType.choices)
    jurisdiction = models.CharField(max_length=2, blank=True)
    notes = models.TextField(blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="cases_opened"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    objects = CaseQuerySet.as_manager()

    class Meta:
        indexes = [
            # The case list: a tenant's cases, newest first.
            models.Index(
                fields=["tenant", "-created_at", "-id"], name="runs_case_tenant_recent_idx"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.subject_name} ({self.get_subject_type_display()})"

    def run_in_progress(self) -> bool:
        """Whether the case's newest run has yet to end (a run starts only after it has)."""
        latest = Run.objects.latest_of(self.pk)
        return latest is not None and not latest.is_terminal


def document_upload_path(document: Document, filename: str) -> str:
    """Under the tenant and case, by content hash and a short safe form of the name (the
    name as uploaded is kept in `original_name`)."""
    return (
        f"documents/{document.case.tenant_id}/{document.case_id}/"
        f"{document.sha256[:16]}-{stored_file_name(filename)}"
    )


class Document(models.Model):
    case = models.ForeignKey(Case, on_delete=models.PROTECT, related_name="documents")
    file = models.FileField(upload_to=document_upload_path, max_length=400)
    original_name = models.CharField(max_length=255)
    content_type = models.CharField(max_length=100)
    size = models.PositiveBigIntegerField()
    sha256 = models.CharField(max_length=64)
    sensitive = models.BooleanField(default=False)
    # The kinds of personal data found in its text at upload ("passport number", "IBAN").
    personal_data = models.JSONField(default=list, blank=True)
    uploaded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    uploaded_at = models.DateTimeField(auto_now_add=True)
    # Who marked it sensitive after the upload, and when (empty when uploaded as sensitive).
    sensitive_marked_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+", null=True, blank=True
    )
    sensitive_marked_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return self.original_name


class DocumentDownload(models.Model):
    """Who downloaded an uploaded document, and when: the audit of who read what."""

    document = models.ForeignKey(Document, on_delete=models.PROTECT, related_name="downloads")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    downloaded_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"{self.document} by {self.user} at {self.downloaded_at:%Y-%m-%d %H:%M}"


class CaseEdit(models.Model):
    """A correction of a case's subject, with its reason. The runs before it keep the subject
    as it was in their own state, so their packets still say what they researched."""

    case = models.ForeignKey(Case, on_delete=models.PROTECT, related_name="edits")
    edited_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    edited_at = models.DateTimeField(auto_now_add=True)
    # field name -> {"before": ..., "after": ...}
    changes = models.JSONField()
    reason = models.CharField(max_length=500)

    def __str__(self) -> str:
        return f"{self.case} corrected by {self.edited_by} at {self.edited_at:%Y-%m-%d %H:%M}"


def pending_upload_path(pending: PendingUpload, filename: str) -> str:
    """Under the tenant and the person who chose the file, apart from case documents."""
    return (
        f"pending/{pending.tenant_id}/{pending.user_id}/"
        f"{pending.sha256[:16]}-{stored_file_name(filename)}"
    )


class PendingUploadQuerySet(models.QuerySet):
    def expired(self) -> PendingUploadQuerySet:
        return self.filter(created_at__lt=timezone.now() - PendingUpload.LIFETIME)

    def of_token(self, token: str, *, user, tenant) -> PendingUpload | None:
        """The upload `token` names, kept for this user in this tenant (perhaps expired);
        None once the sweep has cleared it away. Raises PendingUpload.DoesNotExist for a token that is
        not theirs, or not a token at all."""
        try:
            owner = signing.loads(token, salt=PendingUpload.TOKEN_SALT)
        except signing.BadSignature:
            raise PendingUpload.DoesNotExist from None
        if not isinstance(owner, dict) or owner.get("user") != user.pk:
            raise PendingUpload.DoesNotExist
        if owner.get("tenant") != tenant.pk:
            raise PendingUpload.DoesNotExist
        return self.filter(pk=owner.get("id"), user=user, tenant=tenant).first()

    def keep(self, upload: UploadedFile, checked: CheckedUpload, *, user, tenant) -> PendingUpload:
        pending = PendingUpload(
            tenant=tenant, user=user, **checked_upload_fields(upload, checked, PendingUpload)
        )
        return saved_with_file(pending, upload)


class PendingUpload(models.Model):
    """A checked document kept while the new-case form it came with is refused for another
    reason: a browser cannot fill a file input in again. Attached, then removed, when the
    form is accepted; worth nothing after LIFETIME."""

    LIFETIME = timedelta(hours=1)
    TOKEN_SALT = "runs.pending-upload"

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="+")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    file = models.FileField(upload_to=pending_upload_path, max_length=400)
    original_name = models.CharField(max_length=255)
    content_type = models.CharField(max_length=100)
    size = models.PositiveBigIntegerField()
    sha256 = models.CharField(max_length=64)
    # Indexed for the sweep, which clears the expired ones.
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    objects = PendingUploadQuerySet.as_manager()

    def __str__(self) -> str:
        return f"{self.original_name} kept for {self.user}"

    @property
    def token(self) -> str:
        return signing.dumps(
            {"id": self.pk, "user": self.user_id, "tenant": self.tenant_id},
            salt=self.TOKEN_SALT,
        )

    @property
    def checked(self) -> CheckedUpload:
        return CheckedUpload(content_type=self.content_type, size=self.size, sha256=self.sha256)

    def is_expired(self) -> bool:
        return self.created_at < timezone.now() - self.LIFETIME

    def discard(self) -> None:
        folder = Path(self.file.name).parent
        self.file.delete(save=False)
        self.delete()
        # Its person's folder, then their tenant's, once nothing else is kept in them.
        storage = self.file.storage
        while folder.parts and folder != Path("pending") and storage.exists(str(folder)):
            folders, files = storage.listdir(str(folder))
            if folders or files:
                break
            try:
                storage.delete(str(folder))  # an empty folder
            except OSError:
                break  # another upload was kept in it meanwhile
            folder = folder.parent


def document_ids(brief_documents: list[dict] | None) -> set[str]:
    """The ids of a run brief's documents (its state's brief.documents)."""
    return {str(document["document_id"]) for document in brief_documents or []}


class RunQuerySet(models.QuerySet):
    def for_tenant(self, tenant: Tenant) -> RunQuerySet:
        return self.filter(case__tenant=tenant)

    def documents_given_to(self, run_ids: Iterable[int]) -> dict[int, set[str]]:
        """Run.documents_given of each run, read without the runs' states."""
        rows = self.filter(pk__in=run_ids).values_list("pk", "state__brief__documents")
        return {pk: document_ids(documents) for pk, documents in rows}

    def latest_of(self, case_id: int) -> Run | None:
        """The case's newest run, read without its state (the biggest column)."""
        return self.filter(case_id=case_id).defer("state", "loop_memory").order_by("-id").first()

    def signed_off(self) -> RunQuerySet:
        """Runs whose packet a reviewer signed off or closed as it stood: the case's record."""
        return self.filter(
            status=Run.Status.COMPLETED, termination_reason=Run.Reason.PACKET_APPROVED
        )

    def with_outcome(self, outcome: str) -> RunQuerySet:
        """Runs that ended with `outcome`: a reason code (packet_approved meaning a sign-off),
        or Run.CLOSED_BY_REVIEWER."""
        if outcome == Run.CLOSED_BY_REVIEWER:
            return self.filter(closed_by_reviewer=True)
        return self.filter(termination_reason=outcome, closed_by_reviewer=False)


# A researching run's sort figure in the run browser (Run.settled_*): below every real one.
NOT_SETTLED = -1


def settled(figure: str, output_field: models.Field) -> models.GeneratedField:
    """The run's `figure` while it is not researching, NOT_SETTLED while it is."""
    return models.GeneratedField(
        expression=models.Case(
            models.When(status="researching", then=models.Value(NOT_SETTLED)),
            default=models.F(figure),
            output_field=output_field,
        ),
        output_field=output_field,
        db_persist=True,
    )


class Run(models.Model):
    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RESEARCHING = "researching", "Researching"
        WAITING_FOR_INPUT = "waiting_for_input", "Waiting for input"
        AWAITING_REVIEW = "awaiting_review", "Awaiting review"
        COMPLETED = "completed", "Completed"
        FAILED = "failed", "Failed"
        CANCELLED = "cancelled", "Cancelled"

    class Reason(models.TextChoices):
        FINISH_PROPOSED = "finish_proposed", "Finish proposed"
        PACKET_APPROVED = "packet_approved", "Packet approved"
        AWAITING_APPROVAL = "awaiting_approval", "Awaiting approval"
        WAITING_FOR_INPUT = "waiting_for_input", "Waiting for input"
        MAX_ITERATIONS = "max_iterations", "Iteration budget reached"
        TOKEN_BUDGET = "token_budget", "Token budget reached"
        COST_BUDGET = "cost_budget", "Cost budget reached"
        DEADLINE = "deadline", "Deadline reached"
        REPEATED_ACTION = "repeated_action", "Repeated action"
        NO_PROGRESS = "no_progress", "No progress"
        POLICY_DENIED = "policy_denied", "Policy denied"
        TOOL_FAILURE = "tool_failure", "Tool failure"
        MODEL_FAILURE = "model_failure", "Model failure"
        CANCELLED = "cancelled", "Cancelled"

    # Not a reason code (the contract has none for it): a run that ended packet_approved
    # because a reviewer closed the case as it stood. Lists and metrics show it apart.
    CLOSED_BY_REVIEWER = "closed_by_reviewer"
    OUTCOME_CHOICES = [*Reason.choices, (CLOSED_BY_REVIEWER, "Closed by a reviewer")]

    ACTIVE_STATUSES = (Status.QUEUED, Status.RESEARCHING)
    TERMINAL_STATUSES = (Status.COMPLETED, Status.FAILED, Status.CANCELLED)

    # The run row is rewritten on every step and each index is written with it: foreign
    # keys that lead one of the composite indexes below get no index of their own.
    tenant = models.ForeignKey(
        Tenant, on_delete=models.PROTECT, related_name="runs", db_index=False
    )
    case = models.ForeignKey(Case, on_delete=models.PROTECT, related_name="runs", db_index=False)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+", null=True
    )
    status = models.CharField(max_length=24, choices=Status.choices, default=Status.QUEUED)
    termination_reason = models.CharField(max_length=24, choices=Reason.choices, blank=True)
    # packet_approved reached by a reviewer closing the case as it stood, not by a sign-off
    # of a packet the research proposed: metrics and filters tell the two apart by it.
    closed_by_reviewer = models.BooleanField(default=False)
    user_status = models.CharField(max_length=USER_STATUS_MAX_LENGTH, blank=True)
    # The registry entity the subject was matched to, as the lists show and search it.
    matched_entity = models.CharField(max_length=300, blank=True)
    # Its registration number as the lists search it: letters and digits, upper case.
    matched_registration = models.CharField(max_length=64, blank=True)
    # The risk rating of the packet the run proposed ("" before it proposed one).
    risk_rating = models.CharField(
        max_length=8,
        blank=True,
        choices=[(rating, rating.capitalize()) for rating in get_args(RiskRating)],
    )
    # The subject as this run researched it: the case's may be corrected after the run.
    subject_name = models.CharField(max_length=300, blank=True)
    subject_type = models.CharField(max_length=16, blank=True)
    jurisdiction = models.CharField(max_length=2, blank=True)

    budgets = models.JSONField(default=dict)
    iterations = models.PositiveIntegerField(default=0)
    tokens = models.PositiveIntegerField(default=0)
    cost_usd = models.DecimalField(max_digits=12, decimal_places=6, default=Decimal("0"))
    elapsed_seconds = models.FloatField(default=0.0)
    # The figures the run browser sorts by: the run's own while it is not researching,
    # NOT_SETTLED while it is. A researching step rewrites the four figures above and would
    # write every index of the row with them; with these in the indexes instead, a step that
    # leaves the status as it is is a heap-only (HOT) update of PostgreSQL, which writes
    # none (bench/loop_overhead.py). A researching run sorts as if it had spent nothing.
    settled_iterations = settled("iterations", models.IntegerField())
    settled_tokens = settled("tokens", models.IntegerField())
    settled_cost_usd = settled("cost_usd", models.DecimalField(max_digits=12, decimal_places=6))
    settled_elapsed_seconds = settled("elapsed_seconds", models.FloatField())

    state = models.JSONField(default=dict)
    # The loop's own bookkeeping, left out of `state` (see runs/run_state.py), as JSON text.
    loop_memory = models.TextField(default="", blank=True, editable=False)
    state_version = models.PositiveIntegerField(default=0)
    last_seq = models.PositiveIntegerField(default=0)
    scenario = models.JSONField(null=True, blank=True)

    model_name = models.CharField(max_length=120, default="playbook")
    prompt_version = models.CharField(max_length=40, blank=True)
    schema_version = models.CharField(max_length=40, blank=True)
    policy_version = models.CharField(max_length=40, blank=True)
    toolset_version = models.CharField(max_length=40, blank=True)

    lease_owner = models.CharField(max_length=120, blank=True)
    # Who held the lease when the current holder claimed it: a run taken from a planned
    # wait for its model endpoint is not a run taken from a worker that died.
    previous_lease_owner = models.CharField(max_length=120, blank=True)
    lease_expires_at = models.DateTimeField(null=True, blank=True)
    resume_requested_at = models.DateTimeField(null=True, blank=True)
    cancel_requested_at = models.DateTimeField(null=True, blank=True)
    cancel_requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+", null=True, blank=True
    )
    last_error = models.TextField(blank=True)
    # Crashes of the worker code while driving this run; the sweep stops retrying at a cap.
    worker_failures = models.PositiveSmallIntegerField(default=0)

    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    objects = RunQuerySet.as_manager()

    class Meta:
        indexes = [
            models.Index(
                fields=["tenant", "-created_at", "-id"], name="runs_run_tenant_recent_idx"
            ),
            models.Index(fields=["tenant", "status", "-id"], name="runs_run_tenant_status_idx"),
            models.Index(
                fields=["tenant", "termination_reason", "-id"], name="runs_run_tenant_reason_idx"
            ),
            models.Index(
                fields=["tenant", "settled_cost_usd", "id"], name="runs_run_tenant_cost_idx"
            ),
            models.Index(
                fields=["tenant", "settled_tokens", "id"], name="runs_run_tenant_tokens_idx"
            ),
            models.Index(
                fields=["tenant", "settled_iterations", "id"],
                name="runs_run_tenant_iterations_idx",
            ),
            models.Index(
                fields=["tenant", "settled_elapsed_seconds", "id"],
                name="runs_run_tenant_elapsed_idx",
            ),
            models.Index(fields=["case", "-id"], name="runs_run_case_recent_idx"),
            # The worker sweep (runs.leases.claimable, used by claim_due_runs and
            # claim_run): runs that need a worker (queued, researching with an expired
            # lease, a requested resume or a requested cancel). The condition must cover
            # every arm of leases.needs_work(), or PostgreSQL cannot use this index.
            models.Index(
                fields=["lease_expires_at"],
                name="runs_run_sweep_idx",
                condition=Q(status__in=["queued", "researching"])
                | Q(resume_requested_at__isnull=False)
                | Q(cancel_requested_at__isnull=False),
            ),
        ]

    def __str__(self) -> str:
        return f"Run {self.pk} of {self.subject_name}: {self.status}"

    def save(self, *args, **kwargs) -> None:
        if self._state.adding and not self.subject_name:
            # What the run researches is the case's subject as it stands when it starts.
            self.subject_name = self.case.subject_name
            self.subject_type = self.case.subject_type
            self.jurisdiction = self.case.jurisdiction
        super().save(*args, **kwargs)

    @property
    def is_terminal(self) -> bool:
        return self.status in self.TERMINAL_STATUSES

    def documents_given(self) -> set[str]:
        """Ids of the documents in the run's brief: those attached before it started, and
        those it was given with an answer since."""
        return document_ids(((self.state or {}).get("brief") or {}).get("documents"))

    @property
    def waits_for_reviewer(self) -> bool:
        """A proposed packet or an escalation waits in a reviewer's queue: the run is theirs
        to end (sign off, reject, close the case), not the analyst's to cancel."""
        return (
            self.status == self.Status.AWAITING_REVIEW
            and self.termination_reason != self.Reason.AWAITING_APPROVAL
        )

    @property
    def outcome(self) -> str:
        return self.CLOSED_BY_REVIEWER if self.closed_by_reviewer else self.termination_reason

    def get_outcome_display(self) -> str:
        return dict(self.OUTCOME_CHOICES).get(self.outcome, self.outcome)

    @property
    def is_active(self) -> bool:
        return self.status in self.ACTIVE_STATUSES


class Observation(models.Model):
    class Source(models.TextChoices):
        TOOL = "tool", "Tool"
        HUMAN = "human", "Human"
        RUNTIME = "runtime", "Runtime"

    # (run, step) below serves lookups by run: no index of its own on the hot insert path.
    run = models.ForeignKey(
        Run, on_delete=models.CASCADE, related_name="observations", db_index=False
    )
    step = models.PositiveIntegerField()
    source = models.CharField(max_length=16, choices=Source.choices)
    name = models.CharField(max_length=80)
    ok = models.BooleanField()
    data = models.JSONField(null=True, blank=True)
    model_view = models.JSONField(null=True, blank=True)
    error_type = models.CharField(max_length=80, blank=True)
    error_message = models.TextField(blank=True)
    source_ids = models.JSONField(default=list, blank=True)
    created_at = models.DateTimeField()

    class Meta:
        indexes = [models.Index(fields=["run", "step"], name="runs_observation_run_step_idx")]

    def __str__(self) -> str:
        return f"{self.name} at step {self.step} ({'ok' if self.ok else self.error_type})"


class TraceEvent(models.Model):
    # A model call is paid for whether its reply was a decision or unusable: both events
    # carry its usage.
    MODEL_CALLS = frozenset({"model_decision", "model_failed"})

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="events", db_index=False)
    seq = models.PositiveIntegerField()
    step = models.PositiveIntegerField()
    type = models.CharField(max_length=40)
    data = models.JSONField(default=dict, blank=True)
    timestamp = models.DateTimeField()
    duration_ms = models.PositiveIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["seq"]
        constraints = [
            models.UniqueConstraint(fields=["run", "seq"], name="runs_traceevent_seq_unique"),
        ]
        indexes = [models.Index(fields=["run", "type"], name="runs_traceevent_run_type_idx")]

    def __str__(self) -> str:
        return f"#{self.seq} {self.type}"


class ToolCall(models.Model):
    class Effect(models.TextChoices):
        INTENDED = "intended", "Intended"
        SUCCEEDED = "succeeded", "Succeeded"
        FAILED = "failed", "Failed"
        UNKNOWN = "unknown", "Unknown"
        CANCELLED = "cancelled", "Cancelled"

    run = models.ForeignKey(
        Run, on_delete=models.CASCADE, related_name="tool_calls", db_index=False
    )
    # Unique through Meta.constraints: unique=True would add a pattern-matching index on
    # PostgreSQL that no query uses.
    idempotency_key = models.CharField(max_length=128)
    step = models.PositiveIntegerField()
    tool = models.CharField(max_length=80)
    arguments = models.JSONField(default=dict)
    effect_status = models.CharField(max_length=16, choices=Effect.choices, default=Effect.INTENDED)
    attempts = models.PositiveSmallIntegerField(default=0)
    cost_usd = models.DecimalField(max_digits=12, decimal_places=6, default=Decimal("0"))
    result = models.JSONField(null=True, blank=True)
    error_type = models.CharField(max_length=80, blank=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    duration_ms = models.PositiveIntegerField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["idempotency_key"], name="runs_toolcall_idempotency_key_unique"
            ),
        ]
        indexes = [models.Index(fields=["run", "step"], name="runs_toolcall_run_step_idx")]

    def __str__(self) -> str:
        return f"{self.tool} [{self.effect_status}] {self.idempotency_key}"
