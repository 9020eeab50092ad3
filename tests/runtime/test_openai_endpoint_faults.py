"""An OpenAI-compatible endpoint that misbehaves: the run stays inside its contract and
says what went wrong, and usage it could not have meant is not charged as reported."""

from __future__ import annotations

import json
import time
from decimal import Decimal

from runtime_helpers import events_of, one_sentence
from test_openai_adapter import RESOLVE, a_context, model_for

from atlas.runtime.budgets import estimate_tokens
from atlas.runtime.memory import SystemClock
from atlas.runtime.state import USER_STATUS_MAX_LENGTH


def test_an_endpoint_that_closes_each_connection_is_read_whole(server, make_state):
    server.close_each_connection = True
    server.responses = [server.completion(RESOLVE), server.completion(RESOLVE)]
    model = model_for(server)
    for _ in range(2):
        reply = model.decide(a_context(make_state))
        assert reply.transport_error is None, reply.error_message
        assert json.loads(reply.raw) == RESOLVE
    assert len(server.requests) == 2


def test_a_body_trickled_past_the_time_limit_is_cut_at_it(server, make_state):
    server.trickle_seconds = 0.05
    server.responses = [server.completion(RESOLVE)]
    began = time.monotonic()
    reply = model_for(server, timeout_seconds=0.5, max_attempts=1).decide(a_context(make_state))
    assert time.monotonic() - began < 1.0, "the call, not each read, is bounded"
    assert reply.transport_error == "timeout"


def test_a_request_that_timed_out_is_charged_an_estimate(server, make_state):
    server.delay_seconds = 1
    server.responses = [server.completion(RESOLVE)]
    context = a_context(make_state)
    reply = model_for(server, timeout_seconds=0.3, max_attempts=1).decide(context)
    assert reply.transport_error == "timeout" and reply.usage_estimated
    assert reply.usage.input_tokens == estimate_tokens(context.request_text())
    assert reply.usage.output_tokens == context.max_output_tokens
    assert reply.usage.cost_usd > 0


def test_a_refused_connection_is_not_charged(make_state):
    from atlas.runtime.adapters.openai import OpenAIChatModel

    model = OpenAIChatModel("m", base_url="http://127.0.0.1:9/v1", api_key="k", max_attempts=1)
    reply = model.decide(a_context(make_state))
    assert reply.transport_error == "connection_error"
    assert reply.usage.total_tokens == 0 and not reply.usage_estimated


def test_retry_after_is_waited_for_and_one_beyond_the_time_left_is_not(server, make_state):
    server.responses = [
        (429, {"error": "slow down"}, {"Retry-After": "0.4"}),
        server.completion(RESOLVE),
    ]
    began = time.monotonic()
    assert model_for(server, backoff_max=1).decide(a_context(make_state)).raw
    assert time.monotonic() - began >= 0.4

    server.requests.clear()
    server.responses = [(429, {"error": "slow down"}, {"Retry-After": "3600"})]
    context = a_context(make_state)
    context.time_limit_seconds = 2
    began = time.monotonic()
    reply = model_for(server).decide(context)
    assert time.monotonic() - began < 0.5 and len(server.requests) == 1
    assert reply.transport_error == "rate_limited"


def test_a_retry_after_longer_than_the_calls_back_off_is_left_to_the_runtime(server, make_state):
    server.responses = [(429, {"error": "slow down"}, {"Retry-After": "30"})] * 3
    began = time.monotonic()
    reply = model_for(server, backoff_max=8).decide(a_context(make_state))
    assert time.monotonic() - began < 1 and len(server.requests) == 1
    assert (reply.transport_error, reply.retry_after_seconds) == ("rate_limited", 30)


def test_a_spent_budget_stops_the_run_without_waiting_for_the_endpoint(
    server, make_runtime, make_state
):
    server.responses = [(429, {"error": "slow down"}, {"Retry-After": "30"})]
    runtime = make_runtime(model_for(server, max_attempts=1), clock=SystemClock())
    state = runtime.step(runtime.start(make_state(max_tokens=100_000)))
    assert state.model_retry_at is not None
    state.input_tokens = 99_999
    began = time.monotonic()
    state = runtime.run_until_pause(state)
    assert time.monotonic() - began < 1
    assert state.termination_reason == "token_budget" and len(server.requests) == 1


def test_the_endpoints_wait_is_in_the_trace_and_can_be_handed_back(
    server, make_runtime, make_state, store
):
    server.responses = [
        (429, {"error": "slow down"}, {"Retry-After": "1"}),
        server.completion(RESOLVE),
    ]
    runtime = make_runtime(model_for(server, max_attempts=1), clock=SystemClock())
    began = time.monotonic()
    state = runtime.run_until_pause(runtime.start(make_state()), hand_back_waits=True)
    assert time.monotonic() - began < 0.5 and len(server.requests) == 1
    assert state.status == "researching" and 0.5 < runtime.model_wait_seconds(state) <= 1
    failed = events_of(store, state, "model_failed")[0].data
    assert failed["retry_after_seconds"] == 1

    time.sleep(runtime.model_wait_seconds(state))
    state = runtime.step(state)
    assert state.iteration == 1 and state.model_retry_at is None
    assert server.request_times[1] - server.request_times[0] >= 1.0


