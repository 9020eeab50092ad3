"""do_extend_budget refuses, whoever calls it (a form, a command, a second reviewer), an
extension past the runtime's ceilings or one that adds nothing or takes away, in plain
words and with nothing recorded; two reviewers extending at once extend the run once."""

from __future__ import annotations

import threading
from decimal import Decimal

import pytest
from django.db import connection, connections

from reviews.actions import AlreadyDecided, ReviewError, do_extend_budget
from reviews.models import HumanDecision, ReviewItem
from runs.models import Run
from tests.review_runs import SIGNOFF_SUBJECT, advance, open_item, paused_run

pytestmark = pytest.mark.django_db


def stopped_item(tenant, analyst, **budgets) -> ReviewItem:
    run = paused_run(tenant, analyst, SIGNOFF_SUBJECT, budgets={"max_iterations": 2, **budgets})
    return open_item(run, ReviewItem.Kind.ESCALATION)


def refused(item: ReviewItem, reviewer, **amounts) -> str:
    with pytest.raises(ReviewError) as refusal:
        do_extend_budget(item, reviewer, reason="More room", **amounts)
    assert not HumanDecision.objects.exists()
    item.refresh_from_db()
    assert item.status == ReviewItem.Status.OPEN
    return refusal.value.messages[0]


def test_an_extension_past_the_iteration_ceiling_is_refused_before_it_is_recorded(
    tenant, analyst, reviewer
):
    item = stopped_item(tenant, analyst)  # 2 iterations; the ceiling is 10,000
    message = refused(item, reviewer, extra_iterations=9_999)
    assert message == (
        "This run's iteration limit is 2 iterations and can go no higher than "
        "10,000 iterations: add at most 9,998 iterations. Nothing was recorded."
    )


def test_every_budget_past_its_ceiling_is_named(tenant, analyst, reviewer):
    item = stopped_item(
        tenant, analyst, max_cost_usd="99999.50", max_tokens=999_999_000, deadline_seconds=2591000
    )
    message = refused(
        item,
        reviewer,
        extra_iterations=1,
        extra_tokens=2_000,
        extra_cost_usd=Decimal("1.00"),
        extra_seconds=3_600,
    )
    assert "token budget is 999,999,000 tokens" in message and "add at most 1,000 tokens" in message
    assert "cost budget is $99,999.50" in message and "add at most $0.50" in message
    assert "time limit is 2,591,000 s" in message and "add at most 1,000 s" in message
    assert "iteration limit" not in message  # 2 + 1 is well within its ceiling


def test_an_extension_up_to_the_ceiling_is_recorded_and_applied(tenant, analyst, reviewer):
    item = stopped_item(tenant, analyst, max_cost_usd="99999.50")
    decision = do_extend_budget(
        item, reviewer, extra_iterations=9_998, extra_cost_usd=Decimal("0.50"), reason="Enough"
    )
    assert decision.payload["extra_iterations"] == 9_998
    run = advance(item)
    assert run.budgets["max_iterations"] == 10_000
    assert run.budgets["max_cost_usd"] == "100000.00"
    assert not run.events.filter(type="human_input_rejected").exists()


@pytest.mark.parametrize(
    ("amounts", "message"),
    [
        (
            {"extra_iterations": 3, "extra_tokens": -1_000},
            "An extension only adds: the tokens to add cannot be negative (-1000).",
        ),
        (
            {"extra_cost_usd": Decimal("-1")},
            "An extension only adds: the dollars to add cannot be negative (-1).",
        ),
        ({"extra_iterations": 2.5}, "Add a whole number of iterations, not 2.5."),
        (
            {"extra_iterations": 3, "extra_cost_usd": Decimal("NaN")},
            "The dollars to add must be a finite number, not NaN.",
        ),
        ({"extra_seconds": float("inf")}, "The seconds to add must be a finite number, not inf."),
        ({"extra_iterations": "5"}, "The iterations to add must be a number, not '5'."),
        ({}, "Extend at least one budget (iterations, tokens, cost or time)."),
    ],
)
def test_an_amount_that_adds_nothing_or_takes_away_is_refused_in_plain_words(
    tenant, analyst, reviewer, amounts, message
):
    item = stopped_item(tenant, analyst)
    assert refused(item, reviewer, **amounts) == message


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(connection.vendor != "postgresql", reason="needs PostgreSQL row locks")
def test_two_reviewers_extending_at_once_extend_the_run_once(
    tenant, analyst, reviewer, second_reviewer
):
    item = stopped_item(tenant, analyst)
    start = threading.Barrier(2)
    outcomes: dict[str, object] = {}

    def extend(user) -> None:
        try:
            start.wait()
            outcomes[user.username] = do_extend_budget(
                item, user, extra_iterations=6_000, reason="At once"
            )
        except ReviewError as lost:
            outcomes[user.username] = lost
        finally:
            connections.close_all()

    threads = [
        threading.Thread(target=extend, args=(user,)) for user in (reviewer, second_reviewer)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert HumanDecision.objects.filter(run_id=item.run_id).count() == 1
    losers = [o for o in outcomes.values() if isinstance(o, AlreadyDecided)]
    assert len(outcomes) == 2 and len(losers) == 1
    run = advance(item)
    assert run.budgets["max_iterations"] == 6_002
    assert Run.objects.get(pk=run.pk).events.filter(type="budget_extended").count() == 1
