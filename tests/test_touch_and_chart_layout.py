"""Keyboard hints stay off a touch-only tablet of any width; the metrics charts read as
round numbers in their units, and the termination-reasons legend reads on a phone."""

from __future__ import annotations

import re
from decimal import Decimal

import pytest
from django.urls import reverse

from runs.views.charts import line_chart, stacked_columns
from tests.conftest import login_in_browser, screenshot
from tests.test_admin_browser import history
from tests.test_casepage_keys_browser import QUEUES, hints_shown

TABLET = {"width": 1024, "height": 1366}
DAYS = ["Mar 1", "Mar 2"]


def tick_texts(values: list, unit: str) -> list[str]:
    svg = line_chart(list(zip(DAYS, values, strict=True)), unit=unit, label="Metric")
    texts = re.findall(r'class="axis(?: tick)?">([^<]*)</text>', svg)
    return [text for text in texts if text not in DAYS]


@pytest.mark.parametrize(
    ("values", "unit", "expected"),
    [
        ([Decimal("8.02"), Decimal("12")], "number", ["0", "5", "10", "15"]),
        ([Decimal("0.3333"), None], "number", ["0", "1"]),
        ([2, 1], "count", ["0", "1", "2"]),
        ([3100, 1800], "tokens", ["0", "2,000", "4,000"]),
        ([Decimal("0.3126"), Decimal("0.22")], "money", ["$0.00", "$0.20", "$0.40"]),
        ([Decimal("0.00015"), None], "money", ["$0.00000", "$0.00005", "$0.00010", "$0.00015"]),
        ([Decimal("1500"), None], "money", ["$0.00", "$500.00", "$1,000.00", "$1,500.00"]),
        ([Decimal("0.57"), Decimal("0.2")], "ratio", ["0%", "20%", "40%", "60%"]),
        ([Decimal("1"), Decimal("1")], "ratio", ["0%", "50%", "100%"]),
        ([Decimal("0.004"), None], "ratio", ["0.0%", "0.2%", "0.4%"]),
        ([47.3, 12.9], "seconds", ["0 s", "20 s", "40 s", "60 s"]),
        ([0, 0], "count", ["0", "1"]),
    ],
)
def test_an_axis_ticks_at_round_numbers_in_its_unit(values, unit, expected):
    assert tick_texts(values, unit) == expected


def test_the_reasons_legend_is_text_beside_the_columns_not_inside_them():
    html = stacked_columns(
        ["Mar 1", "Mar 2"],
        {"No progress": [2, 1], "<b>Cancelled</b>": [0, 9]},
        label="Termination reasons per day",
    )
    legend = html.split('<ul class="chart-legend">')[1]
    assert "No progress (3)" in legend
    assert "&lt;b&gt;Cancelled&lt;/b&gt; (9)" in legend and "<b>" not in html
    axis = html.split('class="columns-axis"')[1].split("</svg>")[0]
    assert re.findall(r">(\d+)</text>", axis) == ["0", "5", "10"]


def test_a_period_without_finished_runs_says_so():
    assert "No finished runs in this period." in stacked_columns(
        ["Mar 1"], {}, label="Termination reasons per day"
    )


# --- Browser ---------------------------------------------------------------


@pytest.fixture
def touch_tablet(chromium):
    context = chromium.new_context(viewport=TABLET, has_touch=True, is_mobile=True)
    page = context.new_page()
    page.set_default_timeout(10_000)
    yield page
    context.close()


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_a_touch_only_tablet_hides_keyboard_hints_a_computer_as_wide_keeps_them(
    touch_tablet, page, live_server, reviewer
):
    page.set_viewport_size(TABLET)
    for browser in (touch_tablet, page):
        login_in_browser(browser, live_server.url, reviewer.username)
    assert hints_shown(touch_tablet, live_server.url) == dict.fromkeys(QUEUES, False)
    assert hints_shown(page, live_server.url) == dict.fromkeys(QUEUES, True)


def on_screen_font_px(page, selector: str) -> float:
    """The smallest font size the selected texts show at, after their SVG is scaled."""
    return page.evaluate(
        """selector => Math.min(...Array.from(document.querySelectorAll(selector), el => {
            const size = parseFloat(getComputedStyle(el).fontSize);
            const svg = el.ownerSVGElement;
            if (!svg || !svg.viewBox.baseVal || !svg.viewBox.baseVal.width) return size;
            return size * svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
        }))""",
        selector,
    )


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("width", [360, 1280])
def test_the_metrics_charts_read_on_a_phone_and_a_wide_screen(
    page, live_server, admin_user, case, width
):
    history(case)
    page.set_viewport_size({"width": width, "height": 900})
    login_in_browser(page, live_server.url, admin_user.username)
    page.goto(live_server.url + reverse("runs-metrics"))
    screenshot(page, f"metrics-{width}")

    assert page.evaluate("document.documentElement.scrollWidth") <= width
    legend = page.locator(".chart-legend li")
    assert legend.count() == 6
    assert on_screen_font_px(page, ".chart-legend li") >= 12
    boxes = [item.bounding_box() for item in legend.all()]
    assert all(box["x"] >= 0 and box["x"] + box["width"] <= width for box in boxes)
    if width == 360:
        assert len({round(box["y"]) for box in boxes}) > 1, "the legend wraps"
    assert on_screen_font_px(page, ".columns-axis text, .columns-days") >= 12
    assert on_screen_font_px(page, "svg.line-chart .axis") >= 10
    ticks = page.locator("svg.line-chart .tick").all_text_contents()
    assert ticks and all(re.fullmatch(r"\$?\d[\d,]*(\.\d\d)?%?", tick) for tick in ticks)
