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
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from decimal import Decimal, InvalidOperation
from typing import Any

from atlas.runtime.money import budget_dollars, dollars
from atlas.runtime.redaction import redact, redact_value
from atlas.runtime.state import USER_STATUS
from atlas.runtime.wording import counted, fact_about
from reviews.decision_details import BUDGET_UNITS, decision_details
from runs.models import Observation, Run, TraceEvent
from runs.step_views import takeover_wait

PAGE_EVENTS = 120
MODEL_VIEW_CHARS = 2_000
STORED_CHARS = 4_000
UNKNOWN_EVENT_CHARS = 300

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
    "packet_approved": "human",
    "packet_rejected": "human",
    "conflict_resolved": "human",
    "budget_extended": "human",
    "human_input_rejected": "warn",
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


def _quoted(text: Any) -> str:
    return f"“{text}”"


def _why(data: dict) -> str:
    """A person's reason for a decision, quoted as they gave it."""
    return f": {_quoted(data['reason'])}" if data.get("reason") else ", no reason given"


def _who(data: dict) -> str:
    return str(data.get("actor") or "someone")


def _call(data: dict) -> str:
    return f"{data.get('tool', '?')}({_compact(data.get('arguments'))})"


def _model_decision(data: dict) -> str:
    if data.get("kind") == "call_tool":
        return f"call {data.get('tool_name', '?')}({_compact(data.get('arguments'))})"
    if data.get("kind") == "ask_human":
        return f"ask: {data.get('question', '')}"
    return str(data.get("kind", ""))


def _run_started(data: dict) -> str:
    where = f", {data['jurisdiction']}" if data.get("jurisdiction") else ""
    documents = counted(len(data.get("documents") or []), "document")
    model = (data.get("versions") or {}).get("model", "")
    subject = f"{data.get('subject', '')} ({data.get('subject_type', '')}{where})"
    return f"{subject}, {documents}, model {model}"


def _run_resumed(data: dict) -> str:
    cause = str(data.get("cause", "")).replace("_", " ")
    if data.get("cause") == "human_input":
        paused_as = f" (paused as {data['paused_as']})" if data.get("paused_as") else ""
        return f"{cause} from {_who(data)}{paused_as}"
    if data.get("waited_seconds") is not None:
        return f"{cause} {takeover_wait(data['waited_seconds'])}"
    return cause


def _model_requested(data: dict) -> str:
    cost = dollars(money(data["reserved_cost_usd"])) if "reserved_cost_usd" in data else "$?"
    return (
        f"iteration {data.get('iteration', '?')}: reserved "
        f"{data.get('reserved_tokens', '?')} tokens, {cost}"
    )


def _result_truncated(data: dict) -> str:
    return (
        f"{data.get('tool', '')}: {data.get('stored_chars', '?')} chars stored, "
        f"{data.get('shown_chars', '?')} shown to the model"
    )


def _model_failed(data: dict) -> str:
    failed = f"{data.get('error_type', '')}: {data.get('message', '')}".strip(": ")
    return failed + (f"; it wrote: {data['raw_excerpt']}" if data.get("raw_excerpt") else "")


def _tool_error(data: dict) -> str:
    return f"{data.get('error_type', '')}: {data.get('message', '')}".strip(": ")


def _refused(data: dict) -> str:
    return f"{data.get('tool', '')}: {data.get('reason', '')}"


def _clarification_received(data: dict) -> str:
    said = f"{_who(data)} answered: {_quoted(data.get('answer', data.get('text', '')))}"
    if data.get("reply_to_review"):
        said += ", replying to the reviewer who sent the packet back"
    if data.get("picked_entity_id"):
        said += f"; read as registry entity {data['picked_entity_id']}"
    if data.get("ruled_out_entity_ids"):
        said += f"; ruled out {', '.join(map(str, data['ruled_out_entity_ids']))}"
    if data.get("unclear"):
        said += "; read as singling out no candidate and not saying none is the subject"
    return said


def _approval_requested(data: dict) -> str:
    return f"{data.get('tool', '')}: {'; '.join(data.get('reasons') or [])}"


def _approval_granted(data: dict) -> str:
    return f"{_who(data)} approved {_call(data)}{_why(data)}"


