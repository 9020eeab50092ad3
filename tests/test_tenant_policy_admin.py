"""A tenant's policy and memberships, as a superuser edits them in the Django admin."""

from __future__ import annotations

import io
import json
import re
from decimal import Decimal

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.urls import reverse

from atlas.runtime.policy import TenantPolicy
from runs.models import Membership, Tenant

pytestmark = pytest.mark.django_db


def tenant_form(tenant: Tenant, **changes) -> dict:
    return {
        "name": tenant.name,
        "slug": tenant.slug,
        "approval_cost_threshold_usd": "0.50",
        "forbidden_tools": [],
        **changes,
    }


def save_tenant(client, tenant: Tenant, **changes):
    url = reverse("admin:runs_tenant_change", args=[tenant.pk])
    return client.post(url, tenant_form(tenant, **changes))


def errors_of(response) -> list[str]:
    lists = re.findall(
        r'<ul class="errorlist[^"]*"[^>]*>(.*?)</ul>', response.content.decode(), re.S
    )
    return [re.sub(r"<[^>]+>", "", found).strip() for found in lists]


def typed_threshold(response) -> str:
    found = re.search(
        r'name="approval_cost_threshold_usd"[^>]*value="([^"]*)"', response.content.decode()
    )
    return found.group(1) if found else ""


@pytest.mark.parametrize(
    ("typed", "says"),
    [
        ("-1", "cannot be negative"),
        ("-0.0001", "cannot be negative"),
        ("1e9", "below $1,000,000"),
        ("0.123456", "at most 4 decimal places"),
        ("abc", "in US dollars"),
        ("", "in US dollars"),
    ],
)
def test_a_threshold_the_runtime_could_not_use_is_refused_and_kept_as_typed(
    client, root, tenant, typed, says
):
    client.force_login(root)
    response = save_tenant(client, tenant, approval_cost_threshold_usd=typed)
    assert response.status_code == 200
    assert any(says in error for error in errors_of(response)), errors_of(response)
    assert typed_threshold(response) == typed
    tenant.refresh_from_db()
    assert tenant.approval_cost_threshold_usd == Decimal("0.50")


def test_a_tool_that_does_not_exist_cannot_be_forbidden(client, root, tenant):
    client.force_login(root)
    response = save_tenant(client, tenant, forbidden_tools=["search_adverse_media", "nope"])
    assert response.status_code == 200
    assert "nope is not one of Atlas&#x27;s tools." in errors_of(response)
    tenant.refresh_from_db()
    assert tenant.forbidden_tools == []


def test_forbidding_nothing_saves_an_empty_list(client, root, tenant):
    Tenant.objects.filter(pk=tenant.pk).update(forbidden_tools=["screen_sanctions"])
    client.force_login(root)
    url = reverse("admin:runs_tenant_change", args=[tenant.pk])
    data = tenant_form(tenant)
    del data["forbidden_tools"]  # no box ticked: the browser sends nothing
    assert client.post(url, data).status_code == 302
    tenant.refresh_from_db()
    assert tenant.forbidden_tools == []


def test_a_saved_policy_is_one_the_runtime_reads(client, root, tenant):
    client.force_login(root)
    ticked = ["search_adverse_media", "resolve_entity", "search_adverse_media"]
    assert save_tenant(client, tenant, approval_cost_threshold_usd="0", forbidden_tools=ticked)
    tenant.refresh_from_db()
    assert tenant.forbidden_tools == ["resolve_entity", "search_adverse_media"]
    policy = TenantPolicy(
        approval_cost_threshold_usd=tenant.approval_cost_threshold_usd,
        forbidden_tools=tenant.forbidden_tools,
    )
    assert policy.approval_cost_threshold_usd == 0


def test_the_form_says_what_the_threshold_means_and_when_a_change_applies(client, root, tenant):
    client.force_login(root)
    page = client.get(reverse("admin:runs_tenant_change", args=[tenant.pk])).content.decode()
    assert "Approval cost threshold (USD)" in page
    assert "screen_sanctions $0.05" in page
    assert "from the next time it resumes" in page
    assert 'type="checkbox" name="forbidden_tools" value="search_adverse_media"' in page


