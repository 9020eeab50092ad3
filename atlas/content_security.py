"""A Content-Security-Policy on every page: scripts, styles, connections and frames from
Atlas itself only.

Pages show tool output, documents and what people typed, all escaped; the policy is the
second line: markup that slipped through still cannot run a script, load one from
elsewhere, or send the page's data anywhere but Atlas. Style attributes stay allowed (a
budget meter's width is one); a style attribute cannot run code.

Django's own debug error pages, shown only with DEBUG, style and script themselves inline,
so they go without the policy.
"""

from __future__ import annotations

from collections.abc import Callable

from asgiref.sync import iscoroutinefunction, markcoroutinefunction
from django.conf import settings
from django.http import HttpRequest, HttpResponse

POLICY = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "style-src-attr 'unsafe-inline'",
        "img-src 'self' data:",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ]
)
HEADER = "Content-Security-Policy"


class ContentSecurityPolicy:
    sync_capable = True
    async_capable = True

    def __init__(self, get_response: Callable) -> None:
        self.get_response = get_response
        self.is_async = iscoroutinefunction(get_response)
        if self.is_async:
            markcoroutinefunction(self)

    def __call__(self, request: HttpRequest):
        if self.is_async:
            return self._acall(request)
        return self._with_policy(self.get_response(request))

    async def _acall(self, request: HttpRequest) -> HttpResponse:
        return self._with_policy(await self.get_response(request))

    def _with_policy(self, response: HttpResponse) -> HttpResponse:
        if HEADER not in response and not (settings.DEBUG and response.status_code >= 400):
            response[HEADER] = POLICY
        return response
