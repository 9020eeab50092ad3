"""The OpenAI-compatible adapter against a real local HTTP server."""

from __future__ import annotations

import json
import threading
import time
from decimal import Decimal

import pytest
from pydantic import ValidationError
from runtime_helpers import events_of, run

from atlas.runtime.adapters.openai import OpenAIChatModel, PriceTable
from atlas.runtime.budgets import estimate_tokens
from atlas.runtime.context import build_context
from atlas.runtime.decisions import NEXT_ACTION_ADAPTER, CallTool, parse_next_action
from atlas.runtime.engine import make_model
from atlas.runtime.memory import SystemClock
from atlas.runtime.policy import TenantPolicy
from atlas.runtime.tools.registry import default_registry

RESOLVE = {
    "kind": "call_tool",
    "tool_name": "resolve_entity",
    "arguments": {"name": "Acme Analytics", "jurisdiction": "GB"},
    "rationale_summary": "Identify the subject.",
}

PRICES = PriceTable(input_per_1k=Decimal("0.0025"), output_per_1k=Decimal("0.01"))


def model_for(server, **kwargs):
    kwargs = {"backoff_initial": 0.01, "backoff_max": 0.02, **kwargs}
    return OpenAIChatModel(
        "atlas-test-model",
        base_url=server.base_url,
        api_key="sk-local-test",
        prices=PRICES,
        **kwargs,
    )


def a_context(make_state):
    return build_context(make_state(), default_registry(), TenantPolicy())


def test_it_retries_a_429_and_parses_the_next_action(server, make_state):
    server.responses = [(429, {"error": {"message": "slow down"}}), server.completion(RESOLVE)]
    reply = model_for(server).decide(a_context(make_state))
    assert reply.transport_error is None
    assert json.loads(reply.raw) == RESOLVE
    assert reply.usage.input_tokens == 1200 and reply.usage.output_tokens == 80
    assert reply.usage.cost_usd == Decimal("0.003800")
    assert len(server.requests) == 2
    body = server.requests[-1]
    assert body["model"] == "atlas-test-model"
    assert body["response_format"]["type"] == "json_schema"
    schema = body["response_format"]["json_schema"]["schema"]
    assert {"call_tool", "ask_human", "finish"} <= set(json.dumps(schema).replace('"', " ").split())
    assert body["messages"][0]["role"] == "system"
    assert server.headers[-1]["Authorization"] == "Bearer sk-local-test"


def test_a_persistent_500_becomes_a_transport_error(server, make_state):
    server.responses = [(500, {"error": "boom"})] * 3
    reply = model_for(server, max_attempts=3).decide(a_context(make_state))
    assert reply.transport_error == "server_error"
    assert len(server.requests) == 3


def test_a_run_through_the_adapter_records_usage_and_repairs_bad_output(
    server, make_runtime, make_state, store
):
    server.responses = [
        server.completion("Sure! I will look that up."),
        (500, {"error": "transient"}),
        server.completion(RESOLVE),
    ]
    runtime = make_runtime(model_for(server))
    state = runtime.start(make_state())
    state = runtime.step(state)
    state = runtime.step(state)
    assert [e.type for e in store.events[state.run_id]] == [
        "run_started",
        "model_requested",
        "model_failed",
        "model_requested",
        "model_decision",
        "tool_started",
        "tool_succeeded",
    ]
    assert state.tokens == 2 * (1200 + 80)
    assert state.model_cost_usd == Decimal("0.007600")
    decision = events_of(store, state, "model_decision")[0].data
    assert decision["usage"] == {"input_tokens": 1200, "output_tokens": 80, "cost_usd": "0.003800"}
    assert state.versions.model == "openai:atlas-test-model"
    assert state.versions.model_kind == "llm"


def test_the_model_spec_reads_the_standard_environment(monkeypatch, server):
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env")
    model = make_model("openai:gpt-test")
    assert isinstance(model, OpenAIChatModel)
    assert model.base_url == server.base_url and model.api_key == "sk-env"
    assert CallTool.model_validate(RESOLVE).tool_name == "resolve_entity"