def _approval_denied(data: dict) -> str:
    return f"{_who(data)} denied {_call(data)}{_why(data)}"


def _rating(data: dict) -> str:
    rating = f"risk {data.get('risk_rating', '?')}"
    if data.get("proposed_risk_rating"):
        rating += f" (the agent proposed {data['proposed_risk_rating']})"
    return rating


def _dispositions(data: dict) -> str:
    dispositions = [d.get("disposition") for d in data.get("hit_dispositions") or []]
    confirmed = dispositions.count("confirmed_match")
    cleared = dispositions.count("false_positive")
    said = [
        *([counted(confirmed, "confirmed match", "confirmed matches")] if confirmed else []),
        *([counted(cleared, "false positive")] if cleared else []),
    ]
    return f"; screening matches: {', '.join(said)}" if said else ""


def _packet_approved(data: dict) -> str:
    decided = "closed the case as it stood" if data.get("closed") else "signed off the packet"
    return f"{_who(data)} {decided}{_why(data)}; {_rating(data)}{_dispositions(data)}"


def _packet_rejected(data: dict) -> str:
    return f"{_who(data)} sent the packet back{_why(data)}"


def _conflict_resolved(data: dict) -> str:
    fact = fact_about(str(data.get("fact") or "a fact"), data.get("person") or "")
    if data.get("status") == "withdrawn":
        return f"the conflict over the {fact} was withdrawn: {data.get('note', '')}"
    if data.get("status") == "unresolvable":
        said = f"{_who(data)} recorded the {fact} as unresolvable"
    else:
        said = f"{_who(data)} settled the {fact}: {_quoted(data.get('value', ''))} stands"
    return said + (f"; note: {_quoted(data['note'])}" if data.get("note") else "")


def _budget_extended(data: dict) -> str:
    added = decision_details({key: data.get(key) for key in BUDGET_UNITS})
    extra = added[0].removeprefix("Budget added: ") if added else "nothing added"
    return f"{_who(data)} extended the budgets: {extra}"


# The kinds of human input (atlas.runtime.humans), in words.
DECISION_WORDS = {
    "clarification_answer": "answer",
    "approval": "approval decision",
    "conflict_resolution": "conflict resolution",
    "budget_extension": "budget extension",
    "packet_signoff": "sign-off",
    "close_case": "closing of the case",
}


def _human_input_rejected(data: dict) -> str:
    kind = str(data.get("kind") or "decision")
    decision = DECISION_WORDS.get(kind, kind.replace("_", " "))
    return f"{decision} by {_who(data)} not applied: {data.get('reason', '')}"


def _conflict_detected(data: dict) -> str:
    values = " vs ".join(str(v.get("value")) for v in data.get("values") or [])
    person = f" of {data['person']}" if data.get("person") else ""
    return f"{data.get('fact', '')}{person}: {values}"


def _budget_exhausted(data: dict) -> str:
    return f"{data.get('budget', '')}: {data.get('used', '')} of {data.get('limit', '')}"


def _decision_words(entry: Any) -> str:
    """A decision history entry ("call_tool:NAME:HASH", "ask_human:HASH") in words."""
    kind, _, rest = str(entry).partition(":")
    if kind == "call_tool":
        return rest.partition(":")[0] or "a tool call"
    return {"ask_human": "ask the analyst"}.get(kind, kind)


def _cycle_detected(data: dict) -> str:
    period = int(data.get("period") or 0)
    actions = data.get("actions") or []
    if not period:
        return "a repeating cycle of decisions"
    cycle = " → ".join(_decision_words(action) for action in actions[:period])
    return f"{cycle}, {len(actions) // period} times over"


def _no_progress_detected(data: dict) -> str:
    return f"{counted(int(data.get('iterations') or 0), 'iteration')} without progress"


def _final_rejected(data: dict) -> str:
    errors = " ".join(str(e) for e in data.get("errors") or [])  # each a sentence
    packet = data.get("packet")
    if not isinstance(packet, dict):
        return errors
    findings = len(packet.get("findings") or [])
    return f"{errors} (refused packet: risk {packet.get('risk_rating', '?')}, findings {findings})"