def test_a_call_the_adapter_sent_more_than_once_says_how_many_requests_it_made(
    server, make_runtime, make_state, store
):
    """Retries inside one model call are billed and waited for: the trace counts them."""
    server.responses = [
        (429, {"error": "slow down"}),
        (503, {"error": "busy"}),
        server.completion(RESOLVE),
        *[(500, {"error": "boom"})] * 3,
    ]
    runtime = make_runtime(model_for(server, max_attempts=3), clock=SystemClock())
    state = runtime.step(runtime.start(make_state()))
    decided = events_of(store, state, "model_decision")[0].data
    assert decided["requests"] == 3
    state = runtime.step(state)
    assert events_of(store, state, "model_failed")[0].data["requests"] == 3
    assert len(server.requests) == 6


def test_a_call_answered_at_once_says_nothing_of_requests(server, make_runtime, make_state, store):
    server.responses = [server.completion(RESOLVE)]
    runtime = make_runtime(model_for(server), clock=SystemClock())
    state = runtime.step(runtime.start(make_state()))
    assert "requests" not in events_of(store, state, "model_decision")[0].data


def test_usage_the_endpoint_could_not_have_meant_is_estimated(server, make_state):
    context = a_context(make_state)
    for prompt, completion in [(999_999_999, 80), (0, 0), (1200, 50_000)]:
        server.responses = [server.completion(RESOLVE, prompt, completion)]
        reply = model_for(server).decide(context)
        assert reply.usage_estimated, (prompt, completion)
        assert reply.usage.input_tokens == (
            prompt if prompt == 1200 else estimate_tokens(context.request_text())
        )
        assert reply.usage.output_tokens == (
            completion if completion == 80 else estimate_tokens(reply.raw)
        )
    server.responses = [server.completion(RESOLVE, 1200, 80)]
    assert not model_for(server).decide(context).usage_estimated


def test_a_small_usage_the_endpoint_reports_is_counted_as_reported(server, make_state):
    """DESIGN.md: usage comes from the response's `usage`. Only a count no request could
    have meant (none for a prompt, more than was sent or allowed) is estimated."""
    server.responses = [server.completion(RESOLVE, 12, 3)]
    reply = model_for(server).decide(a_context(make_state))
    assert not reply.usage_estimated
    assert (reply.usage.input_tokens, reply.usage.output_tokens) == (12, 3)


def test_a_reply_that_is_not_a_chat_completion_is_not_taken_for_a_decision(server, make_state):
    ask = {"kind": "ask_human", "question": "Which one?", "blocking": True}
    server.responses = [(200, {**ask, "usage": {"prompt_tokens": 1200, "completion_tokens": 9}})]
    reply = model_for(server).decide(a_context(make_state))
    assert reply.transport_error == "bad_response" and reply.raw is None
    assert "not a chat completion" in reply.error_message
    assert reply.usage.input_tokens == 1200  # what the endpoint reported is still charged

    status, body = server.completion(RESOLVE)
    body["choices"][0]["message"]["content"] = [
        {"type": "text", "text": json.dumps(RESOLVE)[:20]},
        {"type": "text", "text": json.dumps(RESOLVE)[20:]},
    ]
    server.responses = [(status, body)]
    assert json.loads(model_for(server).decide(a_context(make_state)).raw) == RESOLVE


def test_a_refused_key_ends_the_run_at_once_and_says_so(server, make_runtime, make_state, store):
    server.responses = [(401, {"error": {"message": "Incorrect API key provided"}})] * 3
    runtime = make_runtime(model_for(server))
    state = runtime.run_until_pause(runtime.start(make_state()))
    assert (state.status, state.termination_reason) == ("failed", "model_failure")
    assert state.user_status.startswith("The model endpoint refused the request (HTTP 401:")
    assert "check the model's address, key and name" in state.user_status.lower()
    assert one_sentence(state.user_status), state.user_status
    assert len(server.requests) == 1, "a refused key is not retried"
    assert not [o for o in store.observations.get(state.run_id, []) if o.name == "model_output"]


