"""Every human decision of the tenant, read-only: who, when, why, and on which state."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.core.paginator import Paginator
from django.db.models import Q
from django.http import HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_safe

from reviews.models import HumanDecision
from reviews.views.common import HtmxHttpRequest
from runs.access import require_role, tenant_of
from runs.execution import RUNTIME_INPUT_KIND
from runs.models import Run

PAGE_SIZE = 50


@require_role("reviewer", "admin")
@require_safe
def audit(request: HtmxHttpRequest) -> HttpResponse:
    tenant = tenant_of(request)
    decisions = (
        HumanDecision.objects.filter(tenant=tenant)
        .select_related("actor", "case", "review_item")
        .order_by("-created_at", "-id")
    )
    case = request.GET.get("case", "").strip()[:200]
    actor = request.GET.get("actor", "").strip()[:150]
    kind = request.GET.get("kind", "")
    if case:
        condition = Q(case__subject_name__icontains=case)
        if case.isdigit():
            condition |= Q(case_id=int(case))
        decisions = decisions.filter(condition)
    if actor:
        decisions = decisions.filter(actor__username=actor)
    if kind in HumanDecision.Kind.values:
        decisions = decisions.filter(kind=kind)
    actors = (
        get_user_model()
        .objects.filter(membership__tenant=tenant)
        .order_by("username")
        .values_list("username", flat=True)
    )
    page = Paginator(decisions, PAGE_SIZE).get_page(request.GET.get("page"))
    settled_by_run = {
        pk: (applied or [], rejected or {})
        for pk, applied, rejected in Run.objects.filter(
            pk__in={d.run_id for d in page}
        ).values_list("pk", "state__applied_decision_ids", "state__rejected_decisions")
    }
    for decision in page:
        applied, rejected = settled_by_run.get(decision.run_id, ([], {}))
        decision.applies_to_run = decision.kind in RUNTIME_INPUT_KIND
        decision.applied = str(decision.pk) in applied
        decision.not_applied_because = rejected.get(str(decision.pk), "")
    params = request.GET.copy()
    params.pop("page", None)
    return render(
        request,
        "reviews/audit.html",
        {
            "page": page,
            "case": case,
            "actor": actor,
            "kind": kind,
            "actors": list(actors),
            "kinds": HumanDecision.Kind.choices,
            "filtered": bool(case or actor or kind in HumanDecision.Kind.values),
            "filter_query": params.urlencode(),
        },
    )
