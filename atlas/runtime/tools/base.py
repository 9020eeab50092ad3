"""What a tool is: schemas, price, timeout, retry class, and its typed errors."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from functools import cache
from typing import Any, Literal

from pydantic import BaseModel

from atlas.runtime.ports import DocumentSource
from atlas.runtime.state import CaseBrief

RetryClass = Literal["safe_to_retry", "never_retry"]


class ToolError(Exception):
    """Base of typed tool errors: `error_type` and whether a retry may help."""

    error_type = "tool_error"
    retryable = False

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class TransportError(ToolError):
    retryable = True

    def __init__(self, error_type: str, message: str) -> None:
        super().__init__(message)
        self.error_type = error_type


class ToolForbidden(ToolError):
    """Authorization failure: no retry or replan fixes it."""

    error_type = "forbidden"


class ToolNotFound(ToolError):
    """Domain error returned to the model (unknown entity id, ...)."""

    error_type = "not_found"


class DocumentUnavailable(ToolError):
    """An attached document whose file cannot be read: no retry or other arguments help."""

    error_type = "document_unavailable"


class EffectUnknown(ToolError):
    """The call may or may not have taken effect; reconcile by idempotency key."""

    error_type = "effect_unknown"
    retryable = True


class MalformedResult(ToolError):
    error_type = "malformed_result"


@dataclass
class ToolContext:
    brief: CaseBrief
    documents: DocumentSource | None
    world: Any
    stop: threading.Event = field(default_factory=threading.Event)


@dataclass(frozen=True)
class ToolSpec:
    name: str
    description: str
    args_model: type[BaseModel]
    result_model: type[BaseModel]
    handler: Callable[[BaseModel, ToolContext], BaseModel | dict]
    price_usd: Decimal
    timeout_seconds: float
    retry_class: RetryClass = "safe_to_retry"
    evidence_class: str = ""
    # Bounded in-memory work that answers well within a poll slice of the watched call
    # (atlas.runtime.watched_calls): run in the caller's thread, where a helper thread's
    # hand-off would cost more than the call and there is nothing to cut off.
    runs_inline: bool = False

    def argument_schema(self) -> dict[str, Any]:
        """Generated once per arguments model and shared: treat it as read-only."""
        return _json_schema_of(self.args_model)


@cache
def _json_schema_of(model: type[BaseModel]) -> dict[str, Any]:
    return model.model_json_schema()
