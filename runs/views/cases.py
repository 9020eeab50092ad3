"""Cases for analysts: the list, opening a case, and the case page with its live run."""

from __future__ import annotations

from datetime import timedelta

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.core.paginator import Paginator
from django.db import transaction
from django.db.models import Count, OuterRef, Q, Subquery
from django.http import Http404, HttpRequest, HttpResponse
from django.middleware.csrf import get_token
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.timesince import timesince
from django.views.decorators.http import require_GET, require_http_methods
from django_htmx.http import HttpResponseClientRedirect
from django_htmx.middleware import HtmxDetails

from reviews.models import ReviewItem
from runs import form_tokens, fragments, step_views
from runs.access import get_for_tenant, has_role, require_role, tenant_of
from runs.actions import do_attach_document, do_start_run
from runs.case_corrections import corrections_of
from runs.forms import CaseForm, DocumentForm
from runs.models import Case, Document, DocumentDownload, PendingUpload, Run
from runs.numbers import whole_number
from runs.post_only import post_only
from runs.search_text import matching_cases, search_text
from runs.views.kept_documents import keep_chosen_document, kept_document, open_case_with
from runs.views.run_filters import day_range, within_days

READERS = ("analyst", "reviewer", "admin")
PAGE_SIZE = 25
# The latest run's packet rating, as the case list filters and shows it; "none" finds the
# cases without one (no run, or no packet yet).
RISK_RATINGS = dict(Run._meta.get_field("risk_rating").choices)
RISK_FILTERS = {**RISK_RATINGS, "none": "No packet yet"}


class HtmxHttpRequest(HttpRequest):
    htmx: HtmxDetails


def _latest_run(field: str) -> Subquery:
    return Subquery(Run.objects.filter(case=OuterRef("pk")).order_by("-id").values(field)[:1])


@require_role(*READERS)
def case_list(request: HtmxHttpRequest) -> HttpResponse:
    tenant = tenant_of(request)
    cases = (
        Case.objects.for_tenant(tenant)
        .select_related("created_by")
        .annotate(
            run_id=_latest_run("id"),
            run_status=_latest_run("status"),
            run_reason=_latest_run("termination_reason"),
            run_closed=_latest_run("closed_by_reviewer"),
            run_matched=_latest_run("matched_entity"),
            run_risk=_latest_run("risk_rating"),
            run_subject=_latest_run("subject_name"),
            run_user_status=_latest_run("user_status"),
        )
        .order_by("-created_at", "-id")
    )
    query = search_text(request.GET.get("q", ""))
    status = request.GET.get("status", "")
    reason = request.GET.get("reason", "")
    risk = request.GET.get("risk", "")
    cases = cases.filter(matching_cases(query))
    if status == "none":
        cases = cases.filter(run_id__isnull=True)
    elif status in Run.Status.values:
        cases = cases.filter(run_status=status)
    if reason == Run.CLOSED_BY_REVIEWER:
        cases = cases.filter(run_closed=True)
    elif reason in Run.Reason.values:
        cases = cases.filter(run_reason=reason, run_closed=False)
    if risk == "none":
        cases = cases.filter(Q(run_risk="") | Q(run_risk__isnull=True))
    elif risk in RISK_RATINGS:
        cases = cases.filter(run_risk=risk)
    # Only analysts open cases: anyone else's "mine" is ignored rather than listing none.
    mine = request.GET.get("mine") == "1" and has_role(request.user, "analyst")
    if mine:
        cases = cases.filter(created_by=request.user)
    errors: list[str] = []
    date_from, date_to = day_range(
        request.GET, lambda problem, instead: errors.append(f"{problem}; {instead}."), noun="case"
    )
    cases = within_days(cases, date_from, date_to)
    page = Paginator(cases, PAGE_SIZE).get_page(request.GET.get("page"))
    params = request.GET.copy()
    params.pop("page", None)
    return render(
        request,
        "runs/case_list.html",
        {
            "page": page,
            "query": query,
            "status": status,
            "reason": reason,
            "risk": risk if risk in RISK_FILTERS else "",
            "risks": RISK_FILTERS.items(),
            "mine": mine,
            "date_from": date_from,
            "date_to": date_to,
            "errors": errors,
            "statuses": Run.Status.choices,
            "reasons": Run.OUTCOME_CHOICES,
            "filter_query": params.urlencode(),
            "filtered": bool(query or status or reason or risk or mine or date_from or date_to),
        },
    )


