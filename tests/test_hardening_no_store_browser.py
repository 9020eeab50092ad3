"""Chromium keeps no copy of a case page: after signing out the back button asks Atlas
again (and the sign-in page answers), and going back to a case shows it as it is now."""

from __future__ import annotations

import pytest
from django.urls import reverse

from runs.models import Case
from tests.conftest import login_in_browser
from tests.live_server import atlas_server  # noqa: F401 - the fixture

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def open_case(page, base_url: str, case: Case) -> None:
    login_in_browser(page, base_url, "analyst")
    page.goto(base_url + reverse("runs-case-detail", args=[case.pk]))
    assert case.subject_name in page.content()


def test_going_back_after_signing_out_does_not_show_the_case(
    atlas_server,  # noqa: F811
    page,
    analyst,
    case,
):
    open_case(page, atlas_server.url, case)
    page.get_by_role("button", name="Log out").click()
    page.wait_for_load_state()
    assert case.subject_name not in page.content()

    page.go_back()
    page.wait_for_load_state()
    assert case.subject_name not in page.content()
    assert "/login/" in page.url and page.locator("#id_username").is_visible()


def test_going_back_to_a_case_shows_it_as_it_is_now_not_a_stored_copy(
    atlas_server,  # noqa: F811
    page,
    analyst,
    case,
):
    open_case(page, atlas_server.url, case)
    Case.objects.filter(pk=case.pk).update(subject_name="Acme Widgets Holdings Ltd")
    page.goto(atlas_server.url + reverse("runs-case-list"))

    page.go_back()
    page.wait_for_load_state()
    assert page.url.endswith(reverse("runs-case-detail", args=[case.pk]))
    assert "Acme Widgets Holdings Ltd" in page.content()
