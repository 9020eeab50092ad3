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

import re
import threading
from collections.abc import Callable, Sequence
from datetime import timedelta
from typing import Any

from atlas.runtime.adapters.base import DecisionMaker, ModelReply
from atlas.runtime.adapters.playbook import Playbook
from atlas.runtime.budgets import (
    Reservation,
    check_model_call,
    deadline_stop,
    estimate_tokens,
    model_cost_reservation,
    overspent,
    seconds_until,
    shift_deadline,
)
from atlas.runtime.cancellation import AnyCancel
from atlas.runtime.case_documents import documents_offered
from atlas.runtime.context import PROMPT_VERSION, ModelContext, build_context
from atlas.runtime.decisions import (
    NEXT_ACTION_SCHEMA_VERSION,
    AskHuman,
    CallTool,
    Finish,
    InvalidModelOutput,
    Usage,
    parse_next_action,
    printable,
)
from atlas.runtime.finish import propose_finish
from atlas.runtime.human_inputs import apply_human_input
from atlas.runtime.humans import (
    ApprovalDecision,
    ClarificationAnswer,
    HumanInput,
    HumanInputRejected,
)
from atlas.runtime.memory import MemoryCancelSignal, MemoryRunStore, SystemClock
from atlas.runtime.policy import POLICY_VERSION, TenantPolicy
from atlas.runtime.ports import CancelSignal, Clock, DocumentSource, RunStore, TraceEventRecord
from atlas.runtime.progress import progress_signature
from atlas.runtime.questions import ask_human
from atlas.runtime.recovery import reconcile_in_flight, settle_before_cancel
from atlas.runtime.scenario import CancelOn, HumanScript, Scenario, ScriptedModelSpec
from atlas.runtime.scenario_runs import run_record, scenario_documents, state_for_scenario
from atlas.runtime.state import PAUSED_STATUSES, AtlasState, VersionBundle
from atlas.runtime.step_writer import EventListener, StepBuffer, StepWriter
from atlas.runtime.stops import budget_stop, cancelled, check_loop_guards, fail
from atlas.runtime.tool_requests import request_tool_call, run_approved_call
from atlas.runtime.tools.gateway import ToolGateway
from atlas.runtime.tools.registry import TOOLSET_VERSION, ToolRegistry, default_registry
from atlas.runtime.watched_calls import Interrupted, call_watched
from atlas.runtime.world import World, default_world

# A model call given up with less time than this left ended for the deadline.
DEADLINE_MARGIN_SECONDS = 0.1
# Of an endpoint's error, what the status sentence quotes: the longest sentence around it
# stays within USER_STATUS_MAX_LENGTH.
MODEL_FAILURE_DETAIL_CHARS = 150

