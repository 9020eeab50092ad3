"""A form that opens a case is sent once. Its page carries a token; sending the same token
again (the Back button and Send, a reload that repeats the POST) leads to the case the
first send opened instead of opening a second one. The tokens live in the session, the
newest few only."""

from __future__ import annotations

import secrets

from django.http import HttpRequest

SESSION_KEY = "cases_opened_by_form"
KEPT = 50
MAX_LENGTH = 64


def token_of(request: HttpRequest) -> str:
    """The token the form was sent with, or a new one for a form about to be shown."""
    sent = request.POST.get("form_token", "")
    if sent and len(sent) <= MAX_LENGTH and sent.isascii():
        return sent
    return secrets.token_urlsafe(16)


def opened_by(request: HttpRequest, token: str) -> int | None:
    return request.session.get(SESSION_KEY, {}).get(token)


def remember(request: HttpRequest, token: str, case_id: int) -> None:
    opened = dict(request.session.get(SESSION_KEY, {}))
    opened[token] = case_id
    request.session[SESSION_KEY] = dict(list(opened.items())[-KEPT:])
