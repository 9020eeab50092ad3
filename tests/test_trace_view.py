"""The trace view: timeline by step, state change, observations, versions, paging, live."""

from __future__ import annotations

import re
from decimal import Decimal

import pytest
from django.urls import reverse

from runs.models import Case, Run, TraceEvent
from runs.views import trace_steps
from tests.run_rows import T0, add_events, add_observation, make_run, tool_step

pytestmark = pytest.mark.django_db


def trace_url(run: Run) -> str:
    return reverse("runs-trace", args=[run.pk])


def steps_on(html: str) -> list[int]:
    return [int(n) for n in re.findall(r'data-step="(\d+)"', html)]


@pytest.fixture
def finished_run(case):
    run = make_run(
        case,
        status=Run.Status.AWAITING_REVIEW,
        termination_reason=Run.Reason.FINISH_PROPOSED,
        user_status="Research is done and the packet is waiting for a reviewer's sign-off.",
        started_at=T0,
        state={
            "versions": {"model": "playbook", "model_kind": "rule-based"},
            "proposed_packet": {
                "subject": "Acme Widgets Ltd",
                "risk_rating": "medium",
                "findings": [{"claim": "Registered in GB", "evidence_ids": ["ev-1"]}],
                "unresolved_conflicts": [],
                "open_gaps": [],
            },
            "conflicts": [],
        },
    )
    add_events(
        run,
        [
            [("run_started", {})],
            tool_step(2, "resolve_entity", tokens=300, cost="0.0030"),
            [
                (
                    "model_decision",
                    {
                        "kind": "finish",
                        "usage": {"input_tokens": 50, "output_tokens": 10, "cost_usd": "0.0010"},
                    },
                ),
                ("finish_proposed", {"packet": {"risk_rating": "medium", "findings": [{}]}}),
            ],
        ],
        start=T0,
    )
    add_observation(
        run,
        2,
        data={
            "candidates": [
                {"entity_id": "gb-001", "name": "Acme Widgets Ltd", "email": "ceo@acme.test"}
            ]
        },
        model_view="<tool_result>Acme Widgets Ltd [gb-001] email [REDACTED]</tool_result>",
    )
    return run


@pytest.mark.parametrize("persona", ["analyst", "reviewer"])
def test_analysts_and_reviewers_cannot_open_a_trace(request, client, persona, finished_run):
    client.force_login(request.getfixturevalue(persona))
    assert client.get(trace_url(finished_run)).status_code == 403
    assert client.get(reverse("runs-trace-json", args=[finished_run.pk])).status_code == 403
    assert client.get(reverse("runs-trace-steps", args=[finished_run.pk])).status_code == 403


def test_another_tenants_run_is_not_found(client, admin_user, outsider_case):
    theirs = make_run(outsider_case)
    add_events(theirs, [[("run_started", {})]])
    client.force_login(admin_user)
    assert client.get(trace_url(theirs)).status_code == 404
    assert client.get(reverse("runs-trace-json", args=[theirs.pk])).status_code == 404
    assert client.get(reverse("runs-trace-steps", args=[theirs.pk])).status_code == 404


def test_the_trace_shows_steps_tokens_cost_offsets_and_the_packet(client, admin_user, finished_run):
    client.force_login(admin_user)
    response = client.get(trace_url(finished_run))
    html = response.content.decode()
    assert response.status_code == 200
    assert steps_on(html) == [1, 2, 3]
    assert html.count("<details") >= 3
    assert "300 tok" in html and "$0.0030" in html
    assert "+3.000s" in html  # seq 3 is three seconds after the run started
    assert "Final packet" in html and "risk-medium" in html
    for label in (
        "atlas-prompt/1",
        "atlas-policy/1",
        "next-action/1",
        "atlas-tools/1",
        "rule-based",
    ):
        assert label in html