def run_case(tenant: Tenant) -> dict:
    out = io.StringIO()
    call_command(
        "run_case",
        "--subject",
        "Acme Analytics",
        "--jurisdiction",
        "GB",
        "--tenant",
        tenant.slug,
        "--json",
        stdout=out,
    )
    return json.loads(out.getvalue())


def test_a_tool_forbidden_in_the_admin_is_denied_on_the_next_run(client, root, tenant):
    client.force_login(root)
    save_tenant(client, tenant, forbidden_tools=["search_adverse_media"])
    record = run_case(tenant)
    denials = [
        event["data"]["reason"] for event in record["trace"] if event["type"] == "policy_denied"
    ]
    assert "search_adverse_media is forbidden by the tenant's policy." in denials
    assert record["packet"]["adverse_media_summary"] == "Not searched."


def test_a_zero_threshold_set_in_the_admin_has_the_next_run_ask_for_approval(client, root, tenant):
    client.force_login(root)
    save_tenant(client, tenant, approval_cost_threshold_usd="0")
    record = run_case(tenant)
    assert (record["status"], record["termination_reason"]) == (
        "awaiting_review",
        "awaiting_approval",
    )


def save_membership(client, membership: Membership, **changes):
    url = reverse("admin:runs_membership_change", args=[membership.pk])
    data = {"user": membership.user_id, "tenant": membership.tenant_id, "role": membership.role}
    return client.post(url, {**data, **changes})


def test_someone_made_a_tenants_admin_gets_into_the_admin_at_once(client, root, analyst):
    client.force_login(root)
    assert save_membership(client, analyst.membership, role="admin").status_code == 302
    client.force_login(analyst)
    assert client.get(reverse("admin:runs_run_changelist")).status_code == 200


def test_an_admin_given_another_role_is_out_of_the_admin_at_once(client, root, admin_user):
    client.force_login(root)
    assert save_membership(client, admin_user.membership, role="reviewer").status_code == 302
    client.force_login(admin_user)
    response = client.get(reverse("admin:index"))
    assert response.status_code == 302 and "/admin/login/" in response["Location"]


def test_a_superuser_removes_a_membership_and_the_person_sees_why_they_have_no_access(
    client, root, admin_user
):
    client.force_login(root)
    url = reverse("admin:runs_membership_delete", args=[admin_user.membership.pk])
    assert client.post(url, {"post": "yes"}).status_code == 302
    assert not Membership.objects.filter(user=admin_user).exists()
    assert get_user_model().objects.filter(pk=admin_user.pk, is_staff=False).exists()
    client.force_login(admin_user)
    assert "not a member of any tenant" in client.get("/").content.decode()


def test_a_superuser_with_a_membership_stays_a_superuser_in_the_admin(client, root, tenant):
    membership = Membership.objects.create(user=root, tenant=tenant, role="admin")
    client.force_login(root)
    assert save_membership(client, membership, role="analyst").status_code == 302
    root.refresh_from_db()
    assert root.is_staff and root.is_superuser


def test_a_tenant_admin_may_remove_no_membership(client, admin_user, analyst):
    client.force_login(admin_user)
    url = reverse("admin:runs_membership_delete", args=[analyst.membership.pk])
    assert client.post(url, {"post": "yes"}).status_code == 403
    assert Membership.objects.filter(user=analyst).exists()


def test_a_tenant_admin_sees_their_tenants_policy_read_only(client, admin_user, tenant):
    Tenant.objects.filter(pk=tenant.pk).update(forbidden_tools=["screen_sanctions"])
    client.force_login(admin_user)
    page = client.get(reverse("admin:runs_tenant_change", args=[tenant.pk])).content.decode()
    assert '<div class="readonly">screen_sanctions</div>' in page
    assert '<div class="readonly">KP, IR, MM</div>' in page
    assert 'name="forbidden_tools"' not in page and 'name="_save"' not in page
    assert save_tenant(client, tenant, approval_cost_threshold_usd="0").status_code == 403


