"""Recording one step: its trace events and observations, buffered, then committed with the
state in one ``store.commit_step``; listeners hear the events only after the commit, watchers
as each is recorded (a scripted person acting "on" an event must act when it happens, not
after the tool call that follows it in the same step)."""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from typing import Any

from pydantic import BaseModel

from atlas.runtime.budgets import shift_deadline
from atlas.runtime.context import MAX_EXECUTED_ACTIONS_SHOWN, MAX_OBSERVATIONS_SHOWN, model_view
from atlas.runtime.jurisdiction_risk import (
    high_risk_nationalities,
    high_risk_registrations,
    high_risk_residences,
)
from atlas.runtime.ports import (
    Clock,
    ObservationRecord,
    RunStore,
    StepCommit,
    ToolCallRecord,
    TraceEventRecord,
)
from atlas.runtime.state import AtlasState, ObservationNote, user_status_for

# Named for the module these records were first logged from, so log filters keep working.
logger = logging.getLogger("atlas.runtime.engine")

EventListener = Callable[[TraceEventRecord], None]
# The state is written whole on every commit (one or two per tool call), so its histories are
# kept to what their readers look at; the whole record lives in the store (observations,
# trace events, tool calls). The context shows the last observations and executed actions,
# cycle detection reads 9 decisions, no-progress detection max_no_progress + 1 signatures.
MAX_OBSERVATIONS_IN_STATE = MAX_OBSERVATIONS_SHOWN
MAX_EXECUTED_ACTIONS_IN_STATE = MAX_EXECUTED_ACTIONS_SHOWN
MAX_DECISIONS_IN_STATE = 30


@dataclass
class StepBuffer:
    events: list[TraceEventRecord] = field(default_factory=list)
    observations: list[ObservationRecord] = field(default_factory=list)
    tool_calls: list[ToolCallRecord] = field(default_factory=list)
    # A step whose changes wait for the next commit (see Runtime.run_until_pause).
    unsaved_step: bool = False


def jsonable(value: Any) -> Any:
    """A copy of `value` made of JSON's types, as a JSON round trip would give it."""
    try:
        return _plain_copy(value)
    except (_NotPlain, RecursionError):
        return json.loads(json.dumps(value, default=_json_default))


def _json_default(obj: Any) -> Any:
    if isinstance(obj, Decimal):
        return str(obj)
    if isinstance(obj, datetime):
        return obj.isoformat()
    if isinstance(obj, BaseModel):
        return obj.model_dump(mode="json")
    if isinstance(obj, set | frozenset):
        return sorted(obj)
    return str(obj)


class _NotPlain(Exception):
    """A value _plain_copy leaves to the JSON round trip."""


_JSON_SCALARS = frozenset({str, int, float, bool, type(None)})


def _plain_copy(value: Any) -> Any:
    """The round trip's result without the text in between, for the types it converts
    the same way every time (exact types only: a subclass of str or int, a key that is
    not a string, a set, anything else raises _NotPlain)."""
    kind = type(value)
    if kind in _JSON_SCALARS:
        return value
    if kind is dict:
        copy = {}
        for key, item in value.items():
            if type(key) is not str:
                raise _NotPlain
            copy[key] = _plain_copy(item)
        return copy
    if kind is list or kind is tuple:
        return [_plain_copy(item) for item in value]
    if kind is Decimal:
        return str(value)
    if kind is datetime:
        return value.isoformat()
    if isinstance(value, BaseModel):
        return _plain_copy(value.model_dump(mode="json"))
    raise _NotPlain


def short_hash(value: Any) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True, default=str).encode()).hexdigest()[:12]


