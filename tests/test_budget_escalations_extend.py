"""Extending a run stopped on a budget: an extension that cannot let the run take its next
step is refused before it is recorded, the page says what each choice does, and the
amounts typed come back in plain words."""

from __future__ import annotations

import pytest
from django.urls import reverse

from reviews.models import HumanDecision, ReviewItem
from tests.conftest import client_for
from tests.review_runs import SIGNOFF_SUBJECT, advance, budget_item, open_item, paused_run

pytestmark = pytest.mark.django_db


def url(name: str, item: ReviewItem) -> str:
    return reverse(name, args=[item.pk])


def stopped_item(tenant, analyst, **budgets) -> ReviewItem:
    run = paused_run(tenant, analyst, SIGNOFF_SUBJECT, budgets=budgets)
    return open_item(run, ReviewItem.Kind.ESCALATION)


def test_extending_only_another_budget_than_the_one_the_run_stopped_on_is_refused(
    client, tenant, analyst, reviewer
):
    item = budget_item(tenant, analyst)  # stopped on its iteration limit, 2 of 2
    client_for(client, reviewer)
    response = client.post(
        url("reviews-extend", item), {"extra_cost_usd": "1.00", "reason": "Only money"}
    )
    html = response.content.decode()
    assert response.status_code == 400
    assert "used its whole iteration limit (2 of 2): add at least 1 iteration" in html
    assert 'value="1.00"' in html and "Only money</textarea>" in html
    assert not HumanDecision.objects.exists()
    item.refresh_from_db()
    assert item.status == ReviewItem.Status.OPEN


def test_a_token_stop_says_what_the_next_step_needs_and_refuses_less(
    client, tenant, analyst, reviewer
):
    item = stopped_item(tenant, analyst, max_tokens=500)
    assert item.payload["reason"] == "token_budget"
    client_for(client, reviewer)
    page = client.get(url("reviews-conflict", item)).content.decode()
    advice = page.split('id="extend-shortfall">')[1].split("</p>")[0]
    assert "next step needs" in advice and "with 500 tokens of its token budget left" in advice
    need = int(advice.split("add at least ")[1].split(" tokens")[0].replace(",", ""))
    too_little = client.post(
        url("reviews-extend", item), {"extra_tokens": str(need - 1), "reason": "A little more"}
    )
    assert (
        too_little.status_code == 400 and "or it stops again at once" in too_little.content.decode()
    )
    assert not HumanDecision.objects.exists()
    client.post(url("reviews-extend", item), {"extra_tokens": str(need), "reason": "Enough now"})
    assert HumanDecision.objects.get(review_item=item).payload["extra_tokens"] == need
    run = advance(item)
    assert run.iterations >= 1  # the next step fitted


def test_an_extension_past_the_runs_ceiling_is_refused_before_it_is_recorded(
    client, tenant, analyst, reviewer
):
    item = stopped_item(tenant, analyst, max_iterations=2, max_cost_usd="99999.50")
    client_for(client, reviewer)
    response = client.post(
        url("reviews-extend", item),
        {"extra_iterations": "5", "extra_cost_usd": "1.00", "reason": "More of both"},
    )
    assert response.status_code == 400
    assert (
        "s cost budget is $99,999.50 and can go no higher than $100,000.00: "
        "add at most $0.50." in response.content.decode()
    )
    assert not HumanDecision.objects.exists()
    client.post(
        url("reviews-extend", item),
        {"extra_iterations": "5", "extra_cost_usd": "0.50", "reason": "More of both"},
    )
    run = advance(item)
    assert run.budgets["max_cost_usd"] == "100000.00"
    assert not run.events.filter(type="human_input_rejected").exists()


@pytest.mark.parametrize(
    ("typed", "message"),
    [
        ({"extra_cost_usd": "0.123456789"}, "Enter dollars and cents, at most 2 decimal places"),
        ({"extra_cost_usd": "lots"}, "Enter an amount in dollars, such as 0.50."),
        ({"extra_cost_usd": "-1"}, "Enter 0 or more: an extension only adds."),
        ({"extra_tokens": "99999999999"}, "Add at most 1,000,000 tokens at a time."),
        ({"extra_iterations": "2.5"}, "Enter a whole number of iterations, such as 5."),
    ],
)
def test_a_bad_amount_is_refused_in_plain_words(client, tenant, analyst, reviewer, typed, message):
    item = budget_item(tenant, analyst)
    response = client_for(client, reviewer).post(
        url("reviews-extend", item), {"extra_iterations": "3", **typed, "reason": "More room"}
    )
    html = response.content.decode()
    assert response.status_code == 400 and message in html
    assert "Extra cost usd" not in html and "Ensure this value" not in html
    assert "More room</textarea>" in html
    assert not HumanDecision.objects.exists()


def test_the_page_says_what_each_choice_does_and_then_what_was_added(
    client, tenant, analyst, reviewer
):
    item = budget_item(tenant, analyst)
    client_for(client, reviewer)
    page = client.get(url("reviews-conflict", item)).content.decode()
    assert "The run goes on from where it stopped" in page
    assert "The run does not resume: the packet as it stands, with its open gaps" in page
    response = client.post(
        url("reviews-extend", item),
        {"extra_iterations": "6", "extra_cost_usd": "10", "reason": "Almost done"},
        follow=True,
    )
    html = response.content.decode()
    assert "Budget extended (+6 iterations, +$10.00); the run resumes" in html
    assert "Budget added: +6 iterations, +$10.00" in html
