"""Every place that shows money to a person formats it one way (atlas.runtime.money): rounded once,
half up, with thousands separators; an amount someone set reads as they set it."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from atlas.runtime.policy import TenantPolicy, evaluate
from atlas.runtime.state import Budgets, CaseBrief, new_state
from atlas.runtime.tools.registry import default_registry
from reviews.decision_details import decision_details
from runs.models import Tenant
from tests.run_rows import add_tool_call, make_run

# Halfway between two four-place amounts: half up gives ...6789, floatformat's grouping
# and "{:.4f}" give none or ...6788.
SPENT = Decimal("12345.67885")
SHOWN = "$12,345.6789"


def test_an_added_budget_reads_as_the_reviewer_typed_it():
    details = decision_details({"extra_cost_usd": "0.125", "reason": "more"})
    assert details == ["Budget added: +$0.125"]  # half to even at two places gave +$0.12
    assert decision_details({"extra_cost_usd": "12345.5"}) == ["Budget added: +$12,345.50"]


def test_a_zero_threshold_in_an_approval_reason_reads_as_dollars_and_cents():
    state = new_state(
        run_id="run-1",
        case_id="case-1",
        tenant_id="tenant-1",
        brief=CaseBrief(subject="Acme Analytics", subject_type="company", jurisdiction="GB"),
        budgets=Budgets(),
    )
    spec = default_registry().get("resolve_entity")
    arguments = spec.args_model(name="Acme Analytics")
    # The tenant's column keeps four places, so a threshold of 0 is read back as 0.0000.
    policy = TenantPolicy(approval_cost_threshold_usd=Decimal("0.0000"))
    verdict = evaluate(state, spec, arguments, policy)
    assert verdict.reasons == ["Estimated cost $0.01 is above the approval threshold $0.00."]


@pytest.mark.django_db
def test_the_run_browser_and_trace_show_spent_money_with_separators(client, admin_user, case):
    run = make_run(case, cost_usd=SPENT, budgets={"max_cost_usd": "100000"})
    client.force_login(admin_user)
    listed = client.get(reverse("runs-trace-list")).content.decode()
    assert SHOWN in listed
    trace = client.get(reverse("runs-trace", args=[run.pk])).content.decode()
    assert f"{SHOWN} of $100,000.00" in trace


@pytest.mark.django_db
def test_the_admin_lists_show_costs_and_the_threshold_as_money(client, case, tenant):
    superuser = get_user_model().objects.create_superuser("root", "root@example.com", "pw")
    run = make_run(case, cost_usd=SPENT)
    call = add_tool_call(run, 1, "resolve_entity", key="first")
    type(call).objects.filter(pk=call.pk).update(cost_usd=Decimal("1234.5"))
    Tenant.objects.filter(pk=tenant.pk).update(approval_cost_threshold_usd=Decimal("0"))
    client.force_login(superuser)

    runs = client.get(reverse("admin:runs_run_changelist")).content.decode()
    assert SHOWN in runs
    calls = client.get(reverse("admin:runs_toolcall_changelist")).content.decode()
    assert "$1,234.5000" in calls
    tenants = client.get(reverse("admin:runs_tenant_changelist")).content.decode()
    assert "$0.00<" in tenants and "0.0000" not in tenants