@require_role("analyst")
@require_http_methods(["GET", "POST"])
def case_new(request: HtmxHttpRequest) -> HttpResponse:
    tenant = tenant_of(request)
    form = CaseForm(request.POST or None, request.FILES or None)
    token = form_tokens.token_of(request)
    if request.method != "POST":
        return render(request, "runs/case_new.html", _new_case_context(form, token))
    earlier = form_tokens.opened_by(request, token)
    if earlier is not None and Case.objects.filter(pk=earlier, tenant=tenant).exists():
        messages.info(
            request, "This form was sent before and opened this case; nothing new was opened."
        )
        return redirect("runs-case-detail", case_id=earlier)
    kept = kept_document(request, tenant, form)
    asks_again = form.is_valid() and not request.POST.get("open_another")
    if asks_again and (same := _same_case_opened_just_now(request, tenant, form.cleaned_data)):
        form.add_error(
            None,
            f"You opened a case on {same.subject_name} {_how_long_ago(same.created_at)} "
            f"(case {same.pk}). Go to it, or tick “Open another case on this subject” "
            "and send the form again.",
        )
        kept = kept or keep_chosen_document(request, tenant, form)
        context = {**_new_case_context(form, token, kept), "same_case": same}
        return render(request, "runs/case_new.html", context, status=409)
    if form.is_valid():
        case = open_case_with(request, tenant, form.cleaned_data, form.checked_upload, kept)
        do_start_run(case, request.user)
        form_tokens.remember(request, token, case.pk)
        messages.success(request, f"Case opened; research on {case.subject_name} has started.")
        for document in case.documents.all():
            _warn_of_personal_data(request, document)
        return redirect("runs-case-detail", case_id=case.pk)
    kept = kept or keep_chosen_document(request, tenant, form)
    return render(request, "runs/case_new.html", _new_case_context(form, token, kept), status=400)


RECENT_DUPLICATE = timedelta(minutes=15)


def _same_case_opened_just_now(request: HttpRequest, tenant, data: dict) -> Case | None:
    """A case this person opened on the same subject a few minutes ago: sending the form
    again (the Back button, a second tab) would open a duplicate."""
    return (
        Case.objects.filter(
            tenant=tenant,
            created_by=request.user,
            subject_name__iexact=data["subject_name"],
            subject_type=data["subject_type"],
            jurisdiction=data["jurisdiction"],
            created_at__gte=timezone.now() - RECENT_DUPLICATE,
        )
        .order_by("-pk")
        .first()
    )


def _how_long_ago(moment) -> str:
    """ "just now" within a minute ("0 minutes ago" reads as a fault), else "1 minute ago"."""
    if timezone.now() - moment < timedelta(minutes=1):
        return "just now"
    return f"{timesince(moment)} ago"


def _new_case_context(form: CaseForm, token: str, kept: PendingUpload | None = None) -> dict:
    # A refused file is named so the analyst knows which one to replace.
    refused = form.files.get("document") if form.is_bound and form.has_error("document") else None
    return {
        "form": form,
        "form_token": token,
        "refused_document": refused.name if refused else "",
        "kept_document": kept,
    }


def _clarification_item_id(run: Run) -> int | None:
    if run.status != Run.Status.WAITING_FOR_INPUT:
        return None
    return (
        ReviewItem.objects.filter(
            run=run, kind=ReviewItem.Kind.CLARIFICATION, status=ReviewItem.Status.OPEN
        )
        .order_by("-id")
        .values_list("id", flat=True)
        .first()
    )


