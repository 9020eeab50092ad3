"""The audit page's Actor filter names people as the table does, and filters by the user."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from runs.models import Membership
from tests.conftest import client_for

pytestmark = pytest.mark.django_db


def _options(html: str) -> list[tuple[str, str]]:
    select = html.split('<select name="actor">', 1)[1].split("</select>", 1)[0]
    return re.findall(r'<option value="([^"]*)"[^>]*>([^<]*)</option>', select)


def _member(tenant, username: str, first: str, last: str = ""):
    user = get_user_model().objects.create_user(username=username, first_name=first, last_name=last)
    Membership.objects.create(user=user, tenant=tenant, role=Membership.Role.REVIEWER)
    return user


def test_the_actor_filter_shows_full_names_and_usernames_only_where_needed(
    client, tenant, reviewer
):
    _member(tenant, "jdoe", "Jane", "Doe")
    _member(tenant, "jdoe2", "Jane", "Doe")
    _member(tenant, "nameless", "")
    _member(tenant, "pkhan", "Priya", "Khan")
    html = client_for(client, reviewer).get(reverse("reviews-audit")).content.decode()
    assert _options(html) == [
        ("", "Anyone"),
        ("jdoe", "Jane Doe (jdoe)"),
        ("jdoe2", "Jane Doe (jdoe2)"),
        ("nameless", "nameless"),
        ("pkhan", "Priya Khan"),
        ("reviewer", "Reviewer"),
    ]


def test_the_chosen_person_stays_selected_by_username(client, tenant, reviewer):
    _member(tenant, "pkhan", "Priya", "Khan")
    html = client_for(client, reviewer).get(reverse("reviews-audit"), {"actor": "pkhan"})
    assert '<option value="pkhan" selected>Priya Khan</option>' in html.content.decode()


def test_someone_who_left_the_tenant_can_still_be_chosen_for_what_they_did(
    client, tenant, reviewer, case
):
    from runs.models import CaseEdit

    former = _member(tenant, "left", "Lee", "Former")
    CaseEdit.objects.create(case=case, edited_by=former, changes={}, reason="typo")
    Membership.objects.filter(user=former).delete()
    html = client_for(client, reviewer).get(reverse("reviews-audit")).content.decode()
    assert ("left", "Lee Former") in _options(html)


def test_an_actor_nobody_is_says_that_nothing_can_match(client, reviewer):
    page = client_for(client, reviewer).get(reverse("reviews-audit"), {"actor": "nobody-here"})
    html = page.content.decode()
    assert "No one with the username &#x27;nobody-here&#x27; is a member" in html
