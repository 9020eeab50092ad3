"""The admins' run browser: who may see it, filters, sorts and keyset pages."""

from __future__ import annotations

import base64
import datetime as dt
import json
import re
import warnings
from decimal import Decimal

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from runs.models import Case, Run
from runs.views import run_filters
from tests.run_rows import T0, make_run

pytestmark = pytest.mark.django_db

URL = "/runs/"


def run_ids(response) -> list[int]:
    return [int(n) for n in re.findall(r'href="/runs/(\d+)/trace/">#', response.content.decode())]


@pytest.fixture
def other_case(tenant, analyst) -> Case:
    return Case.objects.create(
        tenant=tenant, subject_name="Meridian Holdings", subject_type="company", created_by=analyst
    )


def test_the_url_names_are_the_ones_the_nav_expects():
    assert reverse("runs-trace-list") == URL
    assert reverse("runs-metrics") == "/metrics/"
    assert reverse("runs-trace", args=[7]) == "/runs/7/trace/"


@pytest.mark.parametrize("persona", ["analyst", "reviewer"])
def test_analysts_and_reviewers_cannot_browse_runs(request, client, persona, case):
    make_run(case)
    client.force_login(request.getfixturevalue(persona))
    assert client.get(URL).status_code == 403
    assert client.get(reverse("runs-export-jsonl")).status_code == 403
    assert client.get(reverse("runs-metrics")).status_code == 403


def test_anonymous_visitors_are_sent_to_log_in(client):
    response = client.get(URL)
    assert response.status_code == 302
    assert "/login/" in response["Location"]


def test_an_admin_sees_only_their_tenants_runs(client, admin_user, case, outsider_case):
    mine = make_run(case)
    theirs = make_run(outsider_case)
    client.force_login(admin_user)
    response = client.get(URL)
    ids = run_ids(response)
    assert mine.pk in ids
    assert theirs.pk not in ids
    case_link = reverse("runs-case-detail", args=[case.pk]) + f"?run={mine.pk}"
    assert f'<a href="{case_link}">' in response.content.decode()


def test_a_superuser_sees_every_tenant(client, case, outsider_case):
    root = get_user_model().objects.create_superuser("root", "root@example.com", "pw-123456789")
    mine, theirs = make_run(case), make_run(outsider_case)
    client.force_login(root)
    response = client.get(URL)
    assert response.status_code == 200
    assert {mine.pk, theirs.pk} <= set(run_ids(response))
    only_theirs = run_ids(client.get(URL, {"tenant": "harbor-credit"}))
    assert only_theirs == [theirs.pk]


def test_filters_by_status_reason_versions_subject_and_date(client, admin_user, case, other_case):
    completed = make_run(case, created_at=T0)
    failed = make_run(
        case,
        status=Run.Status.FAILED,
        termination_reason=Run.Reason.TOOL_FAILURE,
        created_at=T0 + dt.timedelta(days=2),
    )
    other_model = make_run(
        other_case,
        status=Run.Status.AWAITING_REVIEW,
        termination_reason=Run.Reason.NO_PROGRESS,
        model_name="openai:gpt-test",
        prompt_version="atlas-prompt/2",
        policy_version="atlas-policy/2",
        created_at=T0 + dt.timedelta(days=5),
    )
    client.force_login(admin_user)
    assert run_ids(client.get(URL, {"status": "failed"})) == [failed.pk]
    assert run_ids(client.get(URL, {"reason": "no_progress"})) == [other_model.pk]
    assert run_ids(client.get(URL, {"model": "openai:gpt-test"})) == [other_model.pk]
    assert run_ids(client.get(URL, {"prompt": "atlas-prompt/2"})) == [other_model.pk]
    assert run_ids(client.get(URL, {"policy": "atlas-policy/1"})) == [failed.pk, completed.pk]
    assert run_ids(client.get(URL, {"subject": "meridian"})) == [other_model.pk]
    window = {"date_from": "2026-03-03", "date_to": "2026-03-05"}
    assert run_ids(client.get(URL, window)) == [failed.pk]


