"""One test per row of DESIGN.md's "what ends where" table: final status, reason code,
user-visible text and the ordered trace."""

from __future__ import annotations

import dataclasses
import threading
import time
from decimal import Decimal

import pytest
from runtime_helpers import (
    ACME_DIRECTOR_STEPS,
    FINISH_TURN,
    TOOL_TURN,
    FnModel,
    answer,
    call,
    decide,
    events_of,
    one_sentence,
    run,
    stored_observations,
    types,
)

from atlas.runtime.adapters.playbook import Playbook
from atlas.runtime.adapters.scripted import ScriptedModel
from atlas.runtime.humans import (
    ApprovalDecision,
    BudgetExtension,
    ClarificationAnswer,
    HumanInputRejected,
    PacketSignOff,
)
from atlas.runtime.memory import SystemClock
from atlas.runtime.policy import TenantPolicy
from atlas.runtime.state import (
    CASE_CLOSED_USER_STATUS,
    CONFLICT_AT_FINISH_USER_STATUS,
    RESUBMITTED_USER_STATUS,
    SENT_BACK_USER_STATUS,
    USER_STATUS,
    AttachedDocument,
)
from atlas.runtime.tools.base import TransportError
from atlas.runtime.tools.registry import ToolRegistry, default_registry

ACME = {"name": "Acme Analytics", "jurisdiction": "GB", "entity_type": "company"}


def assert_outcome(state, status, reason):
    assert (state.status, state.termination_reason) == (status, reason)
    assert state.user_status == USER_STATUS[reason]


def assert_partial_packet(state):
    """A budget's stop: the packet so far, with what is still open."""
    packet = state.proposed_packet
    assert packet is not None and packet.partial
    assert any(gap.startswith("The research stopped early: ") for gap in packet.open_gaps)


def test_invalid_json_once_gets_a_repair_turn(make_runtime, make_state, store):
    state = run(
        make_runtime(turns=[{"raw": "I think I should search the registry."}]), make_state()
    )
    assert_outcome(state, "awaiting_review", "finish_proposed")
    assert types(store, state) == [
        "run_started",
        "model_requested",
        "model_failed",
        *TOOL_TURN * 3,
        *ACME_DIRECTOR_STEPS,
        *FINISH_TURN,
    ]
    failed = events_of(store, state, "model_failed")[0]
    assert failed.data["error_type"] == "invalid_json"
    assert "rejected" in stored_observations(store, state)[0].error_message


def test_too_many_model_errors_in_a_row_fail_the_run(make_runtime, make_state, store):
    turns = [{"raw": "not json"}, {"raw": '{"kind": "call_tool"}'}, {"transport_error": "timeout"}]
    state = run(make_runtime(turns=turns), make_state())
    assert_outcome(state, "failed", "model_failure")
    assert types(store, state) == [
        "run_started",
        *["model_requested", "model_failed"] * 3,
        "run_failed",
    ]
    assert [e.data["error_type"] for e in events_of(store, state, "model_failed")] == [
        "invalid_json",
        "invalid_action",
        "transport_timeout",
    ]


def test_a_model_that_raises_or_whose_script_runs_out_is_said_so_in_a_sentence(
    make_runtime, make_state
):
    """No endpoint was involved, so the page must not blame one."""

    def raises(context):
        raise ValueError("candidate list was empty")

    state = run(make_runtime(model=FnModel(raises)), make_state())
    assert (state.status, state.termination_reason) == ("failed", "model_failure")
    assert state.user_status == (
        "The model failed with an error of its own (ValueError: candidate list was empty); "
        "the run stopped."
    )
    ran_out = run(make_runtime(model=ScriptedModel([])), make_state())
    assert ran_out.user_status == (
        "The model could not go on (the script has 0 turns and ran out); the run stopped."
    )


def test_model_errors_are_not_iterations_nor_a_lack_of_progress(make_runtime, make_state, store):
    """Failures in a row reach max_model_errors however low the no-progress limit is, and
    use no iteration: the repair turn belongs to the iteration the failure did not make."""
    turns = [{"raw": "oops"}] * 5
    state = run(make_runtime(turns=turns), make_state(max_model_errors=3, max_no_progress=2))
    assert_outcome(state, "failed", "model_failure")
    assert state.iteration == 0
    assert "no_progress_detected" not in types(store, state)
    assert types(store, state).count("model_failed") == 4

    repaired = run(make_runtime(turns=[{"raw": "oops"}]), make_state(max_iterations=1))
    assert_outcome(repaired, "awaiting_review", "max_iterations")
    requested = events_of(store, repaired, "model_requested")
    assert [e.data["iteration"] for e in requested] == [1, 1]
    assert "tool_succeeded" in types(store, repaired)


def test_an_unknown_tool_is_rejected_and_the_loop_goes_on(make_runtime, make_state, store):
    state = run(make_runtime(turns=[call("browse_web", url="https://example.com")]), make_state())
    assert_outcome(state, "awaiting_review", "finish_proposed")
    assert types(store, state) == [
        "run_started",
        "model_requested",
        "model_decision",
        "tool_rejected",
        *TOOL_TURN * 3,
        *ACME_DIRECTOR_STEPS,
        *FINISH_TURN,
    ]
    assert events_of(store, state, "tool_rejected")[0].data == {
        "tool": "browse_web",
        "reason": "unknown_tool",
    }
    assert all(e.data["tool"] != "browse_web" for e in events_of(store, state, "tool_started"))


