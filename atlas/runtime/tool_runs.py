"""Running an allowed tool call: the intent is committed first, then the gateway runs it,
and the outcome is folded into the state as evidence, an observation and trace events."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from atlas.runtime import reducer
from atlas.runtime.budgets import check_tool_call, deadline_stop
from atlas.runtime.context import MODEL_VIEW_LIMIT, model_view
from atlas.runtime.decisions import CallTool
from atlas.runtime.ports import ToolCallRecord
from atlas.runtime.result_words import result_lines, result_summary
from atlas.runtime.state import AtlasState, InFlightToolCall, ProposedToolCall
from atlas.runtime.step_writer import StepBuffer, StepWriter
from atlas.runtime.stops import budget_stop, cancelled, fail
from atlas.runtime.tools.base import ToolContext, ToolSpec
from atlas.runtime.tools.gateway import ToolOutcome, idempotency_key
from atlas.runtime.wording import counted

if TYPE_CHECKING:
    from atlas.runtime.engine import Runtime


def run_tool(
    runtime: Runtime, s: AtlasState, buf: StepBuffer, call: ProposedToolCall
) -> AtlasState:
    spec = runtime.registry.get(call.tool_name)
    assert spec is not None
    writer = runtime.writer
    if runtime.cancel_signal.is_set():
        return cancelled(writer, s, buf)
    stop = check_tool_call(s, spec.price_usd, writer.clock.now())
    if stop:
        return budget_stop(writer, s, buf, stop)
    args = spec.args_model.model_validate(call.arguments)
    key = call.idempotency_key or idempotency_key(s.run_id, s.step, call.signature)
    started_at = call.first_started_at or writer.clock.now()
    first_attempt = call.attempts_before + 1
    s.in_flight = InFlightToolCall(
        idempotency_key=key,
        tool_name=spec.name,
        arguments=call.arguments,
        signature=call.signature,
        step=s.step,
        reasons=call.reasons,
    )
    record = ToolCallRecord(
        idempotency_key=key,
        run_id=s.run_id,
        step=s.step,
        tool=spec.name,
        arguments=call.arguments,
        effect_status="intended",
        attempts=first_attempt,
        started_at=started_at,
    )
    writer.emit(
        s,
        buf,
        "tool_started",
        tool=spec.name,
        arguments=call.arguments,
        idempotency_key=key,
        attempt=first_attempt,
    )
    buf.tool_calls.append(record)
    s = writer.commit(s, buf, intent=True)

    ctx = ToolContext(brief=s.brief, documents=runtime.documents, world=runtime.world)
    outcome = runtime.gateway.execute(
        spec,
        args,
        key=key,
        ctx=ctx,
        next_fault=lambda: next_fault(s, spec.name),
        emit=lambda type_, **data: writer.emit(s, buf, type_, **data),
        max_retries=s.budgets.max_tool_retries,
        deadline_at=s.deadline_at,
        first_attempt=first_attempt,
    )
    finished_at = writer.clock.now()
    record = record.model_copy(
        update={
            "effect_status": outcome.effect_status,
            "attempts": outcome.attempts,
            "cost_usd": outcome.cost_usd,
            "result": outcome.result,
            "error_type": outcome.error_type,
            "finished_at": finished_at,
            "duration_ms": outcome.duration_ms,
        }
    )
    buf.tool_calls.append(record)  # durable with this step's commit (see StepWriter.commit)
    s.in_flight = None
    s.tool_cost_usd += outcome.cost_usd
    try:
        return absorb_outcome(writer, s, buf, call, spec, outcome, key)
    except BaseException:
        # Never reaching the step's commit: the result is kept all the same, so whoever
        # takes the run over reconciles the call by its key instead of running it again.
        writer.keep_tool_result(record)
        raise


def absorb_outcome(
    writer: StepWriter,
    s: AtlasState,
    buf: StepBuffer,
    call: ProposedToolCall,
    spec: ToolSpec,
    outcome: ToolOutcome,
    key: str,
) -> AtlasState:
    name = spec.name
    if outcome.status == "cancelled":
        return cancelled(writer, s, buf)
    if outcome.status == "succeeded":
        s.consecutive_tool_failures = 0
        s.action_counts[call.signature] = s.action_counts.get(call.signature, 0) + 1
        s.executed_actions.append({"tool": name, "arguments": call.arguments, "step": s.step})
        result = outcome.result or {}
        known_evidence = {e.evidence_id for e in s.evidence}
        held = {e.fingerprint for e in s.evidence}
        open_conflicts = {c.conflict_id for c in s.conflicts if c.status == "open"}
        reducer.apply_in_place(
            s,
            CallTool(tool_name=name, arguments=call.arguments),
            result,
            step=s.step,
            now=writer.clock.now(),
            arguments=call.arguments,
        )
        new_evidence = [e for e in s.evidence if e.evidence_id not in known_evidence]
        payload, omitted = model_payload(result)
        view, truncated = model_view(f"tool:{name}", payload)
        if omitted or truncated:
            writer.emit(
                s,
                buf,
                "result_truncated",
                tool=name,
                idempotency_key=key,
                stored_chars=len(json.dumps(result, default=str)),
                shown_chars=min(len(view), MODEL_VIEW_LIMIT + 200),
            )
        summary = result_summary(name, result, held)
        writer.emit(
            s,
            buf,
            "tool_succeeded",
            duration_ms=outcome.duration_ms,
            tool=name,
            idempotency_key=key,
            summary=summary,
            found=result_lines(name, result),
            cost_usd=outcome.cost_usd,
            source_ids=[e.evidence_id for e in new_evidence],
            attempts=outcome.attempts,
            reconciled=outcome.reconciled,
        )
        cited = [e.evidence_id for e in new_evidence] or result_evidence_ids(s, name, step=s.step)
        writer.observe(
            s,
            buf,
            source="tool",
            name=name,
            ok=True,
            data=result,
            view=view + f"\nEvidence ids: {', '.join(cited) or '(nothing new)'}",
            source_ids=cited,
        )
        for conflict in s.conflicts:
            # New, or settled before and disputed by what this call read.
            if conflict.status == "open" and conflict.conflict_id not in open_conflicts:
                reopened = (
                    conflict.earlier_resolutions[-1] if conflict.earlier_resolutions else None
                )
                writer.emit(
                    s,
                    buf,
                    "conflict_detected",
                    conflict_id=conflict.conflict_id,
                    fact=conflict.fact,
                    entity_id=conflict.entity_id,
                    **({"person": conflict.person} if conflict.person else {}),
                    values=[v.model_dump(mode="json") for v in conflict.values],
                    **({"reopened_after": reopened.model_dump(mode="json")} if reopened else {}),
                )
        return s
    writer.observe(
        s,
        buf,
        source="tool",
        name=name,
        ok=False,
        error_type=outcome.error_type,
        error_message=f"{outcome.error_message} (after {counted(outcome.attempts, 'attempt')})",
    )
    if outcome.status == "domain_error":
        # The provider answered; asking again with the same arguments gives the same answer.
        s.action_counts[call.signature] = s.action_counts.get(call.signature, 0) + 1
        return s
    if outcome.status == "forbidden":
        return fail(writer, s, buf, "tool_failure", tool=name, error_type=outcome.error_type)
    s.consecutive_tool_failures += 1
    if outcome.out_of_time:
        return budget_stop(writer, s, buf, deadline_stop(s, writer.clock.now()))
    if s.consecutive_tool_failures >= s.budgets.max_consecutive_tool_failures:
        return fail(writer, s, buf, "tool_failure", tool=name, error_type=outcome.error_type)
    return s


def next_fault(s: AtlasState, tool: str) -> str:
    plan = s.fault_plan.get(tool, [])
    index = s.tool_fault_cursors.get(tool, 0)
    s.tool_fault_cursors[tool] = index + 1
    return plan[index] if index < len(plan) else "ok"


def model_payload(result: dict[str, Any]) -> tuple[dict[str, Any], int]:
    """What the model sees of a result: no raw provider dump, article text bounded."""
    payload = dict(result)
    omitted = 0
    raw = payload.pop("raw", None)
    if raw:
        omitted = len(raw)
        payload["raw_omitted_chars"] = omitted
    if "articles" in payload:
        payload["articles"] = [
            {k: (v[:600] if k == "text" else v) for k, v in article.items() if k != "facts"}
            for article in payload["articles"]
        ]
    if "candidates" in payload:
        payload["candidates"] = [
            {k: v for k, v in c.items() if k != "record"}
            | {"directors": c.get("record", {}).get("directors", [])}
            for c in payload["candidates"]
        ]
    return payload, omitted


def result_evidence_ids(s: AtlasState, tool: str, step: int) -> list[str]:
    return [e.evidence_id for e in s.evidence if e.tool == tool and e.step == step]
