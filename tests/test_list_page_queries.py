"""List pages never load runs' full `state` JSON they do not show; only a shown run's."""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from tests.case_rows import make_run
from tests.conftest import client_for
from tests.review_runs import approval_item, conflict_item, question_item

pytestmark = pytest.mark.django_db

STATE_COLUMN = re.compile(r'"runs_run"\."state"[ ,]')
BIG_STATE = {"evidence": ["x" * 1000] * 50}


def queries_reading_run_state(client, url: str) -> list[str]:
    with CaptureQueriesContext(connection) as captured:
        assert client.get(url).status_code == 200
    return [q["sql"] for q in captured.captured_queries if STATE_COLUMN.search(q["sql"])]


@pytest.mark.parametrize(
    ("page", "make_item"),
    [
        ("reviews-queue", approval_item),
        ("reviews-clarifications", question_item),
        ("reviews-escalations", conflict_item),
    ],
)
def test_review_queues_do_not_load_run_state(client, tenant, analyst, reviewer, page, make_item):
    make_item(tenant, analyst)
    client_for(client, reviewer)
    assert queries_reading_run_state(client, reverse(page)) == []


def test_the_case_page_loads_state_only_for_the_run_it_shows(client, analyst, case):
    older = make_run(case, status="failed", reason="tool_failure", state=BIG_STATE)
    make_run(case, status="failed", reason="tool_failure", state=BIG_STATE)
    make_run(case, status="completed", reason="packet_approved", state=BIG_STATE)
    client_for(client, analyst)
    for url in (
        reverse("runs-case-detail", args=[case.pk]),
        reverse("runs-case-detail", args=[case.pk]) + f"?run={older.pk}",
    ):
        reads = queries_reading_run_state(client, url)
        assert len(reads) == 1, reads
        assert re.search(r'WHERE "runs_run"\."id" = \d+', reads[0]), reads[0]


def run_browser_queries(client, case, runs: int) -> list[str]:
    for number in range(runs):
        closed = number % 2 == 0
        make_run(
            case,
            status="completed",
            reason="packet_approved",
            closed_by_reviewer=closed,
            state=BIG_STATE,
        )
    with CaptureQueriesContext(connection) as captured:
        html = client.get(reverse("runs-trace-list")).content.decode()
    assert html.count("Closed by a reviewer") >= runs // 2
    return [q["sql"] for q in captured.captured_queries]


def test_the_run_browser_reads_a_page_of_runs_in_the_same_queries_however_many(
    client, admin_user, case
):
    client_for(client, admin_user)
    few = run_browser_queries(client, case, 2)
    many = run_browser_queries(client, case, 23)  # 25 runs, all on the first page
    assert len(many) == len(few), [sql for sql in many if sql not in few]
    assert not [sql for sql in many if STATE_COLUMN.search(sql)]
