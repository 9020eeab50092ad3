"""Escalations: stopped runs and unresolved conflicts, and the side-by-side conflict view."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime
from decimal import ROUND_CEILING, Decimal, InvalidOperation

from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_safe

from atlas.runtime.decisions import DISPOSE_OF_EVERY_HIT
from atlas.runtime.directorships import conflict_about
from atlas.runtime.rating_floor import RULED_OUT
from atlas.runtime.state import USER_STATUS, AtlasState, EvidenceItem, Signal
from atlas.runtime.wording import counted, fact_about, fact_label, listed
from reviews.actions import (
    SETTLING_KINDS,
    AlreadyDecided,
    ReviewError,
    do_close_case,
    do_extend_budget,
    do_resolve_conflict,
    open_conflict_ids,
    refusal_for,
    settled_conflict_message,
)
from reviews.decision_details import BUDGET_UNITS, decision_details
from reviews.forms import (
    FIELD_FOR_STOP,
    UNRESOLVABLE,
    BudgetShortfall,
    CloseCaseForm,
    ExtendBudgetForm,
    ResolveConflictForm,
)
from reviews.models import HumanDecision, ReviewItem
from reviews.paging import queue_page
from reviews.queries import ESCALATION_REASON_LABELS, filter_queue, open_items
from reviews.views.common import (
    REVIEWERS,
    HtmxHttpRequest,
    by_value,
    decisions_by_item,
    item_for,
    item_view,
)
from reviews.views.new_items import notice_context
from runs.access import require_role, tenant_of
from runs.evidence_links import anchor, web_link
from runs.fragments import meters_for
from runs.models import Run, TraceEvent
from runs.packet_changes import changes_since_last_signoff
from runs.post_only import post_only
from runs.search_text import matching_cases, search_text

KIND = ReviewItem.Kind.ESCALATION


def reason_label(code: str) -> str:
    return ESCALATION_REASON_LABELS.get(code, code.replace("_", " ").capitalize())


@require_role(*REVIEWERS)
@require_safe
def escalations(request: HtmxHttpRequest) -> HttpResponse:
    tenant = tenant_of(request)
    reason = request.GET.get("reason", "")
    query = search_text(request.GET.get("q", ""))
    items = filter_queue(
        open_items(tenant, [KIND]).filter(matching_cases(query, "case")), reason=reason
    )
    page = queue_page(items, request.GET, tenant)
    decisions = decisions_by_item(page.items)
    rows = [item_view(item, request.user, decisions=decisions) for item in page.items]
    for row in rows:
        row.reason_label = reason_label(row.item.payload.get("reason", ""))
        row.conflicts = [
            {
                "fact": c.get("fact", ""),
                "about": c.get("about", ""),  # stored with the escalation
                "values": list(dict.fromkeys(v["value"] for v in c["values"])),
            }
            for c in row.item.payload.get("conflicts", [])
        ]
    return render(
        request,
        "reviews/escalations.html",
        {
            "page": page,
            "rows": rows,
            "query": query,
            "reason": reason,
            "reasons": list(ESCALATION_REASON_LABELS.items()),
            "filtered": bool(query or reason in ESCALATION_REASON_LABELS),
            **notice_context(request, "escalations"),
        },
    )


def budget_shortfall(item: ReviewItem) -> BudgetShortfall | None:
    """How much the budget this run stopped on must grow for its next step to fit, read
    from the stop's own trace event; None for a loop guard, or when the run moved on."""
    field = FIELD_FOR_STOP.get(item.payload.get("reason", ""))
    if field is None or item.status != ReviewItem.Status.OPEN:
        return None
    stop = (
        TraceEvent.objects.filter(run_id=item.run_id, type="budget_exhausted")
        .order_by("-seq")
        .values_list("data", flat=True)
        .first()
    ) or {}
    try:  # a stop recorded before it carried its numbers gives the general advice
        used, limit = Decimal(stop["spent"]), Decimal(str(stop["limit"]))
        upcoming = Decimal(stop.get("upcoming") or 0)
    except (TypeError, KeyError, InvalidOperation):
        used = limit = upcoming = None
    show = BUDGET_UNITS[field]
    if field == "extra_seconds" or used is None:
        return BudgetShortfall(
            field,
            Decimal("1") if field != "extra_cost_usd" else Decimal("0.01"),
            f"This run stopped on its {reason_label(item.payload['reason']).lower()}: add to "
            "it, or the run stops on it again at once.",
        )
    if field == "extra_iterations":
        need = used - limit + 1
        advice = (
            f"This run has used its whole iteration limit ({used:f} of {limit:f}): "
            f"add at least {show(need)}"
        )
    else:
        need = used + upcoming - limit
        if field == "extra_tokens":
            # The next call's context on resuming is a little longer (it carries the new
            # budget, for one), so its reservation grows a little: a twentieth to spare.
            need = (need + upcoming / 20).to_integral_value(rounding=ROUND_CEILING)
        if field == "extra_cost_usd":
            need = need.quantize(Decimal("0.01"), rounding=ROUND_CEILING)
        left = max(limit - used, Decimal(0))
        advice = (
            f"This run's next step needs {show(upcoming)}, with {show(left)} of its "
            f"{reason_label(item.payload['reason']).lower()} left: add at least {show(need)}"
            if upcoming
            else f"This run used {show(used)} of {show(limit)}: add at least {show(need)}"
        )
    return BudgetShortfall(field, max(need, Decimal(0)), advice + ", or it stops again at once.")


