"""Small server-rendered SVG charts: no JavaScript, no network, text escaped.

Coordinates are floats (pixels); the numbers printed on charts are formatted from the
exact values (Decimal money stays Decimal), each rounded once, half up, as the run pages
round money (Django's floatformat).
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Sequence
from decimal import ROUND_CEILING, ROUND_HALF_UP, Decimal
from typing import Any

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from atlas.runtime.money import dollars

PALETTE = [
    "#2450a6", "#1c7c45", "#a86300", "#b42318", "#6941c6", "#2a6fb0", "#5f6b7a",
    "#c4320a", "#0e7490", "#7a5af8", "#667085", "#15803d", "#b54708", "#9e77ed",
]  # fmt: skip


def _rounded(value: Any, places: str) -> Decimal:
    # Not a format spec: "{:.2f}" rounds a Decimal half to even (2.125 to 2.12).
    return Decimal(value).quantize(Decimal(places), ROUND_HALF_UP)


def fmt(value: Any, unit: str) -> str:
    if value is None:
        return "no data"
    if unit == "ratio":
        return f"{_rounded(Decimal(value) * 100, '0.1')}%"
    if unit == "money":
        return dollars(value)
    if unit == "count":
        return f"{int(value):,}"
    if unit == "tokens":
        return f"{_rounded(value, '1'):,}"
    return f"{_rounded(value, '0.01'):,}"


def _svg(width: int, height: int, body: list[str], label: str, kind: str = "") -> SafeString:
    classes = f"chart {kind}".strip()
    return mark_safe(
        f'<svg class="{classes}" viewBox="0 0 {width} {height}" width="100%" role="img" '
        f'aria-label="{escape(label)}" xmlns="http://www.w3.org/2000/svg">'
        + "".join(body)
        + "</svg>"
    )


# Units counted in whole things: their axes step by whole numbers.
WHOLE_UNITS = {"count", "tokens", "number", "seconds"}
ROUND_FACTORS = (Decimal(1), Decimal(2), Decimal("2.5"), Decimal(5), Decimal(10))


def _round_step(at_least: Decimal, whole: bool) -> Decimal:
    """The smallest 1, 2, 2.5 or 5 times a power of ten that is at least `at_least`."""
    if whole:
        at_least = max(at_least, Decimal(1))
    power = Decimal(1).scaleb(at_least.adjusted())
    steps = (factor * power for factor in ROUND_FACTORS)
    return next(step for step in steps if step >= at_least and not (whole and step % 1)).normalize()


def ticks(highest: Any, unit: str, intervals: int = 3) -> list[Decimal]:
    """An axis's ticks: 0, then round steps up to the first tick at or above `highest`, at
    most `intervals` steps."""
    top = Decimal(str(highest)) if highest is not None and highest > 0 else Decimal(1)
    step = _round_step(top / intervals, whole=unit in WHOLE_UNITS)
    count = int((top / step).to_integral_value(ROUND_CEILING))
    return [step * i for i in range(count + 1)]


def _places(step: Decimal) -> int:
    return max(0, -step.normalize().as_tuple().exponent)


def tick_label(value: Decimal, step: Decimal, unit: str) -> str:
    """A tick as its unit reads, to the places its step needs and no more: "25%", "$0.20",
    "2,000", "30 s"."""
    if unit == "ratio":
        return f"{value * 100:,.{_places(step * 100)}f}%"
    if unit == "money":
        return f"${value:,.{max(2, _places(step))}f}"
    if unit == "seconds":
        return f"{value:,.0f} s"
    return f"{value:,.{_places(step)}f}"


def tick_labels(values: list[Decimal], unit: str) -> list[str]:
    step = values[1] - values[0]
    return [tick_label(value, step, unit) for value in values]


# Advance widths, in em, of the characters tick labels are written with, in DejaVu Sans:
# the widest font `system-ui, sans-serif` comes to (SF, Segoe UI, Roboto and Noto draw them
# narrower), so room measured with them holds a label whole in any of them.
TICK_CHAR_EM = dict.fromkeys("0123456789$", 0.637) | {
    "%": 0.951,
    ",": 0.318,
    ".": 0.318,
    " ": 0.318,
    "s": 0.522,
}
LINE_TICK_PX = 11  # svg.line-chart .axis in charts.css, in the chart's units
COLUMNS_TICK_PX = 12  # .columns-axis in charts.css


def tick_width(text: str, font_px: int) -> float:
    """The most room `text` takes at `font_px` (a character not listed counted 1 em)."""
    return font_px * sum(TICK_CHAR_EM.get(char, 1.0) for char in text)


def line_chart(
    points: Sequence[tuple[str, Any]], *, unit: str, label: str, width: int = 300, height: int = 150
) -> SafeString:
    """One value per day; gaps (None) break the line. The latest value is printed. The
    chart is drawn about as wide as a card shows it, so its words keep their size."""
    right, top, bottom = 10, 12, 24
    values = [float(v) for _, v in points if v is not None]
    body: list[str] = []
    if not values:
        body.append(
            f'<text x="{width / 2}" y="{height / 2}" text-anchor="middle" class="chart-empty">'
            "no data in this period</text>"
        )
        return _svg(width, height, body, label, "line-chart")
    steps = ticks(max(v for _, v in points if v is not None), unit)
    labels = tick_labels(steps, unit)
    high = float(steps[-1])
    left = math.ceil(8 + max(tick_width(text, LINE_TICK_PX) for text in labels))
    plot_w, plot_h = width - left - right, height - top - bottom
    n = len(points)

    def x(i: int) -> float:
        return left + (plot_w * i / (n - 1) if n > 1 else plot_w / 2)

    def y(v: float) -> float:
        return top + plot_h - plot_h * v / high

    for value, text in zip(steps, labels, strict=True):
        gy = y(float(value))
        body.append(
            f'<line x1="{left}" y1="{gy:.1f}" x2="{width - right}" y2="{gy:.1f}" class="grid"/>'
        )
        body.append(
            f'<text x="{left - 4}" y="{gy + 4:.1f}" text-anchor="end" class="axis tick">'
            f"{escape(text)}</text>"
        )
    segment: list[str] = []
    segments: list[list[str]] = []
    for i, (_, value) in enumerate(points):
        if value is None:
            if segment:
                segments.append(segment)
            segment = []
            continue
        segment.append(f"{x(i):.1f},{y(float(value)):.1f}")
    if segment:
        segments.append(segment)
    for seg in segments:
        if len(seg) > 1:
            body.append(f'<polyline points="{" ".join(seg)}" class="line"/>')
    for i, (day, value) in enumerate(points):
        if value is not None:
            body.append(
                f'<circle cx="{x(i):.1f}" cy="{y(float(value)):.1f}" r="2.6" class="dot">'
                f"<title>{escape(day)}: {escape(fmt(value, unit))}</title></circle>"
            )
    for i in sorted({0, n - 1}):
        body.append(
            f'<text x="{x(i):.1f}" y="{height - 6}" text-anchor="{"start" if i == 0 and n > 1 else "end" if n > 1 else "middle"}" '
            f'class="axis">{escape(points[i][0])}</text>'
        )
    return _svg(width, height, body, label, "line-chart")


LABEL_LINE_CHARS = 26  # what the 150-pixel label column holds at the axis font size
LABEL_MAX_LINES = 3


def wrapped_label(text: str) -> list[str]:
    """A bar's label in lines of at most LABEL_LINE_CHARS, broken between words; a word too
    long for a line, or a last line with more after it, ends in "…" (the bar's title and the
    chart's aria-label keep the full text)."""
    # A no-break space ties " · " to the word before it, so no line starts with the dot.
    lines = textwrap.wrap(
        text.replace(" · ", "\u00a0· "),
        LABEL_LINE_CHARS,
        break_long_words=False,
        break_on_hyphens=False,
    ) or [""]
    cut = len(lines) > LABEL_MAX_LINES
    lines = lines[:LABEL_MAX_LINES]
    if cut:
        last = lines[-1]
        if len(last) >= LABEL_LINE_CHARS:
            last = last.rsplit(" ", 1)[0] if " " in last else last[: LABEL_LINE_CHARS - 1]
        lines[-1] = last + "…"
    return [
        line if len(line) <= LABEL_LINE_CHARS else line[: LABEL_LINE_CHARS - 1] + "…"
        for line in lines
    ]


def bar_chart(
    items: Sequence[tuple[str, Any]], *, unit: str, label: str, width: int = 380
) -> SafeString:
    """Horizontal bars, one per group (a version bundle), value printed at the end. A long
    label wraps onto up to three lines; the chart's aria-label reads every bar in full."""
    line_h, label_w = 11, 150
    shown = [fmt(value, unit) for _, value in items]
    value_w = max([70, *(6 * len(text) + 8 for text in shown)])
    values = [float(v) for _, v in items if v is not None]
    high = max(values) if values and max(values) > 0 else 1.0
    bar_w = width - label_w - value_w
    body: list[str] = []
    if not items:
        body.append(
            f'<text x="{width / 2}" y="18" text-anchor="middle" class="chart-empty">no data</text>'
        )
    y = 4
    for i, ((name, value), text) in enumerate(zip(items, shown, strict=True)):
        lines = wrapped_label(name)
        row_h = max(20, line_h * len(lines) + 9)
        middle = y + row_h / 2
        first_line = middle + 3.5 - line_h * (len(lines) - 1) / 2
        tspans = "".join(
            f'<tspan x="{label_w - 6}" dy="{0 if n == 0 else line_h}">{escape(line)}</tspan>'
            for n, line in enumerate(lines)
        )
        body.append(
            f'<text x="{label_w - 6}" y="{first_line:.1f}" text-anchor="end" class="axis">'
            f"<title>{escape(name)}</title>{tspans}</text>"
        )
        w = 0.0 if value is None else bar_w * float(value) / high
        body.append(
            f'<rect x="{label_w}" y="{middle - 6.5:.1f}" width="{w:.1f}" height="13" '
            f'fill="{PALETTE[i % len(PALETTE)]}" class="bar"/>'
        )
        body.append(
            f'<text x="{label_w + w + 4:.1f}" y="{middle + 3.5:.1f}" class="value">{escape(text)}</text>'
        )
        y += row_h
    height = max(y + 4, 30)
    read_out = "; ".join(f"{name}: {text}" for (name, _), text in zip(items, shown, strict=True))
    return _svg(width, height, body, f"{label}: {read_out}" if items else label)


COLUMN_WIDTH = 10  # a day's column in the columns' own units, stretched to the width shown
COLUMNS_PAD = 8  # room above the top tick for its label


def stacked_columns(
    days: Sequence[str],
    series: dict[str, list[int]],
    *,
    label: str,
    height: int = 180,
) -> SafeString:
    """Termination reasons per day: one column a day, one colour a reason, with a legend.

    Only the columns are stretched to the width shown; the axis, the days and the legend
    are drawn at their own size beside them, so a phone reads them as a wide screen does.
    """
    totals = [sum(counts[i] for counts in series.values()) for i in range(len(days))]
    if not any(totals):
        return mark_safe('<p class="chart-empty-note">No finished runs in this period.</p>')
    steps = ticks(max(totals), "count")
    box_height = height + COLUMNS_PAD * 2
    return mark_safe(
        '<figure class="columns-chart">'
        + _columns_axis(steps, height, box_height)
        + _columns(days, series, steps, height, box_height, label)
        + _columns_days(days)
        + _legend(series)
        + "</figure>"
    )


def _tick_heights(steps: list[Decimal], height: int) -> list[float]:
    return [COLUMNS_PAD + height * (1 - float(value / steps[-1])) for value in steps]


def _columns_axis(steps: list[Decimal], height: int, box_height: int) -> str:
    labels = tick_labels(steps, "count")
    width = math.ceil(8 + max(tick_width(text, COLUMNS_TICK_PX) for text in labels))
    texts = "".join(
        f'<text x="{width - 6}" y="{y + 4:.1f}" text-anchor="end">{escape(text)}</text>'
        for y, text in zip(_tick_heights(steps, height), labels, strict=True)
    )
    return (
        f'<svg class="columns-axis" width="{width}" height="{box_height}" aria-hidden="true" '
        f'xmlns="http://www.w3.org/2000/svg">{texts}</svg>'
    )


def _columns(
    days: Sequence[str],
    series: dict[str, list[int]],
    steps: list[Decimal],
    height: int,
    box_height: int,
    label: str,
) -> str:
    width = COLUMN_WIDTH * len(days)
    high = float(steps[-1])
    body = [
        f'<line x1="0" y1="{y:.1f}" x2="{width}" y2="{y:.1f}" class="grid" '
        'vector-effect="non-scaling-stroke"/>'
        for y in _tick_heights(steps, height)
    ]
    for i, day in enumerate(days):
        base = COLUMNS_PAD + height
        for j, (name, counts) in enumerate(series.items()):
            if not counts[i]:
                continue
            column = height * counts[i] / high
            base -= column
            body.append(
                f'<rect x="{i * COLUMN_WIDTH + 1}" y="{base:.1f}" width="{COLUMN_WIDTH - 2}" '
                f'height="{column:.1f}" fill="{PALETTE[j % len(PALETTE)]}">'
                f"<title>{escape(day)} · {escape(name)}: {counts[i]}</title></rect>"
            )
    return (
        f'<svg class="chart columns" viewBox="0 0 {width} {box_height}" width="100%" '
        f'height="{box_height}" preserveAspectRatio="none" role="img" '
        f'aria-label="{escape(label)}" xmlns="http://www.w3.org/2000/svg">'
        + "".join(body)
        + "</svg>"
    )


def _columns_days(days: Sequence[str]) -> str:
    ends = [days[0]] if len(days) == 1 else [days[0], days[-1]]
    return (
        '<div class="columns-days">'
        + "".join(f"<span>{escape(day)}</span>" for day in ends)
        + "</div>"
    )


def _legend(series: dict[str, list[int]]) -> str:
    items = "".join(
        f'<li><svg class="swatch" width="12" height="12" aria-hidden="true" '
        f'xmlns="http://www.w3.org/2000/svg"><rect width="12" height="12" '
        f'fill="{PALETTE[j % len(PALETTE)]}"/></svg>{escape(name)} ({sum(counts):,})</li>'
        for j, (name, counts) in enumerate(series.items())
    )
    return f'<ul class="chart-legend">{items}</ul>'
