"""Django admin for review items and the append-only human decisions (read-only)."""

from __future__ import annotations

from django.contrib import admin

from reviews.models import HumanDecision, ReviewItem
from runs.admin import ReadOnlyAdmin, TenantScopedAdmin


@admin.register(ReviewItem)
class ReviewItemAdmin(TenantScopedAdmin):
    list_display = (
        "id",
        "kind",
        "status",
        "summary",
        "case",
        "run",
        "requested_at",
        "claimed_by",
        "decided_at",
    )
    list_filter = ("kind", "status", "tenant")
    search_fields = ("summary", "key", "case__subject_name", "=run__id")
    list_select_related = ("case", "run", "run__case", "claimed_by")
    date_hierarchy = "requested_at"


@admin.register(HumanDecision)
class HumanDecisionAdmin(ReadOnlyAdmin):
    list_display = (
        "id",
        "kind",
        "actor",
        "case",
        "run",
        "review_item",
        "state_version",
        "created_at",
    )
    list_filter = ("kind", "tenant")
    search_fields = ("reason", "actor__username", "case__subject_name", "=run__id")
    list_select_related = ("actor", "case", "run", "run__case", "review_item")
    date_hierarchy = "created_at"
