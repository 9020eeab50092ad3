"""What people are asked to decide, and what they decided.

`HumanDecision` is append-only: an audit needs every decision as it was made.
"""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q

from atlas.runtime.state import EXTENDABLE_REASONS
from runs.models import Case, Run, Tenant


class ReviewItem(models.Model):
    class Kind(models.TextChoices):
        APPROVAL = "approval", "Tool approval"
        SIGNOFF = "signoff", "Packet sign-off"
        CLARIFICATION = "clarification", "Clarifying question"
        ESCALATION = "escalation", "Escalation"

    class Status(models.TextChoices):
        OPEN = "open", "Open"
        DECIDED = "decided", "Decided"
        WITHDRAWN = "withdrawn", "Withdrawn"

    tenant = models.ForeignKey(Tenant, on_delete=models.PROTECT, related_name="review_items")
    case = models.ForeignKey(Case, on_delete=models.PROTECT, related_name="review_items")
    run = models.ForeignKey(Run, on_delete=models.PROTECT, related_name="review_items")
    kind = models.CharField(max_length=16, choices=Kind.choices)
    key = models.CharField(max_length=128)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.OPEN)
    summary = models.CharField(max_length=500)
    payload = models.JSONField(default=dict, blank=True)
    requested_at = models.DateTimeField()
    claimed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+", null=True, blank=True
    )
    claim_expires_at = models.DateTimeField(null=True, blank=True)
    decided_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["run", "kind", "key"], name="reviews_item_run_kind_key_unique"
            ),
        ]
        indexes = [
            # The queues: a tenant's open items of one kind, oldest first.
            models.Index(
                fields=["tenant", "kind", "requested_at"],
                name="reviews_item_open_queue_idx",
                condition=Q(status="open"),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.get_kind_display()}: {self.summary}"

    @property
    def budget_can_be_extended(self) -> bool:
        return (
            self.kind == self.Kind.ESCALATION and self.payload.get("reason") in EXTENDABLE_REASONS
        )


class HumanDecision(models.Model):
    class Kind(models.TextChoices):
        APPROVE = "approve", "Approved"
        DENY = "deny", "Denied"
        ANSWER = "answer", "Answered"
        RESOLVE_CONFLICT = "resolve_conflict", "Resolved conflict"
        MARK_UNRESOLVABLE = "mark_unresolvable", "Marked unresolvable"
        EXTEND_BUDGET = "extend_budget", "Extended budget"
        CLOSE_CASE = "close_case", "Closed case"
        CANCEL = "cancel", "Cancelled run"
        SIGN_OFF = "sign_off", "Signed off packet"
        REJECT_PACKET = "reject_packet", "Sent back"

    tenant = models.ForeignKey(Tenant, on_delete=models.PROTECT, related_name="decisions")
    case = models.ForeignKey(Case, on_delete=models.PROTECT, related_name="decisions")
    run = models.ForeignKey(Run, on_delete=models.PROTECT, related_name="decisions")
    review_item = models.ForeignKey(
        ReviewItem, on_delete=models.PROTECT, related_name="decisions", null=True, blank=True
    )
    # The item a decision was made on without closing it (one conflict of an escalation
    # that has more): `review_item` is the decision that closes an item, one per item.
    part_of = models.ForeignKey(
        ReviewItem, on_delete=models.PROTECT, related_name="+", null=True, blank=True
    )
    actor = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    kind = models.CharField(max_length=24, choices=Kind.choices)
    reason = models.TextField(blank=True)
    payload = models.JSONField(default=dict, blank=True)
    state_version = models.PositiveIntegerField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "id"]
        constraints = [
            # Two reviewers deciding one item at once: the second insert fails.
            models.UniqueConstraint(
                fields=["review_item"],
                name="reviews_decision_one_per_item",
                condition=Q(review_item__isnull=False),
            ),
        ]
        indexes = [models.Index(fields=["run", "id"], name="reviews_decision_run_idx")]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} by {self.actor} on run {self.run_id}"

    def save(self, *args, **kwargs) -> None:
        if self.pk is not None:
            raise ValidationError("Human decisions are append-only and cannot be edited.")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise ValidationError("Human decisions are part of the audit trail and cannot be deleted.")

    @property
    def says_no(self) -> bool:
        """A denied approval or a packet sent back, shown apart from a yes."""
        return self.kind in {self.Kind.DENY, self.Kind.REJECT_PACKET}

    @property
    def item(self) -> ReviewItem | None:
        """The review item the decision was made on, whether or not it closed it."""
        return self.review_item or self.part_of
