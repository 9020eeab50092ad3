"""A run's trace for admins: events grouped by step, one page at a time.

The state change a step made is derived from what the step recorded (its events and
observations), not from stored snapshots: the store keeps only the latest state, and a
per-step copy of a growing state would make long runs expensive to store. Each event type
maps to the state fields it changes (status, iteration, tokens, cost, sources, conflicts,
pending question / approval, blocked actions, packet), so the "diff" is exact for those
fields and says nothing about fields no event mentions.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Any

from atlas.runtime.money import budget_dollars, dollars
from atlas.runtime.redaction import redact_value
from atlas.runtime.wording import counted
from runs.models import Observation, Run, TraceEvent
from runs.step_views import takeover_wait

PAGE_EVENTS = 120
MODEL_VIEW_CHARS = 2_000
STORED_CHARS = 4_000

# The status a run is in after an event of this type (run_* events carry their own).
STATUS_AFTER = {
    "run_started": "researching",
    "run_resumed": "researching",
    "clarification_requested": "waiting_for_input",
    "clarification_received": "researching",
    "approval_requested": "awaiting_review",
    "approval_granted": "researching",
    "approval_denied": "researching",
    "finish_proposed": "awaiting_review",
    "escalated": "awaiting_review",
    "budget_extended": "researching",
    "conflict_resolved": "researching",
    "packet_approved": "completed",
    "run_completed": "completed",
    "run_failed": "failed",
    "run_cancelled": "cancelled",
}
PAUSED_STATUSES = frozenset({"waiting_for_input", "awaiting_review"})
TONE = {
    "tool_succeeded": "ok",
    "finish_proposed": "ok",
    "run_completed": "ok",
    "tool_failed": "bad",
    "run_failed": "bad",
    "policy_denied": "bad",
    "budget_exhausted": "bad",
    "model_failed": "warn",
    "tool_rejected": "warn",
    "tool_retryable_failure": "warn",
    "duplicate_action_blocked": "warn",
    "final_rejected": "warn",
    "conflict_detected": "warn",
    "no_progress_detected": "warn",
    "cycle_detected": "warn",
    "escalated": "warn",
    "run_cancelled": "warn",
    "clarification_requested": "human",
    "clarification_received": "human",
    "approval_requested": "human",
    "approval_granted": "human",
    "approval_denied": "human",
    "packet_rejected": "human",
    "document_marked_sensitive": "human",
    "document_added": "human",
}
TONE_ORDER = {"": 0, "ok": 1, "human": 2, "warn": 3, "bad": 4}


def money(value: Any) -> Decimal:
    try:
        return Decimal(str(value)) if value not in (None, "") else Decimal("0")
    except (InvalidOperation, ValueError):
        return Decimal("0")


def clip(value: Any, limit: int) -> tuple[str, int]:
    """Text for display, at most `limit` characters, and the full length."""
    text = (
        value
        if isinstance(value, str)
        else json.dumps(value, indent=2, ensure_ascii=False, default=str)
    )
    return (text if len(text) <= limit else text[:limit] + " …"), len(text)


def _compact(arguments: Any) -> str:
    if not isinstance(arguments, dict):
        return ""
    return ", ".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in arguments.items())


def event_summary(event: TraceEvent) -> str:
    data = event.data or {}
    kind = event.type
    if kind == "model_decision":
        if data.get("kind") == "call_tool":
            return f"call {data.get('tool_name', '?')}({_compact(data.get('arguments'))})"
        if data.get("kind") == "ask_human":
            return f"ask: {data.get('question', '')}"
        return str(data.get("kind", ""))
    if kind == "run_started":
        where = f", {data['jurisdiction']}" if data.get("jurisdiction") else ""
        documents = counted(len(data.get("documents") or []), "document")
        model = (data.get("versions") or {}).get("model", "")
        subject = f"{data.get('subject', '')} ({data.get('subject_type', '')}{where})"
        return f"{subject}, {documents}, model {model}"
    if kind == "run_resumed":
        cause = str(data.get("cause", "")).replace("_", " ")
        if data.get("waited_seconds") is not None:
            return f"{cause} {takeover_wait(data['waited_seconds'])}"
        return cause
    if kind == "model_requested":
        return (
            f"iteration {data.get('iteration', '?')}: reserved "
            f"{data.get('reserved_tokens', '?')} tokens, "
            f"{dollars(money(data['reserved_cost_usd'])) if 'reserved_cost_usd' in data else '$?'}"
        )
    if kind == "result_truncated":
        return (
            f"{data.get('tool', '')}: {data.get('stored_chars', '?')} chars stored, "
            f"{data.get('shown_chars', '?')} shown to the model"
        )
    if kind == "model_failed":
        failed = f"{data.get('error_type', '')}: {data.get('message', '')}".strip(": ")
        return failed + (f"; it wrote: {data['raw_excerpt']}" if data.get("raw_excerpt") else "")
    if kind == "tool_started":
        return f"{data.get('tool', '')} attempt {data.get('attempt', 1)}"
    if kind == "tool_succeeded":
        return f"{data.get('tool', '')}: {data.get('summary', '')}"
    if kind in {"tool_failed", "tool_retryable_failure"}:
        return f"{data.get('error_type', '')}: {data.get('message', '')}".strip(": ")
    if kind in {"policy_denied", "tool_rejected"}:
        return f"{data.get('tool', '')}: {data.get('reason', '')}"
    if kind == "duplicate_action_blocked":
        return f"{data.get('tool', '')}({_compact(data.get('arguments'))})"
    if kind == "clarification_requested":
        return str(data.get("question", ""))
    if kind == "clarification_received":
        return str(data.get("answer", data.get("text", "")))
    if kind == "approval_requested":
        return f"{data.get('tool', '')}: {'; '.join(data.get('reasons') or [])}"
    if kind == "packet_rejected":
        return str(data.get("reason", ""))
    if kind == "document_added":
        return f"{data.get('name', '')}: attached since the run started"
    if kind == "document_marked_sensitive":
        return f"{data.get('name', '')}: marked sensitive after the run started"
    if kind == "conflict_detected":
        values = " vs ".join(str(v.get("value")) for v in data.get("values") or [])
        return f"{data.get('fact', '')}: {values}"
    if kind == "budget_exhausted":
        return f"{data.get('budget', '')}: {data.get('used', '')} of {data.get('limit', '')}"
    if kind == "final_rejected":
        errors = " ".join(str(e) for e in data.get("errors") or [])  # each a sentence
        packet = data.get("packet")
        if not isinstance(packet, dict):
            return errors
        findings = len(packet.get("findings") or [])
        return (
            f"{errors} (refused packet: risk {packet.get('risk_rating', '?')}, findings {findings})"
        )
    if kind == "finish_proposed":
        packet = data.get("packet") or {}
        return (
            f"risk {packet.get('risk_rating', '?')}, "
            f"{counted(len(packet.get('findings') or []), 'finding')}"
        )
    if kind == "escalated":
        return str(data.get("reason", ""))
    if kind in {"run_completed", "run_failed", "run_cancelled"}:
        return f"{data.get('status', '')} / {data.get('reason', '')}"
    return ""


@dataclass
class EventRow:
    seq: int
    type: str
    offset_s: float
    duration_ms: int | None
    summary: str
    tone: str


@dataclass
class ObservationPair:
    name: str
    source: str
    ok: bool
    error: str
    model_view: str
    model_view_chars: int
    stored: str
    stored_chars: int


@dataclass
class TraceStep:
    number: int
    first_seq: int = 0
    last_seq: int = 0
    offset_s: float = 0.0
    duration_ms: int = 0  # the run's own time; waiting for a person is `waited_s`
    # Waiting for a stopped worker's lease to run out before the run was taken over.
    stalled_s: float = 0.0
    paused_at_s: float | None = None
    waited_s: float = 0.0
    tokens: int = 0
    cost_usd: Decimal = field(default_factory=lambda: Decimal("0"))
    title: str = ""
    tone: str = ""
    events: list[EventRow] = field(default_factory=list)
    changes: list[tuple[str, str]] = field(default_factory=list)
    observations: list[ObservationPair] = field(default_factory=list)

    @property
    def dom_id(self) -> str:
        return f"trace-step-{self.number}"

    def mark(self, tone: str) -> None:
        if TONE_ORDER.get(tone, 0) > TONE_ORDER.get(self.tone, 0):
            self.tone = tone


def _title(event: TraceEvent) -> str:
    data = event.data or {}
    if event.type == "model_decision":
        kind = data.get("kind")
        if kind == "call_tool":
            return str(data.get("tool_name") or "tool call")
        if kind == "ask_human":
            return "ask the analyst"
        if kind == "finish":
            return "finish"
    if event.type == "tool_started" and data.get("tool"):
        # A step that runs a call a reviewer approved has no decision of its own.
        return str(data["tool"])
    return event.type.replace("_", " ")


class StateTracker:
    """Walks events in order and says what each changed in the run's state."""

    def __init__(self, status: str) -> None:
        self.status = status
        self.in_flight = ""  # the idempotency key of the call under way

    def changes(self, event: TraceEvent) -> list[tuple[str, str]]:
        data = event.data or {}
        kind = event.type
        out: list[tuple[str, str]] = []
        new_status = data.get("status") if kind.startswith("run_") else None
        new_status = new_status or STATUS_AFTER.get(kind)
        if kind in {"no_progress_detected", "cycle_detected", "budget_exhausted"}:
            new_status = "awaiting_review"
        if new_status and new_status != self.status:
            reason = (
                f" ({data['reason']})" if data.get("reason") and kind.startswith("run_") else ""
            )
            out.append(("~", f"status: {self.status} → {new_status}{reason}"))
            self.status = new_status
        if kind == "model_decision":
            out.append(("~", "iteration +1"))
        if kind in TraceEvent.MODEL_CALLS:
            usage = data.get("usage") or {}
            tokens = int(usage.get("input_tokens") or 0) + int(usage.get("output_tokens") or 0)
            if tokens:
                estimated = " (estimated: the model did not report usage)"
                note = estimated if data.get("usage_estimated") else ""
                out.append(("~", f"tokens +{tokens:,}{note}"))
            if money(usage.get("cost_usd")):
                out.append(("~", f"model cost +{budget_dollars(money(usage.get('cost_usd')))}"))
        elif kind == "tool_started":
            key = data.get("idempotency_key", "")
            # The same call started again (taken over after a crash, or retried) was in flight.
            again = bool(key) and key == self.in_flight
            out.append(("~" if again else "+", f"in-flight call {key}{' again' if again else ''}"))
            self.in_flight = key
        elif kind == "tool_succeeded":
            out.append(("-", f"in-flight call {data.get('idempotency_key', '')}"))
            self.in_flight = ""
            for source in data.get("source_ids") or []:
                out.append(("+", f"evidence source {source}"))
            if money(data.get("cost_usd")):
                out.append(("~", f"tool cost +{budget_dollars(money(data.get('cost_usd')))}"))
        elif kind == "tool_failed":
            out.append(("-", "in-flight call (failed)"))
            self.in_flight = ""
        elif kind == "conflict_detected":
            out.append(("+", f"conflict {data.get('conflict_id', '')} on {data.get('fact', '')}"))
        elif kind == "conflict_resolved":
            out.append(("~", f"conflict {data.get('conflict_id', '')} resolved"))
        elif kind == "clarification_requested":
            out.append(("+", f"pending question: {data.get('question', '')}"))
        elif kind == "clarification_received":
            out.append(("-", "pending question (answered)"))
        elif kind == "approval_requested":
            out.append(("+", f"pending approval: {data.get('tool', '')}"))
        elif kind in {"approval_granted", "approval_denied"}:
            verdict = "granted" if kind == "approval_granted" else "denied"
            out.append(("-", f"pending approval ({verdict})"))
        elif kind in {"policy_denied", "duplicate_action_blocked"}:
            out.append(
                ("+", f"blocked action {data.get('tool', '')}({_compact(data.get('arguments'))})")
            )
        elif kind == "finish_proposed":
            packet = data.get("packet") or {}
            out.append(("+", f"proposed packet (risk {packet.get('risk_rating', '?')})"))
        elif kind == "budget_extended":
            out.append(("~", "budgets extended"))
        return out


