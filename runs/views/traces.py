"""The admins' run browser and trace view, with their JSON exports."""

from __future__ import annotations

import json

from django.db.models import QuerySet
from django.http import Http404, HttpResponse, StreamingHttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils import timezone
from django.utils.http import urlencode
from django.views.decorators.http import require_GET
from django_htmx.middleware import HtmxDetails

from reviews.models import HumanDecision
from runs import exports
from runs.access import get_for_tenant, require_role, tenant_of
from runs.models import Run
from runs.numbers import whole_number
from runs.views.run_filters import (
    SORT_LABELS,
    SORTS,
    BadCursor,
    RunFilters,
    page_of_runs,
    runs_in_scope,
)
from runs.views.trace_steps import money, summary_of, trace_page

ADMIN = "admin"
RECENT_FOR_SUGGESTIONS = 500
LIST_FIELDS = (
    "id",
    "tenant__name",
    "case_id",
    "subject_name",
    "subject_type",
    "status",
    "termination_reason",
    "closed_by_reviewer",  # with the reason, the outcome each row shows
    "model_name",
    "prompt_version",
    "policy_version",
    "iterations",
    "tokens",
    "cost_usd",
    "elapsed_seconds",
    # The sort columns: a page's cursors hold the values of its sort's.
    *(column for column, _ in SORTS.values()),
    "last_seq",
)


class HtmxHttpRequest:  # typing only: django-htmx's request with `.htmx`
    htmx: HtmxDetails


def run_for_admin(
    request: HtmxHttpRequest, run_id: int, queryset: QuerySet[Run] | None = None
) -> Run:
    """The run if the admin may see it: their tenant's, or any tenant's for a superuser."""
    queryset = queryset if queryset is not None else Run.objects.all()
    if request.user.is_superuser:
        try:
            return queryset.get(pk=run_id)
        except Run.DoesNotExist:
            raise Http404("No such run.") from None
    return get_for_tenant(queryset, tenant_of(request), pk=run_id)


def recent_versions(scope: QuerySet[Run]) -> dict[str, list[str]]:
    """Version values of the newest runs, offered as suggestions (any value can be typed).

    A DISTINCT over every run of a tenant scans them all; the newest few hundred come from
    the (tenant, -created_at, -id) index and hold the versions anyone is comparing.
    """
    rows = scope.order_by("-created_at", "-id").values_list(
        "model_name", "prompt_version", "policy_version"
    )[:RECENT_FOR_SUGGESTIONS]
    columns = list(zip(*rows, strict=True)) or [(), (), ()]
    return {
        name: sorted({value for value in values if value})
        for name, values in zip(("models", "prompts", "policies"), columns, strict=True)
    }


@require_GET
@require_role(ADMIN)
def trace_list(request: HtmxHttpRequest) -> HttpResponse:
    scope = runs_in_scope(request)
    filters = RunFilters.from_query(request.GET)
    runs = filters.apply(scope).select_related("tenant").only(*LIST_FIELDS)
    errors = list(filters.errors)
    try:
        page = page_of_runs(
            runs, filters, after=request.GET.get("after", ""), before=request.GET.get("before", "")
        )
    except BadCursor as error:
        errors.append(f"{error} Showing the first page.")
        page = page_of_runs(runs, filters)
    base = filters.as_query()
    sort_links = []
    for key, label in SORT_LABELS.items():
        descending = not (filters.sort == key and filters.descending)
        params = {**base, "sort": ("-" if descending else "") + key}
        arrow = ""
        if filters.sort == key:
            arrow = " ↓" if filters.descending else " ↑"
        sort_links.append((key, label + arrow, "?" + urlencode(params)))
    context = {
        "page": page,
        "filters": filters,
        "errors": errors,
        "statuses": Run.Status.choices,
        "reasons": Run.OUTCOME_CHOICES,
        **recent_versions(scope),
        "sort_links": {key: (label, url) for key, label, url in sort_links},
        "next_url": "?" + urlencode({**base, "after": page.next_cursor})
        if page.next_cursor
        else "",
        "prev_url": "?" + urlencode({**base, "before": page.prev_cursor})
        if page.prev_cursor
        else "",
        "first_url": "?" + urlencode(base),
        "export_url": reverse("runs-export-jsonl") + ("?" + urlencode(base) if base else ""),
        "show_tenant": request.user.is_superuser,
    }
    return render(request, "runs/trace_list.html", context)


