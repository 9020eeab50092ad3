"""Loop-health metric arithmetic on runs written with known numbers, and the dashboard."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from runs import metrics
from runs.models import Run
from tests.run_rows import T0, add_events, add_tool_call, make_run

pytestmark = pytest.mark.django_db

DAY1 = T0
DAY2 = T0 + dt.timedelta(days=1)


def decision(tool: str) -> tuple[str, dict]:
    return ("model_decision", {"kind": "call_tool", "tool_name": tool, "arguments": {}})


@pytest.fixture
def known_runs(case):
    """Five runs whose every metric is worked out by hand below."""
    # A: approved packet, 4 iterations, 3 distinct tools over 4 calls, 1 duplicate blocked,
    #    one finish rejected then one accepted.
    a = make_run(
        case,
        iterations=4,
        tokens=1000,
        cost_usd=Decimal("0.40"),
        created_at=DAY1,
    )
    add_events(a, [[decision("resolve_entity"), decision("screen_sanctions"),
                    decision("screen_sanctions"), ("duplicate_action_blocked", {}),
                    decision("search_adverse_media"), ("final_rejected", {"errors": ["x"]}),
                    ("finish_proposed", {"packet": {}}),
                    ("packet_approved", {"risk_rating": "low", "proposed_risk_rating": "medium"})]])  # fmt: skip
    for step, tool in enumerate(["resolve_entity", "screen_sanctions", "search_adverse_media"]):
        add_tool_call(a, step, tool)
    add_tool_call(a, 9, "screen_sanctions", effect="failed", key="a-failed")
    # B: packet proposed (awaiting sign-off), 6 iterations, 1 tool, 2 attempts, 1 duplicate;
    #    its first packet was sent back by a reviewer.
    b = make_run(
        case,
        status=Run.Status.AWAITING_REVIEW,
        termination_reason=Run.Reason.FINISH_PROPOSED,
        iterations=6,
        tokens=500,
        cost_usd=Decimal("0.10"),
        created_at=DAY1,
    )
    add_events(b, [[decision("resolve_entity"), decision("resolve_entity"),
                    ("duplicate_action_blocked", {}), ("clarification_received", {}),
                    ("finish_proposed", {"packet": {}}), ("packet_rejected", {"reason": "x"}),
                    ("clarification_received", {"reply_to_review": True}),
                    ("finish_proposed", {"packet": {}})]])  # fmt: skip
    add_tool_call(b, 1, "resolve_entity")
    # C: stopped for no progress (escalated by status), no tool calls.
    c = make_run(
        case,
        status=Run.Status.AWAITING_REVIEW,
        termination_reason=Run.Reason.NO_PROGRESS,
        iterations=9,
        tokens=300,
        cost_usd=Decimal("0.05"),
        created_at=DAY2,
        prompt_version="atlas-prompt/2",
    )
    add_events(c, [[decision("resolve_entity")]])
    # D: failed, but had an escalated event earlier (counts as escalated).
    d = make_run(
        case,
        status=Run.Status.FAILED,
        termination_reason=Run.Reason.TOOL_FAILURE,
        iterations=2,
        tokens=200,
        cost_usd=Decimal("0.0"),
        created_at=DAY2,
        prompt_version="atlas-prompt/2",
    )
    add_events(d, [[("escalated", {"reason": "conflict"}), ("final_rejected", {"errors": []})]])
    # E: paused for an approval: not finished, so not in the finished-run rates.
    e = make_run(
        case,
        status=Run.Status.AWAITING_REVIEW,
        termination_reason=Run.Reason.AWAITING_APPROVAL,
        iterations=1,
        tokens=0,
        cost_usd=Decimal("0"),
        created_at=DAY2,
        prompt_version="atlas-prompt/2",
    )
    return a, b, c, d, e


def test_every_metric_over_a_known_set_of_runs(known_runs, tenant):
    row = metrics.overall(Run.objects.filter(tenant=tenant))
    v = row.values
    assert row.runs == 5
    assert row.finished == 4  # the run waiting for an approval has not finished
    assert v["iterations_per_success"] == Decimal(10) / 2  # A and B: (4 + 6) / 2
    assert v["repeated_tool_call_rate"] == Decimal(2) / 7  # 2 duplicates / 7 call decisions
    assert v["no_progress_rate"] == Decimal(1) / 4  # C / A, B, C, D
    assert v["tool_diversity"] == Decimal(2)  # (A 3 tools + B 1 tool) / 2 runs with calls
    assert v["escalation_rate"] == Decimal(2) / 4  # C by status, D by its escalated event
    # Gaps: 4 succeeded tool calls (A 3, B 1) + 1 answered clarification = 5 (B's reply
    # to the reviewer who sent its packet back answers no research question).
    assert v["tokens_per_gap"] == Decimal(2000) / 5
    assert v["cost_per_gap"] == Decimal("0.110000")  # 0.55 / 5
    assert v["finish_rejection_rate"] == Decimal(2) / 5  # 2 rejected / (2 rejected + 3 proposed)
    assert v["send_back_rate"] == Decimal(1) / 3  # 1 sent back / 3 proposed
    assert v["rerated_rate"] == Decimal(1)  # A's one sign-off set another rating
    assert row.reasons == {
        "packet_approved": 1,
        "finish_proposed": 1,
        "no_progress": 1,
        "tool_failure": 1,
    }


def test_the_share_of_approved_packets_a_reviewer_rated_otherwise(case, tenant):
    """Sign-offs and closed cases alike; a packet signed off at its own rating is not
    re-rated, whatever its event says of the rating."""
    approvals = [
        {"risk_rating": "low", "proposed_risk_rating": "medium"},
        {"risk_rating": "medium"},
        {"risk_rating": "high", "closed": True},
    ]
    for data in approvals:
        add_events(make_run(case, created_at=DAY1), [[("packet_approved", data)]])
    row = metrics.overall(Run.objects.filter(tenant=tenant))
    assert row.values["rerated_rate"] == Decimal(1) / 3


def test_a_case_closed_as_it_stood_is_no_success_and_is_counted_apart(known_runs, tenant, case):
    make_run(case, iterations=12, closed_by_reviewer=True)  # stopped, then closed
    row = metrics.overall(Run.objects.filter(tenant=tenant))
    assert row.values["iterations_per_success"] == Decimal(10) / 2  # still A and B only
    assert row.reasons["packet_approved"] == 1
    assert row.reasons[Run.CLOSED_BY_REVIEWER] == 1


def test_metrics_per_day_and_per_version(known_runs, tenant):
    runs = Run.objects.filter(tenant=tenant)
    days = {row.key[0]: row for row in metrics.compute(runs, metrics.by_day)}
    assert set(days) == {DAY1.date(), DAY2.date()}
    assert days[DAY1.date()].values["iterations_per_success"] == Decimal(5)
    assert days[DAY2.date()].values["iterations_per_success"] is None  # no successes: no data
    assert days[DAY2.date()].values["escalation_rate"] == Decimal(1)  # C and D of 2 finished
    assert days[DAY1.date()].values["repeated_tool_call_rate"] == Decimal(2) / 6
    versions = {row.key: row for row in metrics.compute(runs, metrics.by_version)}
    v2 = versions[("playbook", "atlas-prompt/2", "atlas-policy/1")]
    assert v2.runs == 3 and v2.finished == 2
    assert v2.values["no_progress_rate"] == Decimal(1) / 2
    assert v2.values["tool_diversity"] is None
    assert versions[("playbook", "atlas-prompt/1", "atlas-policy/1")].values["tool_diversity"] == 2


def test_no_runs_means_no_data_not_zero(tenant):
    row = metrics.overall(Run.objects.filter(tenant=tenant))
    assert row.runs == 0
    assert all(value is None for value in row.values.values())


def test_metrics_are_a_fixed_number_of_queries_whatever_the_number_of_runs(
    known_runs, tenant, case
):
    runs = Run.objects.filter(tenant=tenant)
    with CaptureQueriesContext(connection) as few:
        metrics.compute(runs, metrics.by_day)
    for _ in range(20):
        add_events(make_run(case, created_at=DAY2), [[decision("resolve_entity")]])
    with CaptureQueriesContext(connection) as many:
        metrics.compute(runs, metrics.by_day)
    assert len(many.captured_queries) == len(few.captured_queries) <= 5


def test_the_dashboard_draws_every_metric_as_svg(client, admin_user, known_runs):
    client.force_login(admin_user)
    response = client.get(
        reverse("runs-metrics"), {"date_from": "2026-03-01", "date_to": "2026-03-04"}
    )
    html = response.content.decode()
    assert response.status_code == 200
    for key, _, _ in metrics.METRICS:
        assert f'id="metric-{key}"' in html
    assert html.count("<svg") >= len(metrics.METRICS) * 2 + 1
    assert "50.0%" in html  # escalation rate and finish-rejection rate
    assert "No progress (1)" in html
    assert "http://" not in html.replace('xmlns="http://www.w3.org/2000/svg"', "")


def test_the_dashboard_explains_bad_dates(client, admin_user):
    client.force_login(admin_user)
    html = client.get(reverse("runs-metrics"), {"date_from": "soon"}).content.decode()
    assert "is not a date" in html


@pytest.mark.parametrize(
    "dates",
    [
        {"date_to": "9999-12-31"},
        {"date_to": "0001-01-01"},
        {"date_from": "9999-12-31"},
        {"date_from": "0001-01-01", "date_to": "0001-01-05"},
    ],
)
def test_the_dashboard_answers_for_dates_at_the_edges_of_the_calendar(
    client, admin_user, known_runs, dates
):
    client.force_login(admin_user)
    response = client.get(reverse("runs-metrics"), dates)
    assert response.status_code == 200
    assert "0 runs, 0 done researching" in response.content.decode()


def test_the_dashboard_only_counts_the_admins_tenant(client, admin_user, known_runs, outsider_case):
    make_run(outsider_case, created_at=DAY1, iterations=100)
    client.force_login(admin_user)
    html = client.get(
        reverse("runs-metrics"), {"date_from": "2026-03-01", "date_to": "2026-03-04"}
    ).content.decode()
    assert "5 runs, 4 done researching" in html


def test_runs_closed_before_the_column_existed_are_marked_from_their_packet(case):
    from importlib import import_module

    from django.apps import apps

    migration = import_module("runs.migrations.0006_run_closed_by_reviewer")
    closed = make_run(case, state={"proposed_packet": {"closed_by_reviewer": True}})
    signed = make_run(case, state={"proposed_packet": {"closed_by_reviewer": False}})
    migration.mark_closed_runs(apps, None)
    closed.refresh_from_db()
    signed.refresh_from_db()
    assert closed.closed_by_reviewer and not signed.closed_by_reviewer


def test_runs_from_before_the_matched_entity_column_get_it_from_their_state(case):
    from importlib import import_module

    from django.apps import apps

    migration = import_module("runs.migrations.0009_run_matched_entity")
    matched = make_run(case, state={"selected_entity": {"name": "Acme Ltd", "jurisdiction": "GB"}})
    unmatched = make_run(case, state={"selected_entity": None})
    migration.fill_matched_entity(apps, None)
    matched.refresh_from_db()
    unmatched.refresh_from_db()
    assert (matched.matched_entity, unmatched.matched_entity) == ("Acme Ltd (GB)", "")


def test_metric_values_read_as_people_write_them():
    from runs.views.charts import fmt

    assert fmt(Decimal("3244.89"), "tokens") == "3,245"
    assert fmt(Decimal("1234.5"), "number") == "1,234.50"
    assert fmt(Decimal("0.25"), "ratio") == "25.0%"
    assert fmt(None, "tokens") == "no data"
