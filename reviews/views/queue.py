"""The approval queue: tool approvals and packet sign-offs, claims, approve or deny."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import partial
from typing import NamedTuple

from django.contrib import messages
from django.http import HttpResponse, QueryDict
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_safe

from atlas.runtime.directorships import companies_directed, stored_conflict_about
from atlas.runtime.rating_floor import rules_against, why_not
from atlas.runtime.state import AtlasState
from reviews.actions import (
    AlreadyDecided,
    ReviewError,
    do_claim_item,
    do_decide,
    do_release_claim,
    refusal_for,
    settled_conflict_ids,
    sign_off_problems,
)
from reviews.forms import RATINGS, DecisionForm, hit_dispositions_in, hit_notes_in
from reviews.models import HumanDecision, ReviewItem
from reviews.paging import queue_page
from reviews.queries import (
    AGE_FILTERS,
    CLAIM_FILTERS,
    READINESS_FILTERS,
    documents_not_given,
    filter_queue,
    open_items,
    replacement_of,
)
from reviews.views.common import (
    REVIEWERS,
    HtmxHttpRequest,
    ItemView,
    by_value,
    decisions_by_item,
    item_for,
    item_view,
    next_url,
    shown_page_query,
)
from reviews.views.new_items import notice_context
from runs.access import require_role, tenant_of
from runs.evidence_links import cited_findings, numbered
from runs.models import Document
from runs.numbers import whole_number
from runs.packet_changes import changes_since_last_signoff
from runs.post_only import post_only
from runs.review_rounds import review_rounds
from runs.search_text import matching_cases, search_text

QUEUE_KINDS = [ReviewItem.Kind.APPROVAL, ReviewItem.Kind.SIGNOFF]
CLAIMABLE_KINDS = [*QUEUE_KINDS, ReviewItem.Kind.ESCALATION]


@require_role(*REVIEWERS)
@require_safe
def queue(request: HtmxHttpRequest) -> HttpResponse:
    tenant = tenant_of(request)
    filters = _queue_filters(request.GET)
    page = queue_page(_queue_items(request, filters), request.GET, tenant)
    decisions = decisions_by_item(page.items)
    signoff_runs = [item.run_id for item in page.items if item.kind == "signoff"]
    settled = settled_conflict_ids(signoff_runs)
    escalations = open_escalations(tenant, signoff_runs)
    unread = documents_not_given(page.items)
    return render(
        request,
        "reviews/queue.html",
        {
            "page": page,
            "rows": [
                with_settle_url(
                    item_view(
                        item,
                        request.user,
                        decisions=decisions,
                        settled_conflicts=settled.get(item.run_id, set()),
                        unread=unread.get(item.pk, []),
                    ),
                    escalations,
                )
                for item in page.items
            ],
            "kind": filters.kind,
            "age": filters.age,
            "query": filters.query,
            "claim": filters.claim,
            "readiness": filters.readiness,
            "readinesses": list(READINESS_FILTERS.items()),
            "kinds": [(k, ReviewItem.Kind(k).label) for k in QUEUE_KINDS],
            **notice_context(request, "approvals"),
            "ages": [(key, label) for key, (label, _) in AGE_FILTERS.items()],
            "claims": list(CLAIM_FILTERS.items()),
            "filtered": filters.any,
            "here": request.get_full_path(),
        },
    )


def open_escalations(tenant, run_ids: Iterable[int]) -> dict[int, int]:
    """The open escalation of each of these runs, by run: where a reviewer settles the
    conflicts that hold up its sign-off. One query for a whole page."""
    return dict(
        ReviewItem.objects.filter(
            tenant=tenant,
            run_id__in=set(run_ids),
            kind=ReviewItem.Kind.ESCALATION,
            status=ReviewItem.Status.OPEN,
        )
        .order_by("id")  # the newest one, should a run have two
        .values_list("run_id", "pk")
    )


def with_settle_url(view: ItemView, escalations: dict[int, int]) -> ItemView:
    """The row's link to settle its run's open conflicts: the run's open escalation, or the
    list of escalations when it has none open."""
    escalation = escalations.get(view.item.run_id)
    view.settle_url = (
        reverse("reviews-conflict", kwargs={"item_id": escalation})
        if escalation
        else reverse("reviews-escalations")
    )
    return view


@require_role(*REVIEWERS)
@require_safe
def item_detail(request: HtmxHttpRequest, item_id: int) -> HttpResponse:
    item = item_for(request, item_id, *ReviewItem.Kind.values)
    if item.kind not in QUEUE_KINDS:
        # An escalation or a question has a page of its own; a pasted link still gets there.
        return redirect(page_of(item))
    return _item_page(request, item)


def _item_page(
    request: HtmxHttpRequest,
    item: ReviewItem,
    *,
    error: str = "",
    reason: str = "",
    status: int = 200,
    typed: Mapping[str, str] | None = None,
    field_errors: Mapping[str, str] | None = None,
):
    view = item_view(
        item,
        request.user,
        error=error,
        reason=reason,
        typed=typed or {},
        field_errors=field_errors or {},
    )
    history = item.run.decisions.select_related("actor").order_by("created_at", "id")
    replacement = replacement_of(item) if _moved_on_from(item, view) else None
    context = {
        "row": view,
        "item": item,
        "case": item.case,
        "run": item.run,
        "history": history,
        "document": _document_to_read(item),
        "findings": _cited_findings(item),
        "review_rounds": review_rounds(item.payload.get("packet") or {}),
        "documents_not_given": view.documents_not_read,
        "conflicts": _unresolved_conflicts(item),
        "replacement": replacement,
        "replacement_url": page_of(replacement) if replacement else "",
    }
    if item.kind == ReviewItem.Kind.SIGNOFF:
        context["changes"] = changes_since_last_signoff(item.run)
        if view.can_decide:
            context["rating_refusals"] = rating_refusals(item)
    return render(request, "reviews/item.html", context, status=status)


class RatingRefusal(NamedTuple):
    words: str  # why_not's refusal
    # Whether the rating would be allowed were the screening matches marked false positives.
    marks_may_allow_it: bool


def rating_refusals(item: ReviewItem) -> dict[str, RatingRefusal]:
    """Why the evidence rules out each rating a reviewer may choose instead of the run's,
    by rating, with every screening match as stored. Only a forewarning: on submit the
    server judges with the matches the reviewer marked false positives set aside
    (reviews.actions._rating_set), so a rating named here may be allowed then."""
    if not item.run.state:
        return {}
    state = AtlasState.from_json(item.run.state)
    every_match = {match.evidence_id for match in state.screening_matches()}
    refusals = {}
    for rating in RATINGS:
        if rating == item.run.risk_rating:
            continue  # the run's own rating is never refused
        if rules := rules_against(state, rating):
            refusals[rating] = RatingRefusal(
                why_not(state, rating, rules),
                not rules_against(state, rating, every_match),
            )
    return refusals


def _moved_on_from(item: ReviewItem, view: ItemView) -> bool:
    """Whether the run went on to another item: this one was withdrawn, or its packet sent
    back (the analyst is asked to reply, then the packet returns for sign-off)."""
    if item.status == ReviewItem.Status.WITHDRAWN:
        return True
    return view.decision is not None and view.decision.kind == HumanDecision.Kind.REJECT_PACKET


def _unresolved_conflicts(item: ReviewItem) -> list[dict]:
    """The packet's unresolved conflicts, each competing value once with the sources that
    give it, as the escalation page shows them, and the company each is about when the
    subject is a person directing it."""
    conflicts = (item.payload.get("packet") or {}).get("unresolved_conflicts") or []
    state = item.run.state or {}
    companies = companies_directed(state.get("selected_entity"), state.get("directorships"))
    held = {c.get("conflict_id"): c for c in state.get("conflicts") or []}
    return [
        {
            **c,
            "about": stored_conflict_about(held.get(c.get("conflict_id"), {}), companies),
            "values": by_value(c.get("values") or []),
        }
        for c in conflicts
        # One a reviewer settled since the packet was proposed is no longer in dispute.
        if held.get(c.get("conflict_id"), {}).get("status") != "resolved"
    ]


def _cited_findings(item: ReviewItem) -> list[dict]:
    """A packet's findings with each citation as the packet page numbers and anchors it."""
    evidence = numbered((item.run.state or {}).get("evidence") or [])
    by_id = {e["evidence_id"]: e for e in evidence}
    return cited_findings(item.payload.get("packet") or {}, by_id)


