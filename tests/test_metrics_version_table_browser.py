"""On a phone the "By version" table scrolls inside its panel, and each row's version stays
in sight beside its numbers, even with the table scrolled to its last column."""

from __future__ import annotations

import pytest
from django.urls import reverse

from tests.conftest import login_in_browser, screenshot
from tests.run_rows import add_events, make_run, tool_step

VERSIONS = [
    ("playbook", "atlas-prompt/1", "atlas-policy/1"),
    ("gpt-4.1-mini-2025-04-14", "atlas-prompt/3", "atlas-policy/2"),
]

SCROLL_TO_END = """table => {
    table.scrollLeft = table.scrollWidth;
    return {scrolled: table.scrollLeft, room: table.scrollWidth - table.clientWidth};
}"""

# Each row's version cell: its text, its edges, and whether it is what shows at its centre.
VERSION_CELLS = """table => Array.from(table.querySelectorAll("tbody tr"), row => {
    const cell = row.cells[0];
    const box = cell.getBoundingClientRect();
    const shown = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
    return {
        text: cell.textContent, left: box.left, right: box.right,
        viewport: window.innerWidth, on_top: cell.contains(shown),
    };
})"""


def runs_of_two_versions(case) -> None:
    for model, prompt, policy in VERSIONS:
        run = make_run(case, model_name=model, prompt_version=prompt, policy_version=policy)
        add_events(run, [tool_step(1, "resolve_entity")])


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_each_version_stays_in_sight_with_the_table_scrolled_to_its_end(
    page, live_server, admin_user, case
):
    runs_of_two_versions(case)
    page.set_viewport_size({"width": 360, "height": 900})
    login_in_browser(page, live_server.url, admin_user.username)
    page.goto(live_server.url + reverse("runs-metrics"))
    table = page.locator("section.panel", has=page.get_by_role("heading", name="By version"))
    table = table.locator("table")
    table.scroll_into_view_if_needed()

    scroll = table.evaluate(SCROLL_TO_END)
    assert scroll["room"] > 0 and scroll["scrolled"] > 0, scroll
    screenshot(page, "metrics-versions-360")

    cells = table.evaluate(VERSION_CELLS)
    assert len(cells) == len(VERSIONS)
    hidden = [
        cell
        for cell in cells
        if cell["left"] < 0 or cell["right"] > cell["viewport"] or not cell["on_top"]
    ]
    assert not hidden, hidden
