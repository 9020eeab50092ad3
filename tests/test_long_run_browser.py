"""A long run's case page in Chromium: the newest steps, earlier ones on request, live steps
appended after them, each step shown once."""

from __future__ import annotations

import time

import pytest
from django.urls import reverse

from atlas.runtime.scenario import parse_scenario
from runs import step_views
from runs.actions import do_start_run
from runs.models import Case, Run, TraceEvent
from tests.conftest import login_in_browser, screenshot
from tests.live_server import atlas_server  # noqa: F401 - the fixture

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PAGE_STEPS = 10
SEARCHES = 24


def searches(first: int, count: int) -> list[dict]:
    return [
        {
            "kind": "call_tool",
            "tool_name": "search_adverse_media",
            "arguments": {"query": f"Acme Analytics lawsuit {number}"},
            "rationale_summary": f"Search {number}.",
        }
        for number in range(first, first + count)
    ]


def shown_steps(page) -> list[int]:
    return [
        int(number)
        for number in page.eval_on_selector_all(
            "ol.steps > li.step", "items => items.map(item => item.dataset.step)"
        )
    ]


def show_earlier(page, run: Run) -> None:
    count = len(shown_steps(page))
    page.click(f"#run-{run.pk}-steps-earlier a")
    page.wait_for_function(
        f"() => document.querySelectorAll('ol.steps > li.step').length > {count}", timeout=5_000
    )


def test_a_long_runs_page_shows_the_newest_steps_loads_earlier_ones_and_stays_live(
    atlas_server,  # noqa: F811
    page,
    analyst,
    tenant,
    monkeypatch,
):
    monkeypatch.setattr(step_views, "STEPS_PER_PAGE", PAGE_STEPS)
    case = Case.objects.create(
        tenant=tenant,
        subject_name="Acme Analytics Ltd",
        subject_type="company",
        jurisdiction="GB",
        created_by=analyst,
    )
    turns = [
        *searches(1, SEARCHES),
        {"kind": "ask_human", "question": "Which lawsuit matters most?", "blocking": True},
        *searches(SEARCHES + 1, 2),
    ]
    scenario = parse_scenario(
        {
            "case": {"subject": case.subject_name, "subject_type": "company", "jurisdiction": "GB"},
            "budgets": {
                "max_iterations": len(turns),
                "max_tokens": 10**9,
                "max_cost_usd": "1000",
                "deadline_seconds": 600,
                "max_no_progress": len(turns) + 1,
            },
            "model": {"turns": turns},
        }
    )
    run = do_start_run(case, analyst, scenario=scenario)
    # The worker runs it up to the question before the page opens: the page reads it then.
    deadline = time.monotonic() + 30
    while run.status != Run.Status.WAITING_FOR_INPUT:
        assert time.monotonic() < deadline, f"the run is still {run.status}"
        time.sleep(0.2)
        run.refresh_from_db()
    newest = TraceEvent.objects.get(run=run, seq=run.last_seq).step

    login_in_browser(page, atlas_server.url, "analyst")
    page.goto(atlas_server.url + reverse("runs-case-detail", args=[case.pk]))
    page.wait_for_selector(".live-run:not(.offline)[ws-connect]")
    page.evaluate("window.__sameDocument = true")
    assert shown_steps(page) == list(range(newest - PAGE_STEPS + 1, newest + 1))
    earlier = page.locator(f"#run-{run.pk}-steps-earlier a")
    assert earlier.inner_text() == f"{newest - PAGE_STEPS + 1} earlier steps — show earlier"
    screenshot(page, "long-run-newest-steps")

    show_earlier(page, run)
    assert shown_steps(page) == list(range(newest - 2 * PAGE_STEPS + 1, newest + 1))

    # The answer resumes the run; its new steps come over the websocket, after the others.
    page.locator("input[name=answer_text]").fill("The 2024 one")
    page.click(".answer-form button.primary")
    page.wait_for_selector(f"#run-{run.pk}-status .badge-awaiting_review", timeout=15_000)
    run.refresh_from_db()
    last = TraceEvent.objects.get(run=run, seq=run.last_seq).step
    assert last > newest
    page.wait_for_function(
        f"() => document.querySelector('ol.steps > li.step:last-child').dataset.step === '{last}'"
    )
    assert shown_steps(page) == list(range(newest - 2 * PAGE_STEPS + 1, last + 1))
    assert int(page.get_attribute(f"#run-{run.pk}-cursor", "data-last-seq")) == run.last_seq

    # Earlier steps loaded after live ones arrived still go before them, each once.
    while page.locator(f"#run-{run.pk}-steps-earlier").count():
        show_earlier(page, run)
    assert shown_steps(page) == list(range(0, last + 1))
    assert page.evaluate("window.__sameDocument === true"), "the page was reloaded"
    screenshot(page, "long-run-all-steps")
