from __future__ import annotations

import re

import pytest
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpResponse
from django.test import Client, RequestFactory
from django.urls import URLResolver, get_resolver

from runs.access import get_for_tenant, require_role
from runs.models import Case


def test_another_tenants_case_is_a_404(case, outsider_case, tenant):
    assert get_for_tenant(Case.objects.all(), tenant, pk=case.pk) == case
    with pytest.raises(Http404):
        get_for_tenant(Case.objects.all(), tenant, pk=outsider_case.pk)


def test_a_missing_case_is_also_a_404(tenant):
    with pytest.raises(Http404):
        get_for_tenant(Case.objects.all(), tenant, pk=999_999)


@require_role("reviewer")
def _reviewer_only(request):
    return HttpResponse("ok")


def test_a_role_check_refuses_other_roles(analyst, reviewer):
    request = RequestFactory().get("/")
    request.user = analyst
    with pytest.raises(PermissionDenied):
        _reviewer_only(request)
    request.user = reviewer
    assert _reviewer_only(request).status_code == 200


def test_an_anonymous_user_is_sent_to_login(db, client):
    response = client.get("/")
    assert response.status_code == 302
    assert response["Location"].startswith("/login/")


def test_an_account_without_a_tenant_is_told_so(db, client, django_user_model):
    user = django_user_model.objects.create_user(username="drifter", password="x" * 12)
    client.force_login(user)
    response = client.get("/")
    assert response.status_code == 403
    assert b"not a member of any tenant" in response.content


def _routes(patterns, prefix=""):
    for entry in patterns:
        route = prefix + str(entry.pattern)
        if isinstance(entry, URLResolver):
            if route.startswith("admin/"):
                continue  # Django's own admin, with its own CSRF handling
            yield from _routes(entry.url_patterns, route)
        else:
            yield re.sub(r"<(?:int:)?\w+>", "1", re.sub(r"<(?:str|slug|path):\w+>", "x", route))


def test_every_post_without_a_csrf_token_is_refused(analyst, reviewer, admin_user):
    routes = sorted(set(_routes(get_resolver().url_patterns)))
    for post_view in ("cases/new/", "reviews/items/1/decide/", "reviews/questions/1/answer/"):
        assert post_view in routes
    for user in (analyst, reviewer, admin_user):
        strict = Client(enforce_csrf_checks=True)
        strict.force_login(user)
        for route in routes:
            response = strict.post("/" + route, {"reason": "x"})
            assert response.status_code == 403, (user.username, route, response.status_code)
            assert b"CSRF" in response.content, (user.username, route)


def test_a_refusal_is_a_page_of_atlas_with_the_way_back(client, analyst, outsider_case):
    from tests.conftest import client_for

    client_for(client, analyst)
    refused = client.get("/reviews/")
    assert refused.status_code == 403
    page = refused.content.decode()
    assert "You cannot open this page" in page and "Your role does not allow this." in page
    assert 'class="mainnav"' in page and "Go to your start page" in page

    assert "It is not part of what analysts do in Atlas." in page

    missing = client.get(f"/cases/{outsider_case.pk}/")
    assert missing.status_code == 404
    page = missing.content.decode()
    assert "Nothing to open here" in page and 'class="mainnav"' in page
    assert outsider_case.subject_name not in page


def test_an_htmx_request_after_the_session_ended_is_a_401_not_the_login_page(
    client, tenant, analyst
):
    from django.urls import reverse

    from tests.review_runs import question_item

    item = question_item(tenant, analyst)
    url = reverse("reviews-answer", args=[item.pk])
    response = client.post(url, {"answer_text": "The UK one"}, headers={"HX-Request": "true"})
    assert response.status_code == 401
    assert response.content.decode() == "Your session has ended: nothing was sent."
    # A page loaded the ordinary way still goes to the login page.
    plain = client.post(url, {"answer_text": "The UK one"})
    assert plain.status_code == 302 and plain["Location"].startswith("/login/")


def test_only_a_role_refusal_says_the_role_does_not_do_it(client, admin_user):
    """A refusal for another reason (here the admin site's, for a model this admin has no
    permission on) says its own reason, not that admins never do it."""
    from django.urls import reverse

    from tests.conftest import client_for

    refused = client_for(client, admin_user).get(reverse("admin:auth_group_changelist"))
    page = refused.content.decode()
    assert refused.status_code == 403 and "You cannot open this page" in page
    assert "not part of what" not in page


def test_someone_in_no_tenant_is_told_so_not_that_their_role_forbids_it(client, db):
    from django.contrib.auth import get_user_model

    loner = get_user_model().objects.create_user("loner", password="pw-long-enough-123")
    client.force_login(loner)
    for url in ("/cases/", "/reviews/"):
        page = client.get(url).content.decode()
        assert "Your account is not a member of any tenant." in page, url
        assert "Your role does not allow this." not in page, url
