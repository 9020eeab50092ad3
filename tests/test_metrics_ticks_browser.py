"""Every tick label of the metrics charts is drawn whole, "100%" as much as "0%", on a
phone and on a wide screen."""

from __future__ import annotations

import pytest
from django.urls import reverse

from runs.models import Run
from tests.conftest import login_in_browser, screenshot
from tests.run_rows import add_events, make_run, tool_step

# Each tick's left and right edges measured from its own chart's left and right edges.
TICK_EDGES = """() => Array.from(
    document.querySelectorAll("svg.line-chart .tick, .columns-axis text"),
    tick => {
        const text = tick.getBoundingClientRect();
        const chart = tick.ownerSVGElement.getBoundingClientRect();
        return {text: tick.textContent, left: text.left - chart.left, right: chart.right - text.right};
    })"""


def runs_all_stopped_for_no_progress(case) -> None:
    """Finished runs that all stopped for no progress: their rates reach 100%."""
    for _ in range(3):
        run = make_run(
            case, status=Run.Status.AWAITING_REVIEW, termination_reason=Run.Reason.NO_PROGRESS
        )
        add_events(run, [tool_step(1, "resolve_entity"), tool_step(2, "screen_sanctions")])


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("width", [360, 1280])
def test_every_tick_label_of_the_metrics_charts_is_whole(
    page, live_server, admin_user, case, width
):
    runs_all_stopped_for_no_progress(case)
    page.set_viewport_size({"width": width, "height": 900})
    login_in_browser(page, live_server.url, admin_user.username)
    page.goto(live_server.url + reverse("runs-metrics"))
    screenshot(page, f"metrics-ticks-{width}")

    ticks = page.evaluate(TICK_EDGES)
    assert "100%" in {tick["text"] for tick in ticks}
    cut = [tick for tick in ticks if tick["left"] < 0 or tick["right"] < 0]
    assert not cut, cut
