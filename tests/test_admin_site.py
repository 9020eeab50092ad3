"""The Django admin: every model registered, tenant-scoped, audit records read-only."""

from __future__ import annotations

import io
import re

import pytest
from django.apps import apps
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.core.management import CommandError, call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from reviews.models import HumanDecision, ReviewItem
from runs.models import (
    Case,
    Document,
    DocumentDownload,
    Membership,
    Observation,
    Run,
    ToolCall,
    TraceEvent,
)
from tests.case_rows import document_row
from tests.run_rows import (
    T0,
    add_events,
    add_observation,
    add_tool_call,
    closed_and_signed_off_runs,
    make_run,
    tool_step,
)

pytestmark = pytest.mark.django_db

AUDIT_MODELS = [TraceEvent, HumanDecision, Observation, ToolCall, DocumentDownload]


def changelist(model) -> str:
    return reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_changelist")


@pytest.fixture
def rows(case, reviewer):
    run = make_run(case, started_at=T0)
    add_events(run, [[("run_started", {})]])
    add_observation(run, 1, data={"a": 1}, model_view="a=1")
    add_tool_call(run, 1, "resolve_entity")
    item = ReviewItem.objects.create(
        tenant=case.tenant,
        case=case,
        run=run,
        kind="signoff",
        key="packet",
        summary="Sign off",
        requested_at=T0,
    )
    HumanDecision.objects.create(
        tenant=case.tenant,
        case=case,
        run=run,
        review_item=item,
        actor=reviewer,
        kind="sign_off",
        state_version=1,
    )
    document = document_row(case, reviewer)
    DocumentDownload.objects.create(document=document, user=reviewer)
    return run


def test_every_model_of_our_apps_is_registered_with_list_display_filters_and_search():
    for app in ("runs", "reviews"):
        for model in apps.get_app_config(app).get_models():
            model_admin = admin.site._registry.get(model)
            assert model_admin is not None, f"{model.__name__} is not in the admin"
            assert len(model_admin.list_display) > 2, model.__name__
            assert model_admin.search_fields, model.__name__


@pytest.mark.parametrize("model", AUDIT_MODELS)
def test_audit_records_are_read_only_even_for_a_superuser(client, root, rows, model):
    client.force_login(root)
    assert client.get(changelist(model)).status_code == 200
    obj = model.objects.first()
    meta = model._meta
    change = reverse(f"admin:{meta.app_label}_{meta.model_name}_change", args=[obj.pk])
    page = client.get(change)
    assert page.status_code == 200
    assert b'name="_save"' not in page.content
    assert client.get(reverse(f"admin:{meta.app_label}_{meta.model_name}_add")).status_code == 403
    assert client.post(change, {}).status_code == 403
    delete = reverse(f"admin:{meta.app_label}_{meta.model_name}_delete", args=[obj.pk])
    assert client.post(delete, {"post": "yes"}).status_code == 403
    assert model.objects.filter(pk=obj.pk).exists()


def test_a_tenant_admin_sees_only_their_tenant_in_the_admin(
    client, admin_user, rows, outsider_case
):
    theirs = make_run(outsider_case)
    client.force_login(admin_user)
    page = client.get(changelist(Run)).content.decode()
    assert f"/admin/runs/run/{rows.pk}/change/" in page
    assert f"/admin/runs/run/{theirs.pk}/change/" not in page
    assert client.get(reverse("admin:runs_run_change", args=[theirs.pk])).status_code == 302


@pytest.mark.parametrize("persona", ["analyst", "reviewer"])
def test_analysts_and_reviewers_have_no_admin(request, client, persona):
    user = request.getfixturevalue(persona)
    client.force_login(user)
    response = client.get(changelist(Run))
    assert response.status_code == 302 and "/admin/login/" in response["Location"]


def test_a_superuser_can_edit_a_tenants_policy_but_not_delete_runs(client, root, rows, tenant):
    client.force_login(root)
    tenant_admin = admin.site._registry[type(tenant)]
    assert tenant_admin.has_change_permission(type("R", (), {"user": root})())
    run_admin = admin.site._registry[Run]
    assert not run_admin.has_delete_permission(type("R", (), {"user": root})())
    assert client.get(reverse("admin:runs_tenant_change", args=[tenant.pk])).status_code == 200


def review_rows(case, actor, count: int) -> None:
    for n in range(count):
        run = make_run(case, started_at=T0)
        item = ReviewItem.objects.create(
            tenant=case.tenant,
            case=case,
            run=run,
            kind="signoff",
            key=f"packet-{n}",
            summary="Sign off",
            requested_at=T0,
        )
        HumanDecision.objects.create(
            tenant=case.tenant,
            case=case,
            run=run,
            review_item=item,
            actor=actor,
            kind="sign_off",
            state_version=1,
        )


TENANT_FILTERED = [Membership, Case, Run, ReviewItem, HumanDecision]