def test_high_risk_jurisdictions_are_saved_as_codes(client, root, tenant):
    client.force_login(root)
    assert save_tenant(client, tenant, high_risk_jurisdictions=" ir, mm  kp;IR").status_code == 302
    tenant.refresh_from_db()
    assert tenant.high_risk_jurisdictions == ["IR", "MM", "KP"]
    page = client.get(reverse("admin:runs_tenant_change", args=[tenant.pk])).content.decode()
    assert 'name="high_risk_jurisdictions" value="IR, MM, KP"' in page


def test_countries_may_be_named_as_on_the_case_form(client, root, tenant):
    client.force_login(root)
    saved = save_tenant(client, tenant, high_risk_jurisdictions="Iran, Myanmar; north korea")
    assert saved.status_code == 302
    tenant.refresh_from_db()
    assert tenant.high_risk_jurisdictions == ["IR", "MM", "KP"]


def test_a_code_that_is_no_country_is_refused(client, root, tenant):
    client.force_login(root)
    response = save_tenant(client, tenant, high_risk_jurisdictions="IR, XX, Atlantis")
    assert response.status_code == 200
    assert "XX is not an ISO country code. Use one such as GB, US or SG." in errors_of(response)[0]
    assert (
        "Use a two-letter country code such as GB, US or SG (“Atlantis” is not a country "
        "Atlas knows)." in errors_of(response)[0]
    )
    tenant.refresh_from_db()
    assert tenant.high_risk_jurisdictions == ["KP", "IR", "MM"]


def test_an_entry_that_is_no_code_is_named_and_not_asked_to_be_left_blank(client, root, tenant):
    client.force_login(root)
    response = save_tenant(client, tenant, high_risk_jurisdictions="IR, 1X")
    (error,) = errors_of(response)
    assert "(“1X” is not a country Atlas knows)." in error
    assert "leave it blank" not in error


def test_a_high_risk_jurisdiction_set_in_the_admin_counts_on_the_next_run(client, root, tenant):
    client.force_login(root)
    save_tenant(client, tenant, high_risk_jurisdictions="GB")
    record = run_case(tenant)
    assert record["packet"]["risk_rating"] == "medium"
    assert record["packet"]["open_gaps"] == [
        "The subject (United Kingdom, GB) is registered in one of the tenant's high-risk "
        "jurisdictions: enhanced due diligence applies."
    ]


@pytest.mark.django_db(transaction=True)
def test_nationality_ticked_in_the_admin_counts_on_the_next_run(client, root, tenant, tmp_path):
    """Committed for real: the extraction reads the document on a thread of its own."""
    client.force_login(root)
    form = tmp_path / "linden_form.txt"
    form.write_text("CLIENT DECLARATION\nName: Sarah Linden\nNationality: Iranian\n")

    def linden() -> dict:
        out = io.StringIO()
        arguments = ["--subject", "Sarah Linden", "--subject-type", "person"]
        arguments += ["--document", str(form), "--tenant", tenant.slug, "--json"]
        call_command("run_case", *arguments, stdout=out)
        return json.loads(out.getvalue())["packet"]

    assert linden()["risk_rating"] == "low"
    assert save_tenant(client, tenant, nationality_counts="on").status_code == 302
    tenant.refresh_from_db()
    assert (tenant.nationality_counts, tenant.high_risk_jurisdictions) == (True, ["KP", "IR", "MM"])
    packet = linden()
    assert packet["risk_rating"] == "medium"
    assert (
        "The subject (a national of Iran, IR, by uploaded document linden_form.txt) is a national "
        "of one of the tenant's high-risk jurisdictions, which its policy counts: enhanced due "
        "diligence applies."
    ) in packet["open_gaps"]
