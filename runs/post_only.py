"""Action addresses (cancel, answer, decide, ...) act on POST only. A GET of one, from a
reload after a form was refused or a pasted link, goes to the page the action belongs to
instead of the browser's blank "405 Method Not Allowed"."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps

from django.http import HttpRequest, HttpResponse, HttpResponseNotAllowed
from django.shortcuts import redirect


def post_only(page_of: Callable[..., str]) -> Callable:
    """`page_of(request, **url_kwargs)` names the page to go to; it looks objects up as the
    action does, so another tenant's object is still a 404."""

    def decorator(view: Callable) -> Callable:
        @wraps(view)
        def wrapped(request: HttpRequest, *args, **kwargs) -> HttpResponse:
            if request.method == "POST":
                return view(request, *args, **kwargs)
            if request.method in ("GET", "HEAD"):
                return redirect(page_of(request, **kwargs))
            return HttpResponseNotAllowed(["POST"])

        return wrapped

    return decorator