def test_a_bad_filter_is_explained_and_ignored(client, admin_user, case):
    run = make_run(case)
    client.force_login(admin_user)
    response = client.get(URL, {"status": "exploded", "date_from": "yesterday", "sort": "-colour"})
    page = response.content.decode()
    assert response.status_code == 200
    assert "Unknown status" in page and "is not a date" in page and "Cannot sort by" in page
    assert run_ids(response) == [run.pk]


@pytest.mark.parametrize("zone", ["UTC", "Asia/Tokyo", "America/New_York"])
def test_dates_at_the_edges_of_the_calendar_filter_like_any_other(client, admin_user, case, zone):
    run = make_run(case)
    client.force_login(admin_user)
    with timezone.override(zone):
        for everything in (
            {"date_to": "9999-12-31"},
            {"date_from": "0001-01-01"},
            {"date_from": "0001-01-01", "date_to": "9999-12-31"},
        ):
            response = client.get(URL, everything)
            assert response.status_code == 200
            assert run_ids(response) == [run.pk]
        nothing = client.get(URL, {"date_from": "9999-12-31"})
        assert nothing.status_code == 200 and run_ids(nothing) == []


def test_sorts_by_cost_tokens_iterations_and_duration(client, admin_user, case):
    cheap = make_run(case, cost_usd=Decimal("0.01"), tokens=900, iterations=2, elapsed_seconds=50)
    dear = make_run(case, cost_usd=Decimal("0.90"), tokens=100, iterations=9, elapsed_seconds=5)
    middle = make_run(case, cost_usd=Decimal("0.20"), tokens=500, iterations=5, elapsed_seconds=20)
    client.force_login(admin_user)
    assert run_ids(client.get(URL, {"sort": "-cost"})) == [dear.pk, middle.pk, cheap.pk]
    assert run_ids(client.get(URL, {"sort": "cost"})) == [cheap.pk, middle.pk, dear.pk]
    assert run_ids(client.get(URL, {"sort": "-tokens"})) == [cheap.pk, middle.pk, dear.pk]
    assert run_ids(client.get(URL, {"sort": "-iterations"})) == [dear.pk, middle.pk, cheap.pk]
    assert run_ids(client.get(URL, {"sort": "duration"})) == [dear.pk, middle.pk, cheap.pk]
    make_run(case, tokens=1_234_567)
    assert '<td class="num">1,234,567</td>' in client.get(URL).content.decode()


def test_a_researching_run_sorts_as_if_it_had_spent_nothing_until_it_stops(
    client, admin_user, case
):
    finished = make_run(case, cost_usd=Decimal("0.20"), tokens=500, iterations=5)
    researching = make_run(
        case, status=Run.Status.RESEARCHING, termination_reason="", cost_usd=Decimal("0.90")
    )
    client.force_login(admin_user)
    page = client.get(URL, {"sort": "-cost"})
    assert run_ids(page) == [finished.pk, researching.pk]
    assert "$0.90" in page.content.decode()  # its live figure is shown all the same
    assert "sort as if they had spent nothing" in page.content.decode()
    assert run_ids(client.get(URL, {"sort": "cost"})) == [researching.pk, finished.pk]

    Run.objects.filter(pk=researching.pk).update(status=Run.Status.AWAITING_REVIEW)
    assert run_ids(client.get(URL, {"sort": "-cost"})) == [researching.pk, finished.pk]
    assert "sort as if" not in client.get(URL).content.decode()


def _walk(client, params) -> list[int]:
    seen, url = [], URL + "?" + "&".join(f"{k}={v}" for k, v in params.items())
    for _ in range(10):
        response = client.get(url)
        seen += run_ids(response)
        found = re.search(r'href="(\?[^"]*after=[^"]*)" rel="next"', response.content.decode())
        if not found:
            break
        url = URL + found.group(1).replace("&amp;", "&")
    return seen


