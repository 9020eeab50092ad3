"""Every response carries the Content-Security-Policy, except Django's own debug pages."""

from __future__ import annotations

import pytest
from django.urls import reverse

from atlas.content_security import POLICY
from tests.conftest import client_for

pytestmark = pytest.mark.django_db


def test_pages_and_files_carry_the_policy(client, analyst, case):
    client_for(client, analyst)
    for address in (reverse("login"), reverse("runs-case-detail", args=[case.pk])):
        assert client.get(address)["Content-Security-Policy"] == POLICY
    assert "script-src 'self'" in POLICY and "frame-ancestors 'none'" in POLICY
    assert "unsafe-inline" not in POLICY.split("style-src-attr")[0]


def test_an_error_page_carries_it_too_but_not_a_debug_one(client, analyst, settings):
    client_for(client, analyst)
    assert client.get("/no-such-page/")["Content-Security-Policy"] == POLICY
    settings.DEBUG = True
    assert "Content-Security-Policy" not in client.get("/no-such-page/")