def _document_to_read(item: ReviewItem) -> Document | None:
    """The case's document an extraction waiting for approval would read, if any."""
    if item.kind != ReviewItem.Kind.APPROVAL:
        return None
    document_id = whole_number(str(item.payload.get("arguments", {}).get("document_id", "")))
    if document_id is None:
        return None
    return Document.objects.filter(case_id=item.case_id, pk=document_id).first()


class QueueFilters(NamedTuple):
    kind: str
    age: str
    query: str
    claim: str
    readiness: str

    @property
    def any(self) -> bool:
        return any(self)


def _queue_filters(params: QueryDict) -> QueueFilters:
    """The queue page's kind, age, case, claim and readiness filters, each valid or blank."""
    kind = params.get("kind", "")
    age = params.get("age", "")
    claim = params.get("claim", "")
    readiness = params.get("ready", "")
    return QueueFilters(
        kind=kind if kind in QUEUE_KINDS else "",
        age=age if age in AGE_FILTERS else "",
        query=search_text(params.get("q", "")),
        claim=claim if claim in CLAIM_FILTERS else "",
        readiness=readiness if readiness in READINESS_FILTERS else "",
    )


def _queue_items(request: HtmxHttpRequest, filters: QueueFilters):
    return filter_queue(
        open_items(tenant_of(request), QUEUE_KINDS).filter(matching_cases(filters.query, "case")),
        kind=filters.kind,
        age=filters.age,
        claim=filters.claim,
        readiness=filters.readiness,
        user=request.user,
    )


