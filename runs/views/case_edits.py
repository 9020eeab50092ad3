"""Correcting a case's subject between runs: a wrong jurisdiction or a misspelt name is
fixed on the case (recorded with its reason) instead of in a new case. A run that waits
for the analyst's answer is cancelled first, on the analyst's say-so: its question is
often what shows the subject was wrong."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from runs.access import get_for_tenant, require_role, tenant_of
from runs.actions import (
    SUBJECT_FIELDS,
    CancelRefused,
    CaseBusy,
    do_correct_subject,
    do_request_cancel,
)
from runs.forms import SubjectCorrectionForm
from runs.models import Case, Run


@require_role("analyst")
@require_http_methods(["GET", "POST"])
def case_correct(request: HttpRequest, case_id: int) -> HttpResponse:
    case = get_for_tenant(Case.objects.all(), tenant_of(request), pk=case_id)
    form = SubjectCorrectionForm(request.POST or None, instance=case)
    waiting = _run_waiting_for_the_analyst(case)
    if request.method == "POST" and form.is_valid():
        subject = {name: form.cleaned_data[name] for name in SUBJECT_FIELDS}
        run_again = "run_again" in request.POST
        try:
            # Only the run the page offered to cancel: one that moved on since is left be.
            if waiting and request.POST.get("cancel_run") == str(waiting.pk):
                if not _changes(case, subject):
                    raise CaseBusy(
                        f"Nothing in the subject changed, so run {waiting.pk} was not "
                        "cancelled: it still waits for your answer."
                    )
                _cancel_to_correct(waiting, request.user, form.cleaned_data["reason"])
            edit, run = do_correct_subject(
                case, request.user, subject, form.cleaned_data["reason"], run_again=run_again
            )
        except CaseBusy as refusal:
            form.add_error(None, str(refusal))
        else:
            said = "The subject is corrected." if edit else "Nothing in the subject changed."
            then = " A new run researches it." if run else " Run the research again to use it."
            messages.success(request, said + then)
            return redirect("runs-case-detail", case_id=case.pk)
    # A form bound to the case changes the instance as it validates: show the case as stored.
    case.refresh_from_db()
    status = 400 if form.is_bound else 200
    context = {
        "case": case,
        "form": form,
        "busy": case.run_in_progress(),
        "waiting": _run_waiting_for_the_analyst(case),
        "with_reviewer": _run_waiting_for_a_reviewer(case),
    }
    return render(request, "runs/case_correct.html", context, status=status)


def _changes(case: Case, subject: dict) -> list[str]:
    """The subject's fields that differ from the case as stored (the bound form has
    already written the new values onto `case`)."""
    stored = Case.objects.values(*SUBJECT_FIELDS).get(pk=case.pk)
    return [name for name in SUBJECT_FIELDS if stored[name] != subject[name]]


def _run_waiting_for_the_analyst(case: Case) -> Run | None:
    latest = Run.objects.latest_of(case.pk)
    if latest is not None and latest.status == Run.Status.WAITING_FOR_INPUT:
        return latest
    return None


def _run_waiting_for_a_reviewer(case: Case) -> Run | None:
    latest = Run.objects.latest_of(case.pk)
    return latest if latest is not None and latest.waits_for_reviewer else None


def _cancel_to_correct(run: Run, user, reason: str) -> None:
    try:
        run = do_request_cancel(
            run, user, reviewer_decides=True, reason=f"Cancelled to correct the subject: {reason}"
        )
    except CancelRefused:
        run.refresh_from_db()
    if not run.is_terminal:
        raise CaseBusy(
            f"Run {run.pk} could not be cancelled at once (it has moved on since this page "
            "was loaded): the subject can be corrected once it has ended."
        )
