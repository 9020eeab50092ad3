"""A run's `run_cancelled` event says who asked for the cancel and when, or that no person
did (a scenario's cancel_on, a stopped process); the trace page's line for it says so too."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone

from atlas.runtime.cancellation import CancelRequest, cancel_request_data
from atlas.runtime.engine import run_scenario
from atlas.runtime.memory import MemoryCancelSignal, MemoryRunStore
from atlas.runtime.scenario import parse_scenario
from runs.actions import do_request_cancel, do_start_run
from runs.execution import advance_run, run_inline
from runs.models import Case, Membership, Run, TraceEvent
from runs.storage import DjangoRunStore
from tests.run_rows import T0, add_events, make_run

NO_PERSON = {
    "requested_by_person": False,
    "requested_by": None,
    "requested_by_id": None,
    "requested_at": None,
}


def _cancelled_event(run: Run) -> TraceEvent:
    return run.events.get(type="run_cancelled")


def _paused_run(case: Case, analyst) -> Run:
    """Northwind Trading has two registry candidates: the run asks which one is meant."""
    case.subject_name = "Northwind Trading"
    case.jurisdiction = ""
    case.save(update_fields=["subject_name", "jurisdiction"])
    run = run_inline(do_start_run(case, analyst, wake=False))
    assert run.status == "waiting_for_input"
    return run


def test_a_persons_cancel_names_them_and_when_they_asked(case, analyst):
    run = do_request_cancel(_paused_run(case, analyst), analyst)
    data = _cancelled_event(run).data
    assert data["requested_by_person"] is True
    assert data["requested_by"] == "Analyst"
    assert data["requested_by_id"] == str(analyst.pk)
    assert data["requested_at"] == run.cancel_requested_at.isoformat()
    # What the event always held is still there.
    assert (data["status"], data["reason"]) == ("cancelled", "cancelled")
    assert data["user_status"] == run.user_status


def test_a_cancel_the_worker_holding_the_run_carries_out_names_the_person(case, analyst):
    run = do_start_run(case, analyst, wake=False)
    Run.objects.filter(pk=run.pk).update(
        lease_owner="worker-x", lease_expires_at=timezone.now() + timedelta(seconds=30)
    )
    run = do_request_cancel(run, analyst)
    assert run.status == "queued"  # left to the worker, which cancels on its next pass
    advance_run(run.pk, owner="worker-x", cancel=MemoryCancelSignal())
    run.refresh_from_db()
    assert run.status == "cancelled"
    assert _cancelled_event(run).data["requested_by"] == "Analyst"
    assert _cancelled_event(run).data["requested_at"] == run.cancel_requested_at.isoformat()


def test_a_person_whose_login_is_an_email_address_is_named_by_user_id(tenant, case, analyst):
    person = get_user_model().objects.create_user(username="ana@bank.test", password="x")
    Membership.objects.create(user=person, tenant=tenant, role=Membership.Role.ANALYST)
    run = do_request_cancel(_paused_run(case, analyst), person)
    data = _cancelled_event(run).data
    assert data["requested_by"] == f"user {person.pk}"
    assert "ana@bank.test" not in json.dumps(data)


def test_a_scenarios_cancel_on_says_no_person_asked(db, tmp_path, capsys):
    scenario = {
        "case": {"subject": "Northwind Trading"},
        "human": {"cancel_on": {"event": "clarification_requested"}},
    }
    path = tmp_path / "scenario.json"
    path.write_text(json.dumps(scenario))
    call_command("run_case", "--scenario", str(path), "--json")
    record = json.loads(capsys.readouterr().out)
    cancelled = record["trace"][-1]
    assert cancelled["type"] == "run_cancelled"
    assert NO_PERSON.items() <= cancelled["data"].items()
    assert cancelled["data"]["reason"] == "cancelled"


def test_an_in_memory_run_cancelled_by_its_scenario_says_no_person_asked():
    scenario = parse_scenario(
        {
            "case": {"subject": "Northwind Trading"},
            "human": {"cancel_on": {"event": "clarification_requested"}},
        }
    )
    state, store = run_scenario(scenario)
    cancelled = store.events[state.run_id][-1]
    assert cancelled.type == "run_cancelled"
    assert NO_PERSON.items() <= cancelled.data.items()


def test_the_django_store_answers_from_the_runs_row(case, analyst):
    run = make_run(case, status=Run.Status.RESEARCHING)
    store = DjangoRunStore()
    assert store.cancel_request(str(run.pk)) is None
    Run.objects.filter(pk=run.pk).update(cancel_requested_at=T0, cancel_requested_by=analyst)
    assert store.cancel_request(str(run.pk)) == CancelRequest(
        requested_by="Analyst", requested_by_id=str(analyst.pk), requested_at=T0
    )


def test_a_store_that_cannot_say_who_asked_records_no_person():
    assert cancel_request_data(MemoryRunStore(), "run-1") == NO_PERSON


# ---------------------------------------------------------------- the trace page


def _cancelled_run(case, data: dict) -> Run:
    run = make_run(
        case,
        status=Run.Status.CANCELLED,
        termination_reason=Run.Reason.CANCELLED,
        user_status="The run was cancelled.",
        started_at=T0,
    )
    ended = {"status": "cancelled", "reason": "cancelled", "user_status": "The run was cancelled."}
    add_events(run, [[("run_started", {})], [("run_cancelled", {**ended, **data})]], start=T0)
    return run


def _trace_html(client, admin_user, run: Run) -> str:
    client.force_login(admin_user)
    return client.get(reverse("runs-trace", args=[run.pk])).content.decode()


@pytest.mark.django_db
def test_the_trace_page_says_who_cancelled_and_when_they_asked(client, admin_user, case, analyst):
    asked = (T0 + timedelta(seconds=4)).isoformat()
    run = _cancelled_run(
        case,
        {
            "requested_by_person": True,
            "requested_by": "Ana Lytic",
            "requested_by_id": str(analyst.pk),
            "requested_at": asked,
        },
    )
    html = _trace_html(client, admin_user, run)
    assert "cancelled / cancelled; asked for by Ana Lytic at 2026-03-02 09:00:04 UTC" in html


@pytest.mark.django_db
def test_the_trace_page_says_when_no_person_asked_for_the_cancel(client, admin_user, case):
    html = _trace_html(client, admin_user, _cancelled_run(case, NO_PERSON))
    assert "cancelled / cancelled; no person asked for it" in html


@pytest.mark.django_db
def test_an_event_recorded_before_it_named_the_requester_reads_as_it_did(client, admin_user, case):
    html = _trace_html(client, admin_user, _cancelled_run(case, {}))
    assert "cancelled / cancelled" in html
    assert "asked for" not in html


@pytest.mark.django_db
def test_why_it_stopped_names_who_cancelled_in_words_and_the_badge_is_not_repeated(
    client, admin_user, case, analyst
):
    asked = (T0 + timedelta(seconds=4)).isoformat()
    requester = {"requested_by_person": True, "requested_by": "Ana Lytic", "requested_at": asked}
    html = _trace_html(client, admin_user, _cancelled_run(case, requester))
    why = html.split("Why it stopped", 1)[1].split("</section>", 1)[0]
    assert "asked for by Ana Lytic at 2026-03-02 09:00:04 UTC" in why
    assert "<details><summary>Event data</summary>" in why
    head = html.split('class="page-head', 1)[1].split("</div>", 1)[0]
    assert head.count(">Cancelled</span>") == 1


def test_a_reply_that_arrives_after_a_cancel_is_in_the_trace_with_what_it_cost(
    db, tmp_path, capsys
):
    """The run is charged for a model call answered after the cancel: the trace records
    that reply and its usage, so its events add up to the run's totals."""
    scenario = {
        "case": {"subject": "Acme Analytics", "jurisdiction": "GB"},
        "human": {"cancel_on": {"event": "model_requested", "nth": 1}},
    }
    path = tmp_path / "scenario.json"
    path.write_text(json.dumps(scenario))
    call_command("run_case", "--scenario", str(path), "--json")
    record = json.loads(capsys.readouterr().out)
    assert record["status"] == "cancelled"
    assert record["tokens"] > 0
    charged = sum(
        event["data"]["usage"]["input_tokens"] + event["data"]["usage"]["output_tokens"]
        for event in record["trace"]
        if "usage" in event["data"]
    )
    assert charged == record["tokens"]
    assert [event["type"] for event in record["trace"]][-2:] == ["model_decision", "run_cancelled"]
    # Not acted on, and so not an attempt the loop-health metrics count.
    assert record["trace"][-2]["data"]["not_acted_on"] == "cancelled"
    from runs.metrics import by_nothing, tallies

    (tally,) = tallies(Run.objects.all(), by_nothing).values()
    assert tally.attempts == 0
