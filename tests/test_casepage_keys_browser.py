"""Keyboard hints in the queues: hidden on a phone, which has no keyboard; kept in a narrow
window on a computer, which has one."""

from __future__ import annotations

import pytest
from django.urls import reverse

from tests.conftest import login_in_browser, screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

NARROW = {"width": 360, "height": 800}
QUEUES = ("reviews-queue", "reviews-clarifications", "reviews-escalations")


@pytest.fixture
def phone(chromium):
    context = chromium.new_context(viewport=NARROW, has_touch=True, is_mobile=True)
    page = context.new_page()
    page.set_default_timeout(10_000)
    yield page
    context.close()


def hints_shown(page, base_url: str) -> dict[str, bool]:
    shown = {}
    for name in QUEUES:
        page.goto(base_url + reverse(name))
        shown[name] = page.locator(".keys-hint").is_visible()
    return shown


def test_a_phone_shows_no_keyboard_hints(phone, live_server, reviewer):
    login_in_browser(phone, live_server.url, reviewer.username)
    assert phone.evaluate("() => matchMedia('(hover: none) and (pointer: coarse)').matches")
    assert hints_shown(phone, live_server.url) == dict.fromkeys(QUEUES, False)
    phone.goto(live_server.url + reverse(QUEUES[0]))
    screenshot(phone, "casepage-queue-phone-360")


def test_a_narrow_window_with_a_keyboard_keeps_them(page, live_server, reviewer):
    page.set_viewport_size(NARROW)
    login_in_browser(page, live_server.url, reviewer.username)
    assert hints_shown(page, live_server.url) == dict.fromkeys(QUEUES, True)