@pytest.mark.parametrize("model", TENANT_FILTERED)
def test_a_tenant_admins_changelist_never_names_another_tenant(
    client, admin_user, outsider, outsider_case, case, reviewer, model
):
    review_rows(case, reviewer, 1)
    review_rows(outsider_case, outsider, 1)
    client.force_login(admin_user)
    page = client.get(changelist(model))
    assert page.status_code == 200
    assert "Harbor Credit" not in page.content.decode()


@pytest.mark.parametrize("model", TENANT_FILTERED)
def test_a_superuser_can_filter_every_changelist_by_tenant(
    client, root, case, reviewer, outsider, outsider_case, model
):
    review_rows(case, reviewer, 1)
    review_rows(outsider_case, outsider, 1)
    client.force_login(root)
    page = client.get(changelist(model)).content.decode()
    assert "By tenant" in page and "Harbor Credit" in page


@pytest.mark.parametrize("model", [ReviewItem, HumanDecision])
def test_review_changelists_cost_the_same_queries_for_one_row_or_many(
    client, admin_user, case, reviewer, model, django_assert_max_num_queries
):
    review_rows(case, reviewer, 1)
    client.force_login(admin_user)
    with CaptureQueriesContext(connection) as one_row:
        assert client.get(changelist(model)).status_code == 200
    review_rows(case, reviewer, 5)
    with django_assert_max_num_queries(len(one_row)):
        assert client.get(changelist(model)).status_code == 200


def test_a_tenant_admin_cannot_reach_user_accounts_even_with_account_permissions(
    client, admin_user, outsider
):
    # As if a group gave this admin every account permission (seed_demo's once did).
    admin_user.user_permissions.set(Permission.objects.filter(content_type__app_label="auth"))
    client.force_login(admin_user)
    for url in (
        reverse("admin:auth_user_changelist"),
        reverse("admin:auth_user_change", args=[outsider.pk]),
        reverse("admin:auth_user_password_change", args=[outsider.pk]),
        reverse("admin:auth_group_changelist"),
    ):
        assert client.get(url).status_code == 403, url
    make_superuser = {"username": admin_user.username, "is_staff": "on", "is_superuser": "on"}
    response = client.post(reverse("admin:auth_user_change", args=[admin_user.pk]), make_superuser)
    assert response.status_code == 403
    response = client.post(
        reverse("admin:auth_user_password_change", args=[outsider.pk]),
        {"password1": "taken-over-1234", "password2": "taken-over-1234"},
    )
    assert response.status_code == 403
    admin_user.refresh_from_db()
    outsider.refresh_from_db()
    assert not admin_user.is_superuser
    assert not outsider.check_password("taken-over-1234")
    assert "/admin/auth/" not in client.get(reverse("admin:index")).content.decode()


def test_seeded_admins_get_no_account_permissions(db):
    call_command("seed_demo", "--allow-production", stdout=io.StringIO())
    seeded_admin = get_user_model().objects.get(username="admin")
    assert not [p for p in seeded_admin.get_all_permissions() if p.startswith("auth.")]


def test_a_superuser_manages_accounts_but_deletes_none(client, root, analyst):
    client.force_login(root)
    assert client.get(reverse("admin:auth_user_changelist")).status_code == 200
    assert client.get(reverse("admin:auth_user_change", args=[analyst.pk])).status_code == 200
    assert client.get(reverse("admin:auth_user_delete", args=[analyst.pk])).status_code == 403


def test_the_admin_filters_cases_closed_as_they_stood_apart(client, admin_user, case):
    closed, signed = closed_and_signed_off_runs(case)
    client.force_login(admin_user)
    page = client.get(changelist(Run), {"closed_by_reviewer__exact": "1"}).content.decode()
    assert f"/admin/runs/run/{closed.pk}/change/" in page
    assert f"/admin/runs/run/{signed.pk}/change/" not in page


def test_the_admin_shows_and_filters_runs_by_the_packets_risk(client, admin_user, case):
    high = make_run(case)
    low = make_run(case)
    Run.objects.filter(pk=high.pk).update(risk_rating="high")
    Run.objects.filter(pk=low.pk).update(risk_rating="low")
    client.force_login(admin_user)
    page = client.get(changelist(Run), {"risk_rating__exact": "high"}).content.decode()
    assert f"/admin/runs/run/{high.pk}/change/" in page
    assert f"/admin/runs/run/{low.pk}/change/" not in page
    assert '<td class="field-risk_rating">High</td>' in page
    assert 'href="?risk_rating__exact=medium">Medium</a>' in page


BIG_STATE = {"evidence": ["x" * 1000] * 50}
# Columns a changelist of runs or their rows never shows: each is large on a long run.
BIG_COLUMNS = re.compile(
    r'"runs_run"\."(state|scenario|budgets|last_error)"'
    r'|"runs_traceevent"\."data"|"runs_observation"\."(data|model_view)"'
    r'|"runs_toolcall"\."(arguments|result)"'
)