def test_invalid_arguments_are_rejected_without_running_the_tool(make_runtime, make_state, store):
    state = run(make_runtime(turns=[call("screen_sanctions")]), make_state())
    rejected = events_of(store, state, "tool_rejected")[0]
    assert rejected.data["reason"] == "invalid_arguments"
    assert types(store, state)[:4] == [
        "run_started",
        "model_requested",
        "model_decision",
        "tool_rejected",
    ]
    assert stored_observations(store, state)[0].error_type == "invalid_arguments"


def test_it_blocks_an_identical_action(make_runtime, make_state, store):
    turns = [call("resolve_entity", **ACME), call("resolve_entity", **ACME)]
    state = run(make_runtime(turns=turns), make_state())
    assert_outcome(state, "awaiting_review", "finish_proposed")
    assert types(store, state) == [
        "run_started",
        *TOOL_TURN,
        "model_requested",
        "model_decision",
        "duplicate_action_blocked",
        *TOOL_TURN * 2,
        *ACME_DIRECTOR_STEPS,
        *FINISH_TURN,
    ]
    resolves = [
        e for e in events_of(store, state, "tool_started") if e.data["tool"] == "resolve_entity"
    ]
    assert len(resolves) == 1


def test_an_argument_order_or_whitespace_change_is_still_the_same_action(
    make_runtime, make_state, store
):
    turns = [
        call("resolve_entity", **ACME),
        call("resolve_entity", entity_type="company", jurisdiction="gb", name="  Acme Analytics "),
        call("resolve_entity", entity_type="company", jurisdiction="GB", name="ACME  analytics"),
    ]
    state = run(make_runtime(turns=turns), make_state())
    assert len(events_of(store, state, "duplicate_action_blocked")) == 2


@pytest.mark.parametrize(
    ("pattern", "period"),
    [("AAA", 1), ("ABABAB", 2), ("ABCABCABC", 3)],
)
def test_a_repeating_cycle_goes_to_review(make_runtime, make_state, store, pattern, period):
    actions = {
        "A": call("resolve_entity", **ACME),
        "B": call("search_adverse_media", query="Acme Analytics"),
        "C": call("screen_sanctions", name="Acme Analytics"),
    }
    state = run(make_runtime(turns=[actions[c] for c in pattern]), make_state(max_no_progress=10))
    assert_outcome(state, "awaiting_review", "repeated_action")
    # Each action runs once; every repeat of it is blocked, then the cycle stops the run.
    turns = [
        TOOL_TURN
        if pattern.index(action) == i
        else ["model_requested", "model_decision", "duplicate_action_blocked"]
        for i, action in enumerate(pattern)
    ]
    assert types(store, state) == [
        "run_started",
        *[event for turn in turns for event in turn],
        "cycle_detected",
        "escalated",
    ]
    assert events_of(store, state, "cycle_detected")[0].data["period"] == period
    assert state.proposed_packet is not None and state.proposed_packet.partial


def test_the_same_question_asked_again_answer_after_answer_goes_to_review(
    make_runtime, make_state, store
):
    """Each answer resumes the run with a break in its history, which no cycle may span:
    the question itself, answered twice already, is what is counted."""
    question = {"kind": "ask_human", "question": "Which one?", "blocking": True}
    runtime = make_runtime(turns=[question] * 10)
    state = run(runtime, make_state())
    for answered in range(2):
        assert_outcome(state, "waiting_for_input", "waiting_for_input")
        state = answer(runtime, state, f"The GB one ({answered + 1})")
    assert_outcome(state, "awaiting_review", "repeated_action")
    assert types(store, state).count("clarification_requested") == 2
    assert types(store, state)[-4:] == [
        "model_requested",
        "model_decision",
        "cycle_detected",
        "escalated",
    ]
    cycle = events_of(store, state, "cycle_detected")[0].data
    assert (cycle["period"], cycle["answered"], len(cycle["actions"])) == (1, 2, 3)
    assert state.proposed_packet is not None and state.proposed_packet.partial

    # A reviewer who extends the run lets the question go to the analyst again.
    more = BudgetExtension(decision_id="d-x", actor="reviewer-rita", extra_iterations=5)
    state = runtime.run_until_pause(runtime.apply_human_input(state, more))
    assert_outcome(state, "waiting_for_input", "waiting_for_input")
    assert types(store, state).count("clarification_requested") == 3


def test_an_unchanged_progress_signature_goes_to_review(make_runtime, make_state, store):
    turns = [
        call("resolve_entity", **ACME),
        call("screen_sanctions", entity_id="co-acme-analytics-gb"),
        call("search_adverse_media", query="Acme Analytics"),
        call("search_adverse_media", query="Acme Analytics Ltd news"),
        call("search_adverse_media", query="Acme Analytics funding"),
        call("search_adverse_media", query="Acme Analytics controversy"),
    ]
    state = run(make_runtime(turns=turns), make_state())
    assert_outcome(state, "awaiting_review", "no_progress")
    assert types(store, state) == [
        "run_started",
        *TOOL_TURN * 6,
        "no_progress_detected",
        "escalated",
    ]
    assert events_of(store, state, "no_progress_detected")[0].data["iterations"] == 3


