"""Small server-rendered SVG charts: no JavaScript, no network, text escaped.

Coordinates are floats (pixels); the numbers printed on charts are formatted from the
exact values (Decimal money stays Decimal), each rounded once, half up, as the run pages
round money (Django's floatformat).
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from decimal import ROUND_HALF_UP, Decimal
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


def _svg(width: int, height: int, body: list[str], label: str) -> SafeString:
    return mark_safe(
        f'<svg class="chart" viewBox="0 0 {width} {height}" width="100%" role="img" '
        f'aria-label="{escape(label)}" xmlns="http://www.w3.org/2000/svg">'
        + "".join(body)
        + "</svg>"
    )


def line_chart(
    points: Sequence[tuple[str, Any]], *, unit: str, label: str, width: int = 380, height: int = 150
) -> SafeString:
    """One value per day; gaps (None) break the line. The latest value is printed."""
    left, right, top, bottom = 44, 10, 12, 24
    plot_w, plot_h = width - left - right, height - top - bottom
    values = [float(v) for _, v in points if v is not None]
    body: list[str] = []
    if not values:
        body.append(
            f'<text x="{width / 2}" y="{height / 2}" text-anchor="middle" class="chart-empty">'
            "no data in this period</text>"
        )
        return _svg(width, height, body, label)
    high = max(values)
    high = high * 1.15 if high > 0 else 1.0
    if unit == "ratio":
        high = min(max(high, 0.1), 1.0) if max(values) <= 1 else high
    n = len(points)

    def x(i: int) -> float:
        return left + (plot_w * i / (n - 1) if n > 1 else plot_w / 2)

    def y(v: float) -> float:
        return top + plot_h - plot_h * v / high

    for fraction in (0, 0.5, 1):
        gy = top + plot_h - plot_h * fraction
        body.append(
            f'<line x1="{left}" y1="{gy:.1f}" x2="{width - right}" y2="{gy:.1f}" class="grid"/>'
        )
        body.append(
            f'<text x="{left - 4}" y="{gy + 3:.1f}" text-anchor="end" class="axis">'
            f"{escape(axis_label(high * fraction, unit))}</text>"
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
    return _svg(width, height, body, label)


def axis_label(value: float, unit: str) -> str:
    """Short tick labels: the axis has 40 pixels, the card prints the exact value."""
    if unit == "ratio":
        return f"{value * 100:.0f}%"
    prefix = "$" if unit == "money" else ""
    if value >= 1000:
        return f"{prefix}{value / 1000:.1f}k"
    if value >= 10:
        return f"{prefix}{value:.0f}"
    return f"{prefix}{value:.2f}"


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


def stacked_columns(
    days: Sequence[str],
    series: dict[str, list[int]],
    *,
    label: str,
    width: int = 1180,
    height: int = 200,
) -> SafeString:
    """Termination reasons per day: one column a day, one colour a reason, with a legend."""
    left, right, top, bottom = 36, 240, 10, 24
    plot_w, plot_h = width - left - right, height - top - bottom
    totals = [sum(series[name][i] for name in series) for i in range(len(days))]
    high = max(totals) if totals and max(totals) > 0 else 1
    n = max(len(days), 1)
    col = plot_w / n
    body: list[str] = []
    if not days or not any(totals):
        body.append(
            f'<text x="{width / 2}" y="{height / 2}" text-anchor="middle" class="chart-empty">'
            "no finished runs in this period</text>"
        )
        return _svg(width, height, body, label)
    body.append(f'<text x="{left - 4}" y="{top + 8}" text-anchor="end" class="axis">{high}</text>')
    body.append(
        f'<line x1="{left}" y1="{top + plot_h}" x2="{left + plot_w}" y2="{top + plot_h}" class="grid"/>'
    )
    for i, day in enumerate(days):
        base = top + plot_h
        for j, (name, counts) in enumerate(series.items()):
            count = counts[i]
            if not count:
                continue
            h = plot_h * count / high
            base -= h
            body.append(
                f'<rect x="{left + i * col + 1:.1f}" y="{base:.1f}" width="{max(col - 2, 1):.1f}" '
                f'height="{h:.1f}" fill="{PALETTE[j % len(PALETTE)]}">'
                f"<title>{escape(day)} · {escape(name)}: {count}</title></rect>"
            )
    for i in sorted({0, len(days) - 1}):
        anchor = "start" if i == 0 else "end"
        xpos = left + i * col if i == 0 else left + (i + 1) * col
        body.append(
            f'<text x="{xpos:.1f}" y="{height - 6}" text-anchor="{anchor}" class="axis">{escape(days[i])}</text>'
        )
    for j, name in enumerate(series):
        y = top + j * 15
        body.append(
            f'<rect x="{width - right + 10}" y="{y}" width="10" height="10" fill="{PALETTE[j % len(PALETTE)]}"/>'
        )
        body.append(
            f'<text x="{width - right + 25}" y="{y + 9}" class="axis">{escape(name)} ({sum(series[name])})</text>'
        )
    return _svg(width, height, body, label)
