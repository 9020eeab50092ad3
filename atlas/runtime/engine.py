"""The bounded agent loop.

How a host drives a run::

    runtime = build_runtime("playbook", store=store, cancel=cancel, documents=docs,
                            tenant_policy=TenantPolicy(...))
    state = new_state(run_id=..., case_id=..., tenant_id=..., brief=CaseBrief(...))
    state = runtime.start(state)             # queued -> researching, `run_started`
    state = runtime.run_until_pause(state)   # step() until status != researching
    # status is now waiting_for_input / awaiting_review (paused), or terminal.
    state = runtime.apply_human_input(state, ClarificationAnswer(...))  # -> researching
    state = runtime.run_until_pause(state)
    state = runtime.cancel(state)            # a paused run; a running one: set the CancelSignal
    state = runtime.resume_after_crash(state)  # a worker picked up a run another worker left

Every method returns the new state and has already committed it through
``store.commit_step`` (optimistic version check: ``StaleRunVersion`` means another writer
won; reload and retry or give up). The runtime never mutates the state passed in.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from datetime import timedelta
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from atlas.runtime import reducer
from atlas.runtime.adapters.base import DecisionMaker, ModelReply
from atlas.runtime.adapters.playbook import Playbook
from atlas.runtime.budgets import (
    Reservation,
    check_model_call,
    check_tool_call,
    estimate_tokens,
    model_cost_reservation,
    shift_deadline,
)
from atlas.runtime.cancellation import AnyCancel
from atlas.runtime.context import (
    MODEL_VIEW_LIMIT,
    PROMPT_VERSION,
    build_context,
    model_view,
)
from atlas.runtime.decisions import (
    NEXT_ACTION_SCHEMA_VERSION,
    AskHuman,
    CallTool,
    DueDiligencePacket,
    Finish,
    InvalidModelOutput,
    parse_next_action,
)
from atlas.runtime.finish import propose_finish, validate_finish
from atlas.runtime.human_inputs import apply_human_input
from atlas.runtime.humans import (
    ApprovalDecision,
    ClarificationAnswer,
    HumanInput,
    HumanInputRejected,
)
from atlas.runtime.memory import (
    MemoryCancelSignal,
    MemoryDocumentSource,
    MemoryRunStore,
    SystemClock,
)
from atlas.runtime.policy import POLICY_VERSION, TenantPolicy, evaluate
from atlas.runtime.ports import (
    CancelSignal,
    Clock,
    DocumentSource,
    RunStore,
    StoredDocument,
    ToolCallRecord,
    TraceEventRecord,
)
from atlas.runtime.progress import (
    progress_signature,
)
from atlas.runtime.questions import ask_human
from atlas.runtime.scenario import HumanScript, Scenario, ScriptedModelSpec
from atlas.runtime.state import (
    AtlasState,
    AttachedDocument,
    Budgets,
    CaseBrief,
    InFlightToolCall,
    ProposedToolCall,
    VersionBundle,
    new_state,
)
from atlas.runtime.step_writer import EventListener, StepBuffer, StepWriter, short_hash
from atlas.runtime.stops import budget_stop, cancelled, check_loop_guards, fail
from atlas.runtime.tools.base import ToolContext, ToolSpec
from atlas.runtime.tools.gateway import (
    ToolGateway,
    ToolOutcome,
    action_signature,
    idempotency_key,
)
from atlas.runtime.tools.registry import TOOLSET_VERSION, ToolRegistry, default_registry
from atlas.runtime.world import World, default_world


class Runtime:
    """The deterministic shell around a decision maker. See the module docstring."""

    def __init__(
        self,
        model: DecisionMaker,
        *,
        registry: ToolRegistry | None = None,
        tenant_policy: TenantPolicy | None = None,
        store: RunStore | None = None,
        clock: Clock | None = None,
        cancel: CancelSignal | None = None,
        documents: DocumentSource | None = None,
        world: World | None = None,
        listeners: Sequence[EventListener] = (),
        retry_backoff_seconds: float = 0.05,
    ) -> None:
        self.model = model
        self.registry = registry or default_registry()
        self.tenant_policy = tenant_policy or TenantPolicy()
        self.store = store if store is not None else MemoryRunStore()
        self.clock = clock or SystemClock()
        self._local_cancel = MemoryCancelSignal()
        self.cancel_signal = AnyCancel(cancel, self._local_cancel)
        self.documents = documents
        self.world = world or default_world()
        self.listeners: list[EventListener] = list(listeners)
        self.writer = StepWriter(self.clock, self.store, self.listeners)
        self.gateway = ToolGateway(
            store=self.store, cancel=self.cancel_signal, backoff_seconds=retry_backoff_seconds
        )

    # ------------------------------------------------------------------ host API

    def request_cancel(self) -> None:
        """Cancel this runtime's current or next step from any thread."""
        self._local_cancel.set()

    def versions(self) -> VersionBundle:
        return VersionBundle(
            model=getattr(self.model, "name", type(self.model).__name__),
            model_kind=getattr(self.model, "kind", "llm"),
            prompt=PROMPT_VERSION,
            schema_version=NEXT_ACTION_SCHEMA_VERSION,
            policy=POLICY_VERSION,
            toolset=TOOLSET_VERSION,
        )

    def start(self, state: AtlasState) -> AtlasState:
        """queued -> researching; sets the deadline; emits `run_started`."""
        if state.status != "queued":
            return state
        s = state.clone()
        buf = StepBuffer()
        now = self.clock.now()
        s.versions = self.versions()
        s.started_at = now
        s.deadline_at = now + timedelta(seconds=s.budgets.deadline_seconds)
        self.writer.set_status(s, "researching", None)
        s.progress_history = [progress_signature(s)]
        self.writer.emit(
            s,
            buf,
            "run_started",
            subject=s.brief.subject,
            subject_type=s.brief.subject_type,
            jurisdiction=s.brief.jurisdiction,
            documents=[d.model_dump() for d in s.brief.documents],
            budgets=s.budgets.model_dump(mode="json"),
            versions=s.versions.model_dump(),
            deadline_at=s.deadline_at,
        )
        return self.writer.commit(s, buf)

    def run_until_pause(
        self, state: AtlasState, keep_going: Callable[[], bool] = lambda: True
    ) -> AtlasState:
        """step() while researching and keep_going() (a lease check, for example)."""
        if state.status == "queued":
            state = self.start(state)
        while state.status == "researching" and keep_going():
            state = self.step(state)
        return state

    def step(self, state: AtlasState) -> AtlasState:
        """Exactly one iteration (a model decision), or one approved action; committed."""
        if state.status != "researching":
            return state
        s = state.clone()
        buf = StepBuffer()
        s.step += 1
        if self.cancel_signal.is_set():
            return self.writer.commit(cancelled(self.writer, s, buf), buf)
        if s.approved_action is not None:
            call = s.approved_action
            s.approved_action = None
            s = self._run_tool(s, buf, call)
            return self.writer.commit(s, buf)
        s = self._model_iteration(s, buf)
        return self.writer.commit(s, buf)

    def cancel(self, state: AtlasState) -> AtlasState:
        """cancelled/cancelled with `run_cancelled`, for a run no worker is stepping."""
        if state.is_terminal:
            return state
        s = state.clone()
        buf = StepBuffer()
        return self.writer.commit(cancelled(self.writer, s, buf), buf)

    def resume_after_crash(self, state: AtlasState) -> AtlasState:
        """`run_resumed`; a tool call left in flight is reconciled by idempotency key
        before anything is retried: a call the store says succeeded is not run again."""
        s = state.clone()
        buf = StepBuffer()
        now = self.clock.now()
        shift_deadline(s, now, since=s.paused_at or s.updated_at)
        in_flight = s.in_flight
        self.writer.emit(
            s,
            buf,
            "run_resumed",
            status=s.status,
            in_flight=in_flight.idempotency_key if in_flight else None,
        )
        if in_flight is not None:
            s.in_flight = None
            record = self.store.find_tool_call(in_flight.idempotency_key)
            call = ProposedToolCall(
                action_id=f"{s.run_id}:reconcile:{in_flight.step}",
                tool_name=in_flight.tool_name,
                arguments=in_flight.arguments,
                signature=in_flight.signature,
                step=in_flight.step,
                idempotency_key=in_flight.idempotency_key,
            )
            spec = self.registry.get(in_flight.tool_name)
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
                s = self._absorb_outcome(s, buf, call, spec, outcome, record.idempotency_key)
            elif s.status == "researching":
                # Effect unknown and every tool here is a read: run it again, same key.
                s.approved_action = call
        return self.writer.commit(s, buf)

    def apply_human_input(self, state: AtlasState, human_input: HumanInput) -> AtlasState:
        """Apply one human decision; idempotent by decision_id. Raises HumanInputRejected
        when the input does not fit the run's current state."""
        if human_input.decision_id in state.applied_decision_ids:
            return state
        if state.is_terminal:
            raise HumanInputRejected(f"The run is already {state.status}.")
        s = state.clone()
        buf = StepBuffer()
        now = self.clock.now()
        s = apply_human_input(self.writer, s, buf, human_input, now)
        s.applied_decision_ids.append(human_input.decision_id)
        return self.writer.commit(s, buf)

    # ------------------------------------------------------------------ plumbing

    def _next_fault(self, s: AtlasState, tool: str) -> str:
        plan = s.fault_plan.get(tool, [])
        index = s.tool_fault_cursors.get(tool, 0)
        s.tool_fault_cursors[tool] = index + 1
        return plan[index] if index < len(plan) else "ok"

    # ------------------------------------------------------------------ one iteration

    def validate_finish(self, s: AtlasState, packet: DueDiligencePacket) -> list[str]:
        """Deterministic checks a proposed packet must pass (schema-valid is not enough)."""
        return validate_finish(s, packet)

    def _model_iteration(self, s: AtlasState, buf: StepBuffer) -> AtlasState:
        context = build_context(s, self.registry, self.tenant_policy)
        # Never reserve less than the biggest call so far: an estimate can be wrong.
        reserved_tokens = max(
            estimate_tokens(context.text()) + s.budgets.max_output_tokens,
            s.largest_model_call_tokens,
        )
        price = (
            self.model.price_per_1k_tokens() if hasattr(self.model, "price_per_1k_tokens") else None
        )
        reserved_cost = model_cost_reservation(s, reserved_tokens, price)
        stop = check_model_call(s, Reservation(reserved_tokens, reserved_cost), self.clock.now())
        if stop:
            return budget_stop(self.writer, s, buf, stop)
        s.iteration += 1
        self.writer.emit(
            s,
            buf,
            "model_requested",
            iteration=s.iteration,
            reserved_tokens=reserved_tokens,
            reserved_cost_usd=reserved_cost,
            model=s.versions.model,
        )
        started = self.clock.monotonic()
        try:
            reply = self.model.decide(context)
        except Exception as error:  # an adapter bug is a model failure, not a crash
            reply = ModelReply(
                transport_error="adapter_error", error_message=f"{type(error).__name__}: {error}"
            )
        s.model_cursor += 1
        usage = reply.usage
        if (
            reply.action is not None
            and reply.action.usage is not None
            and usage.total_tokens == 0
            and not usage.cost_usd
        ):
            usage = reply.action.usage
        s.input_tokens += usage.input_tokens
        s.output_tokens += usage.output_tokens
        s.model_cost_usd += usage.cost_usd
        s.largest_model_call_cost_usd = max(s.largest_model_call_cost_usd, usage.cost_usd)
        s.largest_model_call_tokens = max(s.largest_model_call_tokens, usage.total_tokens)
        if self.cancel_signal.is_set():
            return cancelled(self.writer, s, buf)

        action, error_type, message = self._interpret(reply)
        if action is None:
            s.consecutive_model_errors += 1
            self.writer.emit(
                s,
                buf,
                "model_failed",
                error_type=error_type,
                message=message,
                consecutive=s.consecutive_model_errors,
                raw_excerpt=(reply.raw or "")[:300],
                usage=usage,
            )
            self.writer.observe(
                s,
                buf,
                source="runtime",
                name="model_output",
                ok=False,
                error_type=error_type,
                error_message=f"Your last reply was rejected ({message}). Reply with exactly one valid NextAction JSON object.",
            )
            if reply.fatal or s.consecutive_model_errors > s.budgets.max_model_errors:
                return fail(self.writer, s, buf, "model_failure", error_type=error_type)
            return check_loop_guards(self.writer, s, buf)

        s.consecutive_model_errors = 0
        self.writer.emit(
            s,
            buf,
            "model_decision",
            duration_ms=int((self.clock.monotonic() - started) * 1000),
            kind=action.kind,
            tool_name=getattr(action, "tool_name", None),
            arguments=getattr(action, "arguments", None),
            rationale_summary=getattr(action, "rationale_summary", None),
            question=getattr(action, "question", None),
            usage=usage,
        )
        if isinstance(action, CallTool):
            s = self._handle_call_tool(s, buf, action)
        elif isinstance(action, AskHuman):
            s = ask_human(self.writer, s, buf, action)
        else:
            s = propose_finish(self.writer, s, buf, action)
        return check_loop_guards(self.writer, s, buf)

    @staticmethod
    def _interpret(
        reply: ModelReply,
    ) -> tuple[CallTool | AskHuman | Finish | None, str | None, str | None]:
        if reply.transport_error:
            return (
                None,
                f"transport_{reply.transport_error}",
                reply.error_message or reply.transport_error,
            )
        if reply.action is not None:
            return reply.action, None, None
        if reply.raw is None:
            return None, "empty_output", "The model returned nothing."
        try:
            return parse_next_action(reply.raw), None, None
        except InvalidModelOutput as error:
            return None, error.error_type, error.message

    # ------------------------------------------------------------------ decisions

    def _handle_call_tool(self, s: AtlasState, buf: StepBuffer, action: CallTool) -> AtlasState:
        name = action.tool_name
        spec = self.registry.get(name)
        if spec is None:
            s.decision_history.append(f"call_tool:{name}:{short_hash(action.arguments)}")
            self.writer.emit(s, buf, "tool_rejected", tool=name, reason="unknown_tool")
            self.writer.observe(
                s,
                buf,
                source="runtime",
                name=name,
                ok=False,
                error_type="unknown_tool",
                error_message=f"There is no tool named {name!r}. Tools: {', '.join(self.registry.names())}.",
            )
            return s
        try:
            args = spec.args_model.model_validate(action.arguments)
        except ValidationError as error:
            s.decision_history.append(f"call_tool:{name}:{short_hash(action.arguments)}")
            problems = [
                f"{'.'.join(str(p) for p in e['loc']) or 'arguments'}: {e['msg']}"
                for e in error.errors()[:5]
            ]
            self.writer.emit(
                s, buf, "tool_rejected", tool=name, reason="invalid_arguments", errors=problems
            )
            self.writer.observe(
                s,
                buf,
                source="runtime",
                name=name,
                ok=False,
                error_type="invalid_arguments",
                error_message="Invalid arguments: " + "; ".join(problems),
            )
            return s
        normalized = args.model_dump(mode="json", exclude_none=True)
        signature = action_signature(name, normalized)
        s.decision_history.append(f"call_tool:{name}:{signature[:12]}")
        if signature in s.denied_signatures:
            s.policy_denials += 1
            reason = "This exact action was denied before and stays blocked."
            self.writer.emit(
                s, buf, "policy_denied", tool=name, arguments=normalized, reason=reason
            )
            self.writer.observe(
                s,
                buf,
                source="runtime",
                name=name,
                ok=False,
                error_type="policy_denied",
                error_message=reason,
            )
            return s
        verdict = evaluate(s, spec, args, self.tenant_policy)
        if verdict.outcome == "deny":
            s.policy_denials += 1
            reason = " ".join(verdict.reasons)
            s.denied_signatures.append(signature)
            s.denied_actions.append({"tool": name, "arguments": normalized, "reason": reason})
            self.writer.emit(
                s, buf, "policy_denied", tool=name, arguments=normalized, reason=reason
            )
            self.writer.observe(
                s,
                buf,
                source="runtime",
                name=name,
                ok=False,
                error_type="policy_denied",
                error_message=reason,
            )
            return s
        if s.action_counts.get(signature, 0) >= 1:
            self.writer.emit(s, buf, "duplicate_action_blocked", tool=name, arguments=normalized)
            self.writer.observe(
                s,
                buf,
                source="runtime",
                name=name,
                ok=False,
                error_type="duplicate_action",
                error_message="Identical action blocked: this tool already ran with these arguments. Change the plan or the arguments.",
            )
            return s
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
            s.pending_approval = call
            self.writer.set_status(s, "awaiting_review", "awaiting_approval")
            self.writer.emit(
                s,
                buf,
                "approval_requested",
                action_id=call.action_id,
                tool=name,
                arguments=normalized,
                reasons=verdict.reasons,
                estimated_cost_usd=spec.price_usd,
            )
            return s
        return self._run_tool(s, buf, call)

    def _run_tool(self, s: AtlasState, buf: StepBuffer, call: ProposedToolCall) -> AtlasState:
        spec = self.registry.get(call.tool_name)
        assert spec is not None
        stop = check_tool_call(s, spec.price_usd, self.clock.now())
        if stop:
            return budget_stop(self.writer, s, buf, stop)
        args = spec.args_model.model_validate(call.arguments)
        key = call.idempotency_key or idempotency_key(s.run_id, s.step, call.signature)
        started_at = self.clock.now()
        s.in_flight = InFlightToolCall(
            idempotency_key=key,
            tool_name=spec.name,
            arguments=call.arguments,
            signature=call.signature,
            step=s.step,
        )
        record = ToolCallRecord(
            idempotency_key=key,
            run_id=s.run_id,
            step=s.step,
            tool=spec.name,
            arguments=call.arguments,
            effect_status="intended",
            attempts=1,
            started_at=started_at,
        )
        self.writer.emit(
            s,
            buf,
            "tool_started",
            tool=spec.name,
            arguments=call.arguments,
            idempotency_key=key,
            attempt=1,
        )
        buf.tool_calls.append(record)
        s = self.writer.commit(s, buf, intent=True)

        ctx = ToolContext(brief=s.brief, documents=self.documents, world=self.world)
        outcome = self.gateway.execute(
            spec,
            args,
            key=key,
            ctx=ctx,
            next_fault=lambda: self._next_fault(s, spec.name),
            emit=lambda type_, **data: self.writer.emit(s, buf, type_, **data),
            max_retries=s.budgets.max_tool_retries,
        )
        finished_at = self.clock.now()
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
        self.store.save_tool_call(record)  # durable before the state commit (crash window)
        buf.tool_calls.append(record)
        s.in_flight = None
        s.tool_cost_usd += outcome.cost_usd
        return self._absorb_outcome(s, buf, call, spec, outcome, key)

    def _absorb_outcome(
        self,
        s: AtlasState,
        buf: StepBuffer,
        call: ProposedToolCall,
        spec: ToolSpec,
        outcome: ToolOutcome,
        key: str,
    ) -> AtlasState:
        name = spec.name
        if outcome.status == "cancelled":
            return cancelled(self.writer, s, buf)
        if outcome.status == "succeeded":
            s.consecutive_tool_failures = 0
            s.action_counts[call.signature] = s.action_counts.get(call.signature, 0) + 1
            s.executed_actions.append({"tool": name, "arguments": call.arguments, "step": s.step})
            result = outcome.result or {}
            known_evidence = {e.evidence_id for e in s.evidence}
            known_conflicts = {c.conflict_id for c in s.conflicts}
            reducer.apply_in_place(
                s,
                CallTool(tool_name=name, arguments=call.arguments),
                result,
                step=s.step,
                now=self.clock.now(),
                arguments=call.arguments,
            )
            new_evidence = [e for e in s.evidence if e.evidence_id not in known_evidence]
            payload, omitted = _model_payload(result)
            view, truncated = model_view(f"tool:{name}", payload)
            stored_chars = len(json.dumps(result, default=str))
            if omitted or truncated:
                self.writer.emit(
                    s,
                    buf,
                    "result_truncated",
                    tool=name,
                    idempotency_key=key,
                    stored_chars=stored_chars,
                    shown_chars=min(len(view), MODEL_VIEW_LIMIT + 200),
                )
            summary = _summary(name, result, len(new_evidence))
            self.writer.emit(
                s,
                buf,
                "tool_succeeded",
                duration_ms=outcome.duration_ms,
                tool=name,
                idempotency_key=key,
                summary=summary,
                cost_usd=outcome.cost_usd,
                source_ids=[e.evidence_id for e in new_evidence],
                attempts=outcome.attempts,
                reconciled=outcome.reconciled,
            )
            cited = [e.evidence_id for e in new_evidence] or _result_evidence_ids(
                s, name, step=s.step
            )
            self.writer.observe(
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
                if conflict.conflict_id not in known_conflicts:
                    self.writer.emit(
                        s,
                        buf,
                        "conflict_detected",
                        conflict_id=conflict.conflict_id,
                        fact=conflict.fact,
                        entity_id=conflict.entity_id,
                        values=[v.model_dump(mode="json") for v in conflict.values],
                    )
            return s
        self.writer.observe(
            s,
            buf,
            source="tool",
            name=name,
            ok=False,
            error_type=outcome.error_type,
            error_message=f"{outcome.error_message} (after {outcome.attempts} attempt(s))",
        )
        if outcome.status == "domain_error":
            # The provider answered; asking again with the same arguments gives the same answer.
            s.action_counts[call.signature] = s.action_counts.get(call.signature, 0) + 1
            return s
        if outcome.status == "forbidden":
            return fail(
                self.writer, s, buf, "tool_failure", tool=name, error_type=outcome.error_type
            )
        s.consecutive_tool_failures += 1
        if s.consecutive_tool_failures >= s.budgets.max_consecutive_tool_failures:
            return fail(
                self.writer, s, buf, "tool_failure", tool=name, error_type=outcome.error_type
            )
        return s

    # ------------------------------------------------------------------ human input


# ---------------------------------------------------------------------- helpers


def _model_payload(result: dict[str, Any]) -> tuple[dict[str, Any], int]:
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


def _summary(tool: str, result: dict[str, Any], new_items: int) -> str:
    if tool == "resolve_entity":
        count = len(result.get("candidates", []))
        return f"Found {count} registry candidate(s) for '{result.get('query', '')}'."
    if tool == "screen_sanctions":
        hits = len(result.get("hits", []))
        return f"Sanctions screening found {hits} hit(s) across {len(result.get('lists_checked', []))} lists."
    if tool == "search_adverse_media":
        count = len(result.get("articles", []))
        return f"Found {count} article(s) for '{result.get('query', '')}', {new_items} new piece(s) of evidence."
    if tool == "extract_uploaded_document":
        return f"Extracted {len(result.get('fields', {}))} field type(s) from {result.get('name', 'the document')}."
    return f"{tool} succeeded."


def _result_evidence_ids(s: AtlasState, tool: str, step: int) -> list[str]:
    return [e.evidence_id for e in s.evidence if e.tool == tool and e.step == step]


# ---------------------------------------------------------------------- building runs


def make_model(spec: Any, *, price_table: Any = None) -> DecisionMaker:
    """ "playbook" | "scripted:FILE" | "openai:MODEL" | ScriptedModelSpec | a DecisionMaker."""
    from atlas.runtime.adapters.openai import OpenAIChatModel
    from atlas.runtime.adapters.scripted import ScriptedModel

    if spec is None or spec == "playbook":
        return Playbook()
    if isinstance(spec, ScriptedModelSpec):
        return ScriptedModel(spec.turns)
    if isinstance(spec, str):
        if spec.startswith("scripted:"):
            return ScriptedModel.from_file(spec.split(":", 1)[1])
        if spec.startswith("openai:") and spec.split(":", 1)[1]:
            return OpenAIChatModel(spec.split(":", 1)[1], prices=price_table)
        raise ValueError(f"unknown model {spec!r}: use playbook, scripted:FILE or openai:MODEL")
    if hasattr(spec, "decide"):
        return spec
    raise ValueError(f"unknown model {spec!r}")


def build_runtime(
    model: Any = None,
    *,
    scenario: Scenario | None = None,
    store: RunStore | None = None,
    clock: Clock | None = None,
    cancel: CancelSignal | None = None,
    documents: DocumentSource | None = None,
    tenant_policy: TenantPolicy | None = None,
    registry: ToolRegistry | None = None,
    world: World | None = None,
    listeners: Sequence[EventListener] = (),
    price_table: Any = None,
    retry_backoff_seconds: float = 0.05,
) -> Runtime:
    """Build a Runtime from a model spec: "playbook", "scripted:FILE", "openai:MODEL"
    (a `model` argument overrides the scenario's model), or a DecisionMaker instance.
    A scenario's `human.cancel_on` becomes a listener that cancels at the nth event."""
    spec = model if model is not None else (scenario.model if scenario is not None else "playbook")
    runtime = Runtime(
        make_model(spec, price_table=price_table),
        registry=registry,
        tenant_policy=tenant_policy,
        store=store,
        clock=clock,
        cancel=cancel,
        documents=documents,
        world=world,
        listeners=listeners,
        retry_backoff_seconds=retry_backoff_seconds,
    )
    if scenario is not None and scenario.human.cancel_on is not None:
        runtime.listeners.append(
            _cancel_on(runtime, scenario.human.cancel_on.event, scenario.human.cancel_on.nth)
        )
    return runtime


def _cancel_on(runtime: Runtime, event_type: str, nth: int) -> EventListener:
    seen = {"count": 0}

    def listener(event: TraceEventRecord) -> None:
        if event.type == event_type:
            seen["count"] += 1
            if seen["count"] == nth:
                runtime.request_cancel()

    return listener


def scenario_documents(scenario: Scenario) -> tuple[MemoryDocumentSource, list[AttachedDocument]]:
    """Read a scenario's documents from disk into an in-memory source."""
    source = MemoryDocumentSource()
    attached: list[AttachedDocument] = []
    for document in scenario.case.documents:
        path = scenario.document_path(document)
        content = Path(path).read_bytes()
        document_id = "doc-" + hashlib.sha256(content).hexdigest()[:12]
        name = document.name or Path(path).name
        content_type = "application/pdf" if name.lower().endswith(".pdf") else "text/plain"
        source.add(
            StoredDocument(
                document_id=document_id, name=name, content_type=content_type, content=content
            )
        )
        attached.append(
            AttachedDocument(document_id=document_id, name=name, sensitive=document.sensitive)
        )
    return source, attached


def state_for_scenario(
    scenario: Scenario,
    *,
    run_id: str,
    case_id: str = "case-1",
    tenant_id: str = "tenant-1",
    documents: Sequence[AttachedDocument] = (),
    opened_by: str | None = None,
    budget_overrides: dict[str, Any] | None = None,
) -> AtlasState:
    budgets = Budgets(**{**scenario.budgets.overrides(), **(budget_overrides or {})})
    brief = CaseBrief(
        subject=scenario.case.subject,
        subject_type=scenario.case.subject_type,
        jurisdiction=scenario.case.jurisdiction,
        notes=scenario.case.notes,
        documents=list(documents),
    )
    return new_state(
        run_id=run_id,
        case_id=case_id,
        tenant_id=tenant_id,
        brief=brief,
        budgets=budgets,
        fault_plan=scenario.tool_faults,
        opened_by=opened_by,
    )


def drive(runtime: Runtime, state: AtlasState, human: HumanScript | None = None) -> AtlasState:
    """Headless: run until pause, answering questions and approvals from the script."""
    human = human or HumanScript()
    answers = list(human.answers)
    approvals = list(human.approvals)
    state = runtime.run_until_pause(state)
    count = 0
    while True:
        count += 1
        if state.status == "waiting_for_input" and state.pending_question and answers:
            decision: HumanInput = ClarificationAnswer(
                decision_id=f"{state.run_id}:script:{count}",
                actor="scenario-analyst",
                question_id=state.pending_question.question_id,
                text=answers.pop(0),
            )
        elif (
            state.termination_reason == "awaiting_approval" and state.pending_approval and approvals
        ):
            word = approvals.pop(0)
            decision = ApprovalDecision(
                decision_id=f"{state.run_id}:script:{count}",
                actor="scenario-reviewer",
                action_id=state.pending_approval.action_id,
                approved=word == "approve",
                reason=f"scripted {word}",
            )
        else:
            return state
        state = runtime.apply_human_input(state, decision)
        state = runtime.run_until_pause(state)


def run_record(state: AtlasState, events: Sequence[TraceEventRecord]) -> dict[str, Any]:
    """The run record DESIGN.md's `run_case --json` prints."""
    return {
        "run_id": state.run_id,
        "status": state.status,
        "termination_reason": state.termination_reason,
        "user_status": state.user_status,
        "iterations": state.iteration,
        "tokens": state.tokens,
        "cost_usd": str(state.cost_usd),
        "packet": state.proposed_packet.model_dump(mode="json") if state.proposed_packet else None,
        "conflicts": [c.model_dump(mode="json") for c in state.conflicts],
        "trace": [{"seq": e.seq, "type": e.type, "step": e.step, "data": e.data} for e in events],
    }


def run_scenario(
    scenario: Scenario,
    *,
    model: Any = None,
    run_id: str = "run-1",
    store: MemoryRunStore | None = None,
    clock: Clock | None = None,
    tenant_policy: TenantPolicy | None = None,
    budget_overrides: dict[str, Any] | None = None,
) -> tuple[AtlasState, MemoryRunStore]:
    """Run a scenario headless against an in-memory store (tests, demos)."""
    store = store or MemoryRunStore()
    documents, attached = scenario_documents(scenario)
    runtime = build_runtime(
        model,
        scenario=scenario,
        store=store,
        clock=clock,
        documents=documents,
        tenant_policy=tenant_policy,
    )
    state = state_for_scenario(
        scenario, run_id=run_id, documents=attached, budget_overrides=budget_overrides
    )
    state = runtime.start(state)
    return drive(runtime, state, scenario.human), store
