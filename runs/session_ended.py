"""An htmx request sent after the session ended gets a 401, not the login page.

Followed by the browser, the redirect to the login page would be swapped into the row or
form the person was typing in, and what they typed would be gone. A 401 swaps nothing;
static/atlas/forms.js tells them to sign in again (in another tab) and send again.
"""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import resolve_url

SESSION_ENDED = "Your session has ended: nothing was sent."


class HtmxSessionEnded:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if (
            getattr(request, "htmx", False)
            and response.status_code == 302
            and response["Location"].startswith(resolve_url(settings.LOGIN_URL))
            and not request.user.is_authenticated
        ):
            return HttpResponse(SESSION_ENDED, status=401, content_type="text/plain")
        return response
