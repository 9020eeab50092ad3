"""The loop-health dashboard: every metric per day and per version, as SVG charts."""

from __future__ import annotations

import datetime as dt

from django.http import HttpResponse
from django.shortcuts import render
from django.utils import timezone
from django.views.decorators.http import require_GET

from runs import metrics
from runs.access import require_role
from runs.models import Run
from runs.views.charts import bar_chart, fmt, line_chart, stacked_columns
from runs.views.run_filters import runs_in_scope, within_days
from runs.views.traces import ADMIN, HtmxHttpRequest

DEFAULT_DAYS = 30
MAX_DAYS = 366


def _date(raw: str, fallback: dt.date, errors: list[str]) -> dt.date:
    if not raw:
        return fallback
    try:
        return dt.date.fromisoformat(raw)
    except ValueError:
        errors.append(f"{raw!r} is not a date (use YYYY-MM-DD); showing {fallback} instead.")
        return fallback


def _days_before(day: dt.date, days: int) -> dt.date:
    """`day` minus `days`, stopping at the first day of the calendar instead of overflowing."""
    return dt.date.fromordinal(max(1, day.toordinal() - days))


def period(request: HtmxHttpRequest) -> tuple[dt.date, dt.date, list[str]]:
    errors: list[str] = []
    today = timezone.localdate()
    end = _date(request.GET.get("date_to", "").strip(), today, errors)
    start = _date(
        request.GET.get("date_from", "").strip(), _days_before(end, DEFAULT_DAYS - 1), errors
    )
    if start > end:
        errors.append("The start date was after the end date; they were swapped.")
        start, end = end, start
    if start <= today < end:
        end = today
        errors.append("No runs can fall after today, so the period ends today.")
    if (end - start).days >= MAX_DAYS:
        start = end - dt.timedelta(days=MAX_DAYS - 1)
        errors.append(f"At most {MAX_DAYS} days are shown; the period starts on {start}.")
    return start, end, errors


def day_label(day: dt.date, start: dt.date, end: dt.date) -> str:
    """The day as the charts name it ("Mar 2"), with its year when the period runs into
    another year, where a "Dec 3" could be either end of it."""
    if start.year == end.year:
        return day.strftime("%b %-d")
    return day.strftime("%b %-d, %Y")


@require_GET
@require_role(ADMIN)
def dashboard(request: HtmxHttpRequest) -> HttpResponse:
    start, end, errors = period(request)
    runs = within_days(runs_in_scope(request), start, end)
    shown = metrics.breakdown(runs)
    total, per_version = shown.total, shown.per_version
    per_day = {row.key[0]: row for row in shown.per_day}
    days = [start + dt.timedelta(days=i) for i in range((end - start).days + 1)]
    day_labels = [day_label(day, start, end) for day in days]

    cards = []
    for key, label, unit in metrics.METRICS:
        points = [
            (day_labels[i], per_day[day].values.get(key) if day in per_day else None)
            for i, day in enumerate(days)
        ]
        cards.append(
            {
                "key": key,
                "label": label,
                "value": fmt(total.values.get(key), unit),
                "line": line_chart(points, unit=unit, label=f"{label} per day"),
                "bars": bar_chart(
                    [(row.label, row.values.get(key)) for row in per_version],
                    unit=unit,
                    label=f"{label} by version",
                ),
            }
        )
    reasons = sorted({reason for row in per_day.values() for reason in row.reasons})
    labels = dict(Run.OUTCOME_CHOICES)
    series = {
        labels.get(reason, reason): [
            per_day[day].reasons.get(reason, 0) if day in per_day else 0 for day in days
        ]
        for reason in reasons
    }
    context = {
        "start": start,
        "end": end,
        "errors": errors,
        "total": total,
        "cards": cards,
        "reasons_chart": stacked_columns(day_labels, series, label="Termination reasons per day"),
        "per_version": per_version,
        "metric_defs": metrics.METRICS,
        "version_table": [
            (row, [fmt(row.values.get(key), unit) for key, _, unit in metrics.METRICS])
            for row in per_version
        ],
    }
    return render(request, "runs/metrics.html", context)
