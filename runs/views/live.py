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
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone
from django_htmx.http import HttpResponseClientRedirect

from reviews.actions import do_answer_question
from reviews.forms import AnswerForm
from reviews.models import ReviewItem
from runs import fragments
from runs.access import get_for_tenant, require_role, tenant_of
from runs.actions import CancelRefused, do_request_cancel
from runs.models import Run
from runs.post_only import post_only
from runs.views.cases import HtmxHttpRequest, case_page, live_page_context


def _run_for(request: HtmxHttpRequest, run_id: int) -> Run:
    return get_for_tenant(
        Run.objects.select_related("case", "cancel_requested_by"), tenant_of(request), pk=run_id
    )


def _back_to_case(request: HtmxHttpRequest, run: Run) -> HttpResponse:
    if request.htmx:
        run.refresh_from_db()
        context = live_page_context(request, run, is_latest=_is_latest(run))
        return _live_regions(run, context)
    url = reverse("runs-case-detail", kwargs={"case_id": run.case_id})
    return redirect(f"{url}?run={run.pk}")


def _is_latest(run: Run) -> bool:
    return not Run.objects.filter(case_id=run.case_id, pk__gt=run.pk).exists()


def _live_regions(run: Run, context: dict, *extra: str) -> HttpResponse:
    decisions = fragments.render_decisions(fragments.decisions_context(run.case_id), oob=True)
    return HttpResponse(fragments.render_regions(context, oob=True) + decisions + "".join(extra))


def _answer_refused(
    request: HtmxHttpRequest, run: Run, error: str, typed: str, *, status: int
) -> HttpResponse:
    """The refusal and the typed answer, given back the way the review queues give back a
    refused reason: in the answer form while the page shows it, otherwise as text to copy.
    The copy sits outside the banner, so the push that updates the banner keeps it."""
    run.refresh_from_db()
    if not request.htmx:
        return case_page(
            request, run.case, run.pk, answer_error=error, answer_typed=typed, status=status
        )
    context = live_page_context(
        request, run, is_latest=_is_latest(run), answer_error=error, answer_typed=typed
    )
    refused = render_to_string("runs/live/answer_refused.html", {**context, "oob": True})
    # htmx swaps only 2xx responses, so the refusal travels in a 200.
    return _live_regions(run, context, refused)


def _case_page_of_run(request: HtmxHttpRequest, run_id: int) -> str:
    run = _run_for(request, run_id)
    return reverse("runs-case-detail", kwargs={"case_id": run.case_id}) + f"?run={run.pk}"


@require_role("analyst", "admin")
@post_only(_case_page_of_run)
def run_cancel(request: HtmxHttpRequest, run_id: int) -> HttpResponse:
    run = _run_for(request, run_id)
    if run.is_terminal:
        if not request.htmx:
            messages.info(request, f"The run had already ended ({run.get_status_display()}).")
    else:
        already = run.cancel_requested_at is not None
        try:
            run = do_request_cancel(run, request.user, reviewer_decides=True)
        except CancelRefused:
            # Cancelling would take a packet or an escalation out of review unseen.
            messages.error(request, CancelRefused.message)
            if request.htmx:
                return HttpResponseClientRedirect(_case_page_of_run(request, run_id))
            return _back_to_case(request, run)
        if not request.htmx and not already:
            messages.success(request, "Cancellation requested; the run stops within a second.")
    return _back_to_case(request, run)


def _why_not_open(run: Run, asked: str) -> str:
    """What became of the question the page showed: answered (by whom, when), withdrawn by
    a cancel, or left behind as the run moved on."""
    questions = ReviewItem.objects.filter(run=run, kind=ReviewItem.Kind.CLARIFICATION)
    # A page without the question's number (an older form) answered the latest one.
    question = questions.filter(pk=asked).first() if asked.isdigit() else questions.last()
    decision = (
        question.decisions.select_related("actor").order_by("id").first() if question else None
    )
    if decision is not None:
        return (
            f"{_person(decision.actor)} already answered this question at "
            f"{_clock(decision.created_at)}; your answer was not recorded."
        )
    if run.cancel_requested_at is not None:
        who = run.cancel_requested_by
        by = f" by {_person(who)}" if who else ""
        return (
            f"The run was cancelled{by} at {_clock(run.cancel_requested_at)}, which withdrew "
            "its question; nothing was recorded."
        )
    return "The run no longer waits for this question (it moved on); nothing was recorded."


def _person(user) -> str:
    return user.get_full_name() or user.get_username()


def _clock(moment) -> str:
    return timezone.localtime(moment).strftime("%H:%M:%S %Z")


@require_role("analyst")
@post_only(_case_page_of_run)
def run_answer(request: HtmxHttpRequest, run_id: int) -> HttpResponse:
    run = _run_for(request, run_id)
    form = AnswerForm(request.POST)
    # What to give back if refused: the text typed, else the suggestion picked.
    typed = request.POST.get("answer_text", "").strip() or request.POST.get("answer", "")
    item = (
        ReviewItem.objects.filter(
            run=run, kind=ReviewItem.Kind.CLARIFICATION, status=ReviewItem.Status.OPEN
        )
        .order_by("-id")
        .first()
    )
    # The form names the question it answers: a page left open while the run moved on to
    # another question must not answer that one.
    asked = request.POST.get("question_item", "")
    if (
        item is None
        or run.status != Run.Status.WAITING_FOR_INPUT
        or (asked and asked != str(item.pk))
    ):
        error = _why_not_open(run, asked)
        return _answer_refused(request, run, error, typed, status=409)
    if not form.is_valid():
        error = " ".join(message for errors in form.errors.values() for message in errors)
        return _answer_refused(request, run, error, typed, status=400)
    try:
        do_answer_question(item, request.user, form.cleaned_data["text"])
    except (ValidationError, IntegrityError) as problem:
        error = "; ".join(getattr(problem, "messages", [str(problem)]))
        return _answer_refused(request, run, error, typed, status=409)
    if not request.htmx:
        messages.success(request, "Answer recorded; the run resumes in a moment.")
    return _back_to_case(request, run)