def test_an_oversized_result_is_stored_whole_and_shown_bounded(make_runtime, make_state, store):
    state = run(make_runtime(), make_state(faults={"search_adverse_media": ["oversized"]}))
    assert_outcome(state, "awaiting_review", "finish_proposed")
    assert types(store, state) == [
        "run_started",
        *TOOL_TURN * 2,
        "model_requested",
        "model_decision",
        "tool_started",
        "result_truncated",
        "tool_succeeded",
        *ACME_DIRECTOR_STEPS,
        *FINISH_TURN,
    ]
    record = next(r for r in store.tool_calls.values() if r.tool == "search_adverse_media")
    assert len(record.result["raw"]) >= 150_000
    observation = next(
        o for o in store.observations[state.run_id] if o.name == "search_adverse_media"
    )
    assert len(observation.data["raw"]) >= 150_000
    assert len(observation.model_view) < 8_000
    truncated = events_of(store, state, "result_truncated")[0].data
    assert truncated["stored_chars"] > truncated["shown_chars"]


def test_a_policy_denial_is_not_executed_and_stays_blocked(make_runtime, make_state, store):
    acme_doc = AttachedDocument(document_id="doc-acme-onboarding", name="acme_onboarding_note.txt")
    other_case_doc = call("extract_uploaded_document", document_id="doc-meridian-kyc")
    turns = [other_case_doc, other_case_doc]
    state = run(make_runtime(turns=turns), make_state(documents=[acme_doc]))
    assert_outcome(state, "awaiting_review", "finish_proposed")
    assert types(store, state) == [
        "run_started",
        "model_requested",
        "model_decision",
        "policy_denied",
        "model_requested",
        "model_decision",
        "policy_denied",
        *TOOL_TURN * 3,
        *ACME_DIRECTOR_STEPS,
        *TOOL_TURN,
        *FINISH_TURN,
    ]
    first, second = events_of(store, state, "policy_denied")
    assert "not attached to this case" in first.data["reason"]
    assert "stays blocked" in second.data["reason"]
    extracted = [e.data["arguments"] for e in events_of(store, state, "tool_started")]
    assert {"document_id": "doc-meridian-kyc"} not in extracted


def test_a_document_id_that_exists_nowhere_is_denied_too(make_runtime, make_state, store):
    acme_doc = AttachedDocument(document_id="doc-acme-onboarding", name="acme_onboarding_note.txt")
    turns = [call("extract_uploaded_document", document_id="doc-nowhere")]
    state = run(make_runtime(turns=turns), make_state(documents=[acme_doc]))
    assert "not attached" in events_of(store, state, "policy_denied")[0].data["reason"]


def test_extracting_without_documents_is_not_allowed_in_this_state(make_runtime, make_state, store):
    turns = [call("extract_uploaded_document", document_id="doc-acme-onboarding")]
    state = run(make_runtime(turns=turns), make_state())
    assert "No documents are attached" in events_of(store, state, "policy_denied")[0].data["reason"]


def test_a_tool_the_tenant_forbids_is_denied_and_the_packet_notes_the_gap(
    make_runtime, make_state, store
):
    runtime = make_runtime(tenant_policy=TenantPolicy(forbidden_tools=["search_adverse_media"]))
    state = run(runtime, make_state())
    assert_outcome(state, "awaiting_review", "finish_proposed")
    assert types(store, state).count("policy_denied") == 1
    assert "tool_started" not in [
        e.type
        for e in events_of(store, state, "tool_started")
        if e.data["tool"] == "search_adverse_media"
    ]
    assert "Adverse media search could not be completed." in state.proposed_packet.open_gaps


def test_the_model_keeps_proposing_forbidden_actions(make_runtime, make_state, store):
    doc = call("extract_uploaded_document", document_id="doc-x")
    state = run(make_runtime(turns=[doc, doc, doc]), make_state(max_no_progress=10))
    assert_outcome(state, "awaiting_review", "policy_denied")
    assert types(store, state)[-2:] == ["policy_denied", "escalated"]


def test_the_iteration_budget_stops_with_a_partial_packet(make_runtime, make_state, store):
    state = run(make_runtime(), make_state(max_iterations=2))
    assert_outcome(state, "awaiting_review", "max_iterations")
    assert_partial_packet(state)
    assert types(store, state) == ["run_started", *TOOL_TURN * 2, "budget_exhausted", "escalated"]
    assert state.iteration == 2
    packet = state.proposed_packet
    assert packet.partial
    assert "Still to do: adverse media search." in packet.open_gaps
    assert packet.adverse_media_summary == "Not searched."
    # Screened clean, but no media search yet: not "low risk", no rating at all.
    assert packet.risk_rating == "unrated"
    exhausted = events_of(store, state, "budget_exhausted")[0].data
    assert exhausted == {
        "budget": "max_iterations",
        "reason": "max_iterations",
        "used": "2",
        "limit": "2",
        "spent": "2",
        "upcoming": "0",
    }


def test_only_a_stopped_run_leaves_a_packet_unrated(make_runtime, make_state, store):
    research = [
        call("resolve_entity", **ACME),
        call("screen_sanctions", entity_id="co-acme-analytics-gb"),
        call("search_adverse_media", query="Acme Analytics", entity_id="co-acme-analytics-gb"),
    ]
    packet = {
        "subject": "Acme Analytics",
        "risk_rating": "unrated",
        "findings": [{"claim": "Registered in GB.", "evidence_ids": ["co-acme-analytics-gb"]}],
    }
    state = run(
        make_runtime(turns=[*research, {"kind": "finish", "packet": packet}]),
        make_state(max_iterations=4),
    )
    rejected = events_of(store, state, "final_rejected")[0].data["errors"]
    assert rejected == ["Rate the risk low, medium or high."]
    stopped = run(make_runtime(turns=research), make_state(max_iterations=3))
    assert_outcome(stopped, "awaiting_review", "max_iterations")
    # Rated, though not low: the research stopped before it screened Acme's directors.
    assert stopped.proposed_packet.partial and stopped.proposed_packet.risk_rating == "medium"


