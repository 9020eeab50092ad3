"""Every clock time on the case page and in its live updates names its zone, as the queues do."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from runs import step_views
from runs.fragments import decisions_context, live_context, render_decisions, render_push
from runs.models import Run, TraceEvent
from tests.case_rows import add_events, decision_row, make_run, tool_step
from tests.conftest import client_for

pytestmark = pytest.mark.django_db

TAG = re.compile(r"<[^>]+>")
CLOCK_TIME = re.compile(r"\b\d{1,2}:\d{2}(?::\d{2})?\b")


def shown_text(html: str) -> str:
    """What a person reads: the markup without its tags (and their datetime attributes)."""
    return re.sub(r"\s+", " ", TAG.sub(" ", html))


def times_and_zones(html: str) -> list[tuple[str, bool]]:
    """Each clock time in the text, and whether " UTC" follows it."""
    text = shown_text(html)
    return [
        (match.group(), text[match.end() :].lstrip().startswith("UTC"))
        for match in CLOCK_TIME.finditer(text)
    ]


def assert_every_time_says_utc(html: str, at_least: int) -> None:
    times = times_and_zones(html)
    assert len(times) >= at_least, times
    assert all(says_utc for _, says_utc in times), times


def case_page(client, user, case_id: int, run_id: int | None = None) -> str:
    url = reverse("runs-case-detail", args=[case_id])
    if run_id:
        url += f"?run={run_id}"
    return client_for(client, user).get(url).content.decode()


def hms(moment) -> str:
    return timezone.localtime(moment).strftime("%H:%M:%S")


def cancelled_run(case, reviewer) -> Run:
    """An earlier run with a step and a reviewer's decision, then a cancelled one after it."""
    earlier = make_run(case, status="awaiting_review", reason="awaiting_approval")
    add_events(earlier, ("run_started", 0, {}), *tool_step(1, "resolve_entity", {}, "1 found"))
    decision_row(earlier, reviewer, "Within the client's limits.")
    finished = timezone.now() - timedelta(minutes=3)
    run = make_run(
        case,
        status="cancelled",
        reason="cancelled",
        cancel_requested_at=finished - timedelta(seconds=1),
        cancel_requested_by=case.created_by,
        finished_at=finished,
    )
    add_events(run, ("run_started", 0, {}), *tool_step(1, "screen_sanctions", {}, "no hits"))
    return run


def test_every_time_on_a_cancelled_runs_case_page_says_utc(client, analyst, reviewer, case):
    run = cancelled_run(case, reviewer)
    html = case_page(client, analyst, case.pk)
    text = shown_text(html)
    # Opened, started, two runs listed, cancelled at, one step, one decision.
    assert_every_time_says_utc(html, at_least=7)
    name = case.created_by.get_full_name() or case.created_by.username
    assert f"Cancelled by {name} at {hms(run.finished_at)} UTC" in text
    # The status line says it was cancelled; the banner says who and when, not that again.
    assert text.count("The run was cancelled") == 1
    step_started = TraceEvent.objects.filter(run=run, type="model_decision").get().timestamp
    assert f"{hms(step_started)} UTC" in text
    decided = run.case.decisions.get().created_at
    assert f"{timezone.localtime(decided):%b} {decided.day}, {hms(decided)} UTC" in text


def test_the_cancelling_banner_says_when_in_utc(client, analyst, case):
    requested = timezone.now() - timedelta(seconds=2)
    make_run(case, cancel_requested_at=requested, cancel_requested_by=analyst)
    html = case_page(client, analyst, case.pk)
    assert "Cancelling" in html
    assert f"at {hms(requested)} UTC;" in shown_text(html)
    assert_every_time_says_utc(html, at_least=4)


def test_the_earlier_steps_page_says_utc(client, analyst, case):
    run = make_run(case)
    events = [("run_started", 0, {})]
    for number in range(1, step_views.STEPS_PER_PAGE + 5):
        events += tool_step(number, "search_adverse_media", {"query": f"q{number}"}, "0 articles")
    add_events(run, *events)
    html = case_page(client, analyst, case.pk)
    before = re.search(r"\?before=(\d+)", html).group(1)
    steps_url = reverse("runs-run-steps", args=[run.pk])
    for headers in ({"HTTP_HX_REQUEST": "true"}, {}):  # the htmx fragment, the plain page
        earlier = client.get(steps_url, {"before": before}, **headers).content.decode()
        assert_every_time_says_utc(earlier, at_least=5)


def test_a_live_push_of_steps_status_and_decisions_says_utc(analyst, reviewer, case):
    run = cancelled_run(case, reviewer)
    run = Run.objects.get(pk=run.pk)
    events = list(TraceEvent.objects.filter(run=run).order_by("seq"))
    frame = render_push(
        live_context(run, user=analyst, last_seq=run.last_seq),
        events,
        set(),
        lambda steps: [],
        decisions=decisions_context(case.pk),
    )
    # One step, the cancelled banner, the decision.
    assert_every_time_says_utc(frame, at_least=3)
    assert_every_time_says_utc(render_decisions(decisions_context(case.pk)), at_least=1)