def _versions(run: Run, bundle: dict) -> list[tuple[str, str]]:
    return [
        ("Model", run.model_name),
        ("Model kind", bundle.get("model_kind", "")),
        ("Prompt", run.prompt_version or bundle.get("prompt", "")),
        ("Schema", run.schema_version or bundle.get("schema_version", "")),
        ("Policy", run.policy_version or bundle.get("policy", "")),
        ("Tool set", run.toolset_version or bundle.get("toolset", "")),
    ]


def _stop_event(run: Run) -> dict | None:
    if not run.last_seq:
        return None
    event = run.events.filter(seq=run.last_seq).values("type", "data").first()
    if event and event["type"] in {
        "run_failed",
        "run_cancelled",
        "run_completed",
        "escalated",
        "budget_exhausted",
        "finish_proposed",
        "clarification_requested",
        "approval_requested",
        "no_progress_detected",
        "cycle_detected",
    }:
        event["summary"] = summary_of(event["type"], event["data"] or {})
        # Shown as JSON, as the trace export writes it, not as a Python dict.
        event["data_json"] = json.dumps(event["data"], indent=2, ensure_ascii=False)
        return event
    return None


@require_GET
@require_role(ADMIN)
def trace(request: HtmxHttpRequest, run_id: int) -> HttpResponse:
    run = run_for_admin(
        request,
        run_id,
        Run.objects.select_related("case", "tenant", "created_by").defer("state", "loop_memory"),
    )
    # Only the parts of the state the page shows; the whole state of a long run is large.
    parts = (
        Run.objects.filter(pk=run.pk)
        .values("state__proposed_packet", "state__versions", "state__conflicts")
        .first()
    ) or {}
    page = trace_page(run)
    budgets = run.budgets or {}
    context = {
        "run": run,
        "page": page,
        "versions": _versions(run, parts.get("state__versions") or {}),
        "packet": parts.get("state__proposed_packet"),
        "conflicts": parts.get("state__conflicts") or [],
        "stop_event": _stop_event(run),
        "budgets": budgets,
        "max_cost": money(budgets.get("max_cost_usd")),
        "decisions": HumanDecision.objects.filter(run=run).select_related("actor").order_by("id"),
        "live": run.is_active,
    }
    return render(request, "runs/trace.html", context)


@require_GET
@require_role(ADMIN)
def trace_steps(request: HtmxHttpRequest, run_id: int) -> HttpResponse:
    """More steps after `after` (load more, or the live poll of a run in progress)."""
    run = run_for_admin(request, run_id, Run.objects.defer("state", "loop_memory"))
    after = whole_number(request.GET.get("after", "0"))
    replace = whole_number(request.GET.get("replace", "0"))
    if after is None or replace is None:
        return HttpResponse("after and replace must be whole numbers.", status=400)
    page = trace_page(run, after=after)
    context = {
        "run": run,
        "page": page,
        "replace": replace,
        "live": run.is_active,
        "poll": request.GET.get("live") == "1",
    }
    if not request.htmx:
        # Without JavaScript the "load more" link opens a page of just those steps.
        return render(request, "runs/trace_more.html", context)
    response = render(request, "runs/trace_steps.html", context)
    if context["poll"] and not run.is_active:
        # The run has stopped: the page's head (why it stopped, its packet, its totals) is
        # rendered once, so the whole page is read again.
        response["HX-Refresh"] = "true"
    return response


@require_GET
@require_role(ADMIN)
def trace_json(request: HtmxHttpRequest, run_id: int) -> StreamingHttpResponse:
    run = run_for_admin(request, run_id, Run.objects.select_related("case", "tenant"))
    return exports.streaming_response(
        request,
        exports.trace_json_chunks(run),
        content_type="application/json",
        filename=f"run-{run.pk}-trace.json",
    )


def _runs_file_name(request: HtmxHttpRequest) -> str:
    """Whose runs and when, as the audit's file is named."""
    whose = "all-tenants" if request.user.is_superuser else tenant_of(request).slug
    return f"atlas-runs-{whose}-{timezone.localdate():%Y-%m-%d}.jsonl"


@require_GET
@require_role(ADMIN)
def export_jsonl(request: HtmxHttpRequest) -> HttpResponse:
    filters = RunFilters.from_query(request.GET)
    if filters.problems:
        return HttpResponse(
            "Cannot export: " + "; ".join(filters.problems) + ". Nothing was exported.",
            status=400,
            content_type="text/plain",
        )
    runs = filters.apply(runs_in_scope(request))
    return exports.streaming_response(
        request,
        exports.runs_jsonl_lines(runs, filters),
        content_type="application/x-ndjson",
        filename=_runs_file_name(request),
    )