def rows_of_runs(case, runs: int) -> None:
    for _ in range(runs):
        run = make_run(case, started_at=T0, state=BIG_STATE)
        add_events(run, [[("run_started", {"big": "x" * 1000})], tool_step(1)])
        add_observation(run, 1, data={"big": "x" * 1000}, model_view="x" * 1000)
        add_tool_call(run, 1, "resolve_entity")


@pytest.mark.parametrize("model", [TraceEvent, Observation, ToolCall, Run])
def test_run_changelists_read_only_the_columns_they_show(
    client, admin_user, case, model, django_assert_max_num_queries
):
    rows_of_runs(case, 1)
    client.force_login(admin_user)
    with CaptureQueriesContext(connection) as one_run:
        page = client.get(changelist(model))
    assert page.status_code == 200
    assert "Run " in page.content.decode() or model is Run
    assert [q["sql"] for q in one_run if BIG_COLUMNS.search(q["sql"])] == []
    rows_of_runs(case, 5)
    with django_assert_max_num_queries(len(one_run)):
        assert client.get(changelist(model)).status_code == 200
    # A row's own page still shows it whole.
    row = model.objects.order_by("pk").first()
    url = reverse(f"admin:runs_{model._meta.model_name}_change", args=[row.pk])
    assert client.get(url).status_code == 200


def _change_pages(rows) -> list[str]:
    decision = HumanDecision.objects.get(run=rows)
    document = Document.objects.get(case=rows.case)
    return [
        reverse("admin:runs_case_change", args=[rows.case_id]),
        reverse("admin:runs_document_change", args=[document.pk]),
        reverse("admin:runs_documentdownload_change", args=[document.downloads.get().pk]),
        reverse("admin:reviews_humandecision_change", args=[decision.pk]),
        reverse("admin:runs_membership_change", args=[Membership.objects.first().pk]),
    ]


def test_a_tenant_admin_sees_people_named_not_linked_to_pages_they_may_not_open(
    client, admin_user, root, rows, reviewer
):
    client.force_login(admin_user)
    for url in _change_pages(rows):
        page = client.get(url).content.decode()
        assert "/admin/auth/user/" not in page, url
    decision_page = client.get(_change_pages(rows)[3]).content.decode()
    assert str(reviewer) in decision_page
    client.force_login(root)  # who may open account pages keeps the link
    assert "/admin/auth/user/" in client.get(_change_pages(rows)[3]).content.decode()


def test_the_admin_gives_a_runs_elapsed_time_as_the_trace_pages_do(client, admin_user, case):
    run = make_run(case)
    Run.objects.filter(pk=run.pk).update(elapsed_seconds=12.3456789)
    client.force_login(admin_user)
    assert "12.3s" in client.get(changelist(Run)).content.decode()
    page = client.get(reverse("admin:runs_run_change", args=[run.pk])).content.decode()
    assert "12.3s" in page and "12.3456789" not in page


def test_the_demo_accounts_are_refused_on_a_site_with_debug_off(db, settings):
    settings.DEBUG = False
    with pytest.raises(CommandError, match="--allow-production"):
        call_command("seed_demo", stdout=io.StringIO())
    assert not get_user_model().objects.filter(username="admin").exists()
    settings.DEBUG = True
    call_command("seed_demo", stdout=io.StringIO())
    assert get_user_model().objects.filter(username="admin").exists()


def test_admin_pages_carry_atlas_icon_so_browsers_ask_for_no_missing_one(client, admin_user):
    login = client.get(reverse("admin:login")).content.decode()
    assert 'rel="icon"' in login and "atlas/favicon" in login
    client.force_login(admin_user)
    changelist_page = client.get(reverse("admin:runs_run_changelist")).content.decode()
    assert 'rel="icon"' in changelist_page


def test_a_documents_page_says_who_marked_it_sensitive_and_when(
    client, admin_user, case, analyst, reviewer
):
    at_upload = document_row(case, analyst, "passport.txt")
    Document.objects.filter(pk=at_upload.pk).update(sensitive=True)
    later = document_row(case, analyst, "accounts.txt")
    marked_at = timezone.now()
    Document.objects.filter(pk=later.pk).update(
        sensitive=True, sensitive_marked_by=reviewer, sensitive_marked_at=marked_at
    )
    plain = document_row(case, analyst, "letter.txt")
    client.force_login(admin_user)

    def shown(document) -> str:
        page = client.get(reverse("admin:runs_document_change", args=[document.pk]))
        return page.content.decode()

    uploaded_at = Document.objects.get(pk=at_upload.pk).uploaded_at
    name = analyst.get_full_name() or analyst.username
    assert f"By {name}, as it was uploaded, {uploaded_at:%Y-%m-%d %H:%M} UTC" in shown(at_upload)
    reviewer_name = reviewer.get_full_name() or reviewer.username
    assert f"By {reviewer_name}, after the upload, {marked_at:%Y-%m-%d %H:%M} UTC" in shown(later)
    page = shown(plain)
    assert "Marked sensitive" in page and "Sensitive marked by" not in page
