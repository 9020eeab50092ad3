"""Open questions from every run of the tenant; analysts answer them, and the run resumes."""

from __future__ import annotations

from django.contrib import messages
from django.db.models import QuerySet
from django.http import HttpResponse, QueryDict
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_safe

from reviews.actions import AlreadyDecided, ReviewError, do_answer_question
from reviews.forms import AnswerForm
from reviews.models import ReviewItem
from reviews.paging import QueuePage, queue_page
from reviews.queries import filter_queue, open_items
from reviews.views.common import (
    HtmxHttpRequest,
    decisions_by_item,
    item_for,
    item_view,
    shown_page_query,
)
from reviews.views.new_items import notice_context, only_mine
from runs.access import has_role, require_role, tenant_of
from runs.post_only import post_only
from runs.search_text import matching_cases, search_text

KIND = ReviewItem.Kind.CLARIFICATION


def _questions(request: HtmxHttpRequest, params: QueryDict) -> tuple[QuerySet, str, bool]:
    """The open questions `params` filter for, with the case filter and whether only the
    cases this person opened are asked for (an analyst's filter; others opened none)."""
    query = search_text(params.get("q", ""))
    mine = only_mine(request, params)
    items = filter_queue(
        open_items(tenant_of(request), [KIND]).filter(matching_cases(query, "case")),
        opened_by=request.user if mine else None,
    )
    return items, query, mine


def _render(
    request: HtmxHttpRequest,
    page: QueuePage,
    rows,
    *,
    query: str = "",
    mine: bool = False,
    status: int = 200,
) -> HttpResponse:
    return render(
        request,
        "reviews/clarifications.html",
        {
            "page": page,
            "rows": rows,
            "open_count": page.total,
            "query": query,
            "mine": mine,
            "filtered": bool(query or mine),
            "can_answer": has_role(request.user, "analyst"),
            **notice_context(request, "questions"),
        },
        status=status,
    )


@require_role("analyst", "reviewer")
@require_safe
def clarifications(request: HtmxHttpRequest) -> HttpResponse:
    items, query, mine = _questions(request, request.GET)
    page = queue_page(items, request.GET, tenant_of(request))
    decisions = decisions_by_item(page.items)
    rows = [item_view(item, request.user, decisions=decisions) for item in page.items]
    return _render(request, page, rows, query=query, mine=mine)


def _after(
    request: HtmxHttpRequest,
    item: ReviewItem,
    *,
    error: str = "",
    text: str = "",
    status: int = 200,
):
    item.refresh_from_db()
    row = item_view(item, request.user, error=error, reason=text)
    if request.htmx:
        response = render(
            request, "reviews/clarifications.html#question", {"row": row, "can_answer": True}
        )
        # The header's count changes with the answer: swapped out of band, counted with the
        # filters of the page the answer was sent from.
        items, query, mine = _questions(request, shown_page_query(request))
        count = render(
            request,
            "reviews/clarifications.html#open-count",
            {"open_count": items.count(), "filtered": bool(query or mine), "oob": True},
        )
        response.content += count.content
        return response
    if error:
        # Re-show the queue's first page with this question's error and the typed answer
        # kept; a question not on that page (answered meanwhile, or further on) heads it.
        tenant = tenant_of(request)
        page = queue_page(open_items(tenant, [KIND]), QueryDict(), tenant)
        decisions = decisions_by_item(page.items)
        rows = [
            row if other.pk == item.pk else item_view(other, request.user, decisions=decisions)
            for other in page.items
        ]
        if item.pk not in {other.pk for other in page.items}:
            rows.insert(0, row)
        return _render(request, page, rows, status=status)
    return redirect(reverse("reviews-clarifications"))


def _questions_page(request: HtmxHttpRequest, item_id: int) -> str:
    item_for(request, item_id, KIND)  # another tenant's question is a 404 here too
    return reverse("reviews-clarifications")


@require_role("analyst")
@post_only(_questions_page)
def answer(request: HtmxHttpRequest, item_id: int) -> HttpResponse:
    item = item_for(request, item_id, KIND)
    form = AnswerForm(request.POST)
    typed = request.POST.get("answer_text", "")
    if not form.is_valid():
        error = " ".join(message for errors in form.errors.values() for message in errors)
        return _after(request, item, error=error, text=typed, status=400)
    try:
        do_answer_question(item, request.user, form.cleaned_data["text"])
    except AlreadyDecided as problem:
        earlier = problem.decision
        if earlier.actor_id != request.user.pk:
            return _after(request, item, error=problem.messages[0], text=typed, status=409)
        if earlier.payload.get("text") != form.cleaned_data["text"]:
            # Not a double submit: a second, different answer the run will never get.
            error = (
                f"You already answered this question: “{earlier.payload.get('text', '')}”. "
                "This answer was not sent; the agent asks again if it needs more."
            )
            return _after(request, item, error=error, text=typed, status=409)
    except ReviewError as problem:
        return _after(request, item, error=problem.messages[0], text=typed, status=409)
    if not request.htmx:
        messages.success(
            request, f"Answer recorded for {item.case.subject_name}; the run resumes in a moment."
        )
    return _after(request, item)