def status_before(run: Run, seq: int) -> str:
    """The run's status just before event `seq`, from the last status-changing event."""
    types = [*STATUS_AFTER, "no_progress_detected", "cycle_detected", "budget_exhausted"]
    event = (
        TraceEvent.objects.filter(run=run, seq__lt=seq, type__in=types)
        .order_by("-seq")
        .only("type", "data")
        .first()
    )
    if event is None:
        return "queued"
    tracker = StateTracker("")
    tracker.changes(event)
    return tracker.status or "queued"


@dataclass
class TracePage:
    steps: list[TraceStep]
    next_after: int | None  # cursor for "load more"; None at the end of what exists now
    last_seq: int


def _observation_pairs(run: Run, step_numbers: list[int]) -> dict[int, list[ObservationPair]]:
    pairs: dict[int, list[ObservationPair]] = {}
    rows = Observation.objects.filter(run=run, step__in=step_numbers).order_by("step", "id")
    for obs in rows:
        view, view_chars = clip(
            obs.model_view if obs.model_view is not None else "", MODEL_VIEW_CHARS
        )
        # Stored whole for the audit; shown with personal data redacted, as the model saw it,
        # as far as it is shown (a 5 MB result is not redacted whole on every page view).
        stored, stored_chars = ("", 0)
        if obs.data is not None:
            stored = clip(redact_value(obs.data, chars_shown=STORED_CHARS), STORED_CHARS)[0]
            stored_chars = clip(obs.data, 0)[1]
        pairs.setdefault(obs.step, []).append(
            ObservationPair(
                name=obs.name,
                source=obs.source,
                ok=obs.ok,
                error=f"{obs.error_type}: {obs.error_message}".strip(": "),
                model_view=view,
                model_view_chars=view_chars,
                stored=stored,
                stored_chars=stored_chars,
            )
        )
    return pairs