# The meter of the budget each extension field raises.
METER_FOR_FIELD = {
    "extra_iterations": "Iterations",
    "extra_tokens": "Tokens",
    "extra_cost_usd": "Cost",
    "extra_seconds": "Time",
}


def meter_warnings(meters: list, shortfall: BudgetShortfall | None) -> list:
    """The meters nearly or wholly used up, to warn of beside the extension form, less the
    one whose budget the shortfall already names (it says how much to add)."""
    named = METER_FOR_FIELD[shortfall.field] if shortfall else None
    return [meter for meter in meters if meter.level and meter.label != named]


def _extend_form_for(item: ReviewItem, data=None) -> ExtendBudgetForm:
    return ExtendBudgetForm(data, budgets=item.run.budgets, shortfall=budget_shortfall(item))


@dataclass
class ConflictView:
    conflict_id: str
    fact: str
    entity_id: str
    values: list[dict]  # {"value", "sources": [each source's own record of it]}
    # Whom the conflict is about when not the subject: "X (GB), a company the subject directs".
    about: str = ""
    status: str = "open"
    settled_by: HumanDecision | None = None
    resolution: dict | None = None
    # How reviewers settled it before a source read since disputed that.
    earlier_resolutions: tuple[dict, ...] = ()
    form: ResolveConflictForm | None = None
    unsaved_note: str = ""

    @property
    def is_open(self) -> bool:
        return self.status == "open" and self.settled_by is None

    @property
    def fact_label(self) -> str:
        return fact_label(self.fact)


def _parse_when(value: str | None) -> datetime | str | None:
    if not value:
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return value


def conflict_views(item: ReviewItem) -> list[ConflictView]:
    state, state_conflicts, evidence = None, {}, {}
    if item.run.state:
        state = AtlasState.from_json(item.run.state)
        state_conflicts = {c.conflict_id: c for c in state.conflicts}
        # A source's own entry: a document's, not a declaration read from it.
        for e in state.evidence:
            evidence.setdefault(e.source_id, e)
    decisions = {
        d.payload.get("conflict_id"): d
        for d in HumanDecision.objects.filter(run_id=item.run_id, kind__in=SETTLING_KINDS)
        .filter(created_at__gte=item.requested_at)
        .select_related("actor")
    }
    # Who settled a reopened conflict before: asked only when one was reopened.
    earlier_ids = [
        r.decision_id
        for c in state_conflicts.values()
        for r in c.earlier_resolutions
        if r.decision_id.isdigit()
    ]
    deciders = (
        {
            str(d.pk): d.actor.get_full_name() or d.actor.get_username()
            for d in HumanDecision.objects.filter(
                run_id=item.run_id, pk__in=earlier_ids
            ).select_related("actor")
        }
        if earlier_ids
        else {}
    )
    views = []
    for raw in item.payload.get("conflicts", []):
        current = state_conflicts.get(raw["conflict_id"])
        sources = [
            {
                **value,
                "retrieved": _parse_when(value.get("retrieved_at")),
                **_source_of(evidence.get(value.get("source_id"))),
            }
            for value in raw.get("values", [])
        ]
        views.append(
            ConflictView(
                conflict_id=raw["conflict_id"],
                fact=raw.get("fact", ""),
                entity_id=raw.get("entity_id", ""),
                values=by_value(sources),
                about=conflict_about(state, current) if state and current else "",
                status=current.status if current else raw.get("status", "open"),
                settled_by=decisions.get(raw["conflict_id"]),
                resolution=current.resolution.model_dump()
                if current and current.resolution
                else None,
                earlier_resolutions=tuple(
                    {**r.model_dump(), "by": deciders.get(r.decision_id, r.actor)}
                    for r in current.earlier_resolutions
                )
                if current
                else (),
            )
        )
    return views


