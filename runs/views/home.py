from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import NoReverseMatch, reverse

from runs.access import membership_of

HOME_BY_ROLE = {
    "analyst": "runs-case-list",
    "reviewer": "reviews-queue",
    "admin": "runs-trace-list",
}


@login_required
def home(request: HttpRequest) -> HttpResponse:
    """Send each role to where its day starts; explain when an account has no role."""
    membership = membership_of(request.user)
    role = membership.role if membership else ("admin" if request.user.is_superuser else None)
    if role is None:
        return render(request, "runs/no_membership.html", status=403)
    try:
        return redirect(reverse(HOME_BY_ROLE[role]))
    except NoReverseMatch:
        return render(request, "runs/home.html", {"role": role})
