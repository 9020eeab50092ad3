"""The one protocol every decision maker implements."""

from __future__ import annotations

from typing import Protocol

from pydantic import BaseModel, Field

from atlas.runtime.context import ModelContext
from atlas.runtime.decisions import AskHuman, CallTool, Finish, Usage


class ModelReply(BaseModel):
    """Raw text or an already parsed action, usage, or a transport error."""

    action: CallTool | AskHuman | Finish | None = None
    raw: str | None = None
    usage: Usage = Field(default_factory=Usage)
    # The endpoint did not report usable token counts: `usage` is the runtime's estimate.
    usage_estimated: bool = False
    transport_error: str | None = None  # timeout | rate_limited | server_error | ...
    error_message: str | None = None
    # A failure no repair turn can fix (a script that ran out, a refused key).
    fatal: bool = False
    # What an endpoint said of its reply: the model that answered, and why it stopped.
    provider_model: str | None = None
    finish_reason: str | None = None
    # Requests this one call sent, when an endpoint was asked again after a failure.
    requests: int | None = None
    # An endpoint that said when to call again (Retry-After), in seconds from its reply.
    retry_after_seconds: float = 0.0


class DecisionMaker(Protocol):
    name: str
    kind: str  # rule-based | scripted | llm
    # False for a decision maker that answers from memory at once: the runtime calls it
    # in place. Otherwise the call runs on a helper thread the runtime can stop waiting for
    # on a cancel or at the deadline.
    waits_on_network: bool

    def decide(self, context: ModelContext) -> ModelReply: ...

    def price_per_1k_tokens(self):  # -> Decimal | None, for budget reservations
        ...