def _source_of(item: EvidenceItem | None) -> dict:
    """Where a reviewer can read a value's source: its address, its entry in the packet."""
    if item is None:
        return {"link": "", "evidence_anchor": "", "claim": "", "suspect": False}
    return {
        "link": web_link(item.url),
        "evidence_anchor": anchor(item.evidence_id),
        "claim": item.claim,
        "suspect": Signal.INSTRUCTIONS in item.signals,
    }


def _conflict_page(
    request: HtmxHttpRequest,
    item: ReviewItem,
    *,
    status: int = 200,
    resolve_errors: dict[str, ResolveConflictForm] | None = None,
    extend_form: ExtendBudgetForm | None = None,
    close_form: CloseCaseForm | None = None,
    error: str = "",
    typed: str = "",
    field_errors: dict[str, str] | None = None,
) -> HttpResponse:
    row = item_view(
        item,
        request.user,
        error=error,
        field_errors=field_errors or {},
        reason=typed,
        typed=close_form.data if close_form is not None else {},
    )
    conflicts = conflict_views(item)
    for conflict in conflicts:
        if resolve_errors and conflict.conflict_id in resolve_errors:
            conflict.form = resolve_errors[conflict.conflict_id]
            if row.can_decide and not conflict.is_open:
                # Someone settled this conflict while others stay open: the page shows no
                # form for it, and the escalation's own unsaved text is for a closed one.
                conflict.unsaved_note = typed
    code = item.payload.get("reason", "")
    open_facts = [fact_about(c.fact, c.about) for c in conflicts if c.is_open]
    meters = meters_for(item.run)
    extend_form = extend_form or _extend_form_for(item)
    return render(
        request,
        "reviews/conflict.html",
        {
            "row": row,
            "item": item,
            "case": item.case,
            "run": item.run,
            "changes": changes_since_last_signoff(item.run) if row.is_open else None,
            "reason_label": reason_label(code),
            "status_sentence": item.payload.get("user_status") or USER_STATUS.get(code, ""),
            "open_facts": open_facts,
            "disputed": listed(open_facts, "and"),
            "follow_up": _follow_up(item, row.decision),
            "run_now": run_now(item.run, row.decision),
            "conflicts": conflicts,
            "meters": meters,
            "open_gaps": item.payload.get("open_gaps", []),
            "extend_form": extend_form,
            "meter_warnings": meter_warnings(meters, extend_form.shortfall),
            "close_form": close_form or CloseCaseForm(),
            "unresolvable": UNRESOLVABLE,
            "decided_details": decision_details(row.decision.payload) if row.decision else [],
            "history": item.run.decisions.select_related("actor").order_by("created_at", "id"),
        },
        status=status,
    )


@dataclass(frozen=True)
class RunNow:
    """What the page says the run is doing: its badge and one sentence."""

    label: str
    status: str  # the badge's colour, as a run status
    sentence: str


CLOSING = RunNow(
    "Closing", "researching", "closing the case with this decision; it ends in a moment."
)
PICKING_UP = RunNow("Resuming", "researching", "picking up the decision; it goes on in a moment.")