def test_the_token_budget_is_reserved_before_the_call(make_runtime, make_state, store):
    usage = {"input_tokens": 8500, "output_tokens": 500, "cost_usd": "0"}
    state = run(
        make_runtime(turns=[call("resolve_entity", usage=usage, **ACME)]),
        make_state(max_tokens=10000),
    )
    assert_outcome(state, "awaiting_review", "token_budget")
    assert_partial_packet(state)
    assert types(store, state) == ["run_started", *TOOL_TURN, "budget_exhausted", "escalated"]
    assert state.tokens == 9000 <= state.budgets.max_tokens


def test_a_model_calls_reservation_covers_the_reply_schema_it_sends(
    make_runtime, make_state, store
):
    """An endpoint bills the response schema (some 5 KB of JSON) as prompt: a reservation
    without it was some 1,500 tokens short of what the call could cost."""
    from atlas.runtime.budgets import estimate_tokens
    from atlas.runtime.context import build_context
    from atlas.runtime.decisions import next_action_json_schema_text

    state = make_state()
    context = build_context(state, default_registry(), TenantPolicy())
    schema = next_action_json_schema_text()
    assert estimate_tokens(schema) > 1000
    state = make_runtime(turns=[call("resolve_entity", **ACME)]).step(make_runtime().start(state))
    reserved = events_of(store, state, "model_requested")[0].data["reserved_tokens"]
    prompt = estimate_tokens(context.text() + schema)  # as billed: one text, not two
    assert reserved >= prompt + state.budgets.max_output_tokens


@pytest.mark.parametrize(
    ("usage", "budgets", "reason", "sentence"),
    [
        (
            {"input_tokens": 90000, "output_tokens": 10, "cost_usd": "0"},
            {"max_tokens": 5000},
            "token_budget",
            "The research went over its token budget (90,010 of 5,000 tokens)",
        ),
        (
            {"input_tokens": 10, "output_tokens": 10, "cost_usd": "3.00"},
            {"max_cost_usd": Decimal("0.50")},
            "cost_budget",
            "The research went over its cost budget ($3.00 of $0.50)",
        ),
    ],
    ids=["tokens", "cost"],
)
def test_a_model_reporting_more_than_was_reserved_is_said_to_have_gone_over(
    make_runtime, make_state, store, usage, budgets, reason, sentence
):
    # The runtime learns a call's usage from its reply: it cannot refuse what it was not
    # told, but it stops at once and does not claim to have stopped before the limit.
    state = run(
        make_runtime(turns=[call("resolve_entity", usage=usage, **ACME)]), make_state(**budgets)
    )
    assert (state.status, state.termination_reason) == ("awaiting_review", reason)
    assert state.user_status.startswith(sentence)
    assert one_sentence(state.user_status), state.user_status
    assert events_of(store, state, "budget_exhausted")[0].data["overspent"] is True
    # The packet's gap says what happened as the status does, not that it stopped before.
    budget = "token" if reason == "token_budget" else "cost"
    assert (
        "The research stopped early: a model call reported more usage than was reserved for "
        f"it, taking it over its {budget} budget."
    ) in state.proposed_packet.open_gaps
    assert not any("would have gone over" in gap for gap in state.proposed_packet.open_gaps)
    # The decision of the call that overspent is not acted on.
    assert types(store, state)[-4:] == [
        "model_requested",
        "model_decision",
        "budget_exhausted",
        "escalated",
    ]


def test_the_cost_budget_stops_before_overshooting(make_runtime, make_state, store):
    usage = {"input_tokens": 100, "output_tokens": 50, "cost_usd": "0.40"}
    turns = [
        call("resolve_entity", usage=usage, **ACME),
        call("screen_sanctions", usage=usage, entity_id="co-acme-analytics-gb"),
        call("search_adverse_media", usage=usage, query="Acme Analytics"),
    ]
    state = run(make_runtime(turns=turns), make_state(max_cost_usd=Decimal("1.00")))
    assert_outcome(state, "awaiting_review", "cost_budget")
    assert_partial_packet(state)
    assert types(store, state) == ["run_started", *TOOL_TURN * 2, "budget_exhausted", "escalated"]
    assert state.cost_usd == Decimal("0.86")
    assert state.cost_usd <= state.budgets.max_cost_usd
    assert events_of(store, state, "budget_exhausted")[0].data["budget"] == "max_cost_usd"


def test_a_tool_that_would_overshoot_the_cost_budget_does_not_start(
    make_runtime, make_state, store
):
    state = run(make_runtime(), make_state(max_cost_usd=Decimal("0.03")))
    assert_outcome(state, "awaiting_review", "cost_budget")
    assert_partial_packet(state)
    assert types(store, state) == [
        "run_started",
        *TOOL_TURN,
        "model_requested",
        "model_decision",
        "budget_exhausted",
        "escalated",
    ]
    assert state.cost_usd == Decimal("0.01")