def test_each_step_says_what_it_changed_in_the_state(client, admin_user, finished_run):
    client.force_login(admin_user)
    html = client.get(trace_url(finished_run)).content.decode()
    assert "status: queued → researching" in html
    assert "+ evidence source src-2" in html.replace("</span> ", " ").replace(
        '<span class="mono">', ""
    )
    assert "tokens +300" in html
    assert "status: researching → awaiting_review" in html
    assert "proposed packet (risk medium)" in html
    assert "risk medium, 1 finding<" in html


def test_observations_show_what_the_model_saw_next_to_what_was_stored(
    client, admin_user, finished_run
):
    client.force_login(admin_user)
    html = client.get(trace_url(finished_run)).content.decode()
    assert "email [REDACTED]" in html.replace("&lt;", "<").replace("&gt;", ">")
    # The record keeps it whole; the page shows it redacted, even to admins.
    assert "ceo@acme.test" not in html
    assert "What the model saw" in html and "personal data redacted on this page" in html


def test_tool_data_is_escaped(client, admin_user, case):
    run = make_run(case, started_at=T0)
    add_events(
        run,
        [
            [
                (
                    "tool_failed",
                    {"tool": "x", "error_type": "e", "message": "<script>alert(1)</script>"},
                )
            ]
        ],
    )
    client.force_login(admin_user)
    html = client.get(trace_url(run)).content.decode()
    assert "<script>alert(1)" not in html
    assert "&lt;script&gt;alert(1)" in html


def test_a_long_trace_renders_one_page_and_loads_more(client, admin_user, case, monkeypatch):
    monkeypatch.setattr(trace_steps, "PAGE_EVENTS", 20)
    run = make_run(case, started_at=T0)
    add_events(run, [tool_step(n) for n in range(1, 21)], start=T0)  # 80 events
    client.force_login(admin_user)
    html = client.get(trace_url(run)).content.decode()
    first = steps_on(html)
    assert first == [1, 2, 3, 4, 5]
    more = re.search(r'hx-get="([^"]*after=(\d+))"', html)
    assert more and more.group(2) == "20"
    seen = list(first)
    url = more.group(1).replace("&amp;", "&")
    while url:
        fragment = client.get(url, headers={"HX-Request": "true"}).content.decode()
        assert "<html" not in fragment
        seen += steps_on(fragment)
        found = re.search(r'hx-get="([^"]*after=\d+)"', fragment)
        url = found.group(1).replace("&amp;", "&") if found else ""
    assert seen == list(range(1, 21))


def test_load_more_works_without_javascript(client, admin_user, case, monkeypatch):
    monkeypatch.setattr(trace_steps, "PAGE_EVENTS", 8)
    run = make_run(case, started_at=T0)
    add_events(run, [tool_step(n) for n in range(1, 5)])
    client.force_login(admin_user)
    page = client.get(reverse("runs-trace-steps", args=[run.pk]), {"after": 8})
    assert page.status_code == 200
    assert "<html" in page.content.decode()
    assert steps_on(page.content.decode()) == [3, 4]


def test_a_bad_cursor_is_a_clear_400(client, admin_user, finished_run):
    client.force_login(admin_user)
    response = client.get(reverse("runs-trace-steps", args=[finished_run.pk]), {"after": "x"})
    assert response.status_code == 400
    assert b"whole numbers" in response.content


