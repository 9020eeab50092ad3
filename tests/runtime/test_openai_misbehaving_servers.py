"""OpenAI-compatible servers that misbehave as real ones do (vLLM, llama.cpp, Ollama, proxies):
what they meant is read when it can be, and otherwise the run says what happened, keeps to its
budgets and is charged what the endpoint may bill."""

from __future__ import annotations

import gzip
import json
import time
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from email.utils import format_datetime

from runtime_helpers import events_of, stored_observations
from test_openai_adapter import RESOLVE, a_context, model_for

from atlas.runtime.adapters.openai import MAX_REPLY_BYTES, OpenAIChatModel
from atlas.runtime.budgets import estimate_tokens


def an_event_stream(text: str, usage: dict) -> bytes:
    """A streamed chat completion, as a server that streams unasked sends it."""
    chunks = [
        {"model": "streamer", "choices": [{"index": 0, "delta": {"content": text[:15]}}]},
        {"choices": [{"index": 0, "delta": {"content": text[15:]}, "finish_reason": "stop"}]},
        {"choices": [], "usage": usage},
    ]
    events = [f"data: {json.dumps(chunk)}\n\n" for chunk in chunks] + ["data: [DONE]\n\n"]
    return "".join(events).encode()


def test_a_request_that_timed_out_is_not_sent_again_within_the_call(server, make_state):
    server.delay_seconds = 1
    server.responses = [server.completion(RESOLVE)] * 3
    context = a_context(make_state)
    reply = model_for(server, timeout_seconds=0.2, max_attempts=3).decide(context)
    assert reply.transport_error == "timeout"
    assert len(server.requests) == 1, "the endpoint may bill a request it answers late"
    # Charged once, what the runtime reserved for one call, never three times that.
    assert reply.usage.input_tokens == estimate_tokens(context.request_text())
    assert reply.usage.output_tokens == context.max_output_tokens


def test_a_hanging_endpoint_never_takes_a_run_over_its_token_budget(
    server, make_runtime, make_state, store
):
    server.delay_seconds = 1
    server.responses = [server.completion(RESOLVE)] * 3
    runtime = make_runtime(model_for(server, timeout_seconds=0.2, max_attempts=3))
    state = runtime.start(make_state(max_tokens=4500))
    reserved = None
    while state.status == "researching":
        state = runtime.step(state)
        reserved = reserved or events_of(store, state, "model_requested")[0].data
    assert reserved["reserved_tokens"] <= 4500
    assert state.input_tokens + state.output_tokens <= 4500
    assert not any(e.data.get("overspent") for e in events_of(store, state, "budget_exhausted"))


def test_a_retry_after_given_as_a_date_is_kept_to(server, make_state):
    replied_at = datetime(2026, 3, 2, 10, 0, 0, tzinfo=UTC)
    server.responses = [
        (
            429,
            {"error": "slow down"},
            {
                "Date": format_datetime(replied_at, usegmt=True),
                "Retry-After": format_datetime(replied_at + timedelta(seconds=45), usegmt=True),
            },
        )
    ]
    reply = model_for(server, max_attempts=1).decide(a_context(make_state))
    assert reply.transport_error == "rate_limited"
    assert reply.retry_after_seconds == 45.0


def test_a_retry_after_date_without_the_servers_date_is_read_against_the_clock(server, make_state):
    asked = datetime.now(UTC) + timedelta(seconds=30)
    retry_after = format_datetime(asked, usegmt=True)
    server.responses = [(429, {"error": "slow down"}, {"Retry-After": retry_after})]
    reply = model_for(server, max_attempts=1).decide(a_context(make_state))
    assert 27 <= reply.retry_after_seconds <= 30


def test_a_reply_cut_off_mid_body_is_not_read_as_a_whole_one(server, make_state):
    server.cut_body_at = 60
    server.responses = [server.completion(RESOLVE)] * 3
    context = a_context(make_state)
    reply = model_for(server).decide(context)
    assert reply.transport_error == "incomplete_reply"
    assert "closed after 60 of" in reply.error_message
    assert len(server.requests) == 1, "the endpoint answered, so it may bill the request"
    assert reply.usage_estimated and reply.usage.cost_usd > 0


def test_a_reply_too_large_to_be_a_decision_is_not_read_whole(server, make_state):
    padding = b" " * (MAX_REPLY_BYTES + 1)
    _, body = server.completion(RESOLVE)
    server.responses = [(200, json.dumps(body).encode()[:-1] + padding + b"}")]
    reply = model_for(server).decide(a_context(make_state))
    assert reply.transport_error == "bad_response"
    assert "larger than" in reply.error_message
    assert reply.usage_estimated and reply.usage.cost_usd > 0


def test_a_stream_sent_unasked_is_read_as_one_reply(server, make_state):
    usage = {"prompt_tokens": 900, "completion_tokens": 40, "total_tokens": 940}
    stream = an_event_stream(json.dumps(RESOLVE), usage)
    server.responses = [(200, stream, {"Content-Type": "text/event-stream"})]
    reply = model_for(server).decide(a_context(make_state))
    assert reply.transport_error is None, reply.error_message
    assert json.loads(reply.raw) == RESOLVE
    assert (reply.usage.input_tokens, reply.usage.output_tokens) == (900, 40)
    assert (reply.provider_model, reply.finish_reason) == ("streamer", "stop")


