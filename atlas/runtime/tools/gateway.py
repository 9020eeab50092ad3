"""The tool gateway: runs one validated tool call with faults, timeout, retries, cancel.

The engine records the intent (and the first `tool_started`) before calling `execute`.
The tool runs on a helper thread (atlas.runtime.watched_calls) while the gateway watches the
CancelSignal and the timeout, so either interrupts even a slow tool promptly (the abandoned
call is told to stop through its context's `stop` event). A tool whose spec says it
`runs_inline` (a bounded in-memory lookup: under a millisecond for most calls, a few at
most) runs in the caller's thread instead, as the hand-off to a helper would cost more than
most calls; it is judged the same way once it returns. An injected delay always runs on a
helper. A cancel is also checked before every attempt, retries included: no attempt starts
once it is set.

The run's deadline bounds the call too: an attempt's timeout is capped at the time left
before it (by the runtime's clock), and no attempt or retry starts that could not be met.
"""

from __future__ import annotations

import functools
import hashlib
import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any

from pydantic import BaseModel, ValidationError

from atlas.runtime.budgets import seconds_until
from atlas.runtime.ports import CancelSignal, Clock, RunStore
from atlas.runtime.tools.base import (
    EffectUnknown,
    MalformedResult,
    ToolContext,
    ToolError,
    ToolForbidden,
    ToolNotFound,
    ToolSpec,
    TransportError,
)
from atlas.runtime.tools.receipts import PROVIDER_RECEIPTS
from atlas.runtime.watched_calls import (
    MIN_CALL_SECONDS,
    Interrupted,
    call_inline,
    call_watched,
)
from atlas.runtime.wording import counted

OVERSIZED_BYTES = 150_000

Emit = Callable[..., None]


def canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=str, ensure_ascii=False)


def fingerprint(value: Any) -> str:
    return hashlib.sha256(canonical_json(value).encode()).hexdigest()


def action_signature(tool_name: str, normalized_arguments: dict[str, Any]) -> str:
    """Same tool, same arguments up to letter case: the same action."""
    folded = {
        key: value.casefold() if isinstance(value, str) else value
        for key, value in normalized_arguments.items()
    }
    return fingerprint({"tool": tool_name, "arguments": folded})[:24]


def idempotency_key(run_id: str, step: int, signature: str) -> str:
    return f"{run_id}:{step}:{signature[:16]}"


class _Cancelled(Exception):
    pass


@dataclass
class ToolOutcome:
    status: str  # succeeded | domain_error | failed | forbidden | cancelled
    effect_status: str  # succeeded | failed | unknown | cancelled
    attempts: int
    duration_ms: int
    result: dict[str, Any] | None = None
    error_type: str | None = None
    error_message: str | None = None
    retryable: bool = False
    cost_usd: Decimal = Decimal("0")
    reconciled: bool = False
    out_of_time: bool = False  # the run's deadline cut the call short or left no retry


