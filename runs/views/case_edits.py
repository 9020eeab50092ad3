"""Correcting a case's subject between runs: a wrong jurisdiction or a misspelt name is
fixed on the case (recorded with its reason) instead of in a new case."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from runs.access import get_for_tenant, require_role, tenant_of
from runs.actions import SUBJECT_FIELDS, CaseBusy, do_correct_subject
from runs.forms import SubjectCorrectionForm
from runs.models import Case


@require_role("analyst")
@require_http_methods(["GET", "POST"])
def case_correct(request: HttpRequest, case_id: int) -> HttpResponse:
    case = get_for_tenant(Case.objects.all(), tenant_of(request), pk=case_id)
    form = SubjectCorrectionForm(request.POST or None, instance=case)
    if request.method == "POST" and form.is_valid():
        subject = {name: form.cleaned_data[name] for name in SUBJECT_FIELDS}
        run_again = "run_again" in request.POST
        try:
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
    context = {"case": case, "form": form, "busy": case.run_in_progress()}
    return render(request, "runs/case_correct.html", context, status=status)
