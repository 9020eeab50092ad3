"""In Chromium: a document whose name is one long word (no spaces to break at) stays inside
the page, on the new-case form that keeps it and on the case page that lists it, on a
desktop screen and on a phone."""

from __future__ import annotations

import pytest
from django.urls import reverse

from tests.case_rows import document_row
from tests.conftest import login_in_browser, screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LONG_NAME = "Q" * 240 + ".txt"
WIDTHS = [1280, 360]


def _page_fits(page) -> bool:
    return page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")


@pytest.mark.parametrize("width", WIDTHS)
def test_a_kept_document_with_a_long_name_stays_inside_the_new_case_form(
    page, live_server, analyst, width
):
    page.set_viewport_size({"width": width, "height": 900})
    login_in_browser(page, live_server.url, analyst.username)
    page.goto(live_server.url + reverse("runs-case-new"))
    page.set_input_files(
        "#id_document",
        files=[{"name": LONG_NAME, "mimeType": "text/plain", "buffer": b"Director: Jane Roe\n"}],
    )
    page.click("button[type=submit].primary")  # refused: no subject, so the file is kept

    page.wait_for_selector("#kept-document")
    screenshot(page, f"today-kept-long-name-{width}")
    assert _page_fits(page)


@pytest.mark.parametrize("width", WIDTHS)
def test_a_document_with_a_long_name_stays_inside_the_case_page(
    page, live_server, analyst, case, width
):
    document_row(case, analyst, name=LONG_NAME)
    page.set_viewport_size({"width": width, "height": 900})
    login_in_browser(page, live_server.url, analyst.username)
    page.goto(live_server.url + reverse("runs-case-detail", args=[case.pk]))

    page.wait_for_selector(f"text={LONG_NAME[:20]}")
    screenshot(page, f"today-case-long-name-{width}")
    assert _page_fits(page)
