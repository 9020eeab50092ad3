"""The dashboard's numbers are the exact values rounded once, half up, as the run pages
round money (Django's floatformat)."""

from __future__ import annotations

import re
from decimal import Decimal

import pytest
from django.urls import reverse

from runs import metrics
from runs.models import Run
from runs.views.charts import fmt
from tests.run_rows import T0, add_tool_call, make_run


@pytest.mark.parametrize(
    ("value", "unit", "shown"),
    [
        (Decimal("0.00025"), "money", "$0.0003"),
        (Decimal("12345.67885"), "money", "$12,345.6789"),
        (Decimal(1) / Decimal(16), "ratio", "6.3%"),
        (Decimal("2.5"), "tokens", "3"),
        (Decimal("1234.5"), "tokens", "1,235"),
        (Decimal("2.125"), "number", "2.13"),
        (Decimal("1234.5"), "number", "1,234.50"),
        (Decimal(0), "ratio", "0.0%"),
    ],
)
def test_a_value_halfway_between_two_shown_values_rounds_up(value, unit, shown):
    assert fmt(value, unit) == shown


@pytest.mark.django_db
def test_the_cost_per_gap_is_rounded_once_from_the_exact_quotient(client, admin_user, case):
    # $0.000299 over two resolved gaps is $0.0001495: $0.0001 to four places. Rounded to six
    # places first, it would be $0.000150 and then $0.0002.
    run = make_run(case, cost_usd=Decimal("0.000299"), created_at=T0)
    add_tool_call(run, 1, "resolve_entity", key="first")
    add_tool_call(run, 2, "screen_sanctions", key="second")
    assert metrics.overall(Run.objects.all()).values["cost_per_gap"] == Decimal("0.0001495")

    client.force_login(admin_user)
    page = client.get(reverse("runs-metrics"), {"date_from": "2026-03-02", "date_to": "2026-03-02"})
    card = re.search(
        r'id="metric-cost_per_gap">.*?class="metric-value">([^<]*)<', page.content.decode(), re.S
    )
    assert card[1] == "$0.0001"