def test_the_deadline_stops_the_run(make_runtime, make_state, store, clock):
    playbook = Playbook()

    def slow_thinker(context):
        clock.advance(70)
        return playbook.decide(context)

    state = run(make_runtime(FnModel(slow_thinker)), make_state())
    assert_outcome(state, "awaiting_review", "deadline")
    assert_partial_packet(state)
    # The second decision took the run past its deadline: its tool never starts.
    assert types(store, state) == [
        "run_started",
        *TOOL_TURN,
        "model_requested",
        "model_decision",
        "budget_exhausted",
        "escalated",
    ]


DEADLINE_STOP = [
    "run_started",
    "model_requested",
    "model_decision",
    "tool_started",
    "tool_failed",
    "budget_exhausted",
    "escalated",
]


def test_the_deadline_cuts_a_slow_tool_short(make_runtime, make_state, store):
    faults = {"resolve_entity": ["slow:10", "slow:10", "slow:10"]}
    runtime = make_runtime(clock=SystemClock())
    started = time.monotonic()
    state = run(runtime, make_state(faults=faults, deadline_seconds=1))
    assert time.monotonic() - started < 1.5
    assert_outcome(state, "awaiting_review", "deadline")
    assert types(store, state) == DEADLINE_STOP
    failed = events_of(store, state, "tool_failed")[0].data
    assert failed["error_type"] == "timeout" and "before the run's deadline" in failed["message"]
    (record,) = store.tool_calls.values()
    assert (record.effect_status, record.attempts) == ("failed", 1)


@pytest.mark.parametrize(
    "seconds_taken", [125, 119.99], ids=["deadline-passed", "deadline-cannot-be-met"]
)
def test_no_retry_starts_once_the_deadline_has_passed_or_cannot_be_met(
    make_runtime, make_state, store, clock, seconds_taken
):
    def lost_connection(args, ctx):
        clock.advance(seconds_taken)
        raise TransportError("timeout", "the registry hung up")

    tools = [
        dataclasses.replace(spec, handler=lost_connection)
        if spec.name == "resolve_entity"
        else spec
        for spec in default_registry()
    ]
    runtime = make_runtime(registry=ToolRegistry(tools))
    state = run(runtime, make_state(deadline_seconds=120, max_tool_retries=2))
    assert_outcome(state, "awaiting_review", "deadline")
    assert types(store, state) == DEADLINE_STOP
    (record,) = store.tool_calls.values()
    assert (record.effect_status, record.attempts) == ("failed", 1)


def test_cancel_during_a_slow_tool_ends_within_a_second(make_runtime, make_state, store, cancel):
    cancelled_at: list[float] = []

    def cancel_soon(event):
        if event.type == "tool_started" and event.data["tool"] == "screen_sanctions":

            def fire():
                time.sleep(0.2)
                cancelled_at.append(time.monotonic())
                cancel.set()

            threading.Thread(target=fire, daemon=True).start()

    runtime = make_runtime(listeners=[cancel_soon])
    state = runtime.start(make_state(faults={"screen_sanctions": ["slow:30"]}))
    state = runtime.run_until_pause(state)
    ended_at = time.monotonic()
    assert_outcome(state, "cancelled", "cancelled")
    assert ended_at - cancelled_at[0] < 1.0
    assert types(store, state) == [
        "run_started",
        *TOOL_TURN,
        "model_requested",
        "model_decision",
        "tool_started",
        "tool_failed",
        "run_cancelled",
    ]
    record = next(r for r in store.tool_calls.values() if r.tool == "screen_sanctions")
    assert record.effect_status == "cancelled"
    assert store.load_state(state.run_id).status == "cancelled"


def test_cancel_during_a_slow_retry_ends_within_a_second(make_runtime, make_state, store, cancel):
    cancelled_at: list[float] = []

    def cancel_soon(event):
        if event.type == "tool_started" and event.data["attempt"] == 2:

            def fire():
                time.sleep(0.2)
                cancelled_at.append(time.monotonic())
                cancel.set()

            threading.Thread(target=fire, daemon=True).start()

    runtime = make_runtime()
    runtime.watchers.append(cancel_soon)  # the retry's start is not committed before it runs
    faults = {"screen_sanctions": ["timeout", "slow:30"]}
    state = runtime.run_until_pause(runtime.start(make_state(faults=faults)))
    ended_at = time.monotonic()
    assert_outcome(state, "cancelled", "cancelled")
    assert ended_at - cancelled_at[0] < 1.0
    assert types(store, state)[-5:] == [
        "tool_started",
        "tool_retryable_failure",
        "tool_started",
        "tool_failed",
        "run_cancelled",
    ]
    record = next(r for r in store.tool_calls.values() if r.tool == "screen_sanctions")
    assert (record.effect_status, record.attempts) == ("cancelled", 2)


def test_cancel_of_a_run_waiting_for_an_answer_ends_it_at_once(make_runtime, make_state, store):
    runtime = make_runtime()
    state = run(runtime, make_state("Northwind Trading", jurisdiction=None))
    assert_outcome(state, "waiting_for_input", "waiting_for_input")
    started = time.monotonic()
    state = runtime.cancel(state)
    assert time.monotonic() - started < 1.0
    assert_outcome(state, "cancelled", "cancelled")
    assert state.pending_question is None
    assert types(store, state) == [
        "run_started",
        *TOOL_TURN,
        "model_requested",
        "model_decision",
        "clarification_requested",
        "run_cancelled",
    ]


