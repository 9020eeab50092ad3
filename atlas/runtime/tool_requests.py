"""A tool call the model asked for: checked (known tool, valid arguments, policy, not a
repeat) and then run, or held for a reviewer's approval."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from atlas.runtime.case_documents import take_up_sensitive_marks
from atlas.runtime.decisions import CallTool
from atlas.runtime.policy import evaluate
from atlas.runtime.state import AtlasState, ProposedToolCall
from atlas.runtime.step_writer import StepBuffer, StepWriter, short_hash
from atlas.runtime.tool_runs import run_tool
from atlas.runtime.tools.gateway import action_signature

if TYPE_CHECKING:
    from atlas.runtime.engine import Runtime

DUPLICATE_MESSAGE = (
    "Identical action blocked: this tool already ran with these arguments. "
    "Change the plan or the arguments."
)


def request_tool_call(
    runtime: Runtime, s: AtlasState, buf: StepBuffer, action: CallTool
) -> AtlasState:
    writer = runtime.writer
    name = action.tool_name
    spec = runtime.registry.get(name)
    if spec is None:
        s.decision_history.append(f"call_tool:{name}:{short_hash(action.arguments)}")
        tools = ", ".join(runtime.registry.names())
        return _refuse(
            writer,
            s,
            buf,
            name,
            "tool_rejected",
            {"reason": "unknown_tool"},
            "unknown_tool",
            f"There is no tool named {name!r}. Tools: {tools}.",
        )
    try:
        args = spec.args_model.model_validate(action.arguments)
    except ValidationError as error:
        s.decision_history.append(f"call_tool:{name}:{short_hash(action.arguments)}")
        problems = [
            f"{'.'.join(str(p) for p in e['loc']) or 'arguments'}: {e['msg']}"
            for e in error.errors()[:5]
        ]
        return _refuse(
            writer,
            s,
            buf,
            name,
            "tool_rejected",
            {"reason": "invalid_arguments", "errors": problems},
            "invalid_arguments",
            "Invalid arguments: " + "; ".join(problems),
        )
    normalized = args.model_dump(mode="json", exclude_none=True)
    signature = action_signature(name, normalized)
    s.decision_history.append(f"call_tool:{name}:{signature[:12]}")
    if signature in s.denied_signatures:
        s.policy_denials += 1
        reason = "This exact action was denied before and stays blocked."
        return _deny(writer, s, buf, name, normalized, reason)
    if name == "extract_uploaded_document":
        take_up_sensitive_marks(writer, s, buf, runtime.documents)
    verdict = evaluate(s, spec, args, runtime.tenant_policy)
    if verdict.outcome == "deny":
        s.policy_denials += 1
        reason = " ".join(verdict.reasons)
        s.denied_signatures.append(signature)
        s.denied_actions.append({"tool": name, "arguments": normalized, "reason": reason})
        return _deny(writer, s, buf, name, normalized, reason)
    if s.action_counts.get(signature, 0) >= 1:
        return _refuse(
            writer,
            s,
            buf,
            name,
            "duplicate_action_blocked",
            {"arguments": normalized},
            "duplicate_action",
            DUPLICATE_MESSAGE,
        )
    call = ProposedToolCall(
        action_id=f"{s.run_id}:act:{s.step}",
        tool_name=name,
        arguments=normalized,
        signature=signature,
        reasons=verdict.reasons,
        estimated_cost_usd=spec.price_usd,
        step=s.step,
    )
    if verdict.outcome == "needs_approval" and signature not in s.approved_signatures:
        return _hold_for_approval(writer, s, buf, call)
    return run_tool(runtime, s, buf, call)


def _hold_for_approval(
    writer: StepWriter, s: AtlasState, buf: StepBuffer, call: ProposedToolCall
) -> AtlasState:
    s.pending_approval = call
    writer.set_status(s, "awaiting_review", "awaiting_approval")
    writer.emit(
        s,
        buf,
        "approval_requested",
        action_id=call.action_id,
        tool=call.tool_name,
        arguments=call.arguments,
        reasons=call.reasons,
        estimated_cost_usd=call.estimated_cost_usd,
    )
    return s


def run_approved_call(
    runtime: Runtime, s: AtlasState, buf: StepBuffer, call: ProposedToolCall
) -> AtlasState:
    """Run a call decided earlier (a reviewer's approval, an in-flight call taken over after
    a crash), checked against the policy as it stands now: refused when the tool is gone,
    denied when the tenant has forbidden it since, and asked about again when it needs an
    approval for a reason the one given did not cover (a document marked sensitive while
    the approval waited, or as it was being requested)."""
    writer = runtime.writer
    spec = runtime.registry.get(call.tool_name)
    if spec is None:
        message = f"The tool {call.tool_name!r} is no longer available; the call was not run."
        event = {"reason": "unknown_tool"}
        return _refuse(
            writer, s, buf, call.tool_name, "tool_rejected", event, "unknown_tool", message
        )
    if call.tool_name == "extract_uploaded_document":
        take_up_sensitive_marks(writer, s, buf, runtime.documents)
    args = spec.args_model.model_validate(call.arguments)
    verdict = evaluate(s, spec, args, runtime.tenant_policy)
    if verdict.outcome == "deny":
        s.policy_denials += 1
        return _deny(writer, s, buf, call.tool_name, call.arguments, " ".join(verdict.reasons))
    unapproved = [reason for reason in verdict.reasons if reason not in call.reasons]
    if verdict.outcome == "needs_approval" and unapproved:
        again = call.model_copy(
            update={"action_id": f"{s.run_id}:act:{s.step}", "reasons": verdict.reasons}
        )
        return _hold_for_approval(writer, s, buf, again)
    return run_tool(runtime, s, buf, call)


def _deny(
    writer: StepWriter,
    s: AtlasState,
    buf: StepBuffer,
    name: str,
    arguments: dict[str, Any],
    reason: str,
) -> AtlasState:
    event_data = {"arguments": arguments, "reason": reason}
    return _refuse(writer, s, buf, name, "policy_denied", event_data, "policy_denied", reason)


def _refuse(
    writer: StepWriter,
    s: AtlasState,
    buf: StepBuffer,
    name: str,
    event_type: str,
    event_data: dict[str, Any],
    error_type: str,
    error_message: str,
) -> AtlasState:
    """The call does not run: a trace event, and an observation telling the model why."""
    writer.emit(s, buf, event_type, tool=name, **event_data)
    writer.observe(
        s,
        buf,
        source="runtime",
        name=name,
        ok=False,
        error_type=error_type,
        error_message=error_message,
    )
    return s