def test_a_gzipped_reply_is_read(server, make_state):
    _, body = server.completion(RESOLVE)
    packed = gzip.compress(json.dumps(body).encode())
    server.responses = [(200, packed, {"Content-Encoding": "gzip"})]
    reply = model_for(server).decide(a_context(make_state))
    assert reply.transport_error is None, reply.error_message
    assert json.loads(reply.raw) == RESOLVE


def test_a_reply_with_bytes_that_are_not_utf8_keeps_its_decision(server, make_state):
    _, body = server.completion(RESOLVE)
    garbled = json.dumps(body).encode().replace(b"Identify", b"Identif\xff")
    server.responses = [(200, garbled)]
    reply = model_for(server).decide(a_context(make_state))
    assert reply.transport_error is None, reply.error_message
    decision = json.loads(reply.raw)
    assert decision["tool_name"] == "resolve_entity"
    assert decision["rationale_summary"].startswith("Identif\ufffd")


def test_a_page_that_is_not_json_is_quoted_in_the_error(server, make_state):
    page = b"<html><body><h1>502 Bad Gateway</h1></body></html>"
    server.responses = [(200, page, {"Content-Type": "text/html"})]
    reply = model_for(server).decide(a_context(make_state))
    assert reply.transport_error == "bad_response"
    assert "text/html" in reply.error_message and "502 Bad Gateway" in reply.error_message


def test_a_refusal_is_the_models_answer_and_gets_a_repair_turn(
    server, make_runtime, make_state, store
):
    status, body = server.completion(RESOLVE)
    body["choices"][0]["message"] = {
        "role": "assistant",
        "content": None,
        "refusal": "I'm sorry, I can't help with that.",
    }
    server.responses = [(status, body), server.completion(RESOLVE)]
    runtime = make_runtime(model_for(server))
    state = runtime.step(runtime.step(runtime.start(make_state())))
    failed = events_of(store, state, "model_failed")[0].data
    assert "I'm sorry, I can't help with that." in failed["raw_excerpt"]
    assert not failed["error_type"].startswith("transport_")
    assert [o.name for o in stored_observations(store, state)][:1] == ["model_output"]
    assert state.iteration == 1


def test_tool_calls_instead_of_content_are_shown_and_repaired(
    server, make_runtime, make_state, store
):
    status, body = server.completion(RESOLVE)
    call = {"name": "resolve_entity", "arguments": json.dumps(RESOLVE["arguments"])}
    body["choices"][0]["message"] = {
        "role": "assistant",
        "content": None,
        "tool_calls": [{"id": "call_1", "type": "function", "function": call}],
    }
    body["choices"][0]["finish_reason"] = "tool_calls"
    server.responses = [(status, body), server.completion(RESOLVE)]
    runtime = make_runtime(model_for(server))
    state = runtime.step(runtime.start(make_state()))
    failed = events_of(store, state, "model_failed")[0].data
    assert "resolve_entity" in failed["raw_excerpt"]
    assert failed["finish_reason"] == "tool_calls"
    assert not failed["error_type"].startswith("transport_")


def test_the_base_url_may_carry_spaces_the_endpoints_path_or_a_query(server, make_state):
    root = server.base_url.removesuffix("/v1")
    for base_url, path in [
        (f"  {server.base_url}/ ", "/v1/chat/completions"),
        (f"{server.base_url}/chat/completions", "/v1/chat/completions"),
        (
            f"{root}/openai?api-version=2024-10-21",
            "/openai/chat/completions?api-version=2024-10-21",
        ),
    ]:
        server.responses = [server.completion(RESOLVE)]
        model = OpenAIChatModel("org/model:7b", base_url=base_url, api_key="k")
        reply = model.decide(a_context(make_state))
        assert reply.transport_error is None, (base_url, reply.error_message)
        assert server.paths[-1] == path
        assert server.requests[-1]["model"] == "org/model:7b"


def test_a_retry_after_is_waited_for_in_full(server, make_state):
    server.responses = [(503, {"error": "busy"}, {"Retry-After": "1"}), server.completion(RESOLVE)]
    began = time.monotonic()
    reply = model_for(server, backoff_max=2).decide(a_context(make_state))
    assert reply.raw and time.monotonic() - began >= 1.0


def test_an_adapter_built_without_prices_charges_the_documented_ones(
    server, make_state, monkeypatch
):
    monkeypatch.delenv("OPENAI_PRICE_INPUT_PER_1K_USD", raising=False)
    monkeypatch.delenv("OPENAI_PRICE_OUTPUT_PER_1K_USD", raising=False)
    server.responses = [server.completion(RESOLVE, prompt_tokens=1000, completion_tokens=50)]
    model = OpenAIChatModel("m", base_url=server.base_url, api_key="k")
    assert model.decide(a_context(make_state)).usage.cost_usd == Decimal("0.000575")

    monkeypatch.setenv("OPENAI_PRICE_INPUT_PER_1K_USD", "0.01")
    monkeypatch.setenv("OPENAI_PRICE_OUTPUT_PER_1K_USD", "0.03")
    server.responses = [server.completion(RESOLVE, prompt_tokens=1000, completion_tokens=50)]
    model = OpenAIChatModel("m", base_url=server.base_url, api_key="k")
    assert model.decide(a_context(make_state)).usage.cost_usd == Decimal("0.011500")