def test_calls_share_one_kept_alive_connection(server, make_state):
    model = model_for(server)
    for _ in range(3):
        server.responses.append(server.completion(RESOLVE))
        assert model.decide(a_context(make_state)).raw
    assert len(server.connections) == 3 and len(set(server.connections)) == 1


def test_a_connection_the_server_closed_is_replaced_without_losing_the_call(server, make_state):
    model = model_for(server, max_attempts=1)  # no retries: the reconnect alone must do it
    # The endpoint drops each connection after answering without saying so beforehand,
    # as one does when it restarts or times out an idle keep-alive connection.
    server.drop_after_response = True
    for _ in range(2):
        server.responses.append(server.completion(RESOLVE))
        reply = model.decide(a_context(make_state))
        assert reply.transport_error is None and reply.raw
    assert len(server.requests) == 2 and len(set(server.connections)) == 2


def test_a_base_url_that_is_not_http_is_a_clear_permanent_error(make_state):
    model = OpenAIChatModel("m", base_url="ftp://models.example/v1", api_key="k", max_attempts=1)
    reply = model.decide(a_context(make_state))
    assert reply.transport_error == "http_error"
    assert "not an http(s) URL" in reply.error_message


@pytest.mark.parametrize(
    "usage",
    [
        {"prompt_tokens": -1, "completion_tokens": 80},
        {"prompt_tokens": "1,200", "completion_tokens": 80},
        {"prompt_tokens": 10**20, "completion_tokens": 80},
        {"prompt_tokens": 1e30, "completion_tokens": 80},
        "n/a",
    ],
    ids=["negative", "formatted-string", "absurd", "absurd-float", "not-an-object"],
)
def test_a_garbled_usage_keeps_the_decision_and_counts_an_estimate(
    server, make_runtime, make_state, store, usage
):
    server.responses = [server.completion_reporting(RESOLVE, usage)]
    state = make_state()
    context = a_context(lambda: state)
    runtime = make_runtime(model_for(server))
    state = runtime.step(runtime.start(state))
    assert [e.type for e in store.events[state.run_id]] == [
        "run_started",
        "model_requested",
        "model_decision",
        "tool_started",
        "tool_succeeded",
    ]
    decision = events_of(store, state, "model_decision")[0].data
    assert decision["usage_estimated"] is True
    assert decision["tool_name"] == "resolve_entity"
    # A count the endpoint did report is kept; only the unusable one is estimated.
    expected_output = 80 if isinstance(usage, dict) else estimate_tokens(json.dumps(RESOLVE))
    assert state.input_tokens == estimate_tokens(context.request_text()) > 0
    assert state.output_tokens == expected_output
    assert state.model_cost_usd == PRICES.cost(state.input_tokens, state.output_tokens) > 0


def test_a_reply_without_usage_is_priced_from_an_estimate(server, make_state):
    server.responses = [server.completion_reporting(RESOLVE)]
    context = a_context(make_state)
    reply = model_for(server).decide(context)
    assert reply.usage_estimated
    assert reply.usage.input_tokens == estimate_tokens(context.request_text())
    assert reply.usage.output_tokens == estimate_tokens(json.dumps(RESOLVE))
    assert reply.usage.cost_usd == PRICES.cost(reply.usage.input_tokens, reply.usage.output_tokens)


def test_reported_usage_is_not_marked_as_estimated(server, make_runtime, make_state, store):
    server.responses = [server.completion(RESOLVE)]
    runtime = make_runtime(model_for(server))
    state = runtime.step(runtime.start(make_state()))
    assert "usage_estimated" not in events_of(store, state, "model_decision")[0].data


def test_the_token_budget_stops_a_run_whose_endpoint_reports_no_usage(
    server, make_runtime, make_state, store
):
    searches = [
        {
            "kind": "call_tool",
            "tool_name": "search_adverse_media",
            "arguments": {"query": f"Acme Analytics {topic}"},
            "rationale_summary": "Look for adverse media.",
        }
        for topic in ("fraud", "fine", "lawsuit", "bribery", "sanctions", "probe", "recall")
    ]
    server.responses = [server.completion_reporting(turn) for turn in [RESOLVE, *searches]]
    runtime = make_runtime(model_for(server))
    state = run(runtime, make_state(max_tokens=8000, max_iterations=20, max_no_progress=20))
    assert state.termination_reason == "token_budget"
    assert len(server.requests) < 8, "the budget stopped the run before the endpoint ran dry"
    assert events_of(store, state, "model_failed") == []
    assert state.tokens == state.input_tokens + state.output_tokens > 0
    assert state.model_cost_usd > 0


