"""A researching step rewrites the run's live figures but no index of the run row: the run
browser sorts by the settled figures (Run.settled_*), which stand still while the run
researches, so PostgreSQL can make the step's update heap-only (HOT)."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.db import connection

from atlas.runtime.state import AtlasState
from runs.actions import do_start_run
from runs.models import NOT_SETTLED, Run
from runs.run_state import load_state
from runs.storage import DjangoRunStore
from tests.test_state_write_skipped import step

pytestmark = pytest.mark.django_db


def researching(run: Run) -> tuple[DjangoRunStore, AtlasState]:
    """The store and the state after a first step that set the run researching."""
    store = DjangoRunStore()
    commit = step(load_state(run), status="researching")
    store.commit_step(commit)
    return store, commit.state


def settled_figures(run: Run) -> tuple:
    run.refresh_from_db()
    return (
        run.settled_iterations,
        run.settled_tokens,
        run.settled_cost_usd,
        run.settled_elapsed_seconds,
    )


def test_the_settled_figures_stand_still_while_the_run_researches(case, analyst):
    run = do_start_run(case, analyst, wake=False)
    store, state = researching(run)
    commit = step(state, model_cost_usd=Decimal("0.25"), input_tokens=700)
    store.commit_step(commit)
    assert settled_figures(run) == (NOT_SETTLED,) * 4
    assert (run.iterations, run.tokens, run.cost_usd) == (2, 700, Decimal("0.25"))

    store.commit_step(step(commit.state, status="waiting_for_input"))
    assert settled_figures(run) == (
        run.iterations,
        run.tokens,
        run.cost_usd,
        run.elapsed_seconds,
    )
    assert run.settled_iterations == 3


@pytest.mark.skipif(connection.vendor != "postgresql", reason="heap-only updates are PostgreSQL's")
@pytest.mark.django_db(transaction=True)
def test_researching_steps_are_heap_only_updates_of_the_run_row(case, analyst):
    # Each step commits, as a worker's do: only a committed step's old row version can be
    # pruned to make room on the page for the next one.
    run = do_start_run(case, analyst, wake=False)
    store, state = researching(run)

    def run_row_updates() -> tuple[int, int]:
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_stat_force_next_flush()")
            cursor.execute("SELECT pg_stat_clear_snapshot()")
            cursor.execute(
                "SELECT n_tup_upd, n_tup_hot_upd FROM pg_stat_user_tables WHERE relname = %s",
                [Run._meta.db_table],
            )
            return cursor.fetchone()

    updates_before, hot_before = run_row_updates()
    for tokens in range(100, 1100, 100):
        commit = step(state, input_tokens=tokens, model_cost_usd=Decimal(tokens) / 1000)
        store.commit_step(commit)
        state = commit.state
    updates, hot = run_row_updates()
    assert updates - updates_before == 10
    # PostgreSQL prunes a page only once it is nearly full, so now and then a new version
    # of the row does not fit beside the old ones and moves to another page; with the live
    # figures in indexes, none of the ten would be heap-only.
    assert hot - hot_before >= 8