def run_now(run: Run, decision: HumanDecision | None) -> RunNow:
    """The run beside the escalation's decision. Until the run's state records the decision
    as applied or refused, its status is still the pause the decision ends: the worker
    clears the resume request before it commits that step, so the request cannot say."""
    as_it_stands = RunNow(
        run.get_status_display(), run.status, run.user_status or run.get_status_display()
    )
    if decision is None or run.is_terminal:
        return as_it_stands
    state = run.state or {}
    decision_id = str(decision.pk)
    if decision_id in (state.get("applied_decision_ids") or []):
        return as_it_stands
    if because := (state.get("rejected_decisions") or {}).get(decision_id):
        sentence = f"the decision was not applied ({because}). {as_it_stands.sentence}"
        return replace(as_it_stands, sentence=sentence)
    return CLOSING if decision.kind == HumanDecision.Kind.CLOSE_CASE else PICKING_UP


def _follow_up(item: ReviewItem, decision: HumanDecision | None) -> ReviewItem | None:
    """The run's next open item; none once the case is closed, whose run withdraws them."""
    if decision is not None and decision.kind == HumanDecision.Kind.CLOSE_CASE:
        return None
    return (
        ReviewItem.objects.filter(run_id=item.run_id, status=ReviewItem.Status.OPEN)
        .exclude(pk=item.pk)
        .order_by("id")
        .first()
    )


@require_role(*REVIEWERS)
@require_safe
def conflict(request: HtmxHttpRequest, item_id: int) -> HttpResponse:
    return _conflict_page(request, item_for(request, item_id, KIND))


def _refused(
    request: HtmxHttpRequest, item: ReviewItem, problem: ReviewError, **forms
) -> HttpResponse | None:
    """A second submit by the same person is not recorded again, and the page says which
    decision stands (a double click, or a change of mind that came too late); anything
    else is shown on the page."""
    if isinstance(problem, AlreadyDecided) and problem.decision.actor_id == request.user.pk:
        earlier = problem.decision
        messages.info(
            request,
            f"Your decision “{earlier.get_kind_display()}” was already recorded; this "
            "submission was not recorded again.",
        )
        return None
    return _conflict_page(
        request,
        item,
        status=409,
        error=problem.messages[0],
        typed=_typed_text(request),
        **forms,
    )


def _stale(request: HtmxHttpRequest, item: ReviewItem, error: str, **forms) -> HttpResponse:
    """An invalid form sent from a stale page: the staleness is the news, not the form."""
    return _conflict_page(
        request, item, status=409, error=error, typed=_typed_text(request), **forms
    )


def _closing_field(refusal: str) -> str:
    """The closing form's field a refusal is about: its rating, or its marks; "" for one
    about the item itself (decided, claimed by someone else)."""
    if RULED_OUT in refusal:
        return "risk_rating"
    if refusal.startswith(DISPOSE_OF_EVERY_HIT):
        return "hits"
    return ""


def _typed_text(request: HtmxHttpRequest) -> str:
    """What the reviewer wrote in a refused form, so the page can give it back to them even
    when it no longer shows that form (someone else holds the item, or it was decided)."""
    return "\n\n".join(
        text
        for field in ("note", "reason", "decision")
        if (text := request.POST.get(field, "").strip())
    )


def _why_not_open(
    request: HtmxHttpRequest, item: ReviewItem, conflict_id: str | None = None
) -> str:
    """Why a decision (on `conflict_id`, if given) could not be recorded whatever the form
    said (the page was stale), in the words reviews.actions uses; "" when only the form is
    at fault."""
    if (refusal := refusal_for(item, request.user)) is not None:
        return refusal.messages[0]
    if conflict_id is None:
        return ""
    conflict = next((c for c in conflict_views(item) if c.conflict_id == conflict_id), None)
    if conflict is not None and conflict.settled_by is not None:
        return AlreadyDecided(conflict.settled_by).messages[0]
    if conflict is not None and conflict.resolution:
        return settled_conflict_message(item.run_id, conflict_id) + " Nothing was recorded."
    if conflict is None or not conflict.is_open:
        return (
            "This conflict is already settled or not part of this escalation; nothing was recorded."
        )
    return ""