# Names hosts and tests import from here; some now live in the modules the loop uses.
__all__ = [
    "Runtime",
    "build_runtime",
    "drive",
    "make_model",
    "run_record",
    "run_scenario",
    "state_for_scenario",
]


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
        # A scenario's cancel due a moment after an event, once that event happened.
        self.scripted_cancel: threading.Timer | None = None
        self.cancel_signal = AnyCancel(cancel, self._local_cancel)
        self.documents = documents
        self.world = world or default_world()
        self.listeners: list[EventListener] = list(listeners)
        self.watchers: list[EventListener] = []
        self.writer = StepWriter(self.clock, self.store, self.listeners, self.watchers)
        self.gateway = ToolGateway(
            store=self.store,
            cancel=self.cancel_signal,
            clock=self.clock,
            backoff_seconds=retry_backoff_seconds,
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
        s.high_risk_jurisdictions = list(self.tenant_policy.high_risk_jurisdictions)
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
        self,
        state: AtlasState,
        keep_going: Callable[[], bool] = lambda: True,
        *,
        hand_back_waits: bool = False,
    ) -> AtlasState:
        """step() while researching and keep_going() (a lease check, for example).

        With `hand_back_waits`, return instead of waiting for a model endpoint that asked
        the run to call again later: the host parks the run until `model_wait_seconds`.
        """
        if state.status == "queued":
            state = self.start(state)
        given = state
        # A decision maker that answers at once (the playbook, a script) decides the next
        # step within a millisecond of a tool's end: that step's first commit carries the
        # tool's outcome too, one durable write per iteration instead of two.
        held = StepBuffer()
        hold = not getattr(self.model, "waits_on_network", True)
        try:
            while state.status == "researching" and keep_going():
                if hand_back_waits and self._must_wait_for_model(state):
                    break
                # A state a step returned is held by nobody but this loop: the next step
                # changes it in place instead of copying the whole state again.
                state = self._step(
                    state.clone() if state is given else state, held, hold_outcome=hold
                )
        except BaseException:
            self.writer.keep_tool_results(held)
            raise
        if held.unsaved_step:
            state = self.writer.commit(state, held)
        if state.status in PAUSED_STATUSES and self.cancel_signal.is_set():
            # Cancelled as the run paused (say, on the event that paused it): no worker
            # steps a paused run, so end it here, as the console's cancel of one does.
            state = self.cancel(state)
        return state

    def step(self, state: AtlasState) -> AtlasState:
        """Exactly one iteration (a model decision), or one approved action; committed."""
        if state.status != "researching":
            return state
        return self._step(state.clone(), StepBuffer())

    def _step(self, s: AtlasState, buf: StepBuffer, *, hold_outcome: bool = False) -> AtlasState:
        """step() on a state the runtime may change: a copy, or one only it holds. With
        `hold_outcome`, a step that leaves the run researching is not committed: it stays
        in `buf` for the next step's first commit."""
        if s.approved_action is None or not s.approved_action.continues_step:
            s.step += 1
        if s.high_risk_jurisdictions != self.tenant_policy.high_risk_jurisdictions:
            s.high_risk_jurisdictions = list(self.tenant_policy.high_risk_jurisdictions)
        s.nationality_counts = self.tenant_policy.nationality_counts
        if self.cancel_signal.is_set():
            return self.writer.commit(cancelled(self.writer, s, buf), buf)
        if s.approved_action is not None:
            call = s.approved_action
            s.approved_action = None
            s = run_approved_call(self, s, buf, call)
        else:
            s = self._model_iteration(s, buf)
        if hold_outcome and s.status == "researching" and not self.cancel_signal.is_set():
            buf.unsaved_step = True
            return s
        return self.writer.commit(s, buf)

    def cancel(self, state: AtlasState) -> AtlasState:
        """cancelled/cancelled with `run_cancelled`, for a run no worker is stepping."""
        if state.is_terminal:
            return state
        s = state.clone()
        buf = StepBuffer()
        if s.in_flight is not None:
            s = settle_before_cancel(self, s, buf, s.in_flight)
        return self.writer.commit(cancelled(self.writer, s, buf), buf)

    def resume_after_crash(self, state: AtlasState) -> AtlasState:
        """`run_resumed`; a tool call left in flight is reconciled by idempotency key
        before anything is retried: a call the store says succeeded is not run again."""
        s = state.clone()
        buf = StepBuffer()
        now = self.clock.now()
        stalled_since = s.paused_at or s.updated_at
        shift_deadline(s, now, since=stalled_since)
        in_flight = s.in_flight
        self.writer.emit(
            s,
            buf,
            "run_resumed",
            cause="recovery",
            status=s.status,
            in_flight=in_flight.idempotency_key if in_flight else None,
            # Since the run's last committed step: its previous holder stopped, and its
            # lease had to run out before this worker could take the run over.
            waited_seconds=round((now - stalled_since).total_seconds(), 3)
            if stalled_since
            else None,
        )
        if in_flight is not None:
            s = reconcile_in_flight(self, s, buf, in_flight)
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
        offered = (
            documents_offered(self.documents, human_input)
            if isinstance(human_input, ClarificationAnswer)
            else []
        )
        s = apply_human_input(self.writer, s, buf, human_input, offered)
        s.applied_decision_ids.append(human_input.decision_id)
        return self.writer.commit(s, buf)

    def reject_human_input(
        self, state: AtlasState, human_input: HumanInput, reason: str
    ) -> AtlasState:
        """Settle a decision that cannot apply to the run as it now stands: recorded in the
        trace and the state, so it is never retried against a later state."""
        if (
            human_input.decision_id in state.applied_decision_ids
            or human_input.decision_id in state.rejected_decisions
        ):
            return state
        s = state.clone()
        buf = StepBuffer()
        s.rejected_decisions[human_input.decision_id] = reason
        self.writer.emit(
            s,
            buf,
            "human_input_rejected",
            decision_id=human_input.decision_id,
            kind=human_input.kind,
            actor=human_input.actor,
            reason=reason,
        )
        return self.writer.commit(s, buf)

    # ------------------------------------------------------------------ one iteration

    def model_wait_seconds(self, state: AtlasState) -> float:
        """How long the model's endpoint asked the run to wait before calling it again,
        within the run's time (the budget check stops a run whose deadline comes first)."""
        if state.model_retry_at is None or state.approved_action is not None:
            return 0.0
        now = self.clock.now()
        wait = seconds_until(state.model_retry_at, now)
        if state.deadline_at is not None:
            wait = min(wait, seconds_until(state.deadline_at, now))
        return max(wait, 0.0)

    def _must_wait_for_model(self, state: AtlasState) -> bool:
        """The next step is a model call the endpoint asked to delay, and nothing (a cancel
        or a spent budget) ends the run before it."""
        if self.cancel_signal.is_set() or self.model_wait_seconds(state) <= 0:
            return False
        _, reservation = self._model_call_reservation(state)
        return check_model_call(state, reservation, self.clock.now()) is None

    def _model_call_reservation(self, s: AtlasState) -> tuple[ModelContext, Reservation]:
        context = build_context(s, self.registry, self.tenant_policy)
        # Never reserve less than the biggest call so far: an estimate can be wrong.
        reserved_tokens = max(
            estimate_tokens(context.request_text()) + s.budgets.max_output_tokens,
            s.largest_model_call_tokens,
        )
        price = (
            self.model.price_per_1k_tokens() if hasattr(self.model, "price_per_1k_tokens") else None
        )
        return context, Reservation(
            reserved_tokens, model_cost_reservation(s, reserved_tokens, price)
        )

    def _model_iteration(self, s: AtlasState, buf: StepBuffer) -> AtlasState:
        context, reservation = self._model_call_reservation(s)
        stop = check_model_call(s, reservation, self.clock.now())
        if stop is None and (wait := self.model_wait_seconds(s)) > 0:
            # Checked before the wait too, so a spent budget never waits for nothing.
            if self.cancel_signal.wait(wait):
                return cancelled(self.writer, s, buf)
            stop = check_model_call(s, reservation, self.clock.now())
        if stop:
            return budget_stop(self.writer, s, buf, stop)
        s.model_retry_at = None
        # An iteration is one model decision: a reply that is none is repaired within the
        # same iteration, and max_model_errors bounds how many times in a row.
        iteration = s.iteration + 1
        self.writer.emit(
            s,
            buf,
            "model_requested",
            iteration=iteration,
            reserved_tokens=reservation.tokens,
            reserved_cost_usd=reservation.cost_usd,
            model=s.versions.model,
        )
        started = self.clock.monotonic()
        try:
            reply = self._ask_model(context, s)
        except Interrupted as cut:
            return self._abandon_model_call(s, buf, cut, reservation)
        if reply.transport_error and self._out_of_time(s):
            # The adapter gave up only because the run's time was up: a deadline, not a
            # model failure, and charged as a call the runtime stopped waiting for.
            return self._abandon_model_call(s, buf, Interrupted("timed_out"), reservation)
        s.model_cursor += 1
        usage = reply.usage
        # Said only when there is something to say, so a trace of a playbook's or a
        # script's run reads as it always has.
        reply_notes = {"usage_estimated": True} if reply.usage_estimated else {}
        reply_notes.update(
            reply.model_dump(
                include={"provider_model", "finish_reason", "requests"}, exclude_none=True
            )
        )
        if (
            reply.action is not None
            and reply.action.usage is not None
            and usage.total_tokens == 0
            and not usage.cost_usd
        ):
            usage = reply.action.usage
        _charge(s, usage)
        # A reply that came after a cancel is recorded with its usage, so the trace adds up
        # to what the run was charged, and then nothing of it is done.
        cancel_requested = self.cancel_signal.is_set()

        action, error_type, message = self._interpret(reply)
        if reply.retry_after_seconds:
            s.model_retry_at = self.clock.now() + timedelta(seconds=reply.retry_after_seconds)
            reply_notes["retry_after_seconds"] = reply.retry_after_seconds
        if action is None:
            # An endpoint that asked to be called again later is waited for, not held
            # against the model: the run's deadline and budgets bound the waiting.
            if not (reply.transport_error and reply.retry_after_seconds):
                s.consecutive_model_errors += 1
                s.consecutive_transport_errors += bool(reply.transport_error)
            self.writer.emit(
                s,
                buf,
                "model_failed",
                error_type=error_type,
                message=printable(message or ""),
                consecutive=s.consecutive_model_errors,
                raw_excerpt=printable((reply.raw or "")[:300]),
                usage=usage,
                **reply_notes,
            )
            if not reply.transport_error:  # a request that failed has no reply to repair
                self.writer.observe(
                    s,
                    buf,
                    source="runtime",
                    name="model_output",
                    ok=False,
                    error_type=error_type,
                    error_message=f"Your last reply was rejected ({printable(message or '')}). Reply with exactly one valid NextAction JSON object.",
                )
            if cancel_requested:
                return cancelled(self.writer, s, buf)
            if reply.fatal or s.consecutive_model_errors > s.budgets.max_model_errors:
                return fail(
                    self.writer,
                    s,
                    buf,
                    "model_failure",
                    sentence=_model_failure_sentence(s, reply, printable(message or "")),
                    error_type=error_type,
                )
            # No decision, so nothing for the cycle or no-progress guards to judge.
            return s

        s.iteration = iteration
        s.consecutive_model_errors = s.consecutive_transport_errors = 0
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
            **reply_notes,
            **({"not_acted_on": "cancelled"} if cancel_requested else {}),
        )
        if cancel_requested:
            return cancelled(self.writer, s, buf)
        if (stop := overspent(s)) is not None:
            return budget_stop(self.writer, s, buf, stop)
        if isinstance(action, CallTool):
            s = request_tool_call(self, s, buf, action)
        elif isinstance(action, AskHuman):
            s = ask_human(self.writer, s, buf, action)
        else:
            s = propose_finish(self.writer, s, buf, action)
        return check_loop_guards(self.writer, s, buf)

    def _ask_model(self, context: ModelContext, s: AtlasState) -> ModelReply:
        """The model's reply. A decision maker that waits on the network is called on a
        helper thread, and Interrupted is raised when the run is cancelled or its deadline
        passes first."""
        try:
            if not getattr(self.model, "waits_on_network", True):
                return self.model.decide(context)
            context.time_limit_seconds = seconds_until(s.deadline_at, self.clock.now())
            return call_watched(
                lambda: self.model.decide(context),
                cancel=self.cancel_signal,
                seconds=context.time_limit_seconds,
                stop=context.abandoned,
            )
        except Interrupted:
            raise
        except Exception as error:  # an adapter bug is a model failure, not a crash
            return ModelReply(
                transport_error="adapter_error", error_message=f"{type(error).__name__}: {error}"
            )

    def _out_of_time(self, s: AtlasState) -> bool:
        if s.deadline_at is None:
            return False
        return seconds_until(s.deadline_at, self.clock.now()) < DEADLINE_MARGIN_SECONDS

    def _abandon_model_call(
        self, s: AtlasState, buf: StepBuffer, cut: Interrupted, reservation: Reservation
    ) -> AtlasState:
        """The run stopped waiting for the model: cancelled, or out of time."""
        s.model_cursor += 1
        # The provider may still bill a call answered after the runtime stopped waiting:
        # what was reserved for it is counted, and said to be an estimate.
        output_tokens = min(s.budgets.max_output_tokens, reservation.tokens)
        usage = Usage(
            input_tokens=reservation.tokens - output_tokens,
            output_tokens=output_tokens,
            cost_usd=reservation.cost_usd,
        )
        _charge(s, usage)
        by_cancel = cut.cause == "cancelled"
        self.writer.emit(
            s,
            buf,
            "model_failed",
            error_type="cancelled" if by_cancel else "deadline",
            message=(
                "The run was cancelled while the model was answering."
                if by_cancel
                else "The run's deadline came while the model was answering."
            ),
            consecutive=s.consecutive_model_errors,
            usage=usage,
            usage_estimated=True,
        )
        if by_cancel:
            return cancelled(self.writer, s, buf)
        return budget_stop(self.writer, s, buf, deadline_stop(s, self.clock.now()))

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