def _finish_proposed(data: dict) -> str:
    packet = data.get("packet") or {}
    return (
        f"risk {packet.get('risk_rating', '?')}, "
        f"{counted(len(packet.get('findings') or []), 'finding')}"
    )


def _sentence_if_not_generic(data: dict, reason: str | None) -> str:
    """The run's status sentence, where it says more than the reason code's own one."""
    sentence = data.get("user_status")
    generic = USER_STATUS.get(reason or "") or USER_STATUS.get(data.get("status") or "")
    return f": {sentence}" if sentence and sentence != generic else ""


def _escalated(data: dict) -> str:
    reason = data.get("reason", "")
    return f"{reason}{_sentence_if_not_generic(data, reason)}"


def _run_ended(data: dict) -> str:
    said = f"{data.get('status', '')} / {data.get('reason', '')}"
    return said + _sentence_if_not_generic(data, data.get("reason"))


def _cancel_requester(data: dict) -> str:
    """Who asked for the cancel and when; nothing for an event recorded before it said."""
    if "requested_by_person" not in data:
        return ""
    if not data["requested_by_person"]:
        return "; no person asked for it (a scenario's cancel_on, or the process was stopped)"
    who = data.get("requested_by") or "someone"
    asked = str(data.get("requested_at") or "")
    return f"; asked for by {who}" + (f" at {_utc_time(asked)}" if asked else "")


def _utc_time(stamp: str) -> str:
    """An ISO timestamp as the trace page writes times: 2026-03-02 09:00:04 UTC."""
    try:
        moment = datetime.fromisoformat(stamp).astimezone(UTC)
    except ValueError:
        return stamp
    return moment.strftime("%Y-%m-%d %H:%M:%S UTC")


def _run_cancelled(data: dict) -> str:
    return _run_ended(data) + _cancel_requester(data)


SUMMARIES: dict[str, Callable[[dict], str]] = {
    "model_decision": _model_decision,
    "run_started": _run_started,
    "run_resumed": _run_resumed,
    "model_requested": _model_requested,
    "result_truncated": _result_truncated,
    "model_failed": _model_failed,
    "tool_started": lambda data: f"{data.get('tool', '')} attempt {data.get('attempt', 1)}",
    "tool_succeeded": lambda data: f"{data.get('tool', '')}: {data.get('summary', '')}",
    "tool_failed": _tool_error,
    "tool_retryable_failure": _tool_error,
    "policy_denied": _refused,
    "tool_rejected": _refused,
    "duplicate_action_blocked": _call,
    "clarification_requested": lambda data: str(data.get("question", "")),
    "clarification_received": _clarification_received,
    "approval_requested": _approval_requested,
    "approval_granted": _approval_granted,
    "approval_denied": _approval_denied,
    "packet_approved": _packet_approved,
    "packet_rejected": _packet_rejected,
    "conflict_resolved": _conflict_resolved,
    "budget_extended": _budget_extended,
    "human_input_rejected": _human_input_rejected,
    "document_added": lambda data: f"{data.get('name', '')}: attached since the run started",
    "document_marked_sensitive": (
        lambda data: f"{data.get('name', '')}: marked sensitive after the run started"
    ),
    "conflict_detected": _conflict_detected,
    "budget_exhausted": _budget_exhausted,
    "cycle_detected": _cycle_detected,
    "no_progress_detected": _no_progress_detected,
    "final_rejected": _final_rejected,
    "finish_proposed": _finish_proposed,
    "escalated": _escalated,
    "run_completed": _run_ended,
    "run_failed": _run_ended,
    "run_cancelled": _run_cancelled,
}


def event_summary(event: TraceEvent) -> str:
    """What an event holds, in a line: who decided what and why, for a person's decision."""
    return summary_of(event.type, event.data or {})


def summary_of(event_type: str, data: dict) -> str:
    summarize = SUMMARIES.get(event_type)
    if summarize is None:  # a type this page does not know yet: its data as it is
        return clip(_compact(data), UNKNOWN_EVENT_CHARS)[0]
    return summarize(data)


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
            done = "withdrawn" if data.get("status") == "withdrawn" else "resolved"
            out.append(("~", f"conflict {data.get('conflict_id', '')} {done}"))
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
                summary=redact(event_summary(event)),
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