class StepWriter:
    """Stamps events with the clock, keeps the state's histories short, commits."""

    def __init__(
        self,
        clock: Clock,
        store: RunStore,
        listeners: list[EventListener],
        watchers: list[EventListener],
    ) -> None:
        self.clock = clock
        self.store = store
        self.listeners = listeners
        self.watchers = watchers

    def emit(
        self,
        s: AtlasState,
        buf: StepBuffer,
        type_: str,
        duration_ms: int | None = None,
        **data: Any,
    ) -> None:
        if duration_ms is not None:
            data["duration_ms"] = duration_ms
        event = TraceEventRecord(
            run_id=s.run_id,
            seq=s.next_seq,
            step=s.step,
            type=type_,
            timestamp=self.clock.now(),
            data=jsonable(data),
            duration_ms=duration_ms,
        )
        buf.events.append(event)
        s.next_seq += 1
        for watcher in self.watchers:
            watcher(event)

    def observe(
        self,
        s: AtlasState,
        buf: StepBuffer,
        *,
        source: str,
        name: str,
        ok: bool,
        data: Any = None,
        view: str | None = None,
        error_type: str | None = None,
        error_message: str | None = None,
        source_ids: Sequence[str] = (),
    ) -> None:
        if view is None:
            payload = data if ok else {"error_type": error_type, "message": error_message}
            view, _ = model_view(f"{source}:{name}", payload)
        note = ObservationNote(
            step=s.step,
            source=source,  # type: ignore[arg-type]
            name=name,
            ok=ok,
            model_view=view,
            error_type=error_type,
            error_message=error_message,
            source_ids=list(source_ids),
        )
        s.observations.append(note)
        del s.observations[:-MAX_OBSERVATIONS_IN_STATE]
        buf.observations.append(
            ObservationRecord(
                run_id=s.run_id,
                step=s.step,
                source=source,  # type: ignore[arg-type]
                name=name,
                ok=ok,
                data=jsonable(data),
                model_view=view,
                error_type=error_type,
                error_message=error_message,
                source_ids=list(source_ids),
            )
        )

    def set_status(
        self, s: AtlasState, status: str, reason: str | None, sentence: str | None = None
    ) -> None:
        """`sentence` says more than the reason code's own one, where a case needs it."""
        s.status = status  # type: ignore[assignment]
        s.termination_reason = reason  # type: ignore[assignment]
        s.user_status = sentence or user_status_for(status, reason)
        now = self.clock.now()
        # However a pause ends (research resumes, a sign-off, a cancel), the time spent
        # waiting for people is not research time.
        shift_deadline(s, now, since=s.paused_at)
        if status in ("waiting_for_input", "awaiting_review"):
            s.paused_at = now

    def terminal_event(self, s: AtlasState, buf: StepBuffer, type_: str, **extra: Any) -> None:
        self.emit(
            s,
            buf,
            type_,
            status=s.status,
            reason=s.termination_reason,
            user_status=s.user_status,
            **extra,
        )

    def commit(self, s: AtlasState, buf: StepBuffer, *, intent: bool = False) -> AtlasState:
        del s.executed_actions[:-MAX_EXECUTED_ACTIONS_IN_STATE]
        del s.decision_history[:-MAX_DECISIONS_IN_STATE]
        del s.progress_history[: -(s.budgets.max_no_progress + 1)]
        # Derived here, so what the pages read from the stored state is what was committed.
        s.high_risk_registrations = high_risk_registrations(s)
        s.high_risk_residences = high_risk_residences(s)
        s.high_risk_nationalities = high_risk_nationalities(s)
        expected = s.version
        s.version = expected + 1
        s.updated_at = self.clock.now()
        # The store serializes the state during the call (see StepCommit), so the live
        # object is handed over instead of a deep copy.
        commit = StepCommit(
            run_id=s.run_id,
            expected_version=expected,
            state=s,
            events=list(buf.events),
            observations=list(buf.observations),
            # The last record of a call is its latest: a held step's outcome and the next
            # step's intent may share one commit.
            tool_calls=list({r.idempotency_key: r for r in buf.tool_calls}.values()),
        )
        try:
            if intent:
                self.store.record_tool_intent(commit)
            else:
                self.store.commit_step(commit)
        except BaseException:
            # An intent commit too may carry a held step's outcome.
            self.keep_tool_results(commit)
            buf.tool_calls.clear()
            raise
        events = list(buf.events)
        buf.events.clear()
        buf.observations.clear()
        buf.tool_calls.clear()
        buf.unsaved_step = False
        for event in events:  # side effects only after the commit
            for listener in self.listeners:
                try:
                    listener(event)
                except Exception:  # a listener must never break the run
                    logger.exception("trace listener failed on %s", event.type)
        return s

    def keep_tool_results(self, unsaved: StepCommit | StepBuffer) -> None:
        """A tool's result normally becomes durable with the step that absorbs it. When
        that commit fails (a lost lease, a database error, a crash being unwound), the
        result is still saved on its own, so whoever takes the run over reconciles the
        call by its idempotency key instead of running it again."""
        for record in unsaved.tool_calls:
            if record.effect_status != "intended":
                self.keep_tool_result(record)

    def keep_tool_result(self, record: ToolCallRecord) -> None:
        """Save a finished call's record on its own (see keep_tool_results); a failure to
        save it is logged, not raised over the error being handled."""
        try:
            self.store.save_tool_call(record)
        except Exception:
            logger.exception("could not save the result of %s", record.idempotency_key)