def test_a_run_in_progress_polls_for_new_events_and_replaces_its_last_step(
    client, admin_user, case
):
    run = make_run(case, status=Run.Status.RESEARCHING, termination_reason="", started_at=T0)
    add_events(run, [[("run_started", {})], tool_step(2)[:3]])  # step 2 is mid tool call
    client.force_login(admin_user)
    html = client.get(trace_url(run)).content.decode()
    poll = re.search(r'hx-get="([^"]*live=1[^"]*)"\s+hx-trigger="every 2s"', html)
    assert poll, "an active run polls"
    url = poll.group(1).replace("&amp;", "&")
    assert "after=1" in url and "replace=2" in url
    # The tool call finishes and the run proposes a packet.
    add_events(run, [[], [], [("finish_proposed", {"packet": {"risk_rating": "low"}})]])
    Run.objects.filter(pk=run.pk).update(status=Run.Status.AWAITING_REVIEW)
    response = client.get(url, headers={"HX-Request": "true"})
    fragment = response.content.decode()
    assert re.search(r'id="trace-step-2"[^>]*hx-swap-oob="outerHTML"', fragment)
    assert steps_on(fragment) == [2, 3]
    assert "every 2s" not in fragment, "a paused run stops polling"
    assert 'id="trace-status" hx-swap-oob="true"' in fragment
    # Its head (why it stopped, the packet, the totals) is read again with the page.
    assert response["HX-Refresh"] == "true"


def test_a_finished_run_does_not_poll(client, admin_user, finished_run):
    client.force_login(admin_user)
    assert "every 2s" not in client.get(trace_url(finished_run)).content.decode()


def test_a_failed_run_says_why_it_stopped(client, admin_user, case):
    run = make_run(
        case,
        status=Run.Status.FAILED,
        termination_reason=Run.Reason.TOOL_FAILURE,
        user_status="A research tool failed in a way retrying cannot fix; the run stopped.",
        started_at=T0,
    )
    add_events(
        run,
        [[("run_started", {})], [("run_failed", {"status": "failed", "reason": "tool_failure"})]],
    )
    client.force_login(admin_user)
    html = client.get(trace_url(run)).content.decode()
    assert "Why it stopped" in html
    assert "run_failed" in html and "retrying cannot fix" in html
    assert "&quot;reason&quot;: &quot;tool_failure&quot;" in html  # JSON, not a Python dict
    assert "&#x27;reason&#x27;" not in html


def test_a_step_says_when_its_tokens_were_estimated():
    tracker = trace_steps.StateTracker("researching")
    usage = {"input_tokens": 900, "output_tokens": 40, "cost_usd": "0.0026"}
    estimated = TraceEvent(type="model_decision", data={"usage": usage, "usage_estimated": True})
    reported = TraceEvent(type="model_decision", data={"usage": usage})
    assert ("~", "tokens +940 (estimated: the model did not report usage)") in tracker.changes(
        estimated
    )
    assert ("~", "tokens +940") in tracker.changes(reported)


def test_a_worker_crash_the_run_got_past_is_shown_as_such(client, admin_user, finished_run):
    client.force_login(admin_user)
    finished_run.last_error = "ValidationError: state is empty"
    finished_run.worker_failures = 1
    finished_run.save(update_fields=["last_error", "worker_failures"])
    still_failing = client.get(trace_url(finished_run)).content.decode()
    assert "ValidationError: state is empty" in still_failing
    assert "went on cleanly" not in still_failing
    finished_run.worker_failures = 0  # a clean pass resets the count, keeps the error
    finished_run.save(update_fields=["worker_failures"])
    recovered = client.get(trace_url(finished_run)).content.decode()
    assert "ValidationError: state is empty" in recovered and "went on cleanly" in recovered


def test_runs_and_cases_closed_as_they_stood_are_listed_apart_from_signed_off_ones(
    client, admin_user, analyst, case
):
    signed = make_run(case)
    closed = make_run(case, closed_by_reviewer=True)
    client.force_login(admin_user)
    listed = client.get(reverse("runs-trace-list"), {"reason": Run.CLOSED_BY_REVIEWER})
    html = listed.content.decode()
    assert f'href="{trace_url(closed)}"' in html and f'href="{trace_url(signed)}"' not in html
    assert "<td>Closed by a reviewer</td>" in html
    assert 'value="closed_by_reviewer" selected' in html
    approved = client.get(reverse("runs-trace-list"), {"reason": "packet_approved"}).content
    approved = approved.decode()
    assert (
        f'href="{trace_url(signed)}"' in approved and f'href="{trace_url(closed)}"' not in approved
    )
    assert "<td>Packet approved</td>" in approved

    other = Case.objects.create(
        tenant=case.tenant,
        subject_name="Signed Off Ltd",
        subject_type="company",
        created_by=analyst,
    )
    make_run(other)
    client.force_login(analyst)
    cases = client.get(reverse("runs-case-list"), {"reason": Run.CLOSED_BY_REVIEWER}).content
    assert case.subject_name in cases.decode()  # its latest run is the closed one
    assert "Signed Off Ltd" not in cases.decode()
    approved = client.get(reverse("runs-case-list"), {"reason": "packet_approved"}).content
    assert "Signed Off Ltd" in approved.decode() and case.subject_name not in approved.decode()


