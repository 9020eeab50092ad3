"""The case page of a long run: its newest steps, earlier ones a page at a time on request.

A run whose budgets were extended again and again has thousands of steps; the page reads and
shows a bounded number of them however long the run is.
"""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from runs import step_views
from runs.models import TraceEvent
from tests.case_rows import add_events, make_run, tool_step
from tests.conftest import client_for

pytestmark = pytest.mark.django_db

STEP_IDS = re.compile(r'<li id="run-\d+-step-(\d+)"')
EARLIER = re.compile(
    r'<li id="run-(\d+)-steps-earlier" class="steps-earlier"><a class="button" '
    r'href="/runs/\d+/steps/\?before=(\d+)"[^>]*>([\d,]+) earlier steps? — show earlier</a></li>'
)


def long_run(case, steps: int):
    """A run of `steps` tool-call steps after its start (step 0), three events each."""
    run = make_run(case, iterations=steps)
    events = [("run_started", 0, {})]
    for number in range(1, steps + 1):
        events += tool_step(number, "search_adverse_media", {"query": f"q{number}"}, "0 articles")
    add_events(run, *events)
    return run


def shown_steps(html: str) -> list[int]:
    return [int(number) for number in STEP_IDS.findall(html)]


def test_a_long_runs_page_shows_its_newest_steps_and_how_many_came_before(client, analyst, case):
    run = long_run(case, 250)
    with CaptureQueriesContext(connection) as queries:
        html = client_for(client, analyst).get(reverse("runs-case-detail", args=[case.pk]))
    html = html.content.decode()
    assert shown_steps(html) == list(range(151, 251))
    ((run_id, before, earlier),) = EARLIER.findall(html)
    assert int(run_id) == run.pk and earlier == "151"  # steps 0 to 150
    assert int(before) == TraceEvent.objects.get(run=run, step=151, type="model_decision").seq
    # The stream and the cursor start after the newest event, as for a short run.
    assert f'data-last-seq="{run.last_seq}"' in html
    assert f"?after={run.last_seq}&amp;" in html
    # Every read of the run's events is bounded: by a LIMIT, or from a seq on.
    reads = [q["sql"] for q in queries.captured_queries if '"runs_traceevent"' in q["sql"]]
    assert reads
    for sql in reads:
        assert "LIMIT" in sql or '"runs_traceevent"."seq" >' in sql, sql


def test_earlier_steps_load_a_page_at_a_time_each_step_once(client, analyst, case):
    run = long_run(case, 250)
    client_for(client, analyst)
    html = client.get(reverse("runs-case-detail", args=[case.pk])).content.decode()
    seen = shown_steps(html)
    pages = 0
    while found := EARLIER.findall(html):
        ((_, before, _),) = found
        html = client.get(
            reverse("runs-run-steps", args=[run.pk]), {"before": before}, HTTP_HX_REQUEST="true"
        ).content.decode()
        assert "<html" not in html  # a fragment for htmx, in place of the control
        numbers = shown_steps(html)
        if EARLIER.search(html):
            assert html.startswith(f'<li id="run-{run.pk}-steps-earlier"')
        seen = numbers + seen
        pages += 1
    assert pages == 2
    assert seen == list(range(0, 251))


def test_a_short_run_shows_every_step_and_no_earlier_control(client, analyst, case):
    run = long_run(case, step_views.STEPS_PER_PAGE - 1)  # with step 0: exactly one page
    html = (
        client_for(client, analyst)
        .get(reverse("runs-case-detail", args=[case.pk]))
        .content.decode()
    )
    assert shown_steps(html) == list(range(0, step_views.STEPS_PER_PAGE))
    assert "steps-earlier" not in html
    assert f'data-last-seq="{run.last_seq}"' in html


def test_a_page_holds_only_whole_steps_when_steps_are_long(monkeypatch, case):
    """Steps longer than the events read per step: the oldest one read may be cut, and is
    left to the next page whole."""
    monkeypatch.setattr(step_views, "EVENTS_PER_STEP", 2)
    run = long_run(case, 10)  # three events a step
    numbers: list[int] = []
    upto = run.last_seq
    while True:
        page = step_views.steps_page(run.pk, upto=upto, count=4)  # reads at most 8 events
        for step in page.steps:
            assert step.first_seq == step.last_seq - (0 if step.number == 0 else 2)
        numbers = [step.number for step in page.steps] + numbers
        if not page.earlier:
            break
        assert page.earlier == page.steps[0].number  # steps 0 .. first shown - 1
        upto = page.first_seq - 1
    assert numbers == list(range(0, 11))


def test_earlier_steps_open_as_a_page_without_javascript(client, analyst, case):
    run = long_run(case, 120)
    html = (
        client_for(client, analyst)
        .get(reverse("runs-case-detail", args=[case.pk]))
        .content.decode()
    )
    ((_, before, earlier),) = EARLIER.findall(html)
    assert earlier == "21"
    page = client.get(reverse("runs-run-steps", args=[run.pk]), {"before": before})
    assert page.status_code == 200
    text = page.content.decode()
    assert "<html" in text and shown_steps(text) == list(range(0, 21))
    assert f'href="/cases/{case.pk}/?run={run.pk}"' in text
    assert not EARLIER.search(text)


def test_earlier_steps_are_refused_outside_the_tenant_and_without_a_cursor(
    client, analyst, outsider, case
):
    run = long_run(case, 3)
    url = reverse("runs-run-steps", args=[run.pk])
    assert client_for(client, analyst).get(url, {"before": "x"}).status_code == 400
    assert client.get(url).status_code == 400
    assert client_for(client, outsider).get(url, {"before": 5}).status_code == 404