ACTIONS = [
    RESOLVE,
    {
        "kind": "ask_human",
        "question": "Which Acme?",
        "blocking": False,
        "candidates": ["Acme Analytics Ltd"],
        "usage": {"input_tokens": 1, "output_tokens": 1, "cost_usd": "0.01"},
    },
    {"kind": "finish", "packet": {"subject": "Acme Analytics", "risk_rating": "low"}},
]


def test_the_response_schema_is_one_object_that_every_next_action_satisfies(server, make_state):
    server.responses = [server.completion(RESOLVE)]
    assert model_for(server).decide(a_context(make_state)).transport_error is None
    schema = server.requests[-1]["response_format"]["json_schema"]["schema"]
    assert schema["type"] == "object" and schema["additionalProperties"] is False
    for action in ACTIONS:
        # The assistant's content is the NextAction itself, not wrapped in another key.
        assert set(schema["required"]) <= set(action) <= set(schema["properties"])
        assert action["kind"] in schema["properties"]["kind"]["enum"]
        assert parse_next_action(action).kind == action["kind"]


def test_the_local_endpoint_refuses_a_root_union_as_the_real_api_does(server, make_state):
    context = a_context(make_state).model_copy(
        update={"response_schema": NEXT_ACTION_ADAPTER.json_schema()}
    )
    reply = model_for(server, max_attempts=1).decide(context)
    assert reply.transport_error == "http_error", reply.error_message
    assert "root must be an object" in reply.error_message


# --- the run's cancel signal and deadline bound a model call ---------------------------


def test_a_cancel_ends_the_run_while_the_model_is_answering(
    server, make_runtime, make_state, store, cancel
):
    server.delay_seconds = 5
    server.responses = [server.completion(RESOLVE)]
    runtime = make_runtime(model_for(server))
    state = runtime.start(make_state())
    threading.Timer(0.3, cancel.set).start()
    began = time.monotonic()
    state = runtime.run_until_pause(state)
    assert time.monotonic() - began < 1.0, "cancelled within 1 s, not when the reply came"
    assert (state.status, state.termination_reason) == ("cancelled", "cancelled")
    assert [e.type for e in store.events[state.run_id]] == [
        "run_started",
        "model_requested",
        "model_failed",
        "run_cancelled",
    ]
    failed = events_of(store, state, "model_failed")[0].data
    assert failed["error_type"] == "cancelled" and failed["usage_estimated"] is True
    assert state.tokens == failed["usage"]["input_tokens"] + failed["usage"]["output_tokens"] > 0
    time.sleep(0.3)
    assert len(server.requests) == 1, "the abandoned call starts no retry"


class StalledModel:
    """An endpoint that never answers in time and ignores the runtime's limits."""

    name = "stalled"
    kind = "llm"
    waits_on_network = True

    def decide(self, context):
        time.sleep(5)
        raise AssertionError("the runtime should have stopped waiting")

    def price_per_1k_tokens(self):
        return Decimal("0.01")


def test_the_deadline_cuts_a_model_call_short(make_runtime, make_state, store):
    runtime = make_runtime(StalledModel(), clock=SystemClock())
    began = time.monotonic()
    state = runtime.run_until_pause(runtime.start(make_state(deadline_seconds=1)))
    assert time.monotonic() - began < 1.5, "the run ended at its deadline, not the reply's"
    assert (state.status, state.termination_reason) == ("awaiting_review", "deadline")
    types = [e.type for e in store.events[state.run_id]]
    assert types[:4] == ["run_started", "model_requested", "model_failed", "budget_exhausted"]
    failed = events_of(store, state, "model_failed")[0].data
    assert failed["error_type"] == "deadline" and failed["usage_estimated"] is True
    assert state.model_cost_usd == Decimal(failed["usage"]["cost_usd"]) > 0
    assert state.cost_usd <= state.budgets.max_cost_usd
    assert state.proposed_packet is not None and state.proposed_packet.risk_rating == "unrated"


