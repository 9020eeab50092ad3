"""No page Atlas renders is kept by a browser's or a proxy's cache.

Pages, htmx fragments and JSON show sanctions hits and personal data, and a form carries
its CSRF token: kept in a cache, they would outlive signing out (the back button shows a
case again on a shared machine) or reach another user through a shared proxy. Static files
are served before this middleware (servestatic), so they keep their long-lived caching.
"""

from __future__ import annotations

from collections.abc import Callable

from asgiref.sync import iscoroutinefunction
from django.http import HttpRequest, HttpResponse
from django.utils.cache import patch_cache_control
from django.utils.decorators import sync_and_async_middleware


def not_stored(response: HttpResponse) -> HttpResponse:
    patch_cache_control(response, private=True, no_store=True)
    return response


@sync_and_async_middleware
def no_store(get_response: Callable) -> Callable:
    if iscoroutinefunction(get_response):

        async def middleware(request: HttpRequest) -> HttpResponse:
            return not_stored(await get_response(request))

    else:

        def middleware(request: HttpRequest) -> HttpResponse:
            return not_stored(get_response(request))

    return middleware
