"""What an admin sees in Chromium: the run browser, a long trace, a real trace, the dashboard."""

from __future__ import annotations

import datetime as dt
import random
import threading
from decimal import Decimal
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from django.db import connections
from django.utils import timezone

from runs.models import Run
from tests.conftest import login_in_browser, screenshot
from tests.run_rows import add_events, add_observation, add_tool_call, make_run, tool_step

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SUITE = Path(__file__).resolve().parent.parent / "evals" / "standard"
REASONS = [
    (Run.Status.AWAITING_REVIEW, Run.Reason.FINISH_PROPOSED),
    (Run.Status.COMPLETED, Run.Reason.PACKET_APPROVED),
    (Run.Status.AWAITING_REVIEW, Run.Reason.NO_PROGRESS),
    (Run.Status.AWAITING_REVIEW, Run.Reason.MAX_ITERATIONS),
    (Run.Status.FAILED, Run.Reason.TOOL_FAILURE),
    (Run.Status.CANCELLED, Run.Reason.CANCELLED),
]


def long_run(case, steps: int = 1250):
    started = timezone.now() - dt.timedelta(hours=1)
    run = make_run(
        case,
        status=Run.Status.AWAITING_REVIEW,
        termination_reason=Run.Reason.MAX_ITERATIONS,
        user_status="The research stopped at its iteration limit; a reviewer should look at the partial packet.",
        iterations=steps,
        tokens=steps * 100,
        cost_usd=Decimal("0.01") * steps,
        started_at=started,
        elapsed_seconds=3600,
    )
    tools = ["resolve_entity", "screen_sanctions", "search_adverse_media"]
    add_events(run, [tool_step(n, tools[n % 3]) for n in range(1, steps + 1)], start=started)
    add_observation(
        run,
        1,
        data={
            "candidates": [
                {
                    "entity_id": "co-acme-analytics-gb",
                    "name": "Acme Analytics Ltd",
                    "registration_number": "08812345",
                }
            ]
        },
        model_view='<tool_result source="resolve_entity">Acme Analytics Ltd (GB, no. 08812345) [co-acme-analytics-gb]</tool_result>',
    )
    return run


def history(case, days: int = 14, per_day: int = 12):
    """Runs over two weeks with a mix of outcomes and two prompt versions."""
    rng = random.Random(7)
    today = timezone.now().replace(hour=10)
    for day in range(days):
        for _ in range(per_day):
            status, reason = rng.choice(REASONS)
            prompt = "atlas-prompt/2" if day < days // 2 else "atlas-prompt/1"
            run = make_run(
                case,
                status=status,
                termination_reason=reason,
                iterations=rng.randint(3, 12),
                tokens=rng.randint(800, 6000),
                cost_usd=Decimal(rng.randint(5, 90)) / 100,
                elapsed_seconds=rng.uniform(2, 90),
                prompt_version=prompt,
                created_at=today - dt.timedelta(days=day, minutes=rng.randint(0, 600)),
            )
            steps = [tool_step(1, "resolve_entity"), tool_step(2, "screen_sanctions")]
            if rng.random() < 0.3:
                steps.append([("duplicate_action_blocked", {"tool": "screen_sanctions"})])
            if rng.random() < 0.2:
                steps.append([("final_rejected", {"errors": ["uncited claim"]})])
            add_events(run, steps)
            add_tool_call(run, 1, "resolve_entity")
            add_tool_call(run, 2, "screen_sanctions", effect=rng.choice(["succeeded", "failed"]))


def test_an_admin_browses_runs_opens_a_long_trace_and_the_dashboard(
    live_server, page, admin_user, case, tenant
):
    # Playwright's sync API runs an event loop in this thread; real runs announce their
    # updates through async_to_sync, which refuses to run there.
    def evaluate() -> None:
        try:
            call_command(
                "atlas_eval",
                str(SUITE),
                "--html",
                "/dev/null",
                "--tenant",
                tenant.slug,
                stdout=StringIO(),
            )
        finally:
            connections.close_all()  # an open session would keep the test database

    worker = threading.Thread(target=evaluate)
    worker.start()
    worker.join()
    assert Run.objects.filter(case__subject_name="Meridian Shipping Holdings").exists()
    history(case)
    run = long_run(case)
    assert run.last_seq == 5000
    login_in_browser(page, live_server.url, "admin")

    page.goto(f"{live_server.url}/runs/")
    assert page.locator("table.run-table tbody tr").count() == 50
    screenshot(page, "admin-run-browser")
    page.select_option("select[name=reason]", "no_progress")
    page.click("form.filters button[type=submit]")
    page.wait_for_load_state()
    reasons = page.locator("table.run-table tbody tr td:nth-child(4)").all_inner_texts()
    assert reasons and set(reasons) == {"No progress"}

    page.goto(f"{live_server.url}/runs/{run.pk}/trace/")
    steps = page.locator("details.trace-step")
    first_count = steps.count()
    assert 0 < first_count < 60, "a 5,000-event trace renders one page of steps"
    page.locator("details.trace-step").first.locator("summary").click()
    screenshot(page, "admin-trace-long")
    page.click("#trace-more")
    page.wait_for_function(
        f"() => document.querySelectorAll('details.trace-step').length > {first_count}"
    )
    assert steps.count() > first_count
    numbers = [int(n) for n in steps.evaluate_all("els => els.map(e => e.dataset.step)")]
    assert numbers == list(range(1, len(numbers) + 1)), "no step twice, none skipped"

    conflicting = Run.objects.filter(
        case__subject_name="Meridian Shipping Holdings", termination_reason="finish_proposed"
    ).first()
    page.goto(f"{live_server.url}/runs/{conflicting.pk}/trace/")
    for summary in page.locator("details.trace-step summary").all()[:4]:
        summary.click()
    assert page.get_by_text("What the model saw").first.is_visible()
    screenshot(page, "admin-trace-conflict")

    page.goto(f"{live_server.url}/metrics/")
    assert page.locator("svg.chart").count() >= 17
    page.locator("#metric-escalation_rate details summary").click()
    screenshot(page, "admin-metrics")


def test_a_trace_in_progress_shows_new_steps_without_a_reload(live_server, page, admin_user, case):
    started = timezone.now()
    run = make_run(case, status=Run.Status.RESEARCHING, termination_reason="", started_at=started)
    add_events(run, [[("run_started", {})], tool_step(2)[:3]], start=started)
    login_in_browser(page, live_server.url, "admin")
    page.goto(f"{live_server.url}/runs/{run.pk}/trace/")
    assert page.locator("details.trace-step").count() == 2
    assert page.locator(".trace-live").is_visible()

    add_events(
        run,
        [[], [tool_step(2)[3]], [("finish_proposed", {"packet": {"risk_rating": "low"}})]],
        start=started,
    )
    Run.objects.filter(pk=run.pk).update(
        status=Run.Status.AWAITING_REVIEW, termination_reason=Run.Reason.FINISH_PROPOSED
    )
    page.wait_for_selector("#trace-step-3", timeout=6_000)
    assert page.locator("#trace-step-2 table.events tbody tr").count() == 4, (
        "step 2 was replaced whole"
    )
    assert page.locator("details.trace-step").count() == 3
    assert page.locator("#trace-status").inner_text() == "Awaiting review"
    assert page.locator(".trace-live").count() == 0, "polling stops once the run pauses"
    screenshot(page, "admin-trace-live")
