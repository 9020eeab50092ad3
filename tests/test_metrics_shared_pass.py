"""The metrics agree, number for number, with the reference computation (the one the
dashboard used before its views shared a pass) on a varied, seeded set of runs."""

from __future__ import annotations

import datetime as dt
import random
import re
from decimal import ROUND_HALF_UP, Decimal

import pytest
from django.urls import reverse

from runs import metrics
from runs.models import Run
from tests import metrics_reference as reference
from tests.run_rows import T0, add_events, add_tool_call, make_run

pytestmark = pytest.mark.django_db

TOOLS = ["resolve_entity", "screen_sanctions", "search_adverse_media", "extract_uploaded_document"]
OUTCOMES = [
    (Run.Status.COMPLETED, Run.Reason.PACKET_APPROVED, False),
    (Run.Status.COMPLETED, Run.Reason.PACKET_APPROVED, True),  # closed as it stood
    (Run.Status.AWAITING_REVIEW, Run.Reason.FINISH_PROPOSED, False),
    (Run.Status.AWAITING_REVIEW, Run.Reason.NO_PROGRESS, False),
    (Run.Status.AWAITING_REVIEW, Run.Reason.REPEATED_ACTION, False),
    (Run.Status.AWAITING_REVIEW, Run.Reason.AWAITING_APPROVAL, False),
    (Run.Status.AWAITING_REVIEW, Run.Reason.MAX_ITERATIONS, False),
    (Run.Status.FAILED, Run.Reason.TOOL_FAILURE, False),
    (Run.Status.FAILED, Run.Reason.MODEL_FAILURE, False),
    (Run.Status.CANCELLED, Run.Reason.CANCELLED, False),
    (Run.Status.RESEARCHING, "", False),
    (Run.Status.WAITING_FOR_INPUT, Run.Reason.WAITING_FOR_INPUT, False),
]


def random_step(rng: random.Random) -> list[tuple[str, dict]]:
    tool = rng.choice(TOOLS)
    return rng.choice(
        [
            [("model_decision", {"kind": "call_tool", "tool_name": tool}), ("tool_started", {})],
            [("model_decision", {"kind": "call_tool", "tool_name": tool}),
             ("duplicate_action_blocked", {})],
            [("model_decision", {"kind": "ask_human"}), ("clarification_received", {})],
            [("clarification_received", {"reply_to_review": True})],
            [("model_decision", {"kind": "finish"}), ("final_rejected", {"errors": ["x"]})],
            [("model_decision", {"kind": "finish"}), ("finish_proposed", {"packet": {}})],
            [("packet_rejected", {"reason": "x"})],
            [("escalated", {"reason": "conflict"})],
            [("model_failed", {"kind": "call_tool"}), ("policy_denied", {})],
        ]
    )  # fmt: skip


@pytest.fixture
def varied_runs(case, outsider_case):
    """Sixty runs over four days, three models, two prompts and two policies, with every
    outcome, every counted kind of event and tool calls of every effect."""
    rng = random.Random(20260302)
    for n in range(60):
        status, reason, closed = rng.choice(OUTCOMES)
        run = make_run(
            case if n % 7 else outsider_case,
            status=status,
            termination_reason=reason,
            closed_by_reviewer=closed,
            iterations=rng.randint(0, 12),
            tokens=rng.randint(0, 5000),
            cost_usd=Decimal(rng.randint(0, 90_000)) / 100_000,
            model_name=rng.choice(["playbook", "openai:gpt-4o-mini", "scripted"]),
            prompt_version=rng.choice(["atlas-prompt/1", "atlas-prompt/2"]),
            policy_version=rng.choice(["atlas-policy/1", ""]),
            created_at=T0 + dt.timedelta(days=rng.randint(0, 3), hours=rng.randint(0, 14)),
        )
        add_events(run, [random_step(rng) for _ in range(rng.randint(0, 8))])
        for step in range(rng.randint(0, 5)):
            add_tool_call(
                run,
                step,
                rng.choice(TOOLS),
                effect=rng.choice(["succeeded", "succeeded", "failed", "unknown", "intended"]),
                key=f"{run.pk}-{step}",
            )


def same_rows(new: list[metrics.MetricRow], old: list[metrics.MetricRow]) -> None:
    assert [row.key for row in new] == [row.key for row in old]
    for new_row, old_row in zip(new, old, strict=True):
        assert (new_row.runs, new_row.finished) == (old_row.runs, old_row.finished)
        assert new_row.reasons == old_row.reasons
        # The reference averaged tool diversity in SQL, as a float; it is now the exact
        # quotient, as every other ratio is. They agree to far more places than are shown.
        new_values, old_values = dict(new_row.values), dict(old_row.values)
        new_diversity = new_values.pop("tool_diversity")
        old_diversity = old_values.pop("tool_diversity")
        # The reference rounded the cost per gap to six places; it is now the exact quotient,
        # rounded once where it is shown.
        new_cost, old_cost = new_values.pop("cost_per_gap"), old_values.pop("cost_per_gap")
        assert new_values == old_values, new_row.key
        assert (new_cost is None) == (old_cost is None), new_row.key
        if new_cost is not None:
            assert new_cost.quantize(old_cost, ROUND_HALF_UP) == old_cost, new_row.key
        assert (new_diversity is None) == (old_diversity is None), new_row.key
        if new_diversity is not None:
            assert abs(new_diversity - old_diversity) < Decimal("1e-12"), new_row.key


@pytest.mark.parametrize("grouping", ["by_nothing", "by_day", "by_version"])
def test_each_grouping_agrees_with_the_reference(varied_runs, tenant, other_tenant, grouping):
    for runs in (Run.objects.filter(tenant=tenant), Run.objects.all(), Run.objects.none()):
        same_rows(
            metrics.compute(runs, getattr(metrics, grouping)),
            reference.compute(runs, getattr(reference, grouping)),
        )


def test_the_shared_pass_agrees_with_the_reference_in_every_view(varied_runs, tenant):
    runs = Run.objects.filter(tenant=tenant)
    shown = metrics.breakdown(runs)
    same_rows([shown.total], reference.compute(runs))
    same_rows(shown.per_day, reference.compute(runs, reference.by_day))
    same_rows(shown.per_version, reference.compute(runs, reference.by_version))


def test_the_shared_pass_of_no_runs_has_no_data(tenant):
    shown = metrics.breakdown(Run.objects.filter(tenant=tenant))
    same_rows([shown.total], reference.compute(Run.objects.none()))
    assert shown.per_day == shown.per_version == []


def reference_breakdown(runs) -> metrics.Breakdown:
    return metrics.Breakdown(
        total=reference.compute(runs)[0],
        per_day=reference.compute(runs, reference.by_day),
        per_version=reference.compute(runs, reference.by_version),
    )


@pytest.mark.parametrize(
    "period", [{"date_from": "2026-03-01", "date_to": "2026-03-06"}, {"date_to": "2026-03-03"}]
)
def test_the_dashboard_shows_what_the_reference_shows(
    client, admin_user, varied_runs, monkeypatch, period
):
    def page() -> str:
        html = client.get(reverse("runs-metrics"), period).content.decode()
        # The CSRF token is masked afresh on every request.
        return re.sub(r"[A-Za-z0-9]{64}", "", html)

    client.force_login(admin_user)
    shared = page()
    assert "0 runs" not in shared
    monkeypatch.setattr(metrics, "breakdown", reference_breakdown)
    assert page() == shared
