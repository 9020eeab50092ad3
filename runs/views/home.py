from __future__ import annotations

from urllib.parse import urlsplit

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import NoReverseMatch, reverse
from django.views.decorators.http import require_GET

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


@require_GET
def nav_links(request: HttpRequest) -> HttpResponse:
    """The main navigation alone, so open pages refresh their queue counts (htmx polls it).

    Signed out, it answers 204, which htmx does not swap in: a page whose session has
    ended keeps its navigation instead of showing the login form inside it."""
    if not request.user.is_authenticated:
        return HttpResponse(status=204)
    # The section to mark current is the page's, which htmx says, not this URL's.
    page_path = urlsplit(request.htmx.current_url_abs_path or "/").path
    return render(request, "partials/nav.html", {"nav_path": page_path})
