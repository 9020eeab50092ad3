"""What the trace page names: a step by the call it ran, a packet's open gaps one by one."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from runs.models import Run
from tests.run_rows import T0, add_events, make_run

pytestmark = pytest.mark.django_db


def test_a_step_that_runs_an_approved_call_is_named_after_its_tool(client, admin_user, case):
    run = make_run(case, started_at=T0)
    approved_call = [
        ("tool_started", {"tool": "extract_uploaded_document", "attempt": 1}),
        ("tool_succeeded", {"tool": "extract_uploaded_document", "summary": "3 fields"}),
    ]
    add_events(run, [[("run_started", {})], approved_call], start=T0)
    client.force_login(admin_user)
    html = client.get(reverse("runs-trace", args=[run.pk])).content.decode()
    titles = re.findall(r'<span class="step-no">\d+</span>\s*<strong>([^<]*)</strong>', html)
    assert titles == ["run started", "extract_uploaded_document"]


def test_each_open_gap_of_the_packet_is_its_own_line(client, admin_user, case):
    gaps = ["Still to do: sanctions screening.", "The model said: no more calls"]
    run = make_run(
        case,
        status=Run.Status.AWAITING_REVIEW,
        termination_reason=Run.Reason.MAX_ITERATIONS,
        state={"proposed_packet": {"risk_rating": "unrated", "partial": True, "open_gaps": gaps}},
    )
    client.force_login(admin_user)
    html = client.get(reverse("runs-trace", args=[run.pk])).content.decode()
    assert (
        "<li>Still to do: sanctions screening.</li><li>The model said: no more calls</li>" in html
    )
