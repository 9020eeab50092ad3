"""People as the console names them: by their full name, by their login when they have none."""

from __future__ import annotations

from collections.abc import Iterable

from django.contrib.auth import get_user_model


def names_by_login(logins: Iterable[str | None]) -> dict[str, str]:
    """Login -> the name to show, in one query, for the logins a record stores (a
    disposition's or a review round's actor); a login of nobody is left out."""
    wanted = set(logins) - {"", None}
    if not wanted:
        return {}
    return {
        user.get_username(): user.get_full_name() or user.get_username()
        for user in get_user_model().objects.filter(username__in=wanted)
    }
