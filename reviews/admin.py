"""Django admin for review items and the append-only human decisions (read-only).

A review item's summary and payload, and a decision's reason and payload, can quote a
document, a tool's result or an answer: they are shown with personal data redacted
(runs.admin)."""

from __future__ import annotations

from django.contrib import admin
from django.http import HttpRequest

from atlas.runtime.redaction import redact
from reviews.models import HumanDecision, ReviewItem
from runs.admin import ReadOnlyAdmin, TenantScopedAdmin


def _summary_redacted(item: ReviewItem | None) -> ReviewItem | None:
    """The item, its summary redacted where the page names it (title, breadcrumbs,
    history, a decision's link to it): nobody may change an item here, so it is not saved."""
    if item is not None:
        item.summary = redact(item.summary)
    return item


@admin.register(ReviewItem)
class ReviewItemAdmin(TenantScopedAdmin):
    list_display = (
        "id",
        "kind",
        "status",
        "summary_shown",
        "case",
        "run",
        "requested_at",
        "claimed_by",
        "decided_at",
    )
    list_filter = ("kind", "status", "tenant")
    search_fields = ("summary", "=key", "case__subject_name", "=run__id")
    list_select_related = ("case", "run", "run__case", "claimed_by")
    date_hierarchy = "requested_at"
    redacted_fields = ("summary", "payload")

    @admin.display(description="summary", ordering="summary")
    def summary_shown(self, item: ReviewItem) -> str:
        return redact(item.summary)

    def get_object(self, request: HttpRequest, object_id: str, from_field=None):
        return _summary_redacted(super().get_object(request, object_id, from_field))


@admin.register(HumanDecision)
class HumanDecisionAdmin(ReadOnlyAdmin):
    list_display = (
        "id",
        "kind",
        "actor",
        "case",
        "run",
        "review_item_shown",
        "state_version",
        "created_at",
    )
    list_filter = ("kind", "tenant")
    search_fields = ("reason", "^actor__username", "case__subject_name", "=run__id")
    list_select_related = ("actor", "case", "run", "run__case", "review_item")
    date_hierarchy = "created_at"
    redacted_fields = ("reason", "payload")

    @admin.display(description="review item", ordering="review_item")
    def review_item_shown(self, decision: HumanDecision) -> str:
        item = decision.review_item
        return str(_summary_redacted(item)) if item else "-"

    def get_object(self, request: HttpRequest, object_id: str, from_field=None):
        decision = super().get_object(request, object_id, from_field)
        if decision is not None:
            _summary_redacted(decision.review_item)
        return decision
