"""Password guessing: signing in as one user from one address pauses after a few failures."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django.urls import reverse

from tests.conftest import PASSWORD

pytestmark = pytest.mark.django_db


def sign_in(client, username: str, password: str):
    form = {"username": username, "password": password, "next": ""}  # as the page posts it
    return client.post(reverse("login"), form)


def test_too_many_wrong_passwords_pause_signing_in_as_that_user(
    client, analyst, reviewer, settings
):
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        assert "do not match" in sign_in(client, "analyst", "guess").content.decode()
    paused = sign_in(client, "analyst", "guess")
    assert paused.status_code == 429
    page = paused.content.decode()
    assert "Signing in as analyst from here is refused for 15 minutes." in page
    still_paused = sign_in(client, "analyst", PASSWORD)  # even the right password, for now
    assert still_paused.status_code == 429 and "_auth_user_id" not in client.session
    assert sign_in(client, "reviewer", PASSWORD).status_code == 302  # someone else is not

    call_command("axes_reset_username", "analyst")  # what an admin does to unlock sooner
    assert sign_in(client, "analyst", PASSWORD).status_code == 302


def test_a_pause_on_the_admins_login_leads_back_to_it(client, admin_user, settings):
    url = reverse("admin:login")
    for _ in range(settings.AXES_FAILURE_LIMIT):
        paused = client.post(url, {"username": admin_user.username, "password": "guess"})
    assert paused.status_code == 429
    assert f'<a href="{url}">Back to the login page</a>' in paused.content.decode()


def test_a_right_password_clears_earlier_failures(client, analyst, settings):
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        sign_in(client, "analyst", "guess")
    assert sign_in(client, "analyst", PASSWORD).status_code == 302
    client.logout()
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        sign_in(client, "analyst", "guess")
    assert sign_in(client, "analyst", PASSWORD).status_code == 302


def test_a_paused_page_escapes_the_username_it_names(client, settings):
    for _ in range(settings.AXES_FAILURE_LIMIT):
        response = sign_in(client, "<b>x</b>", "guess")
    assert response.status_code == 429
    assert "&lt;b&gt;x&lt;/b&gt;" in response.content.decode()