def _conflict_address(request: HtmxHttpRequest, item_id: int) -> str:
    item = item_for(request, item_id, KIND)  # another tenant's escalation is a 404 here too
    return reverse("reviews-conflict", kwargs={"item_id": item.pk})


@require_role(*REVIEWERS)
@post_only(_conflict_address)
def resolve(request: HtmxHttpRequest, item_id: int) -> HttpResponse:
    item = item_for(request, item_id, KIND)
    form = ResolveConflictForm(request.POST)
    if not form.is_valid():
        conflict_id = request.POST.get("conflict_id", "")
        if stale := _why_not_open(request, item, conflict_id):
            return _stale(request, item, stale, resolve_errors={conflict_id: form})
        return _conflict_page(request, item, status=400, resolve_errors={conflict_id: form})
    data = form.cleaned_data
    try:
        do_resolve_conflict(
            item,
            request.user,
            data["conflict_id"],
            chosen_value=None if form.unresolvable else data["choice"],
            unresolvable=form.unresolvable,
            note=data["note"],
        )
    except ReviewError as problem:
        refused = _refused(request, item, problem, resolve_errors={data["conflict_id"]: form})
        if refused is not None:
            return refused
    else:
        what = (
            "marked unresolvable" if form.unresolvable else f"resolved: “{data['choice']}” stands"
        )
        if left := len(open_conflict_ids(item)):
            still = "is" if left == 1 else "are"
            them = "it is" if left == 1 else "they are"
            then = (
                f"{counted(left, 'conflict')} of this escalation {still} still open: the run "
                f"resumes once {them} settled."
            )
        else:
            then = "the run resumes."
        messages.success(request, f"Conflict {what}. Your decision is recorded; {then}")
    return redirect("reviews-conflict", item_id=item.pk)


@require_role(*REVIEWERS)
@post_only(_conflict_address)
def extend(request: HtmxHttpRequest, item_id: int) -> HttpResponse:
    item = item_for(request, item_id, KIND)
    form = _extend_form_for(item, request.POST)
    if not form.is_valid():
        if stale := _why_not_open(request, item):
            return _stale(request, item, stale, extend_form=form)
        return _conflict_page(request, item, status=400, extend_form=form)
    data = form.cleaned_data
    try:
        decision = do_extend_budget(
            item,
            request.user,
            extra_iterations=data["extra_iterations"],
            extra_tokens=data["extra_tokens"],
            extra_cost_usd=data["extra_cost_usd"],
            extra_seconds=data["extra_seconds"],
            reason=data["reason"],
        )
    except ReviewError as problem:
        refused = _refused(request, item, problem, extend_form=form)
        if refused is not None:
            return refused
    else:
        added = decision_details(decision.payload)[0].removeprefix("Budget added: ")
        messages.success(request, f"Budget extended ({added}); the run resumes in a moment.")
    return redirect("reviews-conflict", item_id=item.pk)


@require_role(*REVIEWERS)
@post_only(_conflict_address)
def close(request: HtmxHttpRequest, item_id: int) -> HttpResponse:
    item = item_for(request, item_id, KIND)
    form = CloseCaseForm(request.POST)
    if not form.is_valid():
        if stale := _why_not_open(request, item):
            return _stale(request, item, stale, close_form=form)
        return _conflict_page(request, item, status=400, close_form=form)
    try:
        do_close_case(
            item,
            request.user,
            form.cleaned_data["decision"],
            form.hit_dispositions(),
            form.cleaned_data["risk_rating"],
            form.hit_notes(),
        )
    except ReviewError as problem:
        if field := _closing_field(problem.messages[0]):
            # Beside the field at fault, in the form far down the page, not atop it.
            return _conflict_page(
                request,
                item,
                status=409,
                close_form=form,
                field_errors={field: problem.messages[0]},
            )
        refused = _refused(request, item, problem, close_form=form)
        if refused is not None:
            return refused
    else:
        messages.success(
            request,
            "Your decision to close the case is recorded: the packet as it stands, with your "
            "decision, becomes the case's record.",
        )
    return redirect("reviews-conflict", item_id=item.pk)