def _model_failure_sentence(s: AtlasState, reply: ModelReply, message: str) -> str | None:
    """What the run's page says when model failures stop it: the reason code's own sentence
    ("kept returning unusable answers") unless no request in the row got a reply."""
    if s.consecutive_transport_errors < s.consecutive_model_errors:
        return None
    detail = message[:MODEL_FAILURE_DETAIL_CHARS].rstrip(".")
    if re.match(r"[A-Z][a-z]*\b", detail):  # a sentence, not a name ("ValueError: …")
        detail = detail[0].lower() + detail[1:]
    if reply.transport_error == "adapter_error":  # raised inside the adapter: no endpoint
        return f"The model failed with an error of its own ({detail}); the run stopped."
    if reply.transport_error == "http_error" and "response_format" in message:
        return (
            f"The model endpoint does not take the decision's JSON schema as its response "
            f"format ({detail}), so the run stopped: use a server or model with structured "
            "output (json_schema)."
        )
    if reply.transport_error == "http_error":
        return (
            f"The model endpoint refused the request ({detail}), so the run stopped: check "
            "the model's address, key and name in the settings."
        )
    if reply.fatal:
        return f"The model could not go on ({detail}); the run stopped."
    return f"The model endpoint kept failing ({detail}); the run stopped."


def _charge(s: AtlasState, usage: Usage) -> None:
    s.input_tokens += usage.input_tokens
    s.output_tokens += usage.output_tokens
    s.model_cost_usd += usage.cost_usd
    s.largest_model_call_cost_usd = max(s.largest_model_call_cost_usd, usage.cost_usd)
    s.largest_model_call_tokens = max(s.largest_model_call_tokens, usage.total_tokens)


