"""Every trace event says what it holds: on the trace page a row per event, on the case page a
note per step. A person's decision says who decided, what and why; a run's last event says
how it ended in the run's own words."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from django.urls import reverse

from atlas.runtime.adapters.playbook import Playbook
from atlas.runtime.engine import Runtime
from atlas.runtime.humans import CloseCase
from atlas.runtime.memory import FakeClock, MemoryCancelSignal, MemoryDocumentSource, MemoryRunStore
from atlas.runtime.policy import TenantPolicy
from atlas.runtime.result_words import result_summary
from atlas.runtime.scenario import EVENT_TYPES
from atlas.runtime.state import (
    CASE_CLOSED_USER_STATUS,
    USER_STATUS,
    AttachedDocument,
    CaseBrief,
    new_state,
)
from atlas.runtime.world import sample_documents
from atlas.runtime.world.normalize import fingerprint_text
from runs.models import Run, TraceEvent
from runs.step_views import group_steps
from runs.views.trace_steps import event_summary
from tests.run_rows import T0, add_events, make_run
from tests.runtime.runtime_helpers import decide

RUNTIME_DIR = Path(__file__).resolve().parent.parent / "atlas" / "runtime"
XSS = "<script>alert(1)</script>"

# Each event type with data as the runtime emits it (see the emit calls in atlas/runtime).
SAMPLES: dict[str, dict] = {
    "run_started": {"subject": "Acme", "subject_type": "company", "documents": []},
    "run_resumed": {"cause": "human_input", "paused_as": "awaiting_approval", "actor": "rita"},
    "model_requested": {"iteration": 1, "reserved_tokens": 2000, "reserved_cost_usd": "0"},
    "model_decision": {"kind": "finish", "usage": {}},
    "model_failed": {"error_type": "invalid_json", "message": "Output is not JSON"},
    "policy_denied": {"tool": "extract_uploaded_document", "arguments": {}, "reason": "No."},
    "tool_rejected": {"tool": "browse_web", "reason": "unknown_tool"},
    "duplicate_action_blocked": {"tool": "resolve_entity", "arguments": {"name": "Acme"}},
    "approval_requested": {
        "action_id": "1:act:3",
        "tool": "extract_uploaded_document",
        "arguments": {"document_id": "doc-1"},
        "reasons": ["Document kyc.txt is marked sensitive."],
        "estimated_cost_usd": "0.03",
    },
    "approval_granted": {
        "action_id": "1:act:3",
        "tool": "extract_uploaded_document",
        "arguments": {"document_id": "doc-1"},
        "actor": "rita",
        "reason": f"KYC form is needed {XSS}",
        "decision_id": "d-1",
    },
    "approval_denied": {
        "action_id": "1:act:4",
        "tool": "search_adverse_media",
        "arguments": {"query": "Acme"},
        "actor": "sam",
        "reason": "",
        "decision_id": "d-2",
    },
    "tool_started": {"tool": "resolve_entity", "idempotency_key": "k1", "attempt": 1},
    "tool_retryable_failure": {"tool": "resolve_entity", "error_type": "timeout", "message": "x"},
    "tool_failed": {"tool": "resolve_entity", "error_type": "forbidden", "message": "no"},
    "tool_succeeded": {"tool": "resolve_entity", "summary": "Found 1 registry candidate."},
    "result_truncated": {"tool": "search_adverse_media", "stored_chars": 9, "shown_chars": 8},
    "clarification_requested": {"question_id": "q-1", "question": "Which one?"},
    "clarification_received": {"question_id": "q-1", "answer": "the GB one", "actor": "ana"},
    "conflict_detected": {"conflict_id": "c-1", "fact": "directors", "values": [{"value": "A"}]},
    "no_progress_detected": {"iterations": 3, "signature": {}},
    "cycle_detected": {"period": 1, "actions": ["call_tool:resolve_entity:ab12"] * 3},
    "budget_exhausted": {"budget": "max_iterations", "used": "2", "limit": "2"},
    "final_rejected": {"errors": ["Finding 1 cites nothing."], "packet": None},
    "finish_proposed": {"packet": {"risk_rating": "low", "findings": [{}]}},
    "escalated": {"reason": "no_progress", "user_status": USER_STATUS["no_progress"]},
    "run_cancelled": {"status": "cancelled", "reason": "cancelled", "user_status": "x"},
    "run_failed": {"status": "failed", "reason": "model_failure", "user_status": "x"},
    "run_completed": {
        "status": "completed",
        "reason": "packet_approved",
        "user_status": CASE_CLOSED_USER_STATUS,
    },
    "conflict_resolved": {
        "conflict_id": "c-1",
        "fact": "directors",
        "status": "resolved",
        "value": "Helen Carter; James Whitfield",
        "note": "The registry is current.",
        "actor": "rita",
    },
    "budget_extended": {
        "actor": "rita",
        "extra_iterations": 6,
        "extra_tokens": 0,
        "extra_cost_usd": "10",
        "extra_seconds": 0,
    },
    "packet_approved": {
        "actor": "sam",
        "reason": "Checked every source.",
        "closed": False,
        "hit_dispositions": [{"evidence_id": "ev-1", "disposition": "false_positive"}],
        "risk_rating": "high",
        "proposed_risk_rating": "medium",
    },
    "packet_rejected": {"actor": "sam", "reason": "Check the 2023 fine."},
    "human_input_rejected": {
        "decision_id": "d-9",
        "kind": "approval",
        "actor": "rita",
        "reason": "The run is already cancelled.",
    },
    "document_added": {"document_id": "doc-2", "name": "board.pdf", "sensitive": False},
    "document_marked_sensitive": {"document_id": "doc-2", "name": "board.pdf"},
}

# The position of the event type among the arguments of the calls that emit events.
EVENT_TYPE_ARGUMENT = {"emit": 2, "terminal_event": 2, "pause_for_review": 4, "_refuse": 4}


def emitted_event_types() -> set[str]:
    """The event types the runtime's source passes to the calls that record events."""
    found = set()
    for path in RUNTIME_DIR.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if name not in EVENT_TYPE_ARGUMENT:
                continue
            # A bare `emit(...)` is the tool gateway's callback, which takes the type first.
            bare_emit = name == "emit" and isinstance(func, ast.Name)
            argument = node.args[0 if bare_emit else EVENT_TYPE_ARGUMENT[name] :][:1]
            if argument and isinstance(getattr(argument[0], "value", None), str):
                found.add(argument[0].value)
    return found


