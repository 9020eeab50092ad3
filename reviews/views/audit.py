"""Every human decision of the tenant, on its runs and on its cases' records, read-only:
who, when, why, and on which state; on the page, or as a CSV file for auditors."""

from __future__ import annotations

import datetime as dt
from collections import Counter

from django.contrib.auth import get_user_model
from django.core.paginator import Paginator
from django.db.models import Q
from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest
from django.shortcuts import render
from django.utils import timezone
from django.views.decorators.http import require_safe

from reviews.audit_csv import audit_csv_lines
from reviews.audit_rows import (
    CASE_RECORD_KINDS,
    AuditFilters,
    add_effects,
    audit_entries,
    rows_of,
)
from reviews.models import HumanDecision
from reviews.views.common import HtmxHttpRequest
from runs.access import require_role, tenant_of
from runs.exports import streaming_response
from runs.models import CaseEdit, Document
from runs.search_text import search_text

PAGE_SIZE = 50
KINDS = [*HumanDecision.Kind.choices, *CASE_RECORD_KINDS.items()]


def filters_of(request: HttpRequest) -> tuple[AuditFilters, list[str]]:
    """The filters the query string asks for, and what was wrong with it, in words."""
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
    kind = request.GET.get("kind", "")
    filters = AuditFilters(
        case=search_text(request.GET.get("case", "")),
        actor=request.GET.get("actor", "").strip()[:150],
        kind=kind if kind in dict(KINDS) else "",
        **days,
    )
    return filters, errors


def actor_choices(users) -> list[tuple[str, str]]:
    """The Actor filter's options, (username, label), by label: each person by the full name
    the table shows, with the username where that name is blank or shared."""
    people = [(user.get_username(), user.get_full_name().strip()) for user in users]
    named = Counter(name for _, name in people if name)
    choices = [
        (username, f"{name} ({username})" if named[name] > 1 else name)
        if name
        else (username, username)
        for username, name in people
    ]
    return sorted(choices, key=lambda choice: (choice[1].casefold(), choice[0]))


def people_of_the_trail(tenant):
    """The tenant's members, and anyone whose decisions are in its trail though they have
    since left it."""
    return (
        get_user_model()
        .objects.filter(
            Q(membership__tenant=tenant)
            | Q(pk__in=HumanDecision.objects.filter(tenant=tenant).values("actor"))
            | Q(pk__in=CaseEdit.objects.filter(case__tenant=tenant).values("edited_by"))
            | Q(
                pk__in=Document.objects.filter(
                    case__tenant=tenant, sensitive_marked_by__isnull=False
                ).values("sensitive_marked_by")
            )
        )
        .distinct()
    )


@require_role("reviewer", "admin")
@require_safe
def audit(request: HtmxHttpRequest) -> HttpResponse:
    tenant = tenant_of(request)
    filters, errors = filters_of(request)
    actors = actor_choices(people_of_the_trail(tenant))
    if filters.actor and filters.actor not in dict(actors):
        errors.append(
            f"No one with the username {filters.actor!r} is a member or has acted in this "
            "tenant's records: nothing can match."
        )
    page = Paginator(audit_entries(tenant, filters), PAGE_SIZE).get_page(request.GET.get("page"))
    rows = rows_of(list(page.object_list))
    add_effects(rows)
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
            "actors": actors,
            "kinds": KINDS,
            "date_from": filters.date_from,
            "date_to": filters.date_to,
            "errors": errors,
            "filtered": filters.any,
            "filter_query": params.urlencode(),
        },
    )


@require_role("reviewer", "admin")
@require_safe
def audit_csv(request: HtmxHttpRequest) -> HttpResponse:
    """The audit trail as the page filters it, every row, newest first. A filter the page
    would ignore with a warning is refused here: a file cannot carry the warning."""
    filters, errors = filters_of(request)
    if errors:
        return HttpResponseBadRequest(
            " ".join(errors) + "\n", content_type="text/plain; charset=utf-8"
        )
    tenant = tenant_of(request)
    return streaming_response(
        request,
        audit_csv_lines(tenant, filters),
        content_type="text/csv; charset=utf-8",
        filename=f"atlas-audit-{tenant.slug}-{timezone.localdate():%Y-%m-%d}.csv",
    )
