"""Money shown one way on every page, also where it was stored in older words: approval
reasons recorded with raw amounts ("$0.0000") read as today's policy writes them, and the
admin's detail pages show costs and thresholds as money while the columns stay exact."""

from __future__ import annotations

import re
from decimal import Decimal

import pytest
from django.contrib import admin
from django.db import models
from django.urls import reverse

from atlas.runtime.money import restate_approval_amounts
from atlas.runtime.policy import TenantPolicy, evaluate
from atlas.runtime.state import Budgets, CaseBrief, new_state
from atlas.runtime.tools.registry import default_registry
from reviews.models import ReviewItem
from runs.admin import TenantScopedAdmin
from runs.models import Run, Tenant, ToolCall, TraceEvent
from tests.review_runs import approval_item
from tests.run_rows import add_tool_call, make_run

OLD_COST_REASON = "Estimated cost $0.01 is above the approval threshold $0.0000."
TODAYS_COST_REASON = "Estimated cost $0.01 is above the approval threshold $0.00."
# A document's name is the analyst's file name: untrusted, and quoted as it is.
DOCUMENT_REASON = "Document <script>alert(1)</script> fee $0.0000.pdf is marked sensitive."
ESCAPED_DOCUMENT_REASON = (
    "Document &lt;script&gt;alert(1)&lt;/script&gt; fee $0.0000.pdf is marked sensitive."
)


def reasons_written_today(threshold: str) -> list[str]:
    state = new_state(
        run_id="run-1",
        case_id="case-1",
        tenant_id="tenant-1",
        brief=CaseBrief(subject="Acme Analytics", subject_type="company", jurisdiction="GB"),
        budgets=Budgets(),
    )
    spec = default_registry().get("resolve_entity")
    policy = TenantPolicy(approval_cost_threshold_usd=Decimal(threshold))
    return evaluate(state, spec, spec.args_model(name="Acme Analytics"), policy).reasons


@pytest.mark.parametrize(
    ("stored", "threshold"),
    [
        (OLD_COST_REASON, "0.0000"),
        ("Estimated cost $0.01 is above the approval threshold $0.0050.", "0.0050"),
        (TODAYS_COST_REASON, "0"),
    ],
)
def test_a_stored_cost_reason_reads_as_todays_policy_writes_it(stored, threshold):
    assert [restate_approval_amounts(stored)] == reasons_written_today(threshold)


def test_large_amounts_get_separators_and_cents_once():
    stored = "Estimated cost $12345.5000 is above the approval threshold $1234.5."
    restated = "Estimated cost $12,345.50 is above the approval threshold $1,234.50."
    assert restate_approval_amounts(stored) == restated
    assert restate_approval_amounts(restated) == restated


def test_only_the_cost_sentence_is_restated_and_other_reasons_are_left_as_stored():
    assert restate_approval_amounts(DOCUMENT_REASON) == DOCUMENT_REASON
    quoting = f"Document {OLD_COST_REASON}pdf is marked sensitive."
    assert restate_approval_amounts(quoting) == quoting
    joined = f"resolve_entity: {OLD_COST_REASON}; {DOCUMENT_REASON}"
    assert restate_approval_amounts(joined) == (
        f"resolve_entity: {TODAYS_COST_REASON}; {DOCUMENT_REASON}"
    )


@pytest.fixture
def old_approval(tenant, analyst) -> ReviewItem:
    """An approval waiting as an older run recorded it: raw amounts in its reasons."""
    item = approval_item(tenant, analyst)
    old_reasons = [OLD_COST_REASON, DOCUMENT_REASON]
    item.payload = {**item.payload, "reasons": old_reasons}
    item.save(update_fields=["payload"])
    event = TraceEvent.objects.get(run=item.run, type="approval_requested")
    event.data = {**event.data, "reasons": old_reasons}
    event.save(update_fields=["data"])
    return item


def assert_still_stored_as_written(item: ReviewItem) -> None:
    item.refresh_from_db()
    event = TraceEvent.objects.get(run=item.run, type="approval_requested")
    assert item.payload["reasons"] == event.data["reasons"] == [OLD_COST_REASON, DOCUMENT_REASON]


@pytest.mark.django_db
def test_the_review_queue_and_item_show_an_old_reasons_amounts_as_written_today(
    client, reviewer, old_approval
):
    client.force_login(reviewer)
    queue = client.get(reverse("reviews-queue")).content.decode()
    assert f"Needs approval: {TODAYS_COST_REASON}; {ESCAPED_DOCUMENT_REASON}</div>" in queue
    item = client.get(reverse("reviews-item", args=[old_approval.pk])).content.decode()
    assert f"<div>{TODAYS_COST_REASON}</div><div>{ESCAPED_DOCUMENT_REASON}</div>" in item
    for page in (queue, item):
        assert "$0.0000." not in page.replace(ESCAPED_DOCUMENT_REASON, "")
        assert "<script>alert" not in page
    assert_still_stored_as_written(old_approval)