# Read as the module is imported, before any test starts a thread: CPython 3.11's
# ast.parse may fail ("AST constructor recursion depth mismatch") while another thread
# builds an AST too.
EMITTED = emitted_event_types()


def test_the_samples_cover_every_event_type_the_runtime_emits():
    emitted = EMITTED
    assert {"approval_granted", "cycle_detected", "budget_exhausted", "run_completed"} <= emitted
    assert emitted <= set(EVENT_TYPES)
    assert set(SAMPLES) == set(EVENT_TYPES)


@pytest.mark.parametrize("kind", EVENT_TYPES)
def test_every_event_type_has_a_summary(kind):
    assert event_summary(TraceEvent(type=kind, data=SAMPLES[kind])).strip()


@pytest.mark.parametrize(
    ("kind", "said"),
    [
        (
            "approval_granted",
            f'rita approved extract_uploaded_document(document_id="doc-1"): '
            f"“KYC form is needed {XSS}”",
        ),
        (
            "approval_denied",
            'sam denied search_adverse_media(query="Acme"), no reason given',
        ),
        (
            "packet_approved",
            "sam signed off the packet: “Checked every source.”; risk high (the agent proposed "
            "medium); screening matches: 1 false positive",
        ),
        ("packet_rejected", "sam sent the packet back: “Check the 2023 fine.”"),
        (
            "conflict_resolved",
            "rita settled the directors: “Helen Carter; James Whitfield” stands; "
            "note: “The registry is current.”",
        ),
        ("budget_extended", "rita extended the budgets: +6 iterations, +$10.00"),
        (
            "human_input_rejected",
            "approval decision by rita not applied: The run is already cancelled.",
        ),
        ("clarification_received", "ana answered: “the GB one”"),
        ("run_resumed", "human input from rita (paused as awaiting_approval)"),
        ("cycle_detected", "resolve_entity, 3 times over"),
        ("no_progress_detected", "3 iterations without progress"),
        ("run_completed", f"completed / packet_approved: {CASE_CLOSED_USER_STATUS}"),
        ("escalated", "no_progress"),
    ],
)
def test_a_decision_says_who_decided_what_and_why(kind, said):
    assert event_summary(TraceEvent(type=kind, data=SAMPLES[kind])) == said


def test_a_run_signed_off_as_usual_ends_in_its_codes_alone():
    data = {
        "status": "completed",
        "reason": "packet_approved",
        "user_status": USER_STATUS["packet_approved"],
    }
    assert event_summary(TraceEvent(type="run_completed", data=data)) == (
        "completed / packet_approved"
    )


def _row_texts(html: str) -> dict[str, str]:
    rows = re.findall(
        r'<tr class="ev-[a-z]+"><td class="num mono">\d+</td><td class="mono">([a-z_]+)</td>'
        r".*?<td>(.*?)</td></tr>",
        html,
        flags=re.S,
    )
    return dict(rows)


