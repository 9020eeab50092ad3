"""After an htmx action, the page's navigation re-reads its queue counts.

A decision, an answer or a claim made without a page load changes what the Approvals,
Questions and Escalations links count; the nav (templates/base.html) listens for the
event this middleware adds to every successful htmx POST.
"""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse
from django_htmx.http import trigger_client_event

QUEUES_CHANGED = "atlas:queues-changed"


class RefreshNavAfterHtmxPost:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        htmx = getattr(request, "htmx", False)
        if htmx and request.method == "POST" and response.status_code < 400:
            trigger_client_event(response, QUEUES_CHANGED, after="settle")
        return response


def nav_refresh_event(request: HttpRequest) -> dict:
    """Template context: the event the nav listens for, named once (here)."""
    return {"queues_changed_event": QUEUES_CHANGED}