class ToolGateway:
    def __init__(
        self,
        *,
        store: RunStore | None,
        cancel: CancelSignal,
        clock: Clock,
        backoff_seconds: float = 0.05,
    ) -> None:
        self.store = store
        self.cancel = cancel
        self.clock = clock
        self.backoff_seconds = backoff_seconds

    def execute(
        self,
        spec: ToolSpec,
        args: BaseModel,
        *,
        key: str,
        ctx: ToolContext,
        next_fault: Callable[[], str],
        emit: Emit,
        max_retries: int,
        deadline_at: datetime | None = None,
        first_attempt: int = 1,
    ) -> ToolOutcome:
        """`first_attempt` > 1: the call is run again after its earlier holder died mid-call
        (its attempts are counted on, its retries anew)."""
        started = time.monotonic()
        attempt = first_attempt
        while True:
            if self.cancel.is_set():
                return _cancelled(spec, attempt, started, emit, "Cancelled before the tool ran.")
            fault = next_fault()
            try:
                timeout = min(spec.timeout_seconds, self._seconds_left(deadline_at))
                result = self._attempt(spec, args, ctx, fault, timeout, key)
                return ToolOutcome(
                    status="succeeded",
                    effect_status="succeeded",
                    attempts=attempt,
                    duration_ms=_ms(started),
                    result=result,
                    cost_usd=spec.price_usd,
                )
            except _Cancelled:
                message = "Cancelled while the tool was running."
                return _cancelled(spec, attempt, started, emit, message)
            except ToolError as error:
                if isinstance(error, EffectUnknown):
                    reconciled = self._reconcile(key)
                    if reconciled is not None:
                        return ToolOutcome(
                            status="succeeded",
                            effect_status="succeeded",
                            attempts=attempt,
                            duration_ms=_ms(started),
                            result=reconciled,
                            cost_usd=spec.price_usd,
                            reconciled=True,
                        )
                backoff = self.backoff_seconds * (2 ** (attempt - first_attempt))
                out_of_time = error.retryable and (
                    self._seconds_left(deadline_at) - backoff < MIN_CALL_SECONDS
                )
                can_retry = (
                    error.retryable
                    and spec.retry_class == "safe_to_retry"
                    and attempt - first_attempt < max_retries
                    and not out_of_time
                )
                if can_retry:
                    emit(
                        "tool_retryable_failure",
                        tool=spec.name,
                        error_type=error.error_type,
                        message=error.message,
                        retryable=True,
                        attempt=attempt,
                    )
                    if self.cancel.wait(backoff):
                        message = "Cancelled while waiting to retry."
                        return _cancelled(spec, attempt, started, emit, message)
                    attempt += 1
                    emit(
                        "tool_started",
                        tool=spec.name,
                        # As the first attempt's event gives them: without defaults.
                        arguments=args.model_dump(mode="json", exclude_unset=True),
                        idempotency_key=key,
                        attempt=attempt,
                    )
                    continue
                emit(
                    "tool_failed",
                    duration_ms=_ms(started),
                    tool=spec.name,
                    error_type=error.error_type,
                    message=error.message,
                    retryable=error.retryable,
                    attempt=attempt,
                )
                if isinstance(error, ToolForbidden):
                    status = "forbidden"
                elif isinstance(error, ToolNotFound):
                    status = "domain_error"
                else:
                    status = "failed"
                return ToolOutcome(
                    status=status,
                    effect_status="unknown" if isinstance(error, EffectUnknown) else "failed",
                    attempts=attempt,
                    duration_ms=_ms(started),
                    error_type=error.error_type,
                    error_message=error.message,
                    retryable=error.retryable,
                    cost_usd=spec.price_usd if status == "domain_error" else Decimal("0"),
                    out_of_time=out_of_time,
                )

    def _seconds_left(self, deadline_at: datetime | None) -> float:
        return seconds_until(deadline_at, self.clock.now())

    def _reconcile(self, key: str) -> dict[str, Any] | None:
        """What the call with this key did: as this run's store recorded it (a call an
        earlier holder of the run completed), or as the provider answered it."""
        if self.store is not None:
            record = self.store.find_tool_call(key)
            if record is not None and record.effect_status == "succeeded" and record.result:
                return record.result
        return PROVIDER_RECEIPTS.lookup(key)

    def _attempt(
        self,
        spec: ToolSpec,
        args: BaseModel,
        ctx: ToolContext,
        fault: str,
        timeout: float,
        key: str,
    ) -> dict[str, Any]:
        if timeout < MIN_CALL_SECONDS:
            raise TransportError("timeout", f"{spec.name} was not started: no time left")
        limit = f"{spec.timeout_seconds:g} s"
        if timeout < spec.timeout_seconds:
            limit = f"{timeout:.1f} s, the time left before the run's deadline"
        ctx.stop = threading.Event()
        run = functools.partial(_run_with_fault, spec, args, ctx, fault, ctx.stop, key)
        try:
            if spec.runs_inline and not fault.startswith("slow:"):
                return call_inline(run, cancel=self.cancel, seconds=timeout)
            return call_watched(run, cancel=self.cancel, seconds=timeout, stop=ctx.stop)
        except Interrupted as cut:
            if cut.cause == "cancelled":
                raise _Cancelled from None
            raise TransportError("timeout", f"{spec.name} did not answer within {limit}") from None
        except ToolError:
            raise
        except Exception as error:
            raise MalformedResult(
                f"{spec.name} crashed: {type(error).__name__}: {error}"
            ) from error


def _cancelled(
    spec: ToolSpec, attempt: int, started: float, emit: Emit, message: str
) -> ToolOutcome:
    emit(
        "tool_failed",
        duration_ms=_ms(started),
        tool=spec.name,
        error_type="cancelled",
        message=message,
        retryable=False,
        attempt=attempt,
    )
    return ToolOutcome(
        status="cancelled",
        effect_status="cancelled",
        attempts=attempt,
        duration_ms=_ms(started),
        error_type="cancelled",
        error_message=message,
    )


def _run_with_fault(
    spec: ToolSpec,
    args: BaseModel,
    ctx: ToolContext,
    fault: str,
    stop: threading.Event,
    key: str,
) -> dict[str, Any]:
    if fault.startswith("slow:"):
        if stop.wait(float(fault.split(":", 1)[1])):
            raise TransportError("timeout", "stopped")
    elif fault == "timeout":
        raise TransportError("timeout", f"{spec.name} timed out (transport)")
    elif fault == "rate_limited":
        raise TransportError("rate_limited", f"{spec.name} is rate limited (HTTP 429)")
    elif fault == "forbidden":
        raise ToolForbidden(f"{spec.name}: the provider refused our credentials (HTTP 403)")
    elif fault == "not_found":
        raise ToolNotFound(f"{spec.name}: the provider has no record for these arguments")
    raw = spec.handler(args, ctx)
    payload = raw.model_dump(mode="json") if isinstance(raw, BaseModel) else raw
    try:
        result = spec.result_model.model_validate(payload).model_dump(mode="json")
    except ValidationError as error:
        raise MalformedResult(
            f"{spec.name} returned a result that breaks its contract: "
            f"{counted(error.error_count(), 'error')}"
        ) from error
    PROVIDER_RECEIPTS.record(key, result)
    if fault == "effect_unknown":
        raise EffectUnknown(f"{spec.name}: connection lost after the request was sent")
    if fault == "oversized":
        filler = "Provider page dump. " * (OVERSIZED_BYTES // 20)
        result["raw"] = filler
    return result


def _ms(started: float) -> int:
    return int((time.monotonic() - started) * 1000)