def live_page_context(
    request, run: Run, *, is_latest: bool, answer_error: str = "", answer_typed: str = ""
) -> dict:
    """The live regions of `run` as the case page shows them. A refused answer comes back
    in the answer form when the page still shows it, otherwise as text to copy."""
    # Only the events the run row already counts: the steps then match its status and
    # meters, and the stream sends anything newer with a fresh status.
    page = step_views.steps_page(run.pk, upto=run.last_seq)
    last_seq = page.last_seq
    context = fragments.live_context(
        run,
        user=request.user,
        clarification_item_id=_clarification_item_id(run),
        csrf_token=get_token(request),
        is_latest=is_latest,
        last_seq=last_seq,
    )
    context["steps_page"] = page
    context["steps"] = page.steps
    form_shown = context["banner"]["kind"] == "question" and context["can_answer"]
    context["answer_error"] = answer_error if form_shown else ""
    context["answer_text"] = answer_typed if form_shown else ""
    context["answer_refusal"] = "" if form_shown else answer_error
    context["unsaved_answer"] = "" if form_shown else answer_typed
    # What the run's status line says as the page opens (not read then); the stream's
    # first frame says the same unless something changed meanwhile.
    context["announcement"] = fragments.announcement(context)
    return context


@require_GET
@require_role(*READERS)
def run_steps_earlier(request: HtmxHttpRequest, run_id: int) -> HttpResponse:
    """The steps of a run before event `before`, newest page first ("show earlier" on the
    case page). They are finished steps, so the live stream never touches them."""
    run = get_for_tenant(Run.objects.defer("state", "loop_memory"), tenant_of(request), pk=run_id)
    before = whole_number(request.GET.get("before", ""))
    if before is None or before < 1:
        return HttpResponse("before must be a whole number above 0.", status=400)
    page = step_views.steps_page(run.pk, upto=min(before - 1, run.last_seq))
    context = {"run": run, "steps": page.steps, "steps_page": page}
    if request.htmx:
        return render(request, "runs/live/earlier_steps.html", context)
    # Without JavaScript the link opens a page of just those steps.
    return render(request, "runs/run_steps_earlier.html", context)


@require_role(*READERS)
def case_detail(request: HtmxHttpRequest, case_id: int) -> HttpResponse:
    case = get_for_tenant(Case.objects.select_related("created_by"), tenant_of(request), pk=case_id)
    return case_page(request, case, request.GET.get("run"))


def case_page(
    request: HtmxHttpRequest,
    case: Case,
    run_id: str | int | None,
    *,
    answer_error: str = "",
    answer_typed: str = "",
    attach_form: DocumentForm | None = None,
    status: int = 200,
) -> HttpResponse:
    """The case page showing run `run_id` (the latest run when None)."""
    # The runs list shows only each run's number, status and date: leave out the state.
    runs = list(Run.objects.filter(case=case).defer("state", "loop_memory").order_by("-id"))
    latest = runs[0] if runs else None
    shown = latest
    if run_id:
        shown = next((r for r in runs if str(r.pk) == str(run_id)), None)
        if shown is None:
            raise Http404("No such run for this case.")
    run = None
    if shown is not None:
        # The run shown is read whole in one query, so its state matches its status.
        run = Run.objects.select_related("created_by", "cancel_requested_by").get(pk=shown.pk)
    is_analyst = has_role(request.user, "analyst")
    documents = _documents_with_downloads(case)
    if run is not None:
        given = run.documents_given()
        for document in documents:
            document.not_in_shown_run = str(document.pk) not in given
    context = {
        "case": case,
        "documents": documents,
        "runs": runs,
        "can_start": (latest is None or latest.is_terminal) and is_analyst,
        "attach_form": attach_form or (DocumentForm() if is_analyst else None),
        "corrections": corrections_of(case),
    }
    if run is not None:
        context["researched"] = _subject_researched_if_other(run, case)
        context.update(
            live_page_context(
                request,
                run,
                is_latest=shown is latest,
                answer_error=answer_error,
                answer_typed=answer_typed,
            )
        )
    # Read after the run: a decision missing here was then committed after the run row, so
    # the run commit that follows it is newer than the page's cursor and its push brings it.
    context.update(fragments.decisions_context(case.pk))
    if run is not None:
        context["ws_url"] = (
            f"/ws/runs/{run.pk}/?after={context['last_seq']}&decision={context['newest_decision']}"
        )
    return render(request, "runs/case_detail.html", context, status=status)


