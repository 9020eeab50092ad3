"""Exports: one run's trace as JSON, the filtered runs as JSON Lines, both streamed."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from runs.exports import CHUNK
from runs.models import Run
from tests.asgi_requests import served_by_asgi
from tests.case_rows import decision_row
from tests.run_rows import T0, add_events, closed_and_signed_off_runs, make_run, tool_step

pytestmark = pytest.mark.django_db


def body(response) -> str:
    assert response.streaming, "exports are streamed, not built in memory"
    return b"".join(response.streaming_content).decode()


def test_the_trace_json_is_valid_and_has_every_event_in_order(client, admin_user, case):
    run = make_run(
        case,
        status=Run.Status.AWAITING_REVIEW,
        termination_reason=Run.Reason.NO_PROGRESS,
        user_status="stopped",
        iterations=7,
        tokens=1234,
        cost_usd=Decimal("0.012345"),
        started_at=T0,
        state={"conflicts": [{"conflict_id": "c1", "fact": "directors", "status": "open"}]},
    )
    add_events(run, [tool_step(n) for n in range(1, 601)])  # 2,400 events
    client.force_login(admin_user)
    record = json.loads(body(client.get(reverse("runs-trace-json", args=[run.pk]))))
    for key in ("run_id", "status", "termination_reason", "user_status", "iterations", "tokens",
                "cost_usd", "packet", "conflicts", "trace"):  # fmt: skip
        assert key in record
    assert record["run_id"] == run.pk
    assert record["termination_reason"] == "no_progress"
    assert record["cost_usd"] == "0.012345"
    assert record["conflicts"][0]["fact"] == "directors"
    assert record["packet"] is None
    assert [event["seq"] for event in record["trace"]] == list(range(1, 2401))
    assert record["trace"][1]["type"] == "model_decision"
    assert record["trace"][1]["data"]["usage"]["cost_usd"] == "0.0100"
    assert record["trace"][3]["step"] == 1


def test_a_run_without_events_exports_an_empty_trace(client, admin_user, case):
    run = make_run(case, status=Run.Status.QUEUED, termination_reason="")
    client.force_login(admin_user)
    record = json.loads(body(client.get(reverse("runs-trace-json", args=[run.pk]))))
    assert record["trace"] == []
    assert record["termination_reason"] is None


def test_jsonl_has_one_parseable_line_per_filtered_run(client, admin_user, case, outsider_case):
    failed = [
        make_run(case, status=Run.Status.FAILED, termination_reason=Run.Reason.MODEL_FAILURE)
        for _ in range(3)
    ]
    make_run(case)
    make_run(outsider_case, status=Run.Status.FAILED, termination_reason=Run.Reason.TOOL_FAILURE)
    client.force_login(admin_user)
    response = client.get(reverse("runs-export-jsonl"), {"status": "failed"})
    assert response["Content-Type"] == "application/x-ndjson"
    lines = body(response).splitlines()
    rows = [json.loads(line) for line in lines]
    assert [row["run_id"] for row in rows] == sorted((r.pk for r in failed), reverse=True)
    assert {row["tenant"] for row in rows} == {"demo-bank"}
    assert rows[0]["versions"]["policy"] == "atlas-policy/1"
    assert rows[0]["subject"] == "Acme Widgets Ltd"
    assert rows[0]["closed_by_reviewer"] is False


def test_jsonl_tells_a_case_closed_as_it_stood_from_a_signed_off_packet(client, admin_user, case):
    closed, signed = closed_and_signed_off_runs(case)
    client.force_login(admin_user)
    rows = [
        json.loads(line) for line in body(client.get(reverse("runs-export-jsonl"))).splitlines()
    ]
    assert {row["run_id"]: row["closed_by_reviewer"] for row in rows} == {
        closed.pk: True,
        signed.pk: False,
    }


def test_both_exports_carry_the_decisions_people_took_on_each_run(
    client, admin_user, case, reviewer, second_reviewer
):
    signed = make_run(case, status=Run.Status.COMPLETED, termination_reason="packet_approved")
    other = make_run(case, status=Run.Status.COMPLETED, termination_reason="packet_approved")
    untouched = make_run(case)
    decision_row(signed, second_reviewer, "Sent back: name the source", kind="reject_packet")
    decision_row(signed, reviewer, "Evidence complete", kind="sign_off", version=2)
    decision_row(other, reviewer, "Routine", kind="sign_off")
    client.force_login(admin_user)

    response = client.get(reverse("runs-export-jsonl"))
    assert response["Content-Disposition"] == (
        f'attachment; filename="atlas-runs-demo-bank-{timezone.localdate():%Y-%m-%d}.jsonl"'
    )
    rows = {row["run_id"]: row for row in map(json.loads, body(response).splitlines())}
    decided = rows[signed.pk]["decisions"]
    assert [(d["kind"], d["actor"], d["reason"]) for d in decided] == [
        ("reject_packet", second_reviewer.username, "Sent back: name the source"),
        ("sign_off", reviewer.username, "Evidence complete"),
    ]
    assert decided[1]["state_version"] == 2 and decided[1]["created_at"]
    assert [d["reason"] for d in rows[other.pk]["decisions"]] == ["Routine"]
    assert rows[untouched.pk]["decisions"] == []

    trace = json.loads(body(client.get(reverse("runs-trace-json", args=[signed.pk]))))
    assert [d["kind"] for d in trace["decisions"]] == ["reject_packet", "sign_off"]


def test_jsonl_refuses_bad_filters_with_a_message(client, admin_user, case):
    client.force_login(admin_user)
    response = client.get(reverse("runs-export-jsonl"), {"date_from": "31/02/2026"})
    assert response.status_code == 400
    assert response.content.decode() == (
        "Cannot export: '31/02/2026' is not a date (use YYYY-MM-DD). Nothing was exported."
    )
    reversed_dates = {"date_from": "2026-12-05", "date_to": "2026-12-01"}
    response = client.get(reverse("runs-export-jsonl"), reversed_dates)
    assert response.status_code == 400
    assert "The From date (2026-12-05) is after the To date (2026-12-01)" in (
        response.content.decode()
    )
    listed = client.get(reverse("runs-trace-list"), reversed_dates).content.decode()
    assert "is after the To date (2026-12-01); no run can match: swap them." in listed


def test_jsonl_exports_through_the_last_day_of_the_calendar(client, admin_user, case):
    run = make_run(case)
    client.force_login(admin_user)
    response = client.get(reverse("runs-export-jsonl"), {"date_to": "9999-12-31"})
    assert response.status_code == 200
    assert [json.loads(line)["run_id"] for line in body(response).splitlines()] == [run.pk]


@pytest.mark.django_db(transaction=True)
def test_under_asgi_the_exports_are_served_from_an_async_iterator(admin_user, case):
    run = make_run(case, status=Run.Status.COMPLETED, termination_reason="packet_approved")
    add_events(run, [tool_step(n) for n in range(1, CHUNK // 2 + 2)])  # 2 chunks and 4 events
    for _ in range(CHUNK + 1):
        make_run(case, status=Run.Status.FAILED, termination_reason=Run.Reason.MODEL_FAILURE)
    browser = Client()
    browser.force_login(admin_user)
    cookie = f"sessionid={browser.cookies['sessionid'].value}".encode()
    trace_url = reverse("runs-trace-json", args=[run.pk])
    jsonl_url = reverse("runs-export-jsonl") + "?status=failed"

    trace_parts, trace_warnings = served_by_asgi(trace_url, cookie)
    jsonl_parts, jsonl_warnings = served_by_asgi(jsonl_url, cookie)

    # Django warns, and reads the whole body into memory first, when an ASGI response
    # has only a synchronous iterator to give.
    assert not [w for w in trace_warnings + jsonl_warnings if "synchronous iterators" in w]
    assert b"".join(trace_parts).decode() == body(browser.get(trace_url))
    record = json.loads(b"".join(trace_parts))
    assert [event["seq"] for event in record["trace"]] == list(range(1, CHUNK * 2 + 5))
    lines = b"".join(jsonl_parts).decode().splitlines()
    assert len(lines) == CHUNK + 1 and {json.loads(line)["status"] for line in lines} == {"failed"}
    assert b"".join(jsonl_parts).decode() == body(browser.get(jsonl_url))
