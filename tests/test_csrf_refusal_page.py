"""A form refused for its missing or foreign CSRF proof says why in words, and what to do."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

pytestmark = pytest.mark.django_db


def test_a_form_sent_without_the_security_cookie_says_to_use_https(analyst):
    client = Client(enforce_csrf_checks=True)
    client.force_login(analyst)
    client.cookies.pop("csrftoken", None)
    refused = client.post(reverse("runs-case-new"), {"subject_name": "Acme"})
    assert refused.status_code == 403
    page = refused.content.decode()
    assert "The form was not accepted" in page and "nothing was saved" in page
    assert "security cookie" in page and "https://" in page
    assert "DEBUG=True" not in page
    assert 'class="topbar' in page  # Atlas's own page, with its navigation


def test_a_form_with_a_stale_token_says_to_reload(analyst):
    client = Client(enforce_csrf_checks=True)
    client.force_login(analyst)
    client.get(reverse("runs-case-new"))
    refused = client.post(
        reverse("runs-case-new"), {"subject_name": "Acme", "csrfmiddlewaretoken": "x" * 64}
    )
    assert refused.status_code == 403
    assert "reload the page you were on" in refused.content.decode()
