"""A run of a case signed off before says what it found that the last signed-off run did
not, and what that run found that it no longer does, on its packet and its sign-off page."""

from __future__ import annotations

import pytest
from django.urls import reverse

from reviews.models import ReviewItem
from runs.actions import do_start_run
from runs.execution import run_inline
from runs.models import Run
from tests.conftest import client_for
from tests.review_runs import advance, open_item, paused_run
from tests.test_reviewer_rating import sign_off

pytestmark = pytest.mark.django_db


@pytest.fixture
def signed_off(client, tenant, analyst, reviewer) -> Run:
    item = open_item(
        paused_run(tenant, analyst, "Harrow Bay Freight", jurisdiction="GB"), "signoff"
    )
    sign_off(client_for(client, reviewer), item, "false_positive", "low", "Born 1958.")
    return advance(item)


def run_again(run: Run, analyst) -> ReviewItem:
    again = run_inline(do_start_run(run.case, analyst, wake=False, driven_here=True))
    return open_item(again, ReviewItem.Kind.SIGNOFF)


def section(html: str) -> str:
    start = html.index('class="changes-since"')
    return html[start : html.index("</section>", start)]


def test_a_run_finding_the_same_evidence_says_so(client, analyst, signed_off):
    item = run_again(signed_off, analyst)
    page = client.get(reverse("reviews-item", args=[item.pk])).content.decode()
    changes = section(page)
    assert f"Since run {signed_off.pk}, last signed off" in changes
    assert (
        f"Run {signed_off.pk} ended " in changes
        and "rated low risk; this run is rated medium" in changes
    )
    assert f"The same evidence as run {signed_off.pk}: nothing new" in changes
    assert "New since then" not in changes and "No longer found" not in changes


def test_new_and_no_longer_found_evidence_are_listed(client, analyst, signed_off):
    """Between the runs the world changed: the earlier run held an article this one no longer
    finds, and lacked the registry record this one holds."""
    state = signed_off.state
    registry = next(e for e in state["evidence"] if e["evidence_class"] == "registry")
    state["evidence"] = [e for e in state["evidence"] if e is not registry] + [
        {**registry, "evidence_id": "ev-gone", "claim": "Harrow <b>Bay</b> fined in 2019"}
    ]
    Run.objects.filter(pk=signed_off.pk).update(state=state)
    item = run_again(signed_off, analyst)
    for url in (
        reverse("reviews-item", args=[item.pk]),
        reverse("runs-packet", args=[item.run_id]),
    ):
        changes = section(client.get(url).content.decode())
        assert 'New since then <span class="muted">(1)</span>' in changes
        number = [e["evidence_id"] for e in item.run.state["evidence"]].index(
            registry["evidence_id"]
        ) + 1
        assert f'#{registry["evidence_id"]}">[{number}]</a> {registry["claim"]}' in changes
        assert 'No longer found <span class="muted">(1)</span>' in changes
        assert "Harrow &lt;b&gt;Bay&lt;/b&gt; fined in 2019" in changes
    download = client.get(reverse("runs-packet-json", args=[item.run_id])).json()
    assert download["since_last_signoff"] == {
        "run_id": signed_off.pk,
        "risk_rating": "low",
        "new_evidence_ids": [registry["evidence_id"]],
        "no_longer_found": [{"evidence_id": "ev-gone", "claim": "Harrow <b>Bay</b> fined in 2019"}],
    }


def test_a_first_run_or_one_after_no_sign_off_shows_no_changes(client, tenant, analyst, reviewer):
    item = open_item(
        paused_run(tenant, analyst, "Harrow Bay Freight", jurisdiction="GB"), "signoff"
    )
    client_for(client, reviewer)
    assert (
        "changes-since" not in client.get(reverse("reviews-item", args=[item.pk])).content.decode()
    )
    again = run_again(item.run, analyst)
    page = client.get(reverse("runs-packet", args=[again.run_id])).content.decode()
    assert "changes-since" not in page


def test_an_escalated_re_run_shows_the_changes_where_it_is_settled(client, analyst, signed_off):
    """Run again with too small a budget, the case stops for a reviewer before its packet:
    the escalation's page still shows what this run found against the signed-off one."""
    again = run_inline(
        do_start_run(
            signed_off.case, analyst, budgets={"max_iterations": 2}, wake=False, driven_here=True
        )
    )
    item = open_item(again, ReviewItem.Kind.ESCALATION)
    changes = section(client.get(reverse("reviews-conflict", args=[item.pk])).content.decode())
    assert f"Since run {signed_off.pk}, last signed off" in changes
    assert "No longer found" in changes  # the research stopped before the articles
