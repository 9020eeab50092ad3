"""After a crash: a tool call left in flight is reconciled by its idempotency key before
anything is retried, so a call the store says succeeded is not run again."""

from __future__ import annotations

from typing import TYPE_CHECKING

from atlas.runtime.ports import ToolCallRecord
from atlas.runtime.state import AtlasState, InFlightToolCall, ProposedToolCall
from atlas.runtime.step_writer import StepBuffer
from atlas.runtime.tool_runs import absorb_outcome
from atlas.runtime.tools.gateway import ToolOutcome

if TYPE_CHECKING:
    from atlas.runtime.engine import Runtime


def reconcile_in_flight(
    runtime: Runtime, s: AtlasState, buf: StepBuffer, in_flight: InFlightToolCall
) -> AtlasState:
    s.in_flight = None
    record = runtime.store.find_tool_call(in_flight.idempotency_key)
    call = ProposedToolCall(
        action_id=f"{s.run_id}:reconcile:{in_flight.step}",
        tool_name=in_flight.tool_name,
        arguments=in_flight.arguments,
        signature=in_flight.signature,
        step=in_flight.step,
        idempotency_key=in_flight.idempotency_key,
        reasons=in_flight.reasons,
        continues_step=True,
        attempts_before=record.attempts if record is not None else 0,
        first_started_at=record.started_at if record is not None else None,
    )
    spec = runtime.registry.get(in_flight.tool_name)
    if record is not None and record.effect_status == "succeeded" and spec is not None:
        outcome = ToolOutcome(
            status="succeeded",
            effect_status="succeeded",
            attempts=record.attempts,
            duration_ms=record.duration_ms or 0,
            result=record.result,
            cost_usd=record.cost_usd,
            reconciled=True,
        )
        s.tool_cost_usd += record.cost_usd
        s = absorb_outcome(runtime.writer, s, buf, call, spec, outcome, record.idempotency_key)
    elif s.status == "researching":
        # Effect unknown and every tool here is a read: run it again, same key.
        s.approved_action = call
    return s


def settle_before_cancel(
    runtime: Runtime, s: AtlasState, buf: StepBuffer, in_flight: InFlightToolCall
) -> AtlasState:
    """A run is cancelled while a call its previous holder started has no outcome (that
    holder died): a success the store has is kept, anything else is recorded as cancelled
    with its effect unknown. Nothing is run again."""
    record = runtime.store.find_tool_call(in_flight.idempotency_key)
    if record is not None and record.effect_status == "succeeded":
        return reconcile_in_flight(runtime, s, buf, in_flight)
    s.in_flight = None
    record = record or ToolCallRecord(
        idempotency_key=in_flight.idempotency_key,
        run_id=s.run_id,
        step=in_flight.step,
        tool=in_flight.tool_name,
        arguments=in_flight.arguments,
        attempts=1,
    )
    runtime.writer.emit(
        s,
        buf,
        "tool_failed",
        tool=in_flight.tool_name,
        idempotency_key=in_flight.idempotency_key,
        error_type="cancelled",
        message="Cancelled after the worker running this call stopped; whether it finished is unknown.",
        retryable=False,
        attempt=record.attempts,
    )
    buf.tool_calls.append(
        record.model_copy(
            update={
                "effect_status": "unknown",
                "error_type": "cancelled",
                "finished_at": runtime.clock.now(),
            }
        )
    )
    return s