def test_transport_errors_are_retried_then_become_a_typed_failure(make_runtime, make_state, store):
    faults = {"screen_sanctions": ["timeout", "rate_limited", "timeout"]}
    state = run(make_runtime(), make_state(faults=faults, max_tool_retries=2))
    assert_outcome(state, "awaiting_review", "finish_proposed")
    assert types(store, state) == [
        "run_started",
        *TOOL_TURN,
        "model_requested",
        "model_decision",
        "tool_started",
        "tool_retryable_failure",
        "tool_started",
        "tool_retryable_failure",
        "tool_started",
        "tool_failed",
        *TOOL_TURN * 2,
        *ACME_DIRECTOR_STEPS,
        *FINISH_TURN,
    ]
    failed = events_of(store, state, "tool_failed")[0].data
    assert failed["error_type"] == "timeout" and failed["retryable"] is True
    # Each attempt shows the arguments as the first did, not filled in with defaults.
    started = [e.data for e in events_of(store, state, "tool_started")]
    retried = next(e["idempotency_key"] for e in started if e["tool"] == "screen_sanctions")
    attempts = [e["arguments"] for e in started if e["idempotency_key"] == retried]
    assert attempts == [{"entity_id": "co-acme-analytics-gb"}] * 3
    failure = next(
        o for o in stored_observations(store, state) if o.name == "screen_sanctions" and not o.ok
    )
    assert failure.error_type == "timeout" and "after 3 attempts" in failure.error_message


def test_an_authorization_error_fails_the_run(make_runtime, make_state, store):
    state = run(make_runtime(), make_state(faults={"screen_sanctions": ["forbidden"]}))
    assert_outcome(state, "failed", "tool_failure")
    assert types(store, state) == [
        "run_started",
        *TOOL_TURN,
        "model_requested",
        "model_decision",
        "tool_started",
        "tool_failed",
        "run_failed",
    ]
    assert events_of(store, state, "tool_failed")[0].data["error_type"] == "forbidden"


def test_tools_failing_whatever_the_retries_and_the_replans_fail_the_run(
    make_runtime, make_state, store
):
    turns = [
        call("resolve_entity", **ACME),
        call("screen_sanctions", name="Acme Analytics"),
        call("search_adverse_media", query="Acme Analytics"),
    ]
    down = ["timeout"] * 3  # each call's attempt and both retries
    faults = {"resolve_entity": down, "screen_sanctions": down, "search_adverse_media": down}
    state = run(make_runtime(turns=turns), make_state(faults=faults, max_tool_retries=2))
    assert_outcome(state, "failed", "tool_failure")
    attempts = ["tool_started", "tool_retryable_failure"] * 2 + ["tool_started", "tool_failed"]
    assert types(store, state) == [
        "run_started",
        *(["model_requested", "model_decision", *attempts] * 3),
        "run_failed",
    ]
    assert events_of(store, state, "run_failed")[0].data["tool"] == "search_adverse_media"


def test_ask_human_waits_for_input_and_the_answer_is_an_observation(
    make_runtime, make_state, store
):
    runtime = make_runtime()
    state = run(runtime, make_state("Northwind Trading", jurisdiction=None))
    assert_outcome(state, "waiting_for_input", "waiting_for_input")
    assert types(store, state) == [
        "run_started",
        *TOOL_TURN,
        "model_requested",
        "model_decision",
        "clarification_requested",
    ]
    asked = events_of(store, state, "clarification_requested")[0].data
    assert len(asked["candidates"]) == 3
    assert any("[co-northwind-sg]" in c for c in asked["candidates"])

    answer = ClarificationAnswer(
        decision_id="d-1",
        actor="analyst-ann",
        question_id=asked["question_id"],
        text="The Singapore one, SG",
    )
    state = runtime.run_until_pause(runtime.apply_human_input(state, answer))
    assert_outcome(state, "awaiting_review", "finish_proposed")
    assert state.selected_entity.entity_id == "co-northwind-sg"
    assert types(store, state)[8:] == [
        "clarification_received",
        "run_resumed",
        *TOOL_TURN * 3,
        *TOOL_TURN * 4,  # screening the Singapore company's two directors, then their media
        *FINISH_TURN,
    ]
    human = [o for o in stored_observations(store, state) if o.source == "human"]
    assert human and "The Singapore one" in human[0].model_view
    resumed = events_of(store, state, "run_resumed")[0].data
    assert resumed == {
        "cause": "human_input",
        "paused_as": "waiting_for_input",
        "actor": "analyst-ann",
        "decision_id": "d-1",
    }


def test_a_tool_needing_approval_waits_then_runs_once_approved(make_runtime, make_state, store):
    runtime = make_runtime(tenant_policy=TenantPolicy(approval_cost_threshold_usd=Decimal("0.02")))
    state = run(runtime, make_state())
    assert_outcome(state, "awaiting_review", "awaiting_approval")
    assert types(store, state) == [
        "run_started",
        *TOOL_TURN,
        "model_requested",
        "model_decision",
        "approval_requested",
    ]
    requested = events_of(store, state, "approval_requested")[0].data
    assert requested["tool"] == "screen_sanctions"
    assert requested["estimated_cost_usd"] == "0.05"
    assert "above the approval threshold" in requested["reasons"][0]

    approve = ApprovalDecision(
        decision_id="d-1", actor="reviewer-rita", action_id=requested["action_id"], approved=True
    )
    state = runtime.run_until_pause(runtime.apply_human_input(state, approve))
    assert types(store, state)[8:] == [
        "approval_granted",
        "run_resumed",
        "tool_started",
        "tool_succeeded",
        *TOOL_TURN,
        "model_requested",
        "model_decision",
        "approval_requested",
    ]
    # Screening a director costs as much as screening the subject: it needs approval too.
    assert_outcome(state, "awaiting_review", "awaiting_approval")
    director = events_of(store, state, "approval_requested")[1].data
    assert (director["tool"], director["arguments"]) == (
        "screen_sanctions",
        {"name": "Sarah Linden"},
    )


