"""Signing out, and what someone sees who has failed to sign in too many times
(django-axes' lockout)."""

from __future__ import annotations

from axes.helpers import get_client_username
from django.conf import settings
from django.contrib import messages
from django.contrib.auth.views import LogoutView
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render


def locked_out(request: HttpRequest, response: HttpResponse | None, credentials: dict | None):
    minutes = int(settings.AXES_COOLOFF_TIME.total_seconds() // 60)
    context = {
        "username": get_client_username(request, credentials) or "",
        "minutes": minutes,
        "sign_in_page": request.path,  # the site's login page, or the Django admin's
    }
    return render(request, "registration/locked_out.html", context, status=429)


class SignOut(LogoutView):
    """Signs out, and says so on the sign-in page it leads to."""

    def post(self, request: HttpRequest, *args, **kwargs) -> HttpResponse:
        response = super().post(request, *args, **kwargs)
        messages.info(request, "You are signed out.")
        return response
