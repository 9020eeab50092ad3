"""Signing out leads to the sign-in page, which says so."""

from __future__ import annotations

import pytest
from django.urls import reverse

pytestmark = pytest.mark.django_db


def test_signing_out_says_so_on_the_sign_in_page(client, analyst):
    client.force_login(analyst)
    response = client.post(reverse("logout"), follow=True)
    assert response.redirect_chain[-1][0] == reverse("login")
    assert "You are signed out." in response.content.decode()
    assert "_auth_user_id" not in client.session
    # Said once: the next visit to the page is a plain one.
    assert "You are signed out." not in client.get(reverse("login")).content.decode()
