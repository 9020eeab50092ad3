from __future__ import annotations

import pytest

from tests.conftest import login_in_browser, screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.mark.parametrize("persona", ["analyst", "reviewer", "admin_user"])
def test_each_role_logs_in_and_lands_on_its_home(request, persona, live_server, page):
    user = request.getfixturevalue(persona)
    role = user.membership.role
    login_in_browser(page, live_server.url, user.username)
    assert page.locator(".role-pill").inner_text().strip().lower() == role
    assert "/login/" not in page.url
    screenshot(page, f"home-{role}")


def test_a_wrong_password_is_explained(live_server, page, analyst):
    login_in_browser(page, live_server.url, "analyst", "not-the-password")
    assert (
        page.get_by_role("alert").inner_text().startswith("That username and password do not match")
    )