@pytest.mark.django_db
def test_the_trace_shows_an_old_approval_requests_amounts_as_written_today(
    client, admin_user, old_approval
):
    client.force_login(admin_user)
    trace = client.get(reverse("runs-trace", args=[old_approval.run_id])).content.decode()
    cell = f"<td>resolve_entity: {TODAYS_COST_REASON}; {ESCAPED_DOCUMENT_REASON}</td>"
    assert cell in trace
    assert "<script>alert" not in trace
    assert_still_stored_as_written(old_approval)


SPENT = Decimal("12345.67885")


def shown_value(page: str, label: str) -> str:
    """The text beside `label` on an admin detail page (a read-only field's value)."""
    found = re.search(
        rf"<label>{re.escape(label)}:</label>\s*<div class=\"readonly\">(.*?)</div>", page, re.S
    )
    assert found, f"{label} is not shown read-only"
    return found[1].strip()


def detail_page(client, obj) -> str:
    meta = obj._meta
    url = reverse(f"admin:{meta.app_label}_{meta.model_name}_change", args=[obj.pk])
    return client.get(url).content.decode()


@pytest.mark.django_db
@pytest.mark.parametrize("viewer", ["root", "admin_user"])
def test_admin_detail_pages_show_costs_as_money(client, case, viewer, request):
    run = make_run(case, cost_usd=SPENT)
    call = add_tool_call(run, 1, "resolve_entity")
    ToolCall.objects.filter(pk=call.pk).update(cost_usd=Decimal("1234.5"))
    client.force_login(request.getfixturevalue(viewer))

    assert shown_value(detail_page(client, run), "Cost usd") == "$12,345.6789"
    assert shown_value(detail_page(client, call), "Cost usd") == "$1,234.5000"
    assert Run.objects.get(pk=run.pk).cost_usd == Decimal("12345.678850")


@pytest.mark.django_db
def test_a_tenant_admin_reads_the_threshold_as_money(client, admin_user, tenant):
    Tenant.objects.filter(pk=tenant.pk).update(approval_cost_threshold_usd=Decimal("0"))
    client.force_login(admin_user)
    page = detail_page(client, tenant)
    assert shown_value(page, "Approval cost threshold usd") == "$0.00"
    assert "0.0000" not in page


@pytest.mark.django_db
def test_a_superuser_still_edits_the_exact_threshold(client, root, tenant):
    client.force_login(root)
    page = detail_page(client, tenant)
    assert re.search(r'name="approval_cost_threshold_usd"[^>]*value="0.5000"', page)
    url = reverse("admin:runs_tenant_change", args=[tenant.pk])
    data = {"name": tenant.name, "slug": tenant.slug, "approval_cost_threshold_usd": "0.1234"}
    assert client.post(url, data).status_code == 302
    tenant.refresh_from_db()
    assert tenant.approval_cost_threshold_usd == Decimal("0.1234")


@pytest.mark.django_db
def test_a_person_shown_unlinked_to_a_tenant_admin_is_shown_once_in_place(client, admin_user, case):
    run = make_run(case, created_by=case.created_by, cancel_requested_by=admin_user)
    client.force_login(admin_user)
    page = detail_page(client, run)
    labels = re.findall(r"<label>([^<]*):</label>", page)
    assert labels.count("Created by") == labels.count("Cancel requested by") == 1
    assert labels.index("Created by") < labels.index("Status")
    assert shown_value(page, "Created by") == case.created_by.username


def test_every_money_column_in_the_admin_is_shown_as_money():
    for model, model_admin in admin.site._registry.items():
        if not isinstance(model_admin, TenantScopedAdmin):
            continue
        decimals = {f.name for f in model._meta.fields if isinstance(f, models.DecimalField)}
        assert decimals <= set(model_admin.money_fields), model.__name__


@pytest.mark.django_db
def test_the_case_page_shows_an_old_approval_requests_amounts_as_written_today(
    client, analyst, old_approval
):
    run = old_approval.run
    pending = {**run.state["pending_approval"], "reasons": [OLD_COST_REASON, DOCUMENT_REASON]}
    run.state = {**run.state, "pending_approval": pending}
    run.save(update_fields=["state"])
    client.force_login(analyst)
    page = client.get(reverse("runs-case-detail", args=[old_approval.case_id])).content.decode()
    banner = page[page.index("Waiting for a reviewer to approve an action") :]
    assert f"<li>{TODAYS_COST_REASON}</li><li>{ESCAPED_DOCUMENT_REASON}</li>" in banner
    assert f"Needs a reviewer&#x27;s approval: {TODAYS_COST_REASON}" in page
    assert "$0.0000." not in page.replace(ESCAPED_DOCUMENT_REASON, "")
    assert "<script>alert" not in page