def test_a_step_that_waited_for_a_person_counts_the_wait_apart(client, admin_user, case):
    from runs.views.trace_steps import trace_page

    run = make_run(case, started_at=T0)
    add_events(
        run,
        [
            [
                ("model_requested", {}),
                ("model_decision", {"kind": "ask_human", "question": "Which one?"}),
                ("clarification_requested", {"question": "Which one?"}),
                ("clarification_received", {"answer": "GB"}),
                ("run_resumed", {"cause": "human_input"}),
            ]
        ],
    )
    (step,) = trace_page(run).steps
    assert step.duration_ms == 2000  # the request, the decision, the question
    assert step.waited_s == 2.0
    client.force_login(admin_user)
    html = client.get(trace_url(run)).content.decode()
    assert "2000 ms" in html and "then waited 2 s for a person" in html


def test_an_escalation_after_the_packet_is_not_counted_as_waiting_for_a_person(
    client, admin_user, case
):
    from runs.views.trace_steps import trace_page

    run = make_run(case, started_at=T0)
    add_events(
        run,
        [
            [
                ("model_requested", {}),
                ("model_decision", {"kind": "finish"}),
                ("finish_proposed", {}),
                ("escalated", {"reason": "unresolved_conflict"}),
            ]
        ],
    )
    (step,) = trace_page(run).steps
    assert (step.duration_ms, step.waited_s) == (3000, 0.0)
    client.force_login(admin_user)
    assert "for a person" not in client.get(trace_url(run)).content.decode()


def test_a_step_counts_its_failed_model_calls_and_spans_its_events_once(case):
    from runs.views.trace_steps import trace_page

    run = make_run(case, started_at=T0)
    usage = {"input_tokens": 100, "output_tokens": 20, "cost_usd": "0.01"}
    add_events(
        run,
        [
            [
                ("model_requested", {}),
                ("model_failed", {"error_type": "invalid_json", "message": "x", "usage": usage}),
                ("model_decision", {"kind": "call_tool", "tool_name": "x", "usage": usage}),
                ("tool_started", {"tool": "x", "arguments": {}}),
                ("tool_succeeded", {"tool": "x", "summary": "ok"}),  # duration_ms 12
            ]
        ],
    )
    (step,) = trace_page(run).steps
    assert (step.tokens, step.cost_usd) == (240, Decimal("0.02"))
    assert step.duration_ms == 4000  # first to last event, the tool's 12 ms inside it


def test_a_refused_finish_shows_what_it_proposed(client, admin_user, case):
    run = make_run(case, started_at=T0)
    packet = {"risk_rating": "low", "findings": [{"claim": "x", "evidence_ids": ["ev-9"]}]}
    errors = ["Finding 1 cites ev-9.", "A low rating is ruled out."]
    add_events(run, [[("final_rejected", {"errors": errors, "packet": packet})]])
    client.force_login(admin_user)
    html = client.get(trace_url(run)).content.decode()
    assert (
        "Finding 1 cites ev-9. A low rating is ruled out. (refused packet: risk low, findings 1)"
    ) in html