def test_a_slow_endpoint_is_asked_once_and_the_run_ends_at_its_deadline(
    server, make_runtime, make_state
):
    server.delay_seconds = 5
    server.responses = [server.completion(RESOLVE)] * 3
    runtime = make_runtime(model_for(server), clock=SystemClock())
    began = time.monotonic()
    state = runtime.run_until_pause(runtime.start(make_state(deadline_seconds=1)))
    assert time.monotonic() - began < 1.5
    assert (state.status, state.termination_reason) == ("awaiting_review", "deadline")
    time.sleep(1.2)
    assert len(server.requests) == 1, "the call gave up at the deadline and started no retry"


def test_an_attempt_waits_no_longer_than_the_time_limit(server, make_state):
    server.delay_seconds = 5
    server.responses = [server.completion(RESOLVE)]
    context = a_context(make_state)
    context.time_limit_seconds = 0.4
    began = time.monotonic()
    reply = model_for(server).decide(context)
    assert time.monotonic() - began < 1.0
    assert reply.transport_error == "timeout"
    assert len(server.requests) == 1


def test_no_retry_starts_that_the_time_limit_cannot_wait_for(server, make_state):
    server.responses = [(503, {"error": "busy"})] * 3
    model = OpenAIChatModel(
        "atlas-test-model", base_url=server.base_url, api_key="k", backoff_initial=2.0
    )
    context = a_context(make_state)
    context.time_limit_seconds = 1.0
    began = time.monotonic()
    reply = model.decide(context)
    assert time.monotonic() - began < 0.5, "no 2 s backoff was slept"
    assert reply.transport_error == "server_error"
    assert len(server.requests) == 1


def test_a_call_the_runtime_stopped_waiting_for_is_not_retried(server, make_state):
    server.delay_seconds = 0.5
    server.responses = [(503, {"error": "busy"})] * 3
    context = a_context(make_state)
    threading.Timer(0.2, context.abandoned.set).start()
    reply = model_for(server).decide(context)
    assert reply.transport_error is not None
    assert len(server.requests) == 1


@pytest.mark.parametrize(
    "reply",
    [
        f"```json\n{json.dumps(RESOLVE)}\n```",
        f"```json\n{json.dumps(RESOLVE)}\n```\nHope this helps!",
        f"```\n{json.dumps(RESOLVE)}\n```\n\nI chose to resolve the entity first.",
    ],
)
def test_a_fenced_decision_is_read_whatever_is_said_after_the_fence(reply):
    assert parse_next_action(reply).kind == "call_tool"


def test_a_backtick_run_inside_a_decisions_text_is_kept():
    action = {**RESOLVE, "rationale_summary": "Quote: ``` is a fence."}
    parsed = parse_next_action(f"```json\n{json.dumps(action)}\n```")
    assert parsed.rationale_summary == "Quote: ``` is a fence."


@pytest.mark.parametrize(
    "reply",
    [
        f"Sure! {json.dumps(RESOLVE)} Hope this helps!",
        f"{json.dumps(RESOLVE)}\n```\nHope this helps!",
        # Two fenced answers: which is meant is not guessed.
        f"```json\n{json.dumps(RESOLVE)}\n``` Actually, better:\n```json\n{json.dumps(RESOLVE)}\n```",
    ],
)
def test_prose_around_an_unfenced_decision_or_two_fenced_ones_are_refused(reply):
    from atlas.runtime.decisions import InvalidModelOutput

    with pytest.raises(InvalidModelOutput, match="not JSON"):
        parse_next_action(reply)


@pytest.mark.parametrize("price", ["-0.01", "NaN", "Infinity"])
def test_a_price_table_refuses_a_negative_or_endless_price(price):
    with pytest.raises(ValidationError):
        PriceTable(input_per_1k=price)
