from __future__ import annotations

from django.http import HttpRequest

from runs.access import membership_of


def membership(request: HttpRequest) -> dict:
    current = membership_of(request.user)
    return {
        "membership": current,
        "tenant": current.tenant if current else None,
        "role": current.role if current else ("admin" if request.user.is_superuser else None),
    }