def test_keyset_pages_visit_every_run_once_even_with_ties(client, admin_user, case, monkeypatch):
    monkeypatch.setattr(run_filters, "PAGE_SIZE", 4)
    runs = [make_run(case, cost_usd=Decimal("0.10") * (i % 3), created_at=T0) for i in range(11)]
    client.force_login(admin_user)
    by_cost = _walk(client, {"sort": "-cost"})
    assert sorted(by_cost) == sorted(r.pk for r in runs)
    assert len(by_cost) == len(set(by_cost))
    newest = _walk(client, {})
    assert newest == sorted((r.pk for r in runs), reverse=True)


def test_the_previous_link_returns_to_the_page_before(client, admin_user, case, monkeypatch):
    monkeypatch.setattr(run_filters, "PAGE_SIZE", 3)
    runs = [make_run(case, tokens=i) for i in range(8)]
    client.force_login(admin_user)
    first = client.get(URL, {"sort": "tokens"})
    next_url = re.search(r'href="(\?[^"]*)" rel="next"', first.content.decode()).group(1)
    second = client.get(URL + next_url.replace("&amp;", "&"))
    assert run_ids(second) == [r.pk for r in runs[3:6]]
    prev_url = re.search(r'href="(\?[^"]*)" rel="prev"', second.content.decode()).group(1)
    back = client.get(URL + prev_url.replace("&amp;", "&"))
    assert run_ids(back) == [r.pk for r in runs[0:3]]


def test_a_damaged_page_link_shows_the_first_page_with_a_message(client, admin_user, case):
    run = make_run(case)
    client.force_login(admin_user)
    response = client.get(URL, {"after": "not-a-cursor!!"})
    assert response.status_code == 200
    assert "page link is damaged" in response.content.decode()
    assert run_ids(response) == [run.pk]


def a_cursor(*fields) -> str:
    return base64.urlsafe_b64encode(json.dumps(list(fields)).encode()).decode().rstrip("=")


@pytest.mark.parametrize(
    "sort, link",
    [
        ("cost", {"after": a_cursor("cost", "NaN", 1)}),
        ("cost", {"after": a_cursor("cost", "Infinity", 1)}),
        ("cost", {"before": a_cursor("cost", "-sNaN", 1)}),
        ("duration", {"after": a_cursor("duration", "-inf", 1)}),
        ("created", {"after": a_cursor("created", "9999-12-31T23:00:00-05:00", 1)}),
        ("created", {"before": a_cursor("created", "0001-01-01T00:00:00+05:00", 1)}),
        ("created", {"after": a_cursor("created", "2026-03-01T09:00:00", 1)}),
    ],
)
def test_a_page_link_holding_a_value_no_run_can_have_is_a_damaged_link(
    client, admin_user, case, sort, link
):
    run = make_run(case)
    client.force_login(admin_user)
    with warnings.catch_warnings():
        # A time without a zone would otherwise only be warned about.
        warnings.simplefilter("error", RuntimeWarning)
        response = client.get(URL, {"sort": sort, **link})
    assert response.status_code == 200
    assert "page link is damaged" in response.content.decode()
    assert run_ids(response) == [run.pk]


def test_the_page_never_uses_offset_and_has_no_n_plus_one(client, admin_user, case, other_case):
    for _ in range(30):
        make_run(case)
        make_run(other_case)
    client.force_login(admin_user)
    client.get(URL)  # warm the session and membership caches
    with CaptureQueriesContext(connection) as few:
        client.get(URL, {"sort": "-cost"})
    for _ in range(30):
        make_run(case)
    with CaptureQueriesContext(connection) as more:
        response = client.get(URL, {"sort": "-cost"})
    assert len(run_ids(response)) == run_filters.PAGE_SIZE
    assert len(more.captured_queries) == len(few.captured_queries)
    assert not any("OFFSET" in q["sql"].upper() for q in more.captured_queries)
