"""Every human decision of the tenant, on its runs and on its cases' records, read-only:
who, when, why, and on which state."""

from __future__ import annotations

import datetime as dt

from django.contrib.auth import get_user_model
from django.core.paginator import Paginator
from django.http import HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_safe

from reviews.audit_rows import CASE_RECORD_KINDS, AuditFilters, audit_entries, rows_of
from reviews.decision_details import decision_details
from reviews.models import HumanDecision
from reviews.views.common import HtmxHttpRequest
from runs.access import require_role, tenant_of
from runs.execution import RUNTIME_INPUT_KIND
from runs.models import Run
from runs.search_text import search_text

PAGE_SIZE = 50


@require_role("reviewer", "admin")
@require_safe
def audit(request: HtmxHttpRequest) -> HttpResponse:
    tenant = tenant_of(request)
    errors, days = [], {}
    for name in ("date_from", "date_to"):
        raw = request.GET.get(name, "").strip()[:20]
        try:
            days[name] = dt.date.fromisoformat(raw) if raw else None
        except ValueError:
            days[name] = None
            errors.append(f"{raw!r} is not a date (use YYYY-MM-DD); it was ignored.")
    if days.get("date_from") and days.get("date_to") and days["date_from"] > days["date_to"]:
        errors.append(
            f"The From date ({days['date_from']}) is after the To date ({days['date_to']}); "
            "nothing can match: swap them."
        )
    kinds = [*HumanDecision.Kind.choices, *CASE_RECORD_KINDS.items()]
    kind = request.GET.get("kind", "")
    filters = AuditFilters(
        case=search_text(request.GET.get("case", "")),
        actor=request.GET.get("actor", "").strip()[:150],
        kind=kind if kind in dict(kinds) else "",
        **days,
    )
    actors = (
        get_user_model()
        .objects.filter(membership__tenant=tenant)
        .order_by("username")
        .values_list("username", flat=True)
    )
    page = Paginator(audit_entries(tenant, filters), PAGE_SIZE).get_page(request.GET.get("page"))
    rows = rows_of(list(page.object_list))
    decisions = [row.decision for row in rows if row.decision is not None]
    settled_by_run = {
        pk: (applied or [], rejected or {})
        for pk, applied, rejected in Run.objects.filter(
            pk__in={d.run_id for d in decisions}
        ).values_list("pk", "state__applied_decision_ids", "state__rejected_decisions")
    }
    for decision in decisions:
        applied, rejected = settled_by_run.get(decision.run_id, ([], {}))
        decision.applies_to_run = decision.kind in RUNTIME_INPUT_KIND
        decision.applied = str(decision.pk) in applied
        decision.not_applied_because = rejected.get(str(decision.pk), "")
    for row in rows:
        if row.decision is not None:
            row.details = decision_details(row.decision.payload or {})
    params = request.GET.copy()
    params.pop("page", None)
    return render(
        request,
        "reviews/audit.html",
        {
            "page": page,
            "rows": rows,
            "case": filters.case,
            "actor": filters.actor,
            "kind": filters.kind,
            "actors": list(actors),
            "kinds": kinds,
            "date_from": days["date_from"],
            "date_to": days["date_to"],
            "errors": errors,
            "filtered": bool(filters.case or filters.actor or filters.kind or any(days.values())),
            "filter_query": params.urlencode(),
        },
    )