def _documents_with_downloads(case: Case) -> list[Document]:
    """The case's documents, each with how often and by whom it was last downloaded."""
    latest = DocumentDownload.objects.filter(document=OuterRef("pk")).order_by("-downloaded_at")
    documents = list(
        case.documents.select_related("uploaded_by", "sensitive_marked_by")
        .annotate(
            download_count=Count("downloads"),
            last_downloaded_at=Subquery(latest.values("downloaded_at")[:1]),
            last_downloader_id=Subquery(latest.values("user_id")[:1]),
        )
        .order_by("uploaded_at")
    )
    people = get_user_model().objects.in_bulk({d.last_downloader_id for d in documents} - {None})
    for document in documents:
        document.last_downloader = people.get(document.last_downloader_id)
    return documents


def _subject_researched_if_other(run: Run, case: Case) -> dict | None:
    """The subject as the run researched it, when the case's has been corrected since."""
    brief = (run.state or {}).get("brief") or {}
    researched = {
        "subject": brief.get("subject", case.subject_name),
        "jurisdiction": brief.get("jurisdiction") or "",
        "subject_type": brief.get("subject_type", case.subject_type),
    }
    now = {
        "subject": case.subject_name,
        "jurisdiction": case.jurisdiction,
        "subject_type": case.subject_type,
    }
    return researched if researched != now else None


def _case_page_of(request: HttpRequest, case_id: int) -> str:
    """Where a GET of a case's action goes: the case's page, looked up as the action looks
    the case up, so another tenant's case is a 404 here too."""
    case = get_for_tenant(Case.objects.only("pk"), tenant_of(request), pk=case_id)
    return reverse("runs-case-detail", kwargs={"case_id": case.pk})


@require_role("analyst")
@post_only(_case_page_of)
def case_attach_document(request: HtmxHttpRequest, case_id: int) -> HttpResponse:
    case = get_for_tenant(Case.objects.select_related("created_by"), tenant_of(request), pk=case_id)
    form = DocumentForm(request.POST, request.FILES)
    if form.is_valid() and (same := _same_file_attached(case, form.checked_upload.sha256)):
        form.add_error(
            "document",
            f"This file is already attached to the case as “{same.original_name}” (uploaded "
            f"on {date_format(same.uploaded_at, 'M j, H:i')} UTC); it was not added again.",
        )
    if not form.is_valid():
        return case_page(request, case, request.GET.get("run"), attach_form=form, status=400)
    document = do_attach_document(
        case,
        form.cleaned_data["document"],
        user=request.user,
        sensitive=form.cleaned_data["document_sensitive"],
        checked=form.checked_upload,
    )
    messages.success(
        request,
        f"“{document.original_name}” is attached to the case. "
        + when_a_document_is_read(Run.objects.latest_of(case.pk)),
    )
    _warn_of_personal_data(request, document)
    return redirect("runs-case-detail", case_id=case.pk)


def _same_file_attached(case: Case, sha256: str) -> Document | None:
    return case.documents.filter(sha256=sha256).order_by("pk").first()


