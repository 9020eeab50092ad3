"""The dashboard's charts name each day so that no two days of a period read the same."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from django.urls import reverse

from tests.run_rows import make_run

pytestmark = pytest.mark.django_db


def day_names(html: str) -> list[str]:
    first_card = html.split('id="metric-iterations_per_success"')[1].split("<details>")[0]
    return re.findall(r'class="axis">([A-Z][a-z]{2} [^<]*)</text>', first_card)


def test_a_period_across_new_year_names_the_year_of_each_day(client, admin_user, case):
    for day in (dt.date(2025, 12, 3), dt.date(2026, 12, 3)):
        make_run(case, iterations=4, created_at=dt.datetime.combine(day, dt.time(12), dt.UTC))
    client.force_login(admin_user)
    html = client.get(
        reverse("runs-metrics"), {"date_from": "2025-12-03", "date_to": "2026-12-03"}
    ).content.decode()
    assert day_names(html) == ["Dec 3, 2025", "Dec 3, 2026"]


def test_a_period_within_a_year_names_days_without_it(client, admin_user, case):
    make_run(case, iterations=4, created_at=dt.datetime(2026, 3, 4, 12, tzinfo=dt.UTC))
    client.force_login(admin_user)
    html = client.get(
        reverse("runs-metrics"), {"date_from": "2026-03-01", "date_to": "2026-03-07"}
    ).content.decode()
    assert day_names(html) == ["Mar 1", "Mar 7"]


def test_a_period_reaching_far_past_today_ends_today_and_keeps_its_start(client, admin_user, case):
    from django.utils import timezone

    today = timezone.localdate()
    make_run(case, iterations=4, created_at=timezone.now())
    client.force_login(admin_user)
    start = today - dt.timedelta(days=5)
    html = client.get(
        reverse("runs-metrics"),
        {"date_from": start.isoformat(), "date_to": (today + dt.timedelta(days=400)).isoformat()},
    ).content.decode()
    assert "No runs can fall after today, so the period ends today." in html
    assert "At most" not in html
    names = day_names(html)
    assert names[0] == start.strftime("%b %-d") and names[-1] == today.strftime("%b %-d")