def trace_page(run: Run, after: int = 0, limit: int | None = None) -> TracePage:
    """Steps whose events come after `after`, cut at a step boundary near `limit` events."""
    limit = limit or PAGE_EVENTS
    events = list(TraceEvent.objects.filter(run=run, seq__gt=after).order_by("seq")[: limit + 1])
    more = len(events) > limit
    if more:
        following, events = events[limit], events[:limit]
        last_step = events[-1].step
        if following.step == last_step:
            whole = [e for e in events if e.step != last_step]
            # A single step longer than a page is shown in pieces rather than all at once.
            if whole:
                events = whole
    if not events:
        return TracePage(steps=[], next_after=None, last_seq=after)
    origin = run.started_at or run.created_at
    tracker = StateTracker(status_before(run, events[0].seq))
    steps: dict[int, TraceStep] = {}
    ordered: list[TraceStep] = []
    for event in events:
        step = steps.get(event.step)
        offset = (event.timestamp - origin).total_seconds() if origin else 0.0
        if step is None or step is not ordered[-1]:
            step = TraceStep(number=event.step, first_seq=event.seq, offset_s=offset)
            steps[event.step] = step
            ordered.append(step)
        step.last_seq = event.seq
        data = event.data or {}
        if not step.title or event.type == "model_decision":
            step.title = _title(event)
        if event.type in TraceEvent.MODEL_CALLS:
            usage = data.get("usage") or {}
            step.tokens += int(usage.get("input_tokens") or 0) + int(
                usage.get("output_tokens") or 0
            )
            step.cost_usd += money(usage.get("cost_usd"))
        elif event.type == "tool_succeeded":
            step.cost_usd += money(data.get("cost_usd"))
        if event.type == "run_resumed" and data.get("waited_seconds") is not None:
            step.stalled_s += float(data["waited_seconds"])
        pauses = STATUS_AFTER.get(event.type) in PAUSED_STATUSES
        # A pause the run adds to its own before anyone acts (an escalation after its
        # packet) is still the run's time, not a person's.
        if step.paused_at_s is None or (pauses and not step.waited_s):
            # An event is stamped when what it reports is over (a tool's result after the
            # call): its own duration is already inside the span, not to be added to it.
            own_s = offset - step.offset_s - step.stalled_s
            step.duration_ms = max(step.duration_ms, int(own_s * 1000))
            if pauses:
                step.paused_at_s = offset
        else:  # a person's decision, applied within the step that paused for it
            step.waited_s = max(step.waited_s, offset - step.paused_at_s)
        tone = TONE.get(event.type, "")
        step.mark(tone)
        step.events.append(
            EventRow(
                seq=event.seq,
                type=event.type,
                offset_s=offset,
                duration_ms=event.duration_ms,
                summary=event_summary(event),
                tone=tone,
            )
        )
        step.changes.extend(tracker.changes(event))
    pairs = _observation_pairs(run, sorted(steps))
    for step in ordered:
        step.observations = pairs.pop(step.number, [])
    return TracePage(
        steps=ordered,
        next_after=events[-1].seq if more else None,
        last_seq=events[-1].seq,
    )