def test_an_approved_call_the_tenant_forbade_meanwhile_is_denied_not_run(
    make_runtime, make_state, store
):
    policy = TenantPolicy(approval_cost_threshold_usd=Decimal("0.02"))
    runtime = make_runtime(tenant_policy=policy)
    state = run(runtime, make_state())
    requested = events_of(store, state, "approval_requested")[0].data
    approve = ApprovalDecision(
        decision_id="d-1", actor="reviewer-rita", action_id=requested["action_id"], approved=True
    )
    state = runtime.apply_human_input(state, approve)
    forbidding = TenantPolicy(
        approval_cost_threshold_usd=Decimal("0.02"), forbidden_tools=["screen_sanctions"]
    )
    state = make_runtime(tenant_policy=forbidding).step(state)
    assert types(store, state)[-3:] == ["approval_granted", "run_resumed", "policy_denied"]
    denied = events_of(store, state, "policy_denied")[0].data
    assert denied["reason"] == "screen_sanctions is forbidden by the tenant's policy."


def test_a_sensitive_document_denied_by_the_reviewer_is_not_read(make_runtime, make_state, store):
    doc = AttachedDocument(
        document_id="doc-acme-onboarding", name="acme_onboarding_note.txt", sensitive=True
    )
    runtime = make_runtime()
    state = run(runtime, make_state(documents=[doc]))
    assert_outcome(state, "awaiting_review", "awaiting_approval")
    assert "marked sensitive" in state.pending_approval.reasons[0]
    state = decide(runtime, state, approved=False, reason="Not needed for this case.")
    assert_outcome(state, "awaiting_review", "finish_proposed")
    assert "approval_denied" in types(store, state)
    assert not [
        e
        for e in events_of(store, state, "tool_started")
        if e.data["tool"] == "extract_uploaded_document"
    ]
    assert (
        "Uploaded document “acme_onboarding_note.txt” was not read."
        in state.proposed_packet.open_gaps
    )


def test_a_document_marked_sensitive_after_the_run_started_needs_approval(
    make_runtime, make_state, store, documents
):
    doc = AttachedDocument(document_id="doc-acme-onboarding", name="acme_onboarding_note.txt")
    state = make_state(documents=[doc])  # the brief says: not sensitive
    documents.mark_sensitive("doc-acme-onboarding")  # the analyst's mark, made since
    state = run(make_runtime(), state)
    assert_outcome(state, "awaiting_review", "awaiting_approval")
    assert state.pending_approval.tool_name == "extract_uploaded_document"
    assert "marked sensitive" in state.pending_approval.reasons[0]
    assert state.brief.documents[0].sensitive
    marked = events_of(store, state, "document_marked_sensitive")
    assert [e.data["document_id"] for e in marked] == ["doc-acme-onboarding"]
    after = types(store, state)[types(store, state).index("document_marked_sensitive") :]
    assert after == ["document_marked_sensitive", "approval_requested"]


@pytest.mark.parametrize("reviewer_saw_the_mark", [False, True])
def test_an_approval_that_did_not_cover_a_later_sensitive_mark_is_asked_again(
    make_runtime, make_state, store, documents, reviewer_saw_the_mark
):
    doc = AttachedDocument(document_id="doc-acme-onboarding", name="acme_onboarding_note.txt")
    policy = TenantPolicy(approval_cost_threshold_usd=Decimal("0.025"))  # extraction: $0.03
    runtime = make_runtime(tenant_policy=policy)
    state = run(runtime, make_state(documents=[doc], max_iterations=30))
    while state.pending_approval.tool_name != "extract_uploaded_document":
        state = decide(runtime, state, approved=True)
    asked = state.pending_approval
    assert not any("sensitive" in reason for reason in asked.reasons)
    documents.mark_sensitive("doc-acme-onboarding")  # as the approval is being decided
    seen = [*asked.reasons, "Document acme_onboarding_note.txt is marked sensitive."]
    approve = ApprovalDecision(
        decision_id="d-extract",
        actor="reviewer-rita",
        action_id=asked.action_id,
        approved=True,
        reasons_seen=seen if reviewer_saw_the_mark else asked.reasons,
    )
    state = runtime.step(runtime.apply_human_input(state, approve))
    if reviewer_saw_the_mark:
        assert types(store, state)[-2:] == ["tool_started", "tool_succeeded"]
    else:
        assert types(store, state)[-2:] == ["document_marked_sensitive", "approval_requested"]
        assert "Document acme_onboarding_note.txt is marked sensitive." in (
            state.pending_approval.reasons
        )


def test_a_mark_made_after_the_document_was_read_changes_nothing(
    make_runtime, make_state, store, documents
):
    doc = AttachedDocument(document_id="doc-acme-onboarding", name="acme_onboarding_note.txt")
    state = run(make_runtime(), make_state(documents=[doc]))
    assert_outcome(state, "awaiting_review", "finish_proposed")
    documents.mark_sensitive("doc-acme-onboarding")
    state = run(make_runtime(), state)
    assert "document_marked_sensitive" not in types(store, state)