@pytest.mark.django_db
def test_the_trace_page_has_a_summary_in_every_row_with_reasons_escaped(client, admin_user, case):
    run = make_run(case, started_at=T0)
    add_events(run, [[(kind, SAMPLES[kind])] for kind in EVENT_TYPES], start=T0)
    client.force_login(admin_user)
    html = client.get(reverse("runs-trace", args=[run.pk])).content.decode()
    rows = _row_texts(html)
    assert set(rows) == set(EVENT_TYPES)
    assert not [kind for kind, text in rows.items() if not text.strip()]
    assert "&lt;script&gt;alert(1)&lt;/script&gt;”" in rows["approval_granted"]
    assert XSS not in html


@pytest.mark.django_db
def test_the_case_page_says_why_a_reviewer_approved_or_denied_and_what_they_added(case):
    run = make_run(case, status=Run.Status.RESEARCHING, started_at=T0)
    kinds = ["approval_granted", "approval_denied", "budget_extended", "conflict_resolved"]
    add_events(run, [[(kind, SAMPLES[kind])] for kind in kinds], start=T0)
    events = TraceEvent.objects.filter(run=run).order_by("seq")
    notes = [step.notes[0].text for step in group_steps(run.pk, events)]
    assert notes == [
        f"Approved by a reviewer: “KYC form is needed {XSS}”",
        "Denied by a reviewer",
        "A reviewer extended the budgets: +6 iterations, +$10.00",
        "A reviewer settled the directors: “Helen Carter; James Whitfield” stands; "
        "their note: “The registry is current.”",
    ]


def test_a_media_search_that_finds_only_articles_already_held_says_so_without_a_new_one():
    article = {"text": "Viktor Petrenko named director of Meridian Shipping."}
    held = {fingerprint_text(article["text"])}
    result = {"query": "Viktor Petrenko", "articles": [article]}
    # The search adds one evidence item: its own record, not an article.
    assert result_summary("search_adverse_media", result, held) == (
        "Found 1 article for 'Viktor Petrenko', already held."
    )
    result["articles"].append({"text": "VIKTOR PETRENKO named director of Meridian Shipping"})
    assert result_summary("search_adverse_media", result, held) == (
        "Found 2 articles for 'Viktor Petrenko', all already held."
    )


def _meridian_runtime() -> tuple[Runtime, MemoryRunStore]:
    store = MemoryRunStore()
    runtime = Runtime(
        Playbook(),
        store=store,
        clock=FakeClock(),
        cancel=MemoryCancelSignal(),
        documents=MemoryDocumentSource(sample_documents()),
        tenant_policy=TenantPolicy(),
        retry_backoff_seconds=0.001,
    )
    return runtime, store


def test_a_meridian_run_a_reviewer_approved_and_closed_says_so_event_by_event():
    runtime, store = _meridian_runtime()
    kyc = AttachedDocument(
        document_id="doc-meridian-kyc", name="meridian_kyc_form.txt", sensitive=True
    )
    brief = CaseBrief(
        subject="Meridian Shipping Holdings",
        subject_type="company",
        jurisdiction="GB",
        documents=[kyc],
    )
    state = new_state(
        run_id="run-1", case_id="case-1", tenant_id="t-1", brief=brief, opened_by="ana"
    )
    state = runtime.run_until_pause(runtime.start(state))
    assert state.termination_reason == "awaiting_approval"
    state = decide(
        runtime,
        state,
        approved=True,
        reason="The KYC form is needed.",
        actor="rita",
        decision_id="d-1",
    )
    close = CloseCase(
        decision_id="d-2",
        actor="sam",
        decision="Exit the client.",
        hit_dispositions={hit.evidence_id: "false_positive" for hit in state.screening_matches()},
    )
    state = runtime.apply_human_input(state, close)
    assert (state.status, state.termination_reason) == ("completed", "packet_approved")

    events = [TraceEvent(type=e.type, data=e.data) for e in store.events["run-1"]]
    said = {(e.type, event_summary(e)) for e in events}
    assert not [kind for kind, text in said if not text.strip()]
    assert (
        "tool_succeeded",
        "search_adverse_media: Found 2 articles for 'Viktor Petrenko', all already held.",
    ) in said
    assert (
        "approval_granted",
        'rita approved extract_uploaded_document(document_id="doc-meridian-kyc"): '
        "“The KYC form is needed.”",
    ) in said
    assert ("run_completed", f"completed / packet_approved: {CASE_CLOSED_USER_STATUS}") in said
    assert any(
        kind == "packet_approved" and text.startswith("sam closed the case as it stood: “Exit")
        for kind, text in said
    )


@pytest.mark.django_db
def test_an_answer_is_shown_with_personal_data_redacted(case):
    from runs.views.trace_steps import trace_page

    run = make_run(case)
    TraceEvent.objects.create(
        run=run,
        seq=1,
        step=1,
        type="clarification_received",
        timestamp=run.created_at,
        data={"answer": "Her passport number is K7654321, IBAN GB82 WEST 1234 5698 7654 32."},
    )
    (step,) = trace_page(run).steps
    summary = step.events[0].summary
    assert "K7654321" not in summary and "GB82 WEST" not in summary
    assert "passport number" in summary