def _row(
    request: HtmxHttpRequest, item: ReviewItem, *, error: str = "", reason: str = ""
) -> HttpResponse:
    item.refresh_from_db()
    view = with_settle_url(
        item_view(item, request.user, error=error, reason=reason),
        open_escalations(item.tenant_id, [item.run_id] if item.kind == "signoff" else []),
    )
    row = render(
        request,
        "reviews/queue.html#row",
        {"row": view, "here": next_url(request, reverse("reviews-queue"))},
    )
    # The header's count changes with the decision; htmx swaps it out of band, counted
    # with the filters of the page the decision was made on.
    filters = _queue_filters(shown_page_query(request))
    count = render(
        request,
        "reviews/queue.html#open-count",
        {
            "open_count": _queue_items(request, filters).count(),
            "filtered": filters.any,
            "oob": True,
        },
    )
    row.content += count.content
    return row


def _after(
    request: HtmxHttpRequest,
    item: ReviewItem,
    *,
    error: str = "",
    reason: str = "",
    status: int = 200,
    typed: Mapping[str, str] | None = None,
    field_errors: Mapping[str, str] | None = None,
):
    """htmx: the row again (htmx swaps 2xx only, so errors travel inside a 200 row, the
    problems of every field together). Plain form: back where it came from on success, the
    item page with each problem next to its field otherwise."""
    if request.htmx:
        problems = [error, *(field_errors or {}).values()]
        return _row(request, item, error=" ".join(p for p in problems if p), reason=reason)
    if error or field_errors:
        return _item_page(
            request,
            item,
            error=error,
            reason=reason,
            status=status,
            typed=typed,
            field_errors=field_errors,
        )
    return redirect(next_url(request, reverse("reviews-queue")))


def _after_claim(request: HtmxHttpRequest, item: ReviewItem, *, error: str = "", done: str = ""):
    if request.htmx and item.kind in QUEUE_KINDS:
        return _row(request, item, error=error)
    if error:
        messages.error(request, error)
    elif done:
        messages.success(request, done)
    return redirect(next_url(request, reverse("reviews-queue")))


def _page_of_item(request: HtmxHttpRequest, item_id: int) -> str:
    return page_of(item_for(request, item_id, *CLAIMABLE_KINDS))


def page_of(item: ReviewItem) -> str:
    """Where a reviewer decides the item."""
    if item.kind == ReviewItem.Kind.ESCALATION:
        return reverse("reviews-conflict", kwargs={"item_id": item.pk})
    if item.kind == ReviewItem.Kind.CLARIFICATION:
        return f"{reverse('reviews-clarifications')}#review-item-{item.pk}"
    return reverse("reviews-item", kwargs={"item_id": item.pk})


@require_role(*REVIEWERS)
@post_only(_page_of_item)
def claim(request: HtmxHttpRequest, item_id: int) -> HttpResponse:
    item = item_for(request, item_id, *CLAIMABLE_KINDS)
    try:
        item = do_claim_item(item, request.user)
    except ReviewError as problem:
        return _after_claim(request, item, error=problem.messages[0])
    until = item.claim_expires_at.strftime("%H:%M UTC")
    return _after_claim(request, item, done=f"You hold “{item.summary}” until {until}.")


@require_role(*REVIEWERS)
@post_only(_page_of_item)
def release(request: HtmxHttpRequest, item_id: int) -> HttpResponse:
    item = item_for(request, item_id, *CLAIMABLE_KINDS)
    try:
        do_release_claim(item, request.user)
    except ReviewError as problem:
        return _after_claim(request, item, error=problem.messages[0])
    return _after_claim(request, item, done="Released; the item is back in the queue.")