def test_a_steps_tokens_read_in_thousands(client, admin_user, case):
    run = make_run(case, started_at=T0)
    add_events(run, [tool_step(1, "resolve_entity", tokens=12345, cost="0.0100")], start=T0)
    client.force_login(admin_user)
    assert "12,345 tok" in client.get(trace_url(run)).content.decode()


@pytest.mark.parametrize(
    ("kind", "data", "said"),
    [
        (
            "run_started",
            {
                "subject": "Acme",
                "subject_type": "company",
                "jurisdiction": "GB",
                "documents": [{}],
                "versions": {"model": "playbook"},
            },
            "Acme (company, GB), 1 document, model playbook",
        ),
        (
            "model_requested",
            {"iteration": 3, "reserved_tokens": 4000, "reserved_cost_usd": "0.0100"},
            "iteration 3: reserved 4000 tokens, $0.0100",
        ),
        (
            "result_truncated",
            {"tool": "search_adverse_media", "stored_chars": 90000, "shown_chars": 8200},
            "search_adverse_media: 90000 chars stored, 8200 shown to the model",
        ),
        (
            "model_failed",
            {"error_type": "invalid_json", "message": "Not JSON", "raw_excerpt": "{call tool"},
            "invalid_json: Not JSON; it wrote: {call tool",
        ),
    ],
)
def test_every_event_says_what_it_holds(kind, data, said):
    assert trace_steps.event_summary(TraceEvent(type=kind, data=data)) == said


def test_what_a_model_wrote_is_shown_escaped_and_an_empty_record_is_not_shown_as_null(
    client, admin_user, case
):
    run = make_run(case, started_at=T0)
    add_events(
        run,
        [[("model_failed", {"error_type": "invalid_json", "raw_excerpt": "<b>not json"})]],
    )
    add_observation(run, 1, data=None, model_view="The reply was not JSON.", name="model")
    client.force_login(admin_user)
    html = client.get(trace_url(run)).content.decode()
    assert "it wrote: &lt;b&gt;not json" in html
    assert "Nothing was stored beyond what the model saw." in html
    assert "<pre>null</pre>" not in html


def test_a_decisions_reason_is_shown_redacted_on_the_trace(
    client, tenant, analyst, reviewer, admin_user
):
    from reviews.actions import do_decide_approval
    from tests.review_runs import approval_item

    item = approval_item(tenant, analyst)
    do_decide_approval(item, reviewer, True, "Checked her passport K7654321 against the file")
    client.force_login(admin_user)
    html = client.get(reverse("runs-trace", args=[item.run_id])).content.decode()
    assert "Checked her passport [REDACTED PASSPORT] against the file" in html
    assert "K7654321" not in html


def test_a_superuser_of_no_tenant_is_not_linked_to_pages_only_a_tenant_member_opens(
    client, root, finished_run
):
    """The trace and the runs list are theirs to read; a run's packet and the case pages
    are a tenant's, and would refuse them."""
    client.force_login(root)
    html = client.get(trace_url(finished_run)).content.decode()
    assert "Runs" in html and reverse("runs-trace-list") in html
    for refused in ("runs-packet", "runs-case-list", "reviews-audit"):
        url = (
            reverse(refused, args=[finished_run.pk])
            if refused == "runs-packet"
            else reverse(refused)
        )
        assert f'href="{url}"' not in html
        assert client.get(url).status_code == 403
    nav = client.get(reverse("nav-links")).content.decode()
    assert reverse("runs-trace-list") in nav and reverse("runs-case-list") not in nav


def test_a_superuser_of_another_tenant_is_not_linked_to_this_tenants_packet(
    client, root, other_tenant, finished_run
):
    from runs.models import Membership

    Membership.objects.create(user=root, tenant=other_tenant, role=Membership.Role.ADMIN)
    client.force_login(root)
    html = client.get(trace_url(finished_run)).content.decode()
    packet = reverse("runs-packet", args=[finished_run.pk])
    assert f'href="{packet}"' not in html
    assert client.get(packet).status_code == 404