def test_a_signed_off_packet_completes_the_case(make_runtime, make_state, store):
    runtime = make_runtime()
    state = run(runtime, make_state())
    assert_outcome(state, "awaiting_review", "finish_proposed")
    with pytest.raises(HumanInputRejected):
        runtime.apply_human_input(
            state, PacketSignOff(decision_id="d-0", actor="analyst-ann", approved=True)
        )
    state = runtime.apply_human_input(
        state, PacketSignOff(decision_id="d-1", actor="reviewer-rita", approved=True)
    )
    assert_outcome(state, "completed", "packet_approved")
    assert types(store, state) == [
        "run_started",
        *TOOL_TURN * 3,
        *ACME_DIRECTOR_STEPS,
        *FINISH_TURN,
        "packet_approved",
        "run_completed",
    ]
    assert events_of(store, state, "run_completed")[0].data == {
        "status": "completed",
        "reason": "packet_approved",
        "user_status": USER_STATUS["packet_approved"],
    }


def test_a_finish_that_fails_validation_is_rejected_and_the_loop_goes_on(
    make_runtime, make_state, store
):
    bad_packet = {
        "kind": "finish",
        "packet": {
            "subject": "Acme Analytics",
            "risk_rating": "low",
            "findings": [{"claim": "Acme is clean.", "evidence_ids": []}],
        },
    }
    state = run(make_runtime(turns=[bad_packet]), make_state())
    assert_outcome(state, "awaiting_review", "finish_proposed")
    assert types(store, state) == [
        "run_started",
        "model_requested",
        "model_decision",
        "final_rejected",
        *TOOL_TURN * 3,
        *ACME_DIRECTOR_STEPS,
        *FINISH_TURN,
    ]
    errors = events_of(store, state, "final_rejected")[0].data["errors"]
    assert "Finding 1 cites no evidence." in errors
    assert any(e.startswith("The subject has not been screened") for e in errors)


def test_every_user_status_text_is_one_sentence():
    texts = [
        *USER_STATUS.values(),
        CONFLICT_AT_FINISH_USER_STATUS,
        SENT_BACK_USER_STATUS,
        RESUBMITTED_USER_STATUS,
        CASE_CLOSED_USER_STATUS,
    ]
    assert [text for text in texts if not one_sentence(text)] == []


SCREEN_NOT_ALLOWED = (
    "The subject could not be screened against the sanctions lists, which a packet needs: "
    "the screen was denied, so the run was handed to a reviewer."
)


def test_a_screen_the_tenant_forbids_hands_the_run_over_at_its_first_finish(
    make_runtime, make_state, store
):
    """Screening is what no packet goes without: once policy has denied it, the first
    finish proposed ends the run for a reviewer, saying why, instead of the same finish
    proposed until a cycle is detected."""
    runtime = make_runtime(tenant_policy=TenantPolicy(forbidden_tools=["screen_sanctions"]))
    state = run(runtime, make_state())
    assert (state.status, state.termination_reason) == ("awaiting_review", "policy_denied")
    assert state.user_status == SCREEN_NOT_ALLOWED
    assert types(store, state)[-3:] == ["model_decision", "final_rejected", "escalated"]
    assert "cycle_detected" not in types(store, state)
    packet = state.proposed_packet
    assert packet.partial and packet.risk_rating == "unrated"
    assert (
        "Sanctions screening of Acme Analytics Ltd was not run: screen_sanctions is forbidden "
        "by the tenant's policy." in packet.open_gaps
    )


def test_a_screen_a_reviewer_denies_hands_the_run_over_naming_the_reviewers_reason(
    make_runtime, make_state, store
):
    runtime = make_runtime(tenant_policy=TenantPolicy(approval_cost_threshold_usd=Decimal("0.02")))
    state = run(runtime, make_state())
    assert state.pending_approval.tool_name == "screen_sanctions"
    state = decide(runtime, state, approved=False, reason="Not on this budget.")
    while state.termination_reason == "awaiting_approval":  # the media searches cost 0.02
        state = decide(runtime, state, approved=True)
    assert (state.status, state.termination_reason) == ("awaiting_review", "policy_denied")
    assert state.user_status == SCREEN_NOT_ALLOWED
    assert (
        "Sanctions screening of Acme Analytics Ltd was not run: reviewer-rita denied it "
        "(“Not on this budget.”)." in state.proposed_packet.open_gaps
    )


def test_a_namesakes_screen_denied_does_not_stand_for_the_subjects(make_state):
    from atlas.runtime.finish import _subject_screen_denied
    from atlas.runtime.state import EntityCandidate

    state = make_state()
    gb = EntityCandidate(
        entity_id="co-nw-gb",
        name="Northwind Trading Ltd",
        entity_type="company",
        jurisdiction="GB",
        score=100,
    )
    us = EntityCandidate(
        entity_id="co-nw-us",
        name="Northwind Trading LLC",
        entity_type="company",
        jurisdiction="US",
        score=95,
    )
    state.entity_candidates = [gb, us]
    state.selected_entity = gb
    state.denied_actions = [
        {"tool": "screen_sanctions", "arguments": {"entity_id": "co-nw-us"}, "reason": "no"}
    ]
    assert not _subject_screen_denied(state)
    state.denied_actions.append(
        {"tool": "screen_sanctions", "arguments": {"entity_id": "co-nw-gb"}, "reason": "no"}
    )
    assert _subject_screen_denied(state)