def when_a_document_is_read(latest: Run | None) -> str:
    """When a document attached now is read, given where the case's newest run is."""
    if latest is None or latest.is_terminal:
        return "Run the research again to read it."
    if latest.status == Run.Status.WAITING_FOR_INPUT:
        return (
            "The run reads it once you answer its question."
            + _iterations_warning(latest)
            + _budgets_warning(latest)
        )
    if latest.waits_for_reviewer:
        return (
            "The run waits for a reviewer: it is given the document only if the reviewer "
            "sends the packet back and you reply; otherwise run the research again later."
        )
    return (
        "The current run is given it with your next answer to one of its questions; "
        "otherwise the next run reads it."
    )


def _iterations_warning(run: Run) -> str:
    """Whether the run has the iterations left to read every document it has not read yet
    and then finish (one iteration each, and one to finish)."""
    steps = Run.objects.values_list("state__completed_steps", flat=True).get(pk=run.pk)
    read = {step.removeprefix("extract:") for step in steps or [] if step.startswith("extract:")}
    unread = sum(
        1
        for pk in Document.objects.filter(case_id=run.case_id).values_list("pk", flat=True)
        if str(pk) not in read  # a document it was not given, it has not read either
    )
    left = int((run.budgets or {}).get("max_iterations", 0)) - run.iterations
    if left >= unread + 1:
        return ""
    return (
        f" Note: the run has {max(left, 0)} iteration{'s' if left != 1 else ''} left, too few "
        f"to read the {unread} document{'s' if unread != 1 else ''} it has not read and "
        "finish; a reviewer will be asked to extend its budget."
    )


def _budgets_warning(run: Run) -> str:
    """The run's other budgets (tokens, cost, time) that are at least 80% used: reading a
    document costs some of each, so the run may stop on one before it reads it."""
    tight = [
        meter for meter in fragments.meters_for(run) if meter.level and meter.label != "Iterations"
    ]
    if not tight:
        return ""
    used = "; ".join(f"{meter.label.lower()} {meter.used} of {meter.limit}" for meter in tight)
    return (
        f" Note: the run has used most of its budget ({used}); it may stop on it before it "
        "reads the document, and a reviewer will then be asked to extend it."
    )


def _warn_of_personal_data(request: HttpRequest, document: Document) -> None:
    if document.personal_data and not document.sensitive:
        messages.warning(
            request,
            f"“{document.original_name}” holds personal data "
            f"({', '.join(document.personal_data)}) but is not marked sensitive: runs read "
            "it, redacted for the model, without a reviewer's approval. Mark it sensitive "
            "below to require one.",
        )


@require_role("analyst")
@post_only(_case_page_of)
def case_rerun(request: HtmxHttpRequest, case_id: int) -> HttpResponse:
    tenant = tenant_of(request)
    with transaction.atomic():
        # Lock the case row first: a second "Run again" waits here until the first has
        # committed its run, then sees it as the latest run and is refused.
        case = get_for_tenant(Case.objects.select_for_update(), tenant, pk=case_id)
        latest = Run.objects.latest_of(case.pk)
        # The run the page showed when the button was pressed ("" for none): another tab,
        # or another analyst, may have started one since.
        seen = request.POST.get("after_run")
        started_since = seen is not None and str(latest.pk if latest else "") != seen
        started = not started_since and (latest is None or latest.is_terminal)
        if started:
            do_start_run(case, request.user)
    url = reverse("runs-case-detail", kwargs={"case_id": case.pk})
    if started:
        messages.success(request, "A new run has started.")
    elif started_since:
        opener = latest.created_by
        by = f"by {opener.get_full_name() or opener.get_username()} " if opener else ""
        messages.info(
            request,
            f"Run {latest.pk} was started on this case since the page was shown ({by}at "
            f"{latest.created_at:%H:%M:%S} UTC); no other run was started.",
        )
    else:
        messages.info(
            request,
            f"Run {latest.pk} of this case has not ended yet ({latest.get_status_display().lower()}"
            "); no other run was started.",
        )
    if request.htmx:
        return HttpResponseClientRedirect(url)
    return redirect(url)