def test_an_endpoint_without_structured_output_is_told_apart_from_a_wrong_key(
    server, make_runtime, make_state
):
    unsupported = "response_format json_schema is not supported by this model"
    server.responses = [(400, {"error": {"message": unsupported}})]
    runtime = make_runtime(model_for(server))
    state = runtime.run_until_pause(runtime.start(make_state()))
    assert (state.status, state.termination_reason) == ("failed", "model_failure")
    assert "does not take the decision's JSON schema" in state.user_status
    assert "structured output (json_schema)" in state.user_status
    assert "key" not in state.user_status
    assert one_sentence(state.user_status), state.user_status


def test_an_endpoint_that_keeps_failing_is_not_called_the_models_fault(
    server, make_runtime, make_state
):
    server.responses = [(503, {"error": "overloaded"})] * 20
    runtime = make_runtime(model_for(server, max_attempts=1))
    state = runtime.run_until_pause(runtime.start(make_state()))
    assert (state.status, state.termination_reason) == ("failed", "model_failure")
    assert state.user_status.startswith("The model endpoint kept failing (HTTP 503:")


def test_a_call_given_up_at_the_deadline_ends_the_run_for_its_deadline(
    server, make_runtime, make_state, store
):
    server.delay_seconds = 5
    server.responses = [server.completion(RESOLVE)]
    runtime = make_runtime(model_for(server), clock=SystemClock())
    state = runtime.run_until_pause(
        runtime.start(make_state(deadline_seconds=1, max_model_errors=0))
    )
    assert (state.status, state.termination_reason) == ("awaiting_review", "deadline")
    failed = events_of(store, state, "model_failed")[0].data
    assert failed["error_type"] == "deadline" and failed["usage_estimated"] is True
    assert state.model_cost_usd > 0


def test_the_model_that_answered_and_why_it_stopped_are_in_the_trace(
    server, make_runtime, make_state, store
):
    status, body = server.completion(RESOLVE)
    body["model"] = "another-model-2"
    server.responses = [(status, body)]
    runtime = make_runtime(model_for(server, max_attempts=1))
    state = runtime.step(runtime.start(make_state()))
    decision = events_of(store, state, "model_decision")[0].data
    assert decision["provider_model"] == "another-model-2"
    assert decision["finish_reason"] == "stop"
    assert Decimal(decision["usage"]["cost_usd"]) > 0


def test_the_run_keeps_to_a_retry_after_that_outlasts_the_call(server, make_runtime, make_state):
    server.responses = [
        (429, {"error": "slow down"}, {"Retry-After": "1"}),
        server.completion(RESOLVE),
    ]
    runtime = make_runtime(model_for(server, max_attempts=1), clock=SystemClock())
    state = runtime.step(runtime.step(runtime.start(make_state())))
    assert state.iteration == 1 and len(server.request_times) == 2
    assert server.request_times[1] - server.request_times[0] >= 1.0


def test_a_retry_after_beyond_the_deadline_ends_the_run_at_its_deadline(
    server, make_runtime, make_state
):
    server.responses = [(429, {"error": "slow down"}, {"Retry-After": "60"})] * 5
    runtime = make_runtime(model_for(server), clock=SystemClock())
    began = time.monotonic()
    state = runtime.run_until_pause(runtime.start(make_state(deadline_seconds=2)))
    assert time.monotonic() - began < 3
    assert (state.status, state.termination_reason) == ("awaiting_review", "deadline")
    assert len(server.requests) == 1


def test_a_long_refusal_still_fits_the_runs_status_column(server, make_runtime, make_state):
    server.responses = [(401, {"error": {"message": "Incorrect API key provided. " * 20}})]
    runtime = make_runtime(model_for(server))
    state = runtime.run_until_pause(runtime.start(make_state()))
    assert state.termination_reason == "model_failure"
    assert state.user_status.startswith("The model endpoint refused the request (HTTP 401:")
    assert len(state.user_status) <= USER_STATUS_MAX_LENGTH


def test_an_endpoint_asking_again_and_again_to_wait_does_not_fail_the_run(
    server, make_runtime, make_state, store
):
    # More rate limits in a row than the model may make errors, each with a Retry-After.
    waits = [(429, {"error": "slow down"}, {"Retry-After": "0.2"})] * 4
    server.responses = [*waits, server.completion(RESOLVE)]
    runtime = make_runtime(model_for(server, max_attempts=1), clock=SystemClock())
    state = runtime.start(make_state(max_model_errors=2))
    for _ in range(5):
        state = runtime.step(state)
    assert state.status == "researching" and state.iteration == 1
    assert len(events_of(store, state, "model_failed")) == 4
    assert state.consecutive_model_errors == 0


def test_rate_limits_without_a_retry_after_still_count_as_model_errors(
    server, make_runtime, make_state
):
    server.responses = [(429, {"error": "slow down"}, {})] * 4
    runtime = make_runtime(model_for(server, max_attempts=1), clock=SystemClock())
    state = runtime.run_until_pause(runtime.start(make_state(max_model_errors=2)))
    assert (state.status, state.termination_reason) == ("failed", "model_failure")