@require_role(*REVIEWERS)
@post_only(_page_of_item)
def decide(request: HtmxHttpRequest, item_id: int) -> HttpResponse:
    item = item_for(request, item_id, *QUEUE_KINDS)
    form = DecisionForm(request.POST)
    reason = request.POST.get("reason", "")
    refused = partial(_after, request, item, reason=reason, typed=request.POST)
    if not form.is_valid():
        # From a stale page or one this person may not decide on: that is the news (409),
        # not the form.
        if (stale := refusal_for(item, request.user)) is not None:
            return refused(error=stale.messages[0], status=409)
        error, problems = _form_problems(form)
        return refused(
            error=error,
            field_errors=_with_domain_problems(item, request.POST, problems),
            status=400,
        )
    try:
        decision = do_decide(
            item,
            request.user,
            form.approve,
            form.cleaned_data["reason"],
            form.hit_dispositions(),
            # A request that does not say how many reasons its page showed saw none.
            form.cleaned_data["reasons_seen"] or 0,
            form.cleaned_data["risk_rating"],
            form.hit_notes(),
        )
    except AlreadyDecided as problem:
        earlier = problem.decision
        resubmitted = (
            earlier.actor_id == request.user.pk
            and earlier.payload.get("approved") == form.approve
            and earlier.reason == form.cleaned_data["reason"].strip()
        )
        if not resubmitted:
            return refused(error=problem.messages[0], status=409)
        # A double submit: the first one counted, nothing more to do.
        if not request.htmx:
            messages.info(request, "Your decision was already recorded.")
        return _after(request, item)
    except ReviewError as problem:
        if hasattr(problem, "error_dict"):
            fields = {name: " ".join(messages) for name, messages in problem.message_dict.items()}
            return refused(field_errors=fields, status=409)
        return refused(error=problem.messages[0], status=409)
    if not request.htmx:
        messages.success(request, _decided_message(decision, item))
    return _after(request, item)


def _decided_message(decision: HumanDecision, item: ReviewItem) -> str:
    """What the reviewer is told once their decision is recorded."""
    if decision.kind == HumanDecision.Kind.REJECT_PACKET:
        return (
            f"Sent back the packet on {item.run.subject_name} to the analysts with your "
            "reason. It returns for sign-off once they reply."
        )
    rated = decision.payload.get("risk_rating")
    proposed = (item.payload.get("packet") or {}).get("risk_rating")
    if rated and rated != proposed:
        # Not "(packet rated medium risk). You rated it high": which rating stands first.
        done = (
            f"{decision.get_kind_display()} on {item.run.subject_name} at {rated} risk, your "
            f"rating (the agent proposed {proposed}). "
        )
    else:
        done = f"{decision.get_kind_display()} ({item.summary}). "
    return done + (
        "The case completes in a moment."
        if decision.kind == HumanDecision.Kind.SIGN_OFF
        else "The run resumes in a moment."
    )


# The form's fields whose errors are shown next to a field of the sign-off form; the
# screening matches' notes are checked by the whole form.
FIELD_OF_FORM_ERROR = {"reason": "reason", "risk_rating": "risk_rating", "__all__": "hits"}


def _form_problems(form: DecisionForm) -> tuple[str, dict[str, str]]:
    """A refused form's errors: those of no field shown on the page (which button), and
    those of each field."""
    general, problems = [], {}
    for name, errors in form.errors.items():
        if name in FIELD_OF_FORM_ERROR:
            problems[FIELD_OF_FORM_ERROR[name]] = " ".join(errors)
        else:
            general.extend(errors)
    return " ".join(general), problems


def _with_domain_problems(
    item: ReviewItem, data: QueryDict, problems: dict[str, str]
) -> dict[str, str]:
    """A refused form's problems and the domain's, one message per field: the form's word
    on the reason stands for both."""
    fields = _sign_off_problems(item, data)
    for name, text in problems.items():
        keep = fields.get(name) if name != "reason" else None
        fields[name] = f"{keep} {text}" if keep else text
    return fields


def _sign_off_problems(item: ReviewItem, data: QueryDict) -> dict[str, str]:
    """What the domain would refuse in a sign-off or send-back whose form was refused, so
    one press reports every problem; nothing for another kind of item or no button."""
    decision = data.get("decision")
    if item.kind != ReviewItem.Kind.SIGNOFF or decision not in ("approve", "deny"):
        return {}
    rating = data.get("risk_rating", "")
    return sign_off_problems(
        item,
        decision == "approve",
        data.get("reason", ""),
        hit_dispositions_in(data),
        rating if rating in RATINGS else "",
        hit_notes_in(data),
    )