# ---------------------------------------------------------------------- building runs


def make_model(spec: Any, *, openai_options: dict[str, Any] | None = None) -> DecisionMaker:
    """ "playbook" | "scripted:FILE" | "openai:MODEL" | ScriptedModelSpec | a DecisionMaker.
    `openai_options` are OpenAIChatModel's keyword arguments (endpoint, key, time limit,
    prices) for an "openai:MODEL" spec."""
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
            return OpenAIChatModel(spec.split(":", 1)[1], **(openai_options or {}))
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
    openai_options: dict[str, Any] | None = None,
    retry_backoff_seconds: float = 0.05,
) -> Runtime:
    """Build a Runtime from a model spec: "playbook", "scripted:FILE", "openai:MODEL"
    (a `model` argument overrides the scenario's model), or a DecisionMaker instance.
    A scenario's `human.cancel_on` becomes a watcher that cancels at the nth event, as
    that event is recorded."""
    spec = model if model is not None else (scenario.model if scenario is not None else "playbook")
    runtime = Runtime(
        make_model(spec, openai_options=openai_options),
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
        runtime.watchers.append(_cancel_on(runtime, scenario.human.cancel_on))
    return runtime


def _cancel_on(runtime: Runtime, cancel_on: CancelOn) -> EventListener:
    seen = {"count": 0}

    def listener(event: TraceEventRecord) -> None:
        if event.type == cancel_on.event:
            seen["count"] += 1
            if seen["count"] != cancel_on.nth:
                return
            if cancel_on.after_seconds:
                timer = threading.Timer(cancel_on.after_seconds, runtime.request_cancel)
                timer.daemon = True
                timer.start()
                runtime.scripted_cancel = timer
            else:
                runtime.request_cancel()

    return listener


def drive(
    runtime: Runtime,
    state: AtlasState,
    human: HumanScript | None = None,
    keep_going: Callable[[], bool] = lambda: True,
) -> AtlasState:
    """Headless: run until pause, answering questions and approvals from the script (and
    stopping early, still researching, once keep_going() says so)."""
    human = human or HumanScript()
    answers = list(human.answers)
    approvals = list(human.approvals)
    state = runtime.run_until_pause(state, keep_going)
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
            return _cancelled_as_scripted(runtime, state)
        state = runtime.apply_human_input(state, decision)
        state = runtime.run_until_pause(state, keep_going)


def _cancelled_as_scripted(runtime: Runtime, state: AtlasState) -> AtlasState:
    """A scripted cancel due a moment after an event is pressed even when the run paused
    in between (the event was the question it paused on, say): the paused run is cancelled
    once the moment comes, not left waiting with the cancel forgotten."""
    timer = runtime.scripted_cancel
    if timer is not None and not state.is_terminal:
        # Any other cancel (Ctrl+C) ends the wait too.
        while timer.is_alive() and not runtime.cancel_signal.wait(0.1):
            pass
    if runtime.cancel_signal.is_set() and not state.is_terminal:
        return runtime.cancel(state)
    return state


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
