"""Actions taken from a case page on its live run: cancel it, answer its question.

A plain form post redirects back to the case page; an htmx post gets the run's live
regions back as out-of-band swaps, rendered by the same code the websocket uses.
"""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.db import IntegrityError
from django.http import HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.views.decorators.http import require_POST

from reviews.actions import do_answer_question
from reviews.models import ReviewItem
from runs import fragments
from runs.access import get_for_tenant, require_role, tenant_of
from runs.actions import do_request_cancel
from runs.models import Run
from runs.views.cases import HtmxHttpRequest, live_page_context


def _run_for(request: HtmxHttpRequest, run_id: int) -> Run:
    return get_for_tenant(
        Run.objects.select_related("case", "cancel_requested_by"), tenant_of(request), pk=run_id
    )


def _back_to_case(request: HtmxHttpRequest, run: Run, *, answer_error: str = "") -> HttpResponse:
    if request.htmx:
        run.refresh_from_db()
        latest_id = Run.objects.filter(case_id=run.case_id).order_by("-id").values("id")[:1]
        context = live_page_context(
            request,
            run,
            is_latest=run.pk == latest_id[0]["id"],
            answer_error=answer_error,
        )
        decisions = fragments.render_decisions(fragments.decisions_context(run.case_id), oob=True)
        return HttpResponse(fragments.render_regions(context, oob=True) + decisions)
    url = reverse("runs-case-detail", kwargs={"case_id": run.case_id})
    return redirect(f"{url}?run={run.pk}")


@require_role("analyst", "admin")
@require_POST
def run_cancel(request: HtmxHttpRequest, run_id: int) -> HttpResponse:
    run = _run_for(request, run_id)
    if run.is_terminal:
        if not request.htmx:
            messages.info(request, f"The run had already ended ({run.get_status_display()}).")
    else:
        already = run.cancel_requested_at is not None
        run = do_request_cancel(run, request.user)
        if not request.htmx and not already:
            messages.success(request, "Cancellation requested; the run stops within a second.")
    return _back_to_case(request, run)


@require_role("analyst")
@require_POST
def run_answer(request: HtmxHttpRequest, run_id: int) -> HttpResponse:
    run = _run_for(request, run_id)
    text = (request.POST.get("answer") or request.POST.get("answer_text") or "").strip()
    item = (
        ReviewItem.objects.filter(
            run=run, kind=ReviewItem.Kind.CLARIFICATION, status=ReviewItem.Status.OPEN
        )
        .order_by("-id")
        .first()
    )
    error = ""
    if item is None or run.status != Run.Status.WAITING_FOR_INPUT:
        error = "This question was already answered or withdrawn; nothing was recorded."
    elif not text:
        error = "Write an answer or pick one of the suggested answers."
    else:
        try:
            do_answer_question(item, request.user, text)
        except (ValidationError, IntegrityError) as problem:
            error = "; ".join(getattr(problem, "messages", [str(problem)]))
    if error and not request.htmx:
        messages.error(request, error)
    elif not error and not request.htmx:
        messages.success(request, "Answer recorded; the run resumes in a moment.")
    return _back_to_case(request, run, answer_error=error)
